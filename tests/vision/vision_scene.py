"""Test pictures: shaded balls drawn with exact sub-pixel centres over a cloth colour.

A top-down calibration maps table mm to pixels by ``px = offset + mm * scale``
(no distortion, no camera position), so truth positions are exact.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from contract.calib import Calibration, CalibrationFile
from contract.tables import TableSpec
from contract.tracks import Tracks

COLOURS = {
    "white": (225, 235, 240),
    "yellow": (30, 200, 235),
    "red": (40, 40, 210),
    "black": (25, 25, 25),
    "blue": (200, 90, 20),
    "navy": (150, 50, 20),
    "green": (60, 110, 20),
}


def topdown_calib(table: TableSpec, size: tuple[int, int], margin_px: float = 60.0) -> Calibration:
    """A calibration for a camera straight above the table, surface centred in the picture."""
    w, h = size
    s = min((w - 2 * margin_px) / table.L, (h - 2 * margin_px) / table.W)
    ox, oy = (w - table.L * s) / 2, (h - table.W * s) / 2
    table_to_img = np.array([[s, 0, ox], [0, s, oy], [0, 0, 1.0]])
    H = np.linalg.inv(table_to_img)
    return Calibration(
        CalibrationFile(table=table.name, image_size=size, image_to_table=H.tolist())
    )


def draw_scene(
    calib: Calibration,
    table: TableSpec,
    size: tuple[int, int],
    balls: list[tuple[float, float, str]],
    noise: float = 2.0,
    seed: int = 0,
    blobs: list[tuple[float, float, float, float]] = (),
) -> np.ndarray:
    """A BGR picture: cloth with a light gradient, rails outside the surface, shaded balls
    at ``(x_mm, y_mm, colour)`` and dark ellipses ``(x_mm, y_mm, a_mm, b_mm)`` (an arm)."""
    w, h = size
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    cloth = np.array(table.cloth_bgr, np.float32)
    light = 1.0 + 0.12 * np.cos((gx - w / 2) / w * 2.0) - 0.08 * ((gy - h / 2) / h) ** 2
    img = cloth[None, None, :] * light[..., None]
    corners = calib.table_to_pixel(np.array([[0, 0], [table.L, table.W]]))
    (x0, y0), (x1, y1) = corners
    outside = (gx < x0) | (gx > x1) | (gy < y0) | (gy > y1)
    img[outside] = (40, 60, 110)
    R = table.ball_radius
    for bx, by, a, b in blobs:
        c = calib.table_to_pixel(np.array([[bx, by]]))[0]
        s = calib.table_to_pixel(np.array([[bx + a, by + b]]))[0] - c
        inside = ((gx - c[0]) / s[0]) ** 2 + ((gy - c[1]) / s[1]) ** 2 <= 1.0
        img[inside] = (60, 90, 150)
    for x, y, colour in balls:
        c = calib.table_to_pixel(np.array([[x, y]]), height=R)[0]
        r = float(np.linalg.norm(calib.table_to_pixel(np.array([[x + R, y]]), height=R)[0] - c))
        d = np.hypot(gx - c[0], gy - c[1])
        alpha = np.clip(r - d + 0.5, 0.0, 1.0)
        shade = 1.0 - 0.45 * np.clip(d / r, 0, 1) ** 2
        col = np.array(COLOURS[colour], np.float32)
        img = img * (1 - alpha[..., None]) + (col * shade[..., None]) * alpha[..., None]
    rng = np.random.default_rng(seed)
    img = img + rng.normal(0.0, noise, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def rack(table: TableSpec, apex: tuple[float, float], rows: int = 5, gap: float = 0.0):
    """Ball centres (mm) of a touching triangle rack, apex toward the front end."""
    d = table.ball_mm + gap
    out = []
    for i in range(rows):
        for j in range(i + 1):
            out.append((apex[0] + i * d * np.sqrt(3) / 2, apex[1] + (j - i / 2) * d))
    return out


def write_video(path: Path, frames: list[np.ndarray], fps: float = 30.0) -> Path:
    h, w = frames[0].shape[:2]
    fourcc = "MJPG" if path.suffix == ".avi" else "mp4v"
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, (w, h))
    for f in frames:
        vw.write(f)
    vw.release()
    return path


def path_tracks(
    paths: dict[str, np.ndarray], fps: float = 30.0, hidden: dict[str, range] | None = None
) -> Tracks:
    """TRACKS rows from per-ball (F, 2) arrays of table mm (NaN = not on the table), one
    row a frame at ``fps``; frames in ``hidden[ball]`` are predictions (``visible`` 0)."""
    rows = []
    for ident, p in paths.items():
        for f, (x, y) in enumerate(p):
            if np.isnan(x):
                continue
            vis = 0 if hidden and f in hidden.get(ident, range(0)) else 1
            rows.append((f, f / fps, ident, float(x), float(y), vis, None, None))
    return Tracks.from_rows(rows)


def facing(view: np.ndarray, spin: float) -> tuple[float, ...]:
    """A ball's rotation (row-major 3x3) whose number pole (body z) points along ``view``,
    spun by ``spin`` rad about it."""
    u = view / np.linalg.norm(view)
    e1 = np.cross(u, [0.0, 0.0, 1.0] if abs(u[2]) < 0.9 else [1.0, 0.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    a, b = math.cos(spin) * e1 + math.sin(spin) * e2, -math.sin(spin) * e1 + math.cos(spin) * e2
    return tuple(float(v) for v in np.c_[a, b, u].ravel())


def away(view: np.ndarray) -> tuple[float, ...]:
    """A ball's rotation whose poles lie across the line of sight (no number readable)."""
    u = view / np.linalg.norm(view)
    side = np.cross(u, [0.0, 1.0, 0.0])
    side /= np.linalg.norm(side)
    return tuple(float(v) for v in np.c_[np.cross(side, u), u, side].ravel())
