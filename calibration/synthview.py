"""A small pinhole camera and a simple table picture with known truth, for calibration
tests and as the benchmark's fallback when ``synth.render`` is not available.

World frame: table mm (contract §1) with ``z`` = height above the cloth. Camera
coordinates: OpenCV (x right, y down, z forward). Pixels are as recorded (distorted).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from contract.calib import CalibrationFile, Distortion
from contract.tables import TableSpec


@dataclass(frozen=True)
class PinholeCamera:
    """A camera over the table. ``position`` is the optical centre (x, y, height) in table
    mm; ``R`` rotates (x, y, -height) world vectors into camera coordinates; ``K`` pixels;
    ``dist`` OpenCV coefficients (k1, k2, p1, p2, k3)."""

    position: tuple[float, float, float]
    R: np.ndarray
    K: np.ndarray
    size: tuple[int, int]
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)

    def _cam(self, xyz: np.ndarray) -> np.ndarray:
        xyz = np.asarray(xyz, float).reshape(-1, 3)
        w = np.c_[xyz[:, 0], xyz[:, 1], -xyz[:, 2]]
        c = np.array([self.position[0], self.position[1], -self.position[2]])
        return (w - c) @ self.R.T

    def project(self, xyz: np.ndarray) -> np.ndarray:
        """Table mm (N,3: x, y, height) -> recorded pixels (N,2)."""
        pc = self._cam(xyz)
        out, _ = cv2.projectPoints(
            pc.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.K, np.asarray(self.dist)
        )
        return out.reshape(-1, 2)

    def project_undistorted(self, xyz: np.ndarray) -> np.ndarray:
        pc = self._cam(xyz)
        p = pc @ self.K.T
        return p[:, :2] / p[:, 2:3]

    def homography(self, height: float = 0.0) -> np.ndarray:
        """Undistorted pixels -> table mm on the plane ``height`` mm above the cloth."""
        t = -self.R @ np.array([self.position[0], self.position[1], -self.position[2]])
        g = self.K @ np.c_[self.R[:, 0], self.R[:, 1], t - height * self.R[:, 2]]
        h = np.linalg.inv(g)
        return h / h[2, 2]

    def to_calibration(self, table: TableSpec) -> CalibrationFile:
        """The exact calibration of this camera."""
        return CalibrationFile(
            table=table.name,
            image_size=self.size,
            image_to_table=tuple(tuple(float(v) for v in r) for r in self.homography()),
            distortion=Distortion(
                camera_matrix=tuple(tuple(float(v) for v in r) for r in self.K),
                coeffs=tuple(float(c) for c in self.dist),
            ),
            camera_position_mm=tuple(float(v) for v in self.position),
            front="truth",
        )


def look_at(
    position: tuple[float, float, float],
    target: tuple[float, float],
    up_xy: tuple[float, float],
    size: tuple[int, int],
    hfov_deg: float,
    dist: tuple[float, ...] = (0.0,) * 5,
) -> PinholeCamera:
    """A camera at ``position`` (mm) looking at the cloth point ``target`` (mm); the table
    direction ``up_xy`` appears upward in the picture."""
    c = np.array([position[0], position[1], -position[2]], float)
    z = np.array([target[0], target[1], 0.0]) - c
    z /= np.linalg.norm(z)
    up = np.array([up_xy[0], up_xy[1], 0.0])
    y = -(up - z * (up @ z))
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    R = np.stack([x, y, z])
    w, h = size
    f = w / 2 / np.tan(np.radians(hfov_deg) / 2)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
    return PinholeCamera(tuple(float(v) for v in position), R, K, size, tuple(dist))


def random_pinhole(
    table: TableSpec, size: tuple[int, int], rng: np.random.Generator
) -> PinholeCamera:
    """A plausible camera over the table: 2.5-4 m high, its foot within 400 mm of the
    centre, the table across the picture either way up, mild barrel distortion."""
    L, W = table.L, table.W
    height = rng.uniform(2500, 4000)
    foot = (L / 2 + rng.uniform(-400, 400), W / 2 + rng.uniform(-300, 300))
    target = (L / 2 + rng.uniform(-100, 100), W / 2 + rng.uniform(-60, 60))
    ang = rng.choice([0.0, np.pi]) + rng.uniform(-0.05, 0.05)
    up = (np.sin(ang), np.cos(ang))  # table y up in the picture: length runs across
    aspect = size[0] / size[1]
    span = max((L + 500) / aspect, W + 500) * aspect
    d = np.hypot(height, np.hypot(foot[0] - target[0], foot[1] - target[1]))
    hfov = np.degrees(2 * np.arctan(span / 2 / d)) * rng.uniform(1.0, 1.12)
    k1 = rng.uniform(-0.12, 0.0)
    return look_at((*foot, height), target, up, size, hfov, (k1, 0.0, 0.0, 0.0, 0.0))


# ---------------------------------------------------------------------------- drawing
def _top_view(table: TableSpec, mm_per_px: float, markings: bool) -> tuple[np.ndarray, float]:
    """A top view of the cloth (and pockets, markings) with ``margin`` mm around it."""
    margin = table.cushion_mm + table.rail_mm + 60
    w = int((table.L + 2 * margin) / mm_per_px)
    h = int((table.W + 2 * margin) / mm_per_px)
    img = np.full((h, w, 3), (40, 50, 60), np.uint8)

    def px(x: float, y: float) -> tuple[int, int]:
        return (int(round((x + margin) / mm_per_px * 4)), int(round((y + margin) / mm_per_px * 4)))

    cloth = tuple(int(c) for c in table.cloth_bgr)
    cv2.rectangle(
        img,
        px(-table.cushion_mm, -table.cushion_mm),
        px(table.L + table.cushion_mm, table.W + table.cushion_mm),
        cloth,
        -1,
        cv2.LINE_AA,
        2,
    )
    for p in table.pockets:
        cx, cy = p.centre
        cv2.circle(
            img, px(cx, cy), int(p.mouth_mm / 2 / mm_per_px * 4), (15, 15, 15), -1, cv2.LINE_AA, 2
        )
    if markings:
        mark = tuple(min(255, c + 70) for c in cloth)
        lw = max(1, int(round(3 / mm_per_px)))
        for name, (a, b) in table.lines.items():
            if name != "spotting" or table.kind == "pyramid":
                cv2.line(img, px(*a), px(*b), mark, lw, cv2.LINE_AA, 2)
        for x, y in list(table.spots.values()) + list(table.skittle_spots.values()):
            cv2.circle(img, px(x, y), int(8 / mm_per_px * 4), mark, -1, cv2.LINE_AA, 2)
    return img, margin


def render_table(
    table: TableSpec,
    cam: PinholeCamera,
    rng: np.random.Generator | None = None,
    balls: int = 0,
    markings: bool = True,
    nose_height_mm: float = 0.0,
    noise: float = 2.0,
) -> np.ndarray:
    """Draw the table as ``cam`` sees it (BGR, recorded pixels): the cloth plane, the
    cushion tops at ``nose_height_mm`` (a shade of the cloth), the rails, pockets, spots,
    lines and ``balls`` random balls (flat discs at their centre height)."""
    rng = rng or np.random.default_rng(0)
    mmpp = 1.0
    top, margin = _top_view(table, mmpp, markings)
    w, h = cam.size
    # undistorted picture: cloth plane via the homography
    to_top = np.array([[1 / mmpp, 0, margin / mmpp], [0, 1 / mmpp, margin / mmpp], [0, 0, 1]])
    img = cv2.warpPerspective(
        top,
        to_top @ cam.homography(),
        (w, h),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderValue=(40, 50, 60),
    )
    img = _raised_frame(img, table, cam, margin, to_top, nose_height_mm)
    L, W = table.L, table.W

    def poly(pts: list[tuple[float, float]], z: float, colour: tuple[int, ...]) -> None:
        q = cam.project_undistorted(np.array([(x, y, z) for x, y in pts]))
        cv2.fillPoly(img, [np.round(q * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)

    R = table.ball_radius
    for _ in range(balls):
        x, y = rng.uniform(R, L - R), rng.uniform(R, W - R)
        th = np.linspace(0, 2 * np.pi, 24)
        col = tuple(int(v) for v in rng.integers(30, 255, 3))
        poly([(x + R * np.cos(a), y + R * np.sin(a)) for a in th], R, col)
    if any(cam.dist):
        grid = np.mgrid[0:h, 0:w].astype(np.float32)
        uv = np.stack([grid[1].ravel(), grid[0].ravel()], 1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(uv, cam.K, np.asarray(cam.dist), P=cam.K).reshape(h, w, 2)
        img = cv2.remap(
            img,
            und[..., 0].astype(np.float32),
            und[..., 1].astype(np.float32),
            cv2.INTER_LINEAR,
            borderValue=(40, 50, 60),
        )
    if noise > 0:
        img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    return img


def _raised_frame(
    img: np.ndarray,
    table: TableSpec,
    cam: PinholeCamera,
    margin: float,
    to_top: np.ndarray,
    zh: float,
) -> np.ndarray:
    """Composite the cushions and rails (tops at ``zh`` mm) over the cloth picture, with
    exact 1 mm anti-aliasing ramps centred on the cushion noses."""
    L, W, c = table.L, table.W, table.cushion_mm
    h_top = int(W + 2 * margin)
    w_top = int(L + 2 * margin)
    x = np.arange(w_top, dtype=np.float32)[None, :] - margin
    y = np.arange(h_top, dtype=np.float32)[:, None] - margin
    out = np.maximum(np.maximum(-x, x - L), np.maximum(-y, y - W))  # mm outside the surface
    alpha = np.clip(out + 0.5, 0, 1)
    cloth = np.array(table.cloth_bgr, np.float32)
    layer = np.empty((h_top, w_top, 3), np.float32)
    layer[:] = cloth * 0.7
    layer[out > c] = (30, 45, 70)
    for p in table.pockets:
        cx, cy = p.centre
        hole = np.hypot(x - cx, y - cy) < p.mouth_mm / 2
        layer[hole] = (15, 15, 15)
    rgba = np.dstack([layer * alpha[..., None], alpha])
    w, h = cam.size
    warped = cv2.warpPerspective(
        rgba,
        to_top @ cam.homography(zh),
        (w, h),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    a = warped[..., 3:4]
    return np.clip(img * (1 - a) + warped[..., :3], 0, 255).astype(np.uint8)
