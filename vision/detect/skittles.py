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
LINE_MM = 40.0  # straight structures longer than this (a lying pin is 25 mm) are markings, cues
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
    level of every straight or large structure), ``residual`` = ``d - removed``. The
    openings run on ``d`` rounded to whole levels and capped at 255 (several times faster
    than on floats; rounding and the cap change nothing at the thresholds used, 22 up)."""
    d8 = np.clip(np.rint(d), 0, 255).astype(np.uint8)
    removed = np.zeros_like(d8)
    for se in line_elements(length_px):
        cv2.max(removed, cv2.morphologyEx(d8, cv2.MORPH_OPEN, se), dst=removed)
    rem = removed.astype(np.float32)
    return np.minimum(d, 255.0) - rem, rem


_LAST_MARKS: list[tuple] = [(None, None, ())]  # (calibration, table, marks), read whole


def _marks(calib: Calibration, table: TableSpec) -> tuple[tuple[np.ndarray, float], ...]:
    """Each skittle mark's video px at mid height and the video px per mm there (kept
    for the last calibration and table asked)."""
    last = _LAST_MARKS[0]
    if last[0] is calib and last[1] is table:
        return last[2]
    h = table.skittle_height_mm / 2
    out = []
    for x, y in table.skittle_spots.values():
        c, e = calib.table_to_pixel(np.array([[x, y], [x + 10.0, y]]), height=h)
        out.append((c, float(np.linalg.norm(e - c)) / 10.0))
    _LAST_MARKS[0] = (calib, table, tuple(out))
    return tuple(out)


def line_length_px(px_mm: float) -> int:
    """The line element's length (odd px) at ``px_mm`` video px per mm."""
    return 2 * int(math.ceil(LINE_MM * px_mm / 2)) + 1


def residuals(windows: list[np.ndarray], length_px: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`skittle_residual` of several windows at once: laid side by side with a zero
    gap of one element between them, opened together (one call per direction). Values a
    whole element inside a window are those of the window alone; in its gate (half an
    element inside) a line still fits an element centred on it, so it is removed as well."""
    if not windows:
        return []
    h = max(w.shape[0] for w in windows)
    gap = length_px
    width = sum(w.shape[1] for w in windows) + gap * (len(windows) - 1)
    strip = np.zeros((h, width), np.float32)
    x = 0
    for w in windows:
        strip[: w.shape[0], x : x + w.shape[1]] = w
        x += w.shape[1] + gap
    res, removed = skittle_residual(strip, length_px)
    out, x = [], 0
    for w in windows:
        hh, ww = w.shape
        out.append((res[:hh, x : x + ww], removed[:hh, x : x + ww]))
        x += ww + gap
    return out


def measure_window(
    d: np.ndarray,
    mark_px: np.ndarray,
    px_mm: float,
    table: TableSpec,
    thr: float,
    hidden: np.ndarray | None = None,
    opened: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray | None:
    """The skittle in one window: its weighted centre (window px) or None.

    ``d`` colour distance from the cloth (float32), ``mark_px`` the mark's window px (at
    mid height), ``hidden`` (uint8, optional) pixels known to be balls, ``opened`` the
    window's (residual, removed) when already computed (:func:`residuals`). None when no
    bright compact blob lies within :data:`GATE_MM` of the mark, or when the blob touches
    a ball or a large bright structure (partly hidden)."""
    if opened is None:
        opened = skittle_residual(d.astype(np.float32, copy=False), line_length_px(px_mm))
    res, removed = opened
    gate = np.zeros(d.shape, np.uint8)
    sub = 16  # cv2 drawing with 4 fractional bits
    cv2.circle(
        gate,
        tuple(int(round(v * sub)) for v in mark_px),
        int(GATE_MM * px_mm * sub),
        1,
        -1,
        cv2.LINE_8,
        4,
    )
    near = gate > 0
    if hidden is not None:
        near &= hidden == 0
    if not near.any():
        return None
    inside = np.where(near, res, -np.inf)
    py, px = np.unravel_index(int(np.argmax(inside)), res.shape)
    peak = float(inside[py, px])
    if peak < 2.0 * thr:
        return None
    mask = (res > max(thr, PEAK_SHARE * peak)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
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
    ys, xs = np.nonzero(blob)
    wgt = res[ys, xs]
    centre = np.array([xs @ wgt, ys @ wgt]) / wgt.sum()
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
    wins = []  # (mark px in the window, px per mm, window origin, distance, balls)
    for c, px_mm in _marks(calib, table):
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
        wins.append((c - [x0, y0], px_mm, np.array([x0, y0]), d, hidden))
    if not wins:
        return np.zeros((0, 2)), np.zeros((0, 2))
    length = line_length_px(float(np.mean([w[1] for w in wins])))
    found: list[np.ndarray] = []
    for (mark, px_mm, origin, d, hidden), op in zip(
        wins, residuals([w[3] for w in wins], length), strict=True
    ):
        p = measure_window(d, mark, px_mm, table, thr, hidden, op)
        if p is not None:
            found.append(p + origin)
    uv = np.asarray(found, float).reshape(-1, 2)
    return uv, calib.pixel_to_table(uv, height=h) if len(uv) else np.zeros((0, 2))
