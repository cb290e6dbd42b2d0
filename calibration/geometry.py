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


def flip_end(H: np.ndarray, L: float, W: float) -> np.ndarray:
    """The homography with the other short cushion as the front (a 180° turn)."""
    F = np.array([[-1, 0, L], [0, -1, W], [0, 0, 1.0]])
    out = F @ H
    return out / out[2, 2]
