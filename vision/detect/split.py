"""Explain one foreground blob as touching balls, a motion smear, or an actor.

Work-image pixels throughout (the detector's downscaled image); ``r`` is the
expected ball radius there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from vision.detect import packed as _packed

MAX_BALLS_PER_BLOB = 30
SMEAR_SOLIDITY = 0.93
SMEAR_STEP = 1.0  # px: the outline's pixel steps smoothed away before its solidity
# ball radii: a notch this deep (and at least 1.5 px) in the outline is the gap between two
# touching balls, not a smear (a blur is convex; a pair clipped by the cushion keeps its
# notch on the free side while its solidity can pass SMEAR_SOLIDITY)
SMEAR_NOTCH = 0.3
UNEXPLAINED_EXTRA = 0.5  # blob pixels no disk covers cost this much more than other misfit
MAX_PEAK_BALLS = 12  # blobs up to this many balls' area may hold balls joined to clutter


@dataclass(frozen=True)
class BlobFit:
    """``centres`` (K,2) work px relative to the crop; ``smear`` a motion-blurred ball;
    ``actor`` no set of disks explains the blob (arm, cue, body)."""

    centres: np.ndarray
    smear: bool = False
    stretch: float = 1.0  # smear length over width (colour is diluted by about this)
    axis: tuple[float, float] | None = None  # a smear's long axis: unit vector, work px
    actor: bool = False
    residual: float = 0.0
    partial: bool = False  # balls found in a blob the disks did not fully explain
    # k -> k-means centres (K,2 work px, relative to the crop) of the plain split's runs:
    # the next frame's fit of the same blob starts its runs there (:data:`WARM`)
    splits: dict = field(default_factory=dict, compare=False, repr=False)


def _disk_cost(mask: np.ndarray, centres: np.ndarray, r: float) -> tuple[float, float]:
    """(xor area + overlap area, unexplained fraction of the blob) of disks vs the mask."""
    h, w = mask.shape
    gx, gy = np.arange(w)[None, :], np.arange(h)[:, None]  # broadcast, no grids
    m = mask > 0
    if len(centres) == 1:  # most blobs: one disk, no overlap
        c = centres[0]
        union = (gx - c[0]) ** 2 + (gy - c[1]) ** 2 <= r * r
        overlap = 0
    else:
        cover = _cover_count(centres, r, h, w)
        union = cover > 0
        overlap = np.count_nonzero(cover > 1)
    xor = np.count_nonzero(m ^ union)
    unexplained = np.count_nonzero(m & ~union) / max(1, np.count_nonzero(m))
    return float(xor + overlap), float(unexplained)


def _cover_count(centres: np.ndarray, r: float, h: int, w: int) -> np.ndarray:
    """(h, w) count of the disks of radius ``r`` px at ``centres`` (K,2 work px) that
    hold each pixel (x - cx)^2 + (y - cy)^2 <= r^2: every disk's pixels looked for only
    within its bounding box (no pixel beyond it), all disks in one go."""
    c = np.asarray(centres, float)
    x0 = np.floor(c[:, 0] - r).astype(int)  # per disk: its box's first column and row
    y0 = np.floor(c[:, 1] - r).astype(int)
    s = int(np.ceil(2 * r)) + 2  # box side (px): covers floor(c - r) .. ceil(c + r)
    o = np.arange(s)
    gx = x0[:, None, None] + o[None, None, :]  # (K, 1, s) columns
    gy = y0[:, None, None] + o[None, :, None]  # (K, s, 1) rows
    inside = (gx - c[:, 0, None, None]) ** 2 + (gy - c[:, 1, None, None]) ** 2 <= r * r
    inside &= (gx >= 0) & (gx < w) & (gy >= 0) & (gy < h)
    flat = np.broadcast_to(gy * w + gx, inside.shape)[inside]
    return np.bincount(flat, minlength=h * w).reshape(h, w)


def nonzero_flat(mask: np.ndarray) -> np.ndarray:
    """Flat indices (int64, raster order) of the nonzero pixels of a C-contiguous uint8
    ``mask``: the nonzero 8-byte words found first, then their bytes (a sparse mask:
    a few times fewer elements looked at than byte by byte)."""
    flat = mask.reshape(-1)
    n8 = flat.size // 8 * 8
    words = np.flatnonzero(flat[:n8].view(np.uint64))
    row, col = np.nonzero(flat[:n8].reshape(-1, 8)[words])
    pos = words[row] * 8 + col
    tail = np.flatnonzero(flat[n8:])
    return np.concatenate((pos, tail + n8)) if len(tail) else pos


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)`` with the statistics
    computed from the foreground pixels only (many times cheaper on a sparse mask):
    (count incl. background 0, int32 labels, (n,5) x/y/w/h/area, (n,2) centroids).
    Row 0 (the background) holds zeros."""
    n, labels = cv2.connectedComponents(mask, connectivity=8, ltype=cv2.CV_32S)
    stats = np.zeros((n, 5), np.int32)
    cents = np.zeros((n, 2))
    if n <= 1:
        return n, labels, stats, cents
    pos = nonzero_flat(mask)  # raster order, as cv2.findNonZero's
    ys, xs = np.divmod(pos, mask.shape[1])
    lab = labels.reshape(-1)[pos]
    order = np.argsort(lab, kind="stable")
    lab, xs, ys = lab[order], xs[order].astype(np.int32), ys[order].astype(np.int32)
    starts = np.searchsorted(lab, np.arange(1, n))
    x0, y0 = np.minimum.reduceat(xs, starts), np.minimum.reduceat(ys, starts)
    x1, y1 = np.maximum.reduceat(xs, starts), np.maximum.reduceat(ys, starts)
    area = np.diff(np.append(starts, len(lab)))
    stats[1:] = np.stack((x0, y0, x1 - x0 + 1, y1 - y0 + 1, area), axis=1)
    cents[1:, 0] = np.add.reduceat(xs, starts) / area
    cents[1:, 1] = np.add.reduceat(ys, starts) / area
    return n, labels, stats, cents


