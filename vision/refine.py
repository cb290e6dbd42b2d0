"""Sub-pixel ball centres at full resolution (recorded video px), from the detector's
proposals: the foreground-weighted centroid of the pixels near each estimate inside its
Voronoi cell among neighbours, weighted by the colour distance from the empty cloth."""

from __future__ import annotations

import numpy as np

from vision.colour import plate_distance


def refine_centres(
    img: np.ndarray,
    plate: np.ndarray,
    uv: np.ndarray,
    radii: np.ndarray,
    thr: float,
    pn: np.ndarray,
    iters: int = 3,
    passes: int = 2,
    todo: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sub-pixel centres at full resolution: the foreground-weighted centroid of the
    pixels within 1.3 r of the estimate and inside its Voronoi cell among neighbours.
    A second pass re-runs the balls that have neighbours, with the neighbours refined.

    Returns (uv (N,2) video px, coverage of the disk (N,), share of foreground in the
    ring 1.25 r..1.6 r outside the ball's neighbours (N,; high for arms and bodies),
    median core BGR (N,3))."""
    out = uv.astype(float).copy()
    n = len(uv)
    score, ring, bgr = np.zeros(n), np.zeros(n), np.zeros((n, 3))
    for p in range(passes):
        crowded = False
        for i in range(n):
            nb = np.delete(out, i, axis=0)
            nb = nb[np.linalg.norm(nb - out[i], axis=1) < 3.0 * radii[i]]
            crowded |= len(nb) > 0
            if (p > 0 and len(nb) == 0) or (todo is not None and not todo[i]):
                continue
            res = _refine_one(img, plate, pn, out[i], float(radii[i]), nb, thr, iters)
            if res is not None:
                out[i], score[i], ring[i], bgr[i] = res
        if not crowded:
            break
    return out, np.clip(score, 0, 1), ring, bgr


def _refine_one(
    img: np.ndarray,
    plate: np.ndarray,
    pn: np.ndarray,
    c: np.ndarray,
    r: float,
    nb: np.ndarray,
    thr: float,
    iters: int,
) -> tuple[np.ndarray, float, float, np.ndarray] | None:
    """Refine one centre ``c`` (video px) of radius ``r`` px among neighbours ``nb``."""
    H, W = img.shape[:2]
    half = int(np.ceil(1.7 * r)) + 1
    x0, y0 = max(0, int(c[0]) - half), max(0, int(c[1]) - half)
    x1, y1 = min(W, int(c[0]) + half + 1), min(H, int(c[1]) + half + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    roi = img[y0:y1, x0:x1].astype(np.float32)
    ax = np.arange(x0, x1, dtype=np.float32)[None, :]  # pixel columns, broadcast over rows
    ay = np.arange(y0, y1, dtype=np.float32)[:, None]
    wgt = np.clip((plate_distance(roi, plate[y0:y1, x0:x1], pn) - 0.5 * thr) / thr, 0.0, 1.0)

    def cell(centre: np.ndarray) -> np.ndarray:
        ok = np.ones(wgt.shape, bool)
        for q in nb:
            m = 0.5 * (centre + q)
            ok &= (ax - m[0]) * (q[0] - centre[0]) + (ay - m[1]) * (q[1] - centre[1]) < 0
        return ok

    def dist2(centre: np.ndarray) -> np.ndarray:
        return (ay - centre[1]) ** 2 + (ax - centre[0]) ** 2

    for _ in range(iters):
        near = dist2(c) <= (1.3 * r) ** 2
        w = np.where(near & cell(c) if len(nb) else near, wgt, 0.0)
        sw = float(w.sum())
        if sw < 1e-6:
            break
        c = np.array([float(w.sum(axis=0) @ ax[0]) / sw, float(w.sum(axis=1) @ ay[:, 0]) / sw])
    d2 = dist2(c)
    score = float(wgt[d2 <= r * r].sum()) / max(1.0, np.pi * r * r)
    ann = (d2 >= (1.25 * r) ** 2) & (d2 <= (1.6 * r) ** 2)
    if len(nb):
        ann &= cell(c)
    ring = float((wgt[ann] > 0.5).mean()) if ann.any() else 0.0
    core = (d2 <= (0.6 * r) ** 2) & (wgt > 0.5)
    bgr = _median_rows(roi[core]) if core.any() else np.zeros(3)
    return c, score, ring, bgr


def _median_rows(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=0)`` for an (N, C) array, without its overhead (float64)."""
    n = len(x)
    lo, hi = (n - 1) // 2, n // 2
    part = np.partition(x, [lo, hi], axis=0)
    return 0.5 * (part[lo].astype(np.float64) + part[hi])
