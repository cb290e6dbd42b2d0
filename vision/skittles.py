"""The five skittles of 5-pin carom: small bright objects at (or fallen beside) their marks.

A skittle is too small for the detector's downscaled image (9 mm wide, 25 mm tall), so
it is looked for at full resolution in a window around each skittle mark. Positions
are the vertical projection of the skittle's middle (``skittle_height_mm / 2`` above
the cloth) in table mm; pixels are recorded video pixels. A standing skittle shows at
its mark; a lying one with its middle about half its length from the mark.

Per window (:func:`skittle_residual`): the colour distance from the cloth less its grey
opening by thin line segments in every direction, longer than a lying skittle. What
survives is small in every direction: the skittle, not the cloth markings it stands on
(the centre line runs through three marks), a cue, an arm or a ball. The skittle is the
brightest such blob within :data:`GATE_MM` of its mark; it is measured (weighted
centroid) only when it is whole: a skittle that touches a large bright thing (a ball, an
arm) is partly hidden and left out of that frame (the tracker predicts it) rather than
measured off its place, which would read as a fall.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from contract.calib import Calibration
from contract.tables import TableSpec

GATE_MM = 34.0  # a skittle's middle lies this close to its mark (marks are 72 mm apart)
LINE_MM = 50.0  # straight structures longer than this are markings, cues or arms
WINDOW_MM = GATE_MM + LINE_MM / 2 + 4.0  # half-side of the window: the gate, half a line
PEAK_SHARE = 0.35  # the blob: residual above this share of the window's peak
OCCLUDER_SHARE = 0.5  # a removed structure this bright beside the blob hides part of it
BALL_MARGIN_PX = 1.0  # balls masked out to their radius plus this


@lru_cache(maxsize=16)
def line_elements(length_px: int) -> tuple[np.ndarray, ...]:
    """Thin line structuring elements of ``length_px`` (odd) in enough directions that a
    straight marking one px off a direction still fits one of them end to end."""
    n = max(8, int(math.ceil(math.pi / (2 * math.asin(min(1.0, 1.5 / length_px))))))
    c = length_px // 2
    out = []
    for k in range(n):
        a = math.pi * k / n
        dx, dy = c * math.cos(a), c * math.sin(a)
        se = np.zeros((length_px, length_px), np.uint8)
        p0 = (int(round(c - dx)), int(round(c - dy)))
        p1 = (int(round(c + dx)), int(round(c + dy)))
        cv2.line(se, p0, p1, 1, 1, cv2.LINE_8)
        out.append(se)
    return tuple(out)


def skittle_residual(d: np.ndarray, length_px: int) -> tuple[np.ndarray, np.ndarray]:
    """(residual, removed) of a colour-distance window ``d`` (float32, px): ``removed`` is
    the greatest grey opening of ``d`` by a line of ``length_px`` in any direction (the
    level of every straight or large structure), ``residual`` = ``d - removed``."""
    removed = np.zeros_like(d)
    for se in line_elements(length_px):
        cv2.max(removed, cv2.morphologyEx(d, cv2.MORPH_OPEN, se), dst=removed)
    return d - removed, removed


def _px_per_mm(calib: Calibration, x: float, y: float, h: float) -> tuple[np.ndarray, float]:
    c, e = calib.table_to_pixel(np.array([[x, y], [x + 10.0, y]]), height=h)
    return c, float(np.linalg.norm(e - c)) / 10.0


def measure_window(
    d: np.ndarray,
    mark_px: np.ndarray,
    px_mm: float,
    table: TableSpec,
    thr: float,
    hidden: np.ndarray | None = None,
) -> np.ndarray | None:
    """The skittle in one window: its weighted centre (window px) or None.

    ``d`` colour distance from the cloth (float32), ``mark_px`` the mark's window px (at
    mid height), ``hidden`` (uint8, optional) pixels known to be balls. None when no
    bright compact blob lies within :data:`GATE_MM` of the mark, or when the blob touches
    a ball or a large bright structure (partly hidden)."""
    length = 2 * int(math.ceil(LINE_MM * px_mm / 2)) + 1
    res, removed = skittle_residual(d.astype(np.float32, copy=False), length)
    h, w = d.shape
    yy, xx = np.mgrid[0:h, 0:w]
    near = np.hypot(xx - mark_px[0], yy - mark_px[1]) <= GATE_MM * px_mm
    if hidden is not None:
        near &= hidden == 0
    if not near.any():
        return None
    peak = float(res[near].max())
    if peak < 2.0 * thr:
        return None
    mask = (res > max(thr, PEAK_SHARE * peak)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    py, px = np.unravel_index(int(np.argmax(np.where(near, res, -np.inf))), res.shape)
    k = int(labels[py, px])
    if k == 0:
        return None
    area = int(stats[k, cv2.CC_STAT_AREA])
    a_min = 0.25 * (table.skittle_width_mm * px_mm) ** 2
    # a lying pin, widened by a px and a half all round (anti-aliasing, blur, its shadow)
    a_max = 1.6 * (table.skittle_height_mm * px_mm + 3) * (table.skittle_width_mm * px_mm + 3)
    if not a_min <= area <= a_max:
        return None
    blob = labels == k
    ring = cv2.dilate(blob.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    if (removed[ring] > OCCLUDER_SHARE * peak).any():
        return None  # beside a ball, an arm or a cue: partly hidden
    if hidden is not None and (hidden[ring] > 0).any():
        return None
    wgt = res[blob]
    centre = np.array([(xx[blob] * wgt).sum(), (yy[blob] * wgt).sum()]) / wgt.sum()
    if np.hypot(*(centre - mark_px)) > GATE_MM * px_mm:
        return None
    return centre


def find_skittles(
    img: np.ndarray,
    distance,
    calib: Calibration,
    table: TableSpec,
    thr: float,
    balls_uv: np.ndarray,
    balls_r: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Skittle centres: (uv (K,2) video px, xy (K,2) table mm), at most one per mark.

    ``distance(x0, y0, x1, y1)`` returns the colour distance from the cloth of that
    window of ``img`` (the detector's measure, float32); balls (``balls_uv``, radii
    ``balls_r`` px) are masked out so a ball beside a skittle is not taken for one."""
    spots = table.skittle_spots
    if not spots:
        return np.zeros((0, 2)), np.zeros((0, 2))
    H, W = img.shape[:2]
    h = table.skittle_height_mm / 2
    found: list[np.ndarray] = []
    for sx, sy in spots.values():
        c, px_mm = _px_per_mm(calib, sx, sy, h)
        half = int(np.ceil(WINDOW_MM * px_mm))
        x0, y0 = max(0, int(c[0]) - half), max(0, int(c[1]) - half)
        x1, y1 = min(W, int(c[0]) + half + 1), min(H, int(c[1]) + half + 1)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        hidden = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for (u, v), r in zip(balls_uv, balls_r, strict=True):
            if r > 0:
                centre = (int(round(u - x0)), int(round(v - y0)))
                cv2.circle(hidden, centre, int(math.ceil(r + BALL_MARGIN_PX)), 1, -1)
        d = np.asarray(distance(x0, y0, x1, y1), np.float32)
        p = measure_window(d, c - [x0, y0], px_mm, table, thr, hidden)
        if p is not None:
            found.append(p + [x0, y0])
    uv = np.asarray(found, float).reshape(-1, 2)
    return uv, calib.pixel_to_table(uv, height=h) if len(uv) else np.zeros((0, 2))