KMEANS_BALLS = 16  # blobs larger than a full rack (arms, bodies) cluster a subsample,
KMEANS_RACK = 24  # ... unless compact and under this: a rack measured large (halo, shadow)
KMEANS_POINTS = 400  # ... of about this many of their pixels, with one attempt
THICK = 2.0  # ball radii: a blob that reaches in from beyond the examined picture's edge
THICK_FROM = 8.0  # (``edge``), holds a disk this wide (its distance transform's maximum)
# and at least this many balls' area is a body or an arm's bulk, not balls (bodies 2.2-6 r
# in the generated clips; a rack whose gaps the halo fills holds 3 r, as the snooker
# stills' reds: never one reaching in from the edge): an actor when larger than
# MAX_PEAK_BALLS (split into disks, the disks' colours were a body's: all dropped by the
# majority vote), else its k-means runs are coarse and warm-started as a blob larger than
# a rack's (KMEANS_BALLS)
WARM = True  # a blob larger than a full rack (KMEANS_BALLS: an arm, a body) seen last
# frame: its k-means runs start from last frame's centres (one run, not two seeded ones;
# on every blob it moved rack balls of the fixture break by up to 2.5 mm)


def _kmeans(
    pts: np.ndarray, k: int, coarse: bool = False, start: np.ndarray | None = None
) -> np.ndarray:
    """``k`` cluster centres of the blob pixels ``pts`` (work px): two k-means++ attempts
    on every pixel, or (``coarse``: a blob larger than any cluster of balls) one attempt on
    every ``n``-th pixel, about :data:`KMEANS_POINTS` of them. ``start`` (k,2 work px):
    one attempt from the pixels' nearest of these centres instead (the last frame's)."""
    if k == 1:
        return pts.mean(axis=0, keepdims=True)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.02)
    cv2.setRNGSeed(12345)
    step = max(1, len(pts) // KMEANS_POINTS) if coarse else 1
    sub = pts[::step] if step > 1 else pts
    if start is not None and len(start) == k:
        d = (sub[:, None, 0] - start[None, :, 0]) ** 2 + (sub[:, None, 1] - start[None, :, 1]) ** 2
        labels = d.argmin(axis=1).astype(np.int32).reshape(-1, 1)
        if len(np.unique(labels)) == k:  # every start centre holds pixels
            _, _, centres = cv2.kmeans(sub, k, labels, crit, 1, cv2.KMEANS_USE_INITIAL_LABELS)
            return centres.astype(float)
    attempts = 2 if step == 1 else 1
    _, _, centres = cv2.kmeans(sub, k, None, crit, attempts, cv2.KMEANS_PP_CENTERS)
    return centres.astype(float)


def _ellipse_of(mask: np.ndarray) -> tuple[float, float, np.ndarray, tuple[float, float]]:
    """The blob's equivalent ellipse from its second moments: (major, minor) full
    lengths (px), its centroid and the unit vector (work px: x right, y down) along its
    major axis, the line a smeared ball's centre ran along in the exposure."""
    m = cv2.moments(mask, binaryImage=True)
    if m["m00"] <= 0:
        return 0.0, 0.0, np.zeros(2), (1.0, 0.0)
    c = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]])
    a, b, d = m["mu20"] / m["m00"], m["mu11"] / m["m00"], m["mu02"] / m["m00"]
    mid, rad = 0.5 * (a + d), math.hypot(0.5 * (a - d), b)  # the 2x2 covariance's eigenvalues
    th = 0.5 * math.atan2(2.0 * b, a - d)
    major, minor = 4.0 * math.sqrt(max(mid + rad, 0.0)), 4.0 * math.sqrt(max(mid - rad, 0.0))
    return major, minor, c, (math.cos(th), math.sin(th))


