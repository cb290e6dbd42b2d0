"""The five skittles of 5-pin carom: small bright objects at (or fallen near) their marks.

A skittle is too small for the detector's downscaled image (9 mm wide, 25 mm tall), so
it is looked for at full resolution in a window around each skittle mark. Positions
are the vertical projection of the skittle's middle (``skittle_height_mm / 2`` above
the cloth) in table mm; pixels are recorded video pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from contract.calib import Calibration
from contract.tables import TableSpec

WINDOW_MM = 70.0  # half-side of the search window around each mark
MERGE_MM = 12.0  # one skittle seen from two windows


def find_skittles(
    img: np.ndarray,
    distance,
    calib: Calibration,
    table: TableSpec,
    thr: float,
    balls_uv: np.ndarray,
    balls_r: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Skittle centres: (uv (K,2) video px, xy (K,2) table mm).

    ``distance(x0, y0, x1, y1)`` returns the colour distance from the cloth of that
    window of ``img`` (the detector's measure); balls (``balls_uv``, radii ``balls_r``
    px) are masked out so a ball beside a skittle is not taken for one."""
    spots = table.skittle_spots
    if not spots:
        return np.zeros((0, 2)), np.zeros((0, 2))
    H, W = img.shape[:2]
    h = table.skittle_height_mm / 2
    found: list[np.ndarray] = []
    for sx, sy in spots.values():
        c, e = calib.table_to_pixel(np.array([[sx, sy], [sx + 10.0, sy]]), height=h)
        px_mm = float(np.linalg.norm(e - c)) / 10.0
        half = int(np.ceil(WINDOW_MM * px_mm))
        x0, y0 = max(0, int(c[0]) - half), max(0, int(c[1]) - half)
        x1, y1 = min(W, int(c[0]) + half + 1), min(H, int(c[1]) + half + 1)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        mask = (distance(x0, y0, x1, y1) > thr).astype(np.uint8)
        for (u, v), r in zip(balls_uv, balls_r, strict=True):
            cv2.circle(mask, (int(round(u - x0)), int(round(v - y0))), int(1.3 * r) + 1, 0, -1)
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        a_min = 0.4 * (table.skittle_width_mm * px_mm) ** 2
        a_max = 2.5 * table.skittle_width_mm * table.skittle_height_mm * px_mm**2
        best, best_d = None, np.inf
        for k in range(1, n):
            if not a_min <= stats[k, 4] <= a_max:
                continue
            p = cents[k] + [x0, y0]
            dist = float(np.linalg.norm(p - c))
            if dist < best_d:
                best, best_d = p, dist
        if best is not None and all(np.linalg.norm(best - q) > MERGE_MM * px_mm for q in found):
            found.append(best)
    uv = np.asarray(found, float).reshape(-1, 2)
    return uv, calib.pixel_to_table(uv, height=h) if len(uv) else np.zeros((0, 2))
