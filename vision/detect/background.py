"""Balls that never move, kept out of the empty-cloth model (``vision.detect.detector``).

The detector models the cloth well inside the surface by a smooth polynomial, and near
the cushion noses and in the pocket mouths by the per-pixel median of frames spread over
the video. A ball that rests in one place for the whole video (hanging in a pocket's
jaws, frozen to a cushion) is in every one of those frames, so the median holds it and
the ball is background: never found. Here such balls are looked for *in the median
itself*: where it differs from the polynomial cloth by a ball's contrast over a whole
ball-sized disk centred on the surface, with cloth around it and a ball's colour (not a
pocket's dark hole, not the cloth's own colour), a ball stands. Under each such ball
the model keeps the cloth (the polynomial) within the playing surface; what lies past
the cushion noses (cushion, rail) stays the median.

Pixels are recorded video pixels (``full``) or the detector's work pixels (``work``:
video x ``scale``); positions table mm at the cloth.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.plate import median_images
from contract.calib import Calibration
from contract.tables import TableSpec
from vision.base.colour import basic_colour, is_ball_colour, plate_distance
from vision.base.geometry import TableGeometry, polygon_mask
from vision.detect.split import _ellipse

STILL_CONTRAST = 40.0  # least colour distance from the cloth of a still ball's pixels
STILL_COVER = 0.9  # least share of a ball's inner disk (0.8 r) that differs that much
STILL_PLATEAU = 0.6  # a ball's disk fits where it is found within this share of r; a
# larger stretch of positions that all fit is a static picture (a broadcast logo)
EDGE = 20.0  # colour distance from the cloth of a still ball's (blurred) edge pixels
STILL_REACH = 1.3  # the cloth is kept within this many ball radii of a still ball's centre
DARK = 60  # 8-bit: pixels whose brightest channel is below this are dark (basic black)
NOT_BALLS = {"black"}  # a pocket's hole (and the cloth's own colour: a cushion's face)

# Compare-exchange networks that leave the median of n values at index n // 2 (each pair
# (i, j) puts the smaller value at i, the larger at j; N. Devillard, "Fast median
# search", after Paeth and Smith): far fewer exchanges than sorting every value
MEDIAN_NETWORKS: dict[int, tuple[tuple[int, int], ...]] = {
    3: ((0, 1), (1, 2), (0, 1)),
    5: ((0, 1), (3, 4), (0, 3), (1, 4), (1, 2), (2, 3), (1, 2)),
    7: (
        (0, 5), (0, 3), (1, 6), (2, 4), (0, 1), (3, 5), (2, 6),
        (2, 3), (3, 6), (4, 5), (1, 4), (1, 3), (3, 4),
    ),
    9: (
        (1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8), (0, 3),
        (5, 8), (4, 7), (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4), (4, 2),
    ),
}  # fmt: skip


def _median_plan(pairs: tuple[tuple[int, int], ...], n: int) -> list[tuple[int, int, bool, bool]]:
    """The exchanges of a median network whose results reach the median (index ``n //
    2``), each as (i, j, min needed, max needed): an exchange whose smaller (larger) value
    is never read again computes only the other."""
    need, plan = {n // 2}, []
    for i, j in reversed(pairs):
        lo, hi = i in need, j in need
        if lo or hi:
            plan.append((i, j, lo, hi))
            need |= {i, j}
    return plan[::-1]


MEDIAN_PLANS = {n: _median_plan(pairs, n) for n, pairs in MEDIAN_NETWORKS.items()}


def median_frames(images: list[np.ndarray]) -> np.ndarray:
    """The per-pixel median of equally shaped images (BGR uint8, any px): exactly
    ``calibration.plate.median_images(images)`` (and ``np.median`` over the stack), by a
    median network of ``cv2.min`` / ``cv2.max`` for 3, 5, 7 or 9 images (the cloth
    model's samples, the drift watch's first frames: about half the exchanges of a full
    sort), by :func:`median_images` for other counts."""
    plan = MEDIAN_PLANS.get(len(images))
    if plan is None:
        return median_images(images)
    x = list(images)
    for i, j, lo, hi in plan:
        a, b = x[i], x[j]
        if lo:
            x[i] = cv2.min(a, b)
        if hi:
            x[j] = cv2.max(a, b)
    return x[len(x) // 2]


def table_side(
    calib: Calibration, table: TableSpec, size: tuple[int, int], scale: float = 1.0
) -> np.ndarray:
    """bool mask (``size`` (w, h) px of the video scaled by ``scale``) of the playing
    surface at the cloth, the rectangle up to the cushion noses: where a ball standing on
    the table covers cloth (in a pocket's jaws too)."""
    return polygon_mask(calib, table, size, scale, 0.0) > 0


def still_balls(
    median: np.ndarray,
    cloth: np.ndarray,
    centre_ok: np.ndarray,
    radius: float,
    pn: np.ndarray,
    kind: str,
) -> np.ndarray:
    """(K,2) centres (px of these arrays) of balls standing in the ``median`` picture.

    ``median``, ``cloth`` (H,W,3 float32 BGR): the per-pixel median of the video's frames
    and the cloth model (polynomial); ``centre_ok`` (H,W bool): where a ball's centre
    may lie (on the surface, its disk reaching the part of the model the median makes);
    ``radius`` the ball radius in these px; ``pn`` the cloth's colour direction; ``kind``
    the table kind (the balls' colours, ``vision.base.colour``).

    A ball is a disk whose inner part (0.8 ``radius``) differs from the cloth by
    :data:`STILL_CONTRAST` almost everywhere (:data:`STILL_COVER`), at a local maximum of
    that share, at least 1.6 radii from a stronger one, whose core has a ball's colour
    where the positions that fit so stay within :data:`STILL_PLATEAU` radii (not a
    static overlay),
    and is neither a pocket's dark hole (:data:`NOT_BALLS`) nor the cloth's colour (a
    cushion's face)."""
    d = plate_distance(median.astype(np.float32), cloth.astype(np.float32), pn)
    # a pocket's hole and deep shadows are dark: never part of a still ball (nor is a
    # black one: it cannot be told from a hole)
    fg = ((d > STILL_CONTRAST) & (median.max(axis=2) >= DARK)).astype(np.float32)
    disk = _disk(0.8 * radius).astype(np.float32)
    cover = cv2.filter2D(fg, -1, disk / disk.sum(), borderType=cv2.BORDER_CONSTANT)
    peak = cover >= cv2.dilate(cover, np.ones((3, 3), np.uint8)) - 1e-6
    fits = (cover >= STILL_COVER).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(fits, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA]
    ys, xs = np.nonzero(peak & (fits > 0) & centre_ok)
    order = np.argsort(-cover[ys, xs], kind="stable")
    own = basic_colour(np.median(cloth.reshape(-1, 3), axis=0))  # the cloth's colour
    out: list[np.ndarray] = []
    for i in order:
        c = np.array([xs[i], ys[i]], float)
        if any(np.hypot(*(c - q)) < 1.6 * radius for q in out):
            continue
        core = _core(median, c, 0.6 * radius)
        if not len(core) or area[labels[ys[i], xs[i]]] > np.pi * (STILL_PLATEAU * radius) ** 2:
            continue
        basic = basic_colour(np.median(core, axis=0))
        if basic in NOT_BALLS or basic == own or not is_ball_colour(basic, kind):
            continue
        out.append(c)
    return np.asarray(out, float).reshape(-1, 2)


def _core(img: np.ndarray, c: np.ndarray, r: float) -> np.ndarray:
    """(M,3) the pixels of ``img`` within ``r`` px of ``c``."""
    h, w = img.shape[:2]
    x0, y0 = max(0, int(np.floor(c[0] - r))), max(0, int(np.floor(c[1] - r)))
    x1, y1 = min(w, int(np.ceil(c[0] + r)) + 1), min(h, int(np.ceil(c[1] + r)) + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    return img[y0:y1, x0:x1][(xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r].reshape(-1, 3)


def cloth_under(
    centres: np.ndarray, radii: np.ndarray, side: np.ndarray, ball: np.ndarray
) -> np.ndarray:
    """bool mask (the shape of ``side``): the pixels of the still balls themselves
    (``ball``: where the median differs from the cloth, grown by a pixel for the blurred
    edge) on the playing surface (``side``) within :data:`STILL_REACH` radii of each still
    ball (``centres`` (K,2), ``radii`` (K,) in the mask's px), where the cloth model must
    be the cloth, not the median. The cloth beside a ball keeps the median (a cushion's
    shade on the cloth is the median's, not the polynomial's)."""
    mask = np.zeros(side.shape, np.uint8)
    for (u, v), r in zip(centres, radii, strict=True):
        cv2.circle(mask, (int(round(u)), int(round(v))), int(np.ceil(STILL_REACH * r)), 1, -1)
    grown = cv2.dilate(ball.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    return (mask > 0) & side & grown


def still_cloth(
    median: np.ndarray,
    cloth: np.ndarray,
    core: np.ndarray,
    calib: Calibration,
    table: TableSpec,
    geo: TableGeometry,
) -> np.ndarray:
    """bool mask (video px): where the detector's cloth model keeps the ``cloth``
    (polynomial, H,W,3 float32) though it would take the ``median`` of the video's frames
    (outside ``core``, H,W bool): under the balls that stand still all video long
    (:func:`still_balls`, looked for at the detector's work scale ``geo.scale``), within
    the playing surface (:func:`table_side`)."""
    h, w = core.shape
    s, ws = geo.scale, geo.work_size

    def small(a: np.ndarray) -> np.ndarray:
        return cv2.resize(a, ws, interpolation=cv2.INTER_AREA) if s < 1 else a

    R = table.ball_radius
    side = table_side(calib, table, (w, h))
    median_w = small((~core & side).astype(np.float32)) > 0  # where the median is used
    cloth_w = small(cloth)
    inner = (geo.inner > 0) & ~median_w
    pn = np.median(cloth_w[inner], axis=0) if inner.any() else np.ones(3, np.float32)
    pn = (pn / max(1e-3, float(np.linalg.norm(pn)))).astype(np.float32)
    radius = float(np.median(geo.radius_map[geo.inner > 0])) * s if inner.any() else 4.5
    # a still ball's centre: on the surface (at its height), its disk over the median's part
    on = polygon_mask(calib, table, ws, s, 0.0, R) > 0
    reach = cv2.dilate(median_w.astype(np.uint8), _disk(1.2 * radius)) > 0
    found = still_balls(
        small(median.astype(np.float32)), cloth_w, on & reach, radius, pn, table.kind
    )
    if not len(found):
        return np.zeros((h, w), bool)
    r = geo.radii_at(found[:, 0], found[:, 1])  # video px
    centres = (found + 0.5) / s - 0.5
    ball = np.zeros((h, w), bool)  # the colour distance only where cloth_under looks
    for (u, v), rr in zip(centres, r, strict=True):
        k = int(np.ceil(STILL_REACH * rr)) + 2
        x0, y0 = max(0, int(u) - k), max(0, int(v) - k)
        x1, y1 = min(w, int(u) + k + 2), min(h, int(v) + k + 2)
        win = (slice(y0, y1), slice(x0, x1))
        d = plate_distance(median[win].astype(np.float32), cloth[win].astype(np.float32), pn)
        ball[win] = d > EDGE
    return cloth_under(centres, r, side, ball)


def _disk(r: float) -> np.ndarray:
    """The elliptic structuring element of radius ``r`` px, rounded (``vision.detect.split``'s
    cache: never written to)."""
    return _ellipse(2 * max(1, int(round(r))) + 1)