def _axes(mask: np.ndarray) -> tuple[float, float, np.ndarray]:
    """(major, minor) full lengths (px) of the blob's equivalent ellipse and its centroid."""
    return _ellipse_of(mask)[:3]


def long_axis(mask: np.ndarray) -> tuple[float, float]:
    """Unit vector (work px) along the blob's major axis (:func:`_ellipse_of`)."""
    return _ellipse_of(mask)[3]


def fit_blob(
    mask: np.ndarray,
    r: float,
    isolated: bool | Callable[[], bool] = True,
    warm: dict | None = None,
    edge: bool = False,
) -> BlobFit:
    """Split a blob (uint8 crop, nonzero inside) into ball centres of radius ``r`` px.
    ``isolated``: no other foreground touches the blob (a smear must be isolated: a hand
    at the end of a sleeve is not one), or a function that tells, asked only where the
    blob is shaped like a smear. ``warm``: k -> centres (k,2 px of this crop) the
    k-means runs start from (the last frame's ``splits`` of this blob; :data:`WARM`).
    ``edge``: the blob reaches the examined picture's outer edge (from beyond the table:
    a body or an arm, unless it is one of balls at the cushion; :data:`THICK`)."""
    ys, xs = np.nonzero(mask)
    pts = np.stack((xs, ys), axis=1).astype(np.float32)
    area = len(pts)
    ball_area = np.pi * r * r
    n_est = area / ball_area
    major, minor, centroid, axis = _ellipse_of(mask)
    if n_est > MAX_BALLS_PER_BLOB:
        return BlobFit(np.zeros((0, 2)), actor=True, residual=1.0)
    alone = isolated if callable(isolated) else lambda: isolated
    if _is_smear(mask, r, n_est, major, minor) and alone():
        stretch = major / max(minor, 1e-6)
        return BlobFit(centroid.reshape(1, 2), smear=True, stretch=stretch, axis=axis)
    if n_est < 1.45:  # most blobs: one ball, no clustering needed
        c = pts.mean(axis=0, keepdims=True).astype(float)
        _, unexplained = _disk_cost(mask, c, r)
        if unexplained <= 0.12:
            return BlobFit(c, residual=unexplained)
    bulk = edge and n_est >= THICK_FROM and thickness(mask) >= THICK * r  # a body
    if bulk and n_est > MAX_PEAK_BALLS:  # no ball's round part looked for (_dt_peaks)
        return BlobFit(np.zeros((0, 2)), actor=True, residual=1.0)
    rack_like = n_est <= KMEANS_RACK and major <= 2.0 * minor and not bulk
    coarse = (n_est > KMEANS_BALLS or bulk) and not rack_like
    lo = max(1, int(np.floor(n_est * 0.75)))
    hi = max(lo, int(np.ceil(n_est * 1.1)))
    splits: dict[int, np.ndarray] = {}  # k -> k-means centres of these pixels (reused)
    warm = warm if n_est > KMEANS_BALLS or bulk else None  # racks: the seeded runs' answer
    centres, unexplained = _best_split(mask, pts, r, lo, hi, coarse, splits, warm)
    if _packed.PACKED and rack_like and n_est >= _packed.PACKED_FROM and unexplained <= 0.12:
        centres, unexplained = _packed_split(
            mask, pts, r, (lo, hi), coarse, centres, unexplained, splits, warm
        )
    if unexplained <= 0.12:
        return BlobFit(centres, residual=unexplained, splits=splits)
    # A single elongated blob about one ball wide: a ball smeared by motion.
    if n_est <= 6 and 1.4 * r <= minor <= 2.8 * r and major >= 2.4 * r and alone():
        return BlobFit(
            centroid.reshape(1, 2),
            smear=True,
            residual=unexplained,
            stretch=major / max(minor, 1e-6),
            axis=axis,
            splits=splits,
        )
    if unexplained <= 0.25 and n_est <= 3:
        return BlobFit(centres, residual=unexplained, splits=splits)
    if n_est <= MAX_PEAK_BALLS:
        peaks = _dt_peaks(mask, r)
        if len(peaks):
            return BlobFit(peaks, residual=unexplained, partial=True, splits=splits)
    return BlobFit(np.zeros((0, 2)), actor=True, residual=unexplained, splits=splits)


