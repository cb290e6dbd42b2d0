"""Plane geometry for calibration: homographies, focal length from a plane homography,
camera pose, lens undistortion of points and the parallax of raised points.

Frames: ``H`` maps undistorted pixels (homogeneous) to table mm on the cloth (contract
§6). The camera pose uses the world frame (x, y, -height): right-handed for a table
seen from above, so a correctly oriented (unmirrored) homography puts the camera at a
positive height.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

DEFAULT_HFOV_DEG = 60.0


def apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (N,2) points."""
    pts = np.asarray(pts, float).reshape(-1, 2)
    p = np.c_[pts, np.ones(len(pts))] @ np.asarray(h, float).T
    return p[:, :2] / p[:, 2:3]


def camera_matrix(f: float, size: tuple[int, int]) -> np.ndarray:
    """Pinhole K with square pixels and the principal point at the picture's centre."""
    w, h = size
    return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])


def undistort_px(uv: np.ndarray, K: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Recorded pixels (N,2) -> undistorted pixels (N,2) for OpenCV coefficients ``k``."""
    uv = np.asarray(uv, float).reshape(-1, 2)
    if not np.any(k):
        return uv
    return cv2.undistortPoints(uv.reshape(-1, 1, 2), K, np.asarray(k, float), P=K).reshape(-1, 2)


def focal_from_homography(H: np.ndarray, size: tuple[int, int]) -> float | None:
    """Focal length (px) from the orthogonality of a plane homography's rotation columns,
    principal point at the picture's centre, square pixels. None when the view is too
    close to fronto-parallel for the constraint to hold it (overhead cameras)."""
    w, h = size
    T = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1.0]])
    G = T @ np.linalg.inv(H)
    G = G / np.linalg.norm(G[:, :2])
    g1, g2 = G[:, 0], G[:, 1]
    a = np.array([g1[0] * g2[0] + g1[1] * g2[1], g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2])
    b = np.array([g1[2] * g2[2], g1[2] ** 2 - g2[2] ** 2])
    # a * u + b = 0 with u = 1 / f^2 (least squares over both constraints)
    den = a @ a
    if den <= 0:
        return None
    u = -(a @ b) / den
    if u <= 0:
        return None
    f = 1 / np.sqrt(u)
    # reliability: the perspective terms must be large enough relative to f
    persp = np.hypot(*b) * f * f / max(np.hypot(*a), 1e-12)
    if not (0.3 * w < f < 6 * w) or persp < 1e-3:
        return None
    return float(f)


@dataclass(frozen=True)
class Pose:
    """Camera pose on the table: optical centre (x, y, height) mm, rotation world->camera,
    and how well the homography fits a rigid camera (|r1|/|r2| - 1, r1.r2)."""

    position: tuple[float, float, float]
    R: np.ndarray
    aspect_error: float
    skew: float


def pose_from_homography(H: np.ndarray, K: np.ndarray) -> Pose:
    """Camera pose from the cloth homography ``H`` (undistorted px -> mm) and ``K``."""
    M = np.linalg.solve(K, np.linalg.inv(H))
    n1, n2 = np.linalg.norm(M[:, 0]), np.linalg.norm(M[:, 1])
    lam = 2 / (n1 + n2)
    if M[2, 2] < 0:  # the table's origin must lie in front of the camera
        lam = -lam
    r1, r2, t = lam * M[:, 0], lam * M[:, 1], lam * M[:, 2]
    R = np.c_[r1, r2, np.cross(r1, r2)]
    U, _, Vt = np.linalg.svd(R)
    R = U @ Vt
    C = -R.T @ t  # in (x, y, -height)
    skew = float(abs(r1 @ r2) / (np.linalg.norm(r1) * np.linalg.norm(r2)))
    return Pose((float(C[0]), float(C[1]), float(-C[2])), R, float(n1 / n2 - 1), skew)


def parallax_to_cloth(xy: np.ndarray, cam: np.ndarray | None, height: float) -> np.ndarray:
    """Cloth-plane mm where a point ``height`` mm up appears -> its vertical projection."""
    if cam is None or height == 0:
        return xy
    c, hc = cam[:2], cam[2]
    return c + (xy - c) * (hc - height) / hc


def flip_end(H: np.ndarray, L: float, W: float) -> np.ndarray:
    """The homography with the other short cushion as the front (a 180° turn)."""
    F = np.array([[-1, 0, L], [0, -1, W], [0, 0, 1.0]])
    out = F @ H
    return out / out[2, 2]