def _best_split(
    mask: np.ndarray,
    pts: np.ndarray,
    r: float,
    lo: int,
    hi: int,
    coarse: bool,
    splits: dict[int, np.ndarray] | None = None,
    warm: dict | None = None,
) -> tuple[np.ndarray, float]:
    """(centres (K,2) work px, unexplained fraction of the blob) of the best split of the
    blob ``mask`` (its pixels ``pts``) into ``lo`` .. ``hi`` disks of radius ``r`` px.
    ``splits``: k -> centres of k-means runs on these very pixels (seeded: the same
    answer), read and added to (the hole-filled blob of a rack without holes repeats them);
    ``warm``: k -> centres the runs not made yet start from (:func:`_kmeans`)."""
    area, ball_area = len(pts), np.pi * r * r
    best: tuple[float, np.ndarray, float] | None = None
    splits = {} if splits is None else splits
    for k in range(lo, hi + 1):
        c = splits.get(k)
        if c is None:
            start = warm.get(k) if warm and WARM else None
            c = splits[k] = _kmeans(pts, k, coarse, start)
        cost, unexplained = _disk_cost(mask, c, r)
        cost += 0.15 * ball_area * k  # prefer fewer balls when the fit is as good
        # ... but not a ball left out: uncovered pixels beyond half a ball's area cost more
        cost += UNEXPLAINED_EXTRA * max(0.0, unexplained * area - 0.5 * ball_area)
        if best is None or cost < best[0]:
            best = (cost, c, unexplained)
    return best[1], best[2]


def _packed_split(
    mask: np.ndarray,
    pts: np.ndarray,
    r: float,
    counts: tuple[int, int],
    coarse: bool,
    plain: np.ndarray,
    rest: float,
    splits: dict[int, np.ndarray],
    warm: dict | None = None,
) -> tuple[np.ndarray, float]:
    """A rack's split with its holes filled (``vision.detect.packed``) where it finds balls the
    plain split ``plain`` (K,2 work px, ``rest`` unexplained; tried over ``counts``: lo,
    hi balls) misses; else the best split of the blob's own pixels ``pts`` into lo up to
    as many balls as the filled blob is tried with, where that has more than hi balls (it
    fits the blob better than every plain count) and finds balls the plain one misses (a
    rack of balls each thinned to a ring, its area short of its balls', its gaps not
    enclosed: the filled pixels' k-means can settle worse than the plain pixels'); else
    the plain one. ``splits``: the plain split's k-means runs (k -> centres), reused where
    no hole was filled (the same pixels), and so are the ``warm`` starts
    (:func:`_best_split`)."""
    lo, hi = counts
    filled, top = _packed.packed(mask, r, lo, hi)
    ys, xs = np.nonzero(filled)
    full = np.stack((xs, ys), axis=1).astype(np.float32)
    same = filled is mask  # fill_holes returns the mask itself when it has no hole
    memo, start = (splits, warm) if same else (None, None)
    more, left = _best_split(filled, full, r, lo, top, coarse, memo, start)
    if left <= 0.12 and _packed.accept(filled, r, plain, more):
        return more, left
    if not same and top > hi:  # the plain counts run on: kept where one past hi fits best
        more, left = _best_split(mask, pts, r, lo, top, coarse, splits, warm)
        if len(more) > hi and left <= 0.12 and _packed.accept(filled, r, plain, more):
            return more, left
    return plain, rest


def thickness(mask: np.ndarray) -> float:
    """The radius (px) of the widest disk inside the blob ``mask`` (uint8 crop, nonzero
    inside; the crop's border counts as outside): its distance transform's maximum."""
    return float(cv2.distanceTransform(np.pad(mask, 1), cv2.DIST_L2, 5).max())


def _dt_peaks(mask: np.ndarray, r: float) -> np.ndarray:
    """Ball-sized round parts of a blob the disks cannot explain (balls joined by halos,
    shadows or an arm's edge): distance-transform maxima between 0.7 r and 1.35 r, at
    least 1.6 r apart."""
    dt = cv2.distanceTransform(np.pad(mask, 1), cv2.DIST_L2, 5)[1:-1, 1:-1]
    dil = cv2.dilate(dt, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((dt >= dil - 1e-6) & (dt >= 0.7 * r) & (dt <= 1.35 * r))
    order = np.argsort(-dt[ys, xs])
    out: list[np.ndarray] = []
    for k in order:
        p = np.array([xs[k], ys[k]], float)
        if all(np.linalg.norm(p - q) >= 1.6 * r for q in out):
            out.append(p)
    return np.asarray(out, float).reshape(-1, 2)


def _is_smear(mask: np.ndarray, r: float, n_est: float, major: float, minor: float) -> bool:
    """An elongated, convex blob one ball wide: one ball smeared by motion, not a row of
    touching balls (whose outline has notches between the balls: solidity about 0.83)."""
    if n_est > 6 or not (1.4 * r <= minor <= 2.6 * r) or major < 2.6 * r:
        return False
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return False
    # the outline without its pixel steps (within SMEAR_STEP px): a ball a few work px
    # across has a stair-cased outline whose notches would pass for the ones between balls
    c = cv2.approxPolyDP(max(cnts, key=cv2.contourArea), SMEAR_STEP, True)
    hull = cv2.contourArea(cv2.convexHull(c))
    if hull <= 0 or cv2.contourArea(c) / hull < SMEAR_SOLIDITY:
        return False
    return _deepest_notch(max(cnts, key=cv2.contourArea)) < max(1.5, SMEAR_NOTCH * r)


def _deepest_notch(contour: np.ndarray) -> float:
    """The depth (px) of the outline's deepest concavity: its convexity defects' largest."""
    hull = cv2.convexHull(contour, returnPoints=False)
    if len(contour) < 4 or hull is None or len(hull) < 3:
        return 0.0
    try:
        d = cv2.convexityDefects(contour, hull)
    except cv2.error:  # a self-touching outline: no defects read
        return 0.0
    return 0.0 if d is None else float(np.asarray(d).reshape(-1, 4)[:, 3].max()) / 256.0


def isolated(
    fg: np.ndarray, labels: np.ndarray, i: int, x: int, y: int, w: int, h: int, r: float
) -> bool:
    """True when little other foreground lies within ``r`` work px around blob ``i``."""
    pad = int(np.ceil(r)) + 1
    H, W = fg.shape
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    lab = labels[y0:y1, x0:x1]
    own = (lab == i).astype(np.uint8)
    ring = (cv2.dilate(own, _ellipse(2 * pad - 1)) > 0) & (own == 0)
    return not ring.any() or float(((lab > 0) & ring).mean() / ring.mean()) < 0.1


@lru_cache(maxsize=32)
def _ellipse(size: int) -> np.ndarray:
    """The elliptic structuring element ``size`` x ``size`` px (made once per size)."""
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
