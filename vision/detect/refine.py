"""Sub-pixel ball centres at full resolution (recorded video px), from the detector's
proposals: the foreground-weighted centroid of the pixels near each estimate inside its
Voronoi cell among neighbours, weighted by the colour distance from the empty cloth,
then fitted to the ball's own circular edge (:func:`edge_centre`) where that edge is
found: a centroid is pulled off the ball by anything unlike the cloth beside it (a
projected halo ring, a shadow) and by the parts of the ball the cloth model does not see
as foreground (a ball frozen to a cushion overlaps the cushion's picture)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.base.colour import plate_distance

USE_EDGE = True  # fit centres to the ball's edge where the centroid may be pulled
EDGE_GATE_COVER = 0.97  # the edge is fitted where the disk is less foreground than this ...
EDGE_GATE_BESIDE = 0.05  # ... or more of the ring just outside it (1.2 r .. 1.6 r) than this
EDGE_RAYS = 48  # rays from the centre along which the ball's edge is looked for
EDGE_STEP = 0.5  # video px between samples along a ray
EDGE_BANDS = ((0.75, 1.25), (0.85, 1.15))  # radii searched per iteration (x r): alone ...
EDGE_BANDS_CROWDED = ((0.45, 1.6), (0.7, 1.3), (0.8, 1.2))  # ... among neighbours
EDGE_PEAK = 0.5  # a ray's edge: its innermost step of this share of its strongest ...
EDGE_INNER = 0.7  # ... from this share of r out (a highlight lies further in)
EDGE_SEARCH = 0.6  # the circle's centre is searched this share of r around the estimate
VOTE_BRIGHTNESS = 0.4  # in the vote a pure change of brightness (a shadow) counts this much
OPPONENT = np.array(  # BGR -> (brightness x VOTE_BRIGHTNESS, two hue axes), orthonormal
    [
        [VOTE_BRIGHTNESS / np.sqrt(3)] * 3,
        [1 / np.sqrt(2), -1 / np.sqrt(2), 0.0],
        [1 / np.sqrt(6), 1 / np.sqrt(6), -2 / np.sqrt(6)],
    ],
    np.float32,
)
VOTE_STEP = 2  # px between the centres the vote compares
EDGE_CLIP = 80  # percentile of the edge strengths at which one ray's vote is clipped
EDGE_INLIER = 0.12  # an edge point within this share of r of the fitted circle counts
EDGE_MIN_INLIERS = 0.8  # least share of the rays whose edge lies on the circle ...
EDGE_WEAK_SHARE = 0.5  # ... and after the first fit (or the fit stops early)
EDGE_MIN_STEP = 20.0  # the circle's edges: at least this colour step (8-bit BGR per px)
EDGE_MAX_SHIFT = 0.7  # the edge fit may move the centre by at most this share of r
EDGE_RADIUS = (0.85, 1.15)  # the fitted radius must lie within these shares of r
FIT_ITERS = 6  # Gauss-Newton steps of the robust circle fit (most stop after 3)
RING_MIN_SHARE = 0.05  # a ring share is measured on at least this share of the whole ring
# among neighbours, the centroid's pixels beyond the ball's own disk (its shadow, the
# edge's blur) only where their mirror image through the estimate is in its cell too: a
# bisector with a touching ball cuts them on that side only and pushes the centroid away
# from the neighbour (rendered racks read 1-1.4 mm apart per touching neighbour; 1.0 r
# instead of 1.05 r turned that into a pull of about the same size toward it). Off: with
# it on, the rack reading (vision.events.impulse.rack_contacts) invents and misses more pairs in
# the fixture break (auto calibration; fixture contact F1 0.915 -> 0.806) and the video
# set's contact F1 is 0.905 against 0.919 off (same event stage), while the shots' rest
# p95 improves 1.40 -> 1.28 mm; the break's members' velocities just after the hit err
# by 1-3 mm/frame either way (the impulses of the rack's weak pairs).
SYMMETRIC_CELL = False
SYMMETRIC_BEYOND = 1.05  # ... beyond this share of r (the disk and its edge's blur whole)


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
    sharp: np.ndarray | None = None,
    shift: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sub-pixel centres at full resolution: the foreground-weighted centroid of the
    pixels within 1.3 r of the estimate and inside its Voronoi cell among neighbours,
    then, for a ball marked ``sharp`` (N,) bool (default all; the detector marks balls at
    rest) whose centroid may have been pulled off it (:func:`_pulled`), the centre of
    its own circular edge (:func:`edge_centre`) where that is found.
    A second pass re-runs the balls that have neighbours, with the neighbours refined.
    ``shift`` (N,2) float, where given: set for every refined ball to the edge fit's move
    from the centroid (video px; zero where the centroid stands), so a caller can carry a
    resting ball's edge-minus-centroid offset to frames measured by the centroid alone.

    Returns (uv (N,2) video px, coverage of the disk (N,), share of foreground in the
    ring 1.25 r..1.6 r outside the ball's neighbours (N,; high for arms and bodies),
    median core BGR (N,3))."""
    out = uv.astype(float).copy()
    n = len(uv)
    score, ring, bgr = np.zeros(n), np.zeros(n), np.zeros((n, 3))
    reach = (3.0 * np.asarray(radii, float)).tolist()  # neighbours lie within 3 r of a ball
    skips = [False] * n if todo is None else (~np.asarray(todo, bool)).tolist()
    for p in range(passes):
        # pair distances (px), kept current: a refined ball's row and column are redone
        dx = out[:, None, 0] - out[None, :, 0]
        dy = out[:, None, 1] - out[None, :, 1]
        dist = np.sqrt(dx * dx + dy * dy)
        crowded = False
        for i in range(n):
            skip = skips[i]
            if skip and crowded:
                continue  # neither refined nor needed to tell whether any ball is crowded
            near = dist[i] < reach[i]
            near[i] = False  # not its own neighbour
            has_nb = bool(near.any())
            crowded |= has_nb
            if skip or (p > 0 and not has_nb):
                continue
            nb = out[near]
            ok = sharp is None or bool(sharp[i])
            moved = np.zeros(2)
            res = _refine_one(img, plate, pn, out[i], float(radii[i]), nb, thr, iters, ok, moved)
            if shift is not None:
                shift[i] = moved
            if res is not None:
                out[i], score[i], ring[i], bgr[i] = res
                ex, ey = out[:, 0] - out[i, 0], out[:, 1] - out[i, 1]
                dist[i] = dist[:, i] = np.sqrt(ex * ex + ey * ey)
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
    sharp: bool = True,
    moved: np.ndarray | None = None,
) -> tuple[np.ndarray, float, float, np.ndarray] | None:
    """Refine one centre ``c`` (video px) of radius ``r`` px among neighbours ``nb``;
    ``moved`` (2,), where given, receives the edge fit's move from the centroid (px)."""
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

    def cell(centre: np.ndarray, mirrored: bool = False) -> np.ndarray:
        """Pixels on the centre's side of every bisector with a neighbour (all at once);
        ``mirrored``: and whose mirror image through the centre is too, a window
        symmetric about the centre (:data:`SYMMETRIC_CELL`)."""
        m, d = 0.5 * (centre + nb), nb - centre  # (K,2) bisector points and normals
        tx = (ax[None] - m[:, 0, None, None]) * d[:, 0, None, None]  # (K,1,W)
        ty = (ay[None] - m[:, 1, None, None]) * d[:, 1, None, None]  # (K,H,1)
        side = tx + ty < 0
        if mirrored:  # p - m and (2 c - p) - m along d: their sum is 2 (c - m) . d < 0
            lim = 2.0 * ((centre - m) * d).sum(axis=1)[:, None, None]  # (K,1,1), negative
            side &= tx + ty > lim
        return side[0] if len(nb) == 1 else side.all(axis=0)

    def dist2(centre: np.ndarray) -> np.ndarray:
        return (ay - centre[1]) ** 2 + (ax - centre[0]) ** 2

    d2 = cl = last = None  # squared distances from c, its Voronoi cell (None: alone)
    for _ in range(iters):
        d2, cl = dist2(c), cell(c) if len(nb) else None
        near = d2 <= (1.3 * r) ** 2
        if cl is not None and SYMMETRIC_CELL:  # the disk whole, what lies beyond symmetric
            near &= (d2 <= (SYMMETRIC_BEYOND * r) ** 2) | cell(c, mirrored=True)
        if cl is not None:
            near &= cl
        if last is not None and not (near ^ last).any():
            break  # the same pixels as last time: c would not move (d2, cl are c's)
        w = wgt * near  # wgt >= 0: the same as np.where(near, wgt, 0.0), cheaper
        sw = float(w.sum())
        if sw < 1e-6:
            break
        c = np.array([float(w.sum(axis=0) @ ax[0]) / sw, float(w.sum(axis=1) @ ay[:, 0]) / sw])
        d2, last = None, near
    if d2 is None:  # c moved since they were computed
        d2, cl = dist2(c), cell(c) if len(nb) else None
    if USE_EDGE and sharp and _pulled(wgt, d2, r, cl):
        edge = edge_centre(img, c, r, nb)
        if edge is not None:
            if moved is not None:
                moved[:] = edge[0] - c
            c = edge[0]
            d2, cl = dist2(c), cell(c) if len(nb) else None
    score = float(wgt[d2 <= r * r].sum()) / max(1.0, np.pi * r * r)
    ann = (d2 >= (1.25 * r) ** 2) & (d2 <= (1.6 * r) ** 2)
    if cl is not None:
        ann &= cl
    # a ball enclosed by its neighbours (a rack's middle ball) keeps a few stray pixels of
    # the ring in its cell, or none: no room for an arm there, and no share worth a test
    enough = np.count_nonzero(ann) >= RING_MIN_SHARE * np.pi * (1.6**2 - 1.25**2) * r * r
    ring = np.count_nonzero(ann & (wgt > 0.5)) / np.count_nonzero(ann) if enough else 0.0
    core = (d2 <= (0.6 * r) ** 2) & (wgt > 0.5)
    if not core.any():
        bgr = np.zeros(3)
    elif img.dtype == np.uint8:
        bgr = _median_u8(img[y0:y1, x0:x1][core])
    else:
        bgr = _median_rows(roi[core])
    return c, score, ring, bgr


def _pulled(wgt: np.ndarray, d2: np.ndarray, r: float, cell: np.ndarray | None) -> bool:
    """True where the centroid may have been pulled off the ball: its disk (radius ``r``
    px; ``d2`` squared px distances from the centroid) is not wholly foreground (part of
    the ball not seen: frozen to a cushion, whose picture the plate holds) or foreground
    lies just outside it (a halo, a shadow) within its Voronoi ``cell`` (None: alone)."""
    disk = d2 <= r * r
    cover = float(wgt[disk].sum()) / max(1.0, np.pi * r * r)
    ann = (d2 > (1.2 * r) ** 2) & (d2 <= (1.6 * r) ** 2)
    if cell is not None:
        ann &= cell
    beside = float(wgt[ann].mean()) if ann.any() else 0.0
    return cover < EDGE_GATE_COVER or beside > EDGE_GATE_BESIDE


def _median_rows(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=0)`` for an (N, C) array, without its overhead (float64)."""
    n = len(x)
    lo, hi = (n - 1) // 2, n // 2
    part = np.partition(x, [lo, hi], axis=0)
    return 0.5 * (part[lo].astype(np.float64) + part[hi])


def _median_u8(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=0)`` (float64) for an (N, C) uint8 array (N >= 1): the two
    middle values of each column partitioned in place of a sort (uint8: a few times
    cheaper than a histogram per column for a ball's core of a few hundred pixels)."""
    n = len(x)
    lo, hi = (n - 1) // 2, n // 2
    part = np.partition(x, (lo, hi) if lo != hi else lo, axis=0)
    return 0.5 * (part[lo].astype(np.float64) + part[hi])


def edge_centre(
    img: np.ndarray,
    c: np.ndarray,
    r: float,
    nb: np.ndarray | None = None,
) -> tuple[np.ndarray, float, float] | None:
    """The centre (video px) of the ball's circular edge near the estimate ``c`` (video
    px) for the expected radius ``r`` (video px), or None where no such edge is found.

    A ball alone is first placed by a vote (:func:`_circle_vote`: the circle of radius
    ``r`` through the strongest hue edges within :data:`EDGE_SEARCH` r; the edge of the
    ball's shadow, a disc of its size, is mostly a change of brightness). Then along
    :data:`EDGE_RAYS` rays from the centre each ray's edge point is its innermost strong
    colour step beyond a highlight's reach (a halo, a shadow or a cushion lies outside
    the ball's edge; sub-pixel: a parabola through the step and its neighbours), a circle
    is fitted to the points by robust least squares (Tukey weights, radius free near
    ``r``) and the rays are cast again from the new centre over narrower radii
    (:data:`EDGE_BANDS`). Edges beyond the bisector with a neighbour ``nb`` (M,2 video
    px; touching balls) are not looked for. None unless most rays (:data:`EDGE_MIN_INLIERS`)
    end on the circle at a sharp step (:data:`EDGE_MIN_STEP`; a moving ball's edge is
    smeared), near the estimate and of about the radius expected.

    Returns (centre (2,) video px, fitted radius px, share of rays on the circle)."""
    c0 = np.asarray(c, float)
    H, W = img.shape[:2]
    half = int(np.ceil((EDGE_BANDS_CROWDED[0][1] + EDGE_MAX_SHIFT) * r)) + 2
    x0, y0 = max(0, int(c0[0]) - half), max(0, int(c0[1]) - half)
    x1, y1 = min(W, int(c0[0]) + half + 1), min(H, int(c0[1]) + half + 1)
    if x1 - x0 < 8 or y1 - y0 < 8 or r < 2.0:
        return None
    roi = img[y0:y1, x0:x1].astype(np.float32)
    th = np.linspace(0.0, 2 * np.pi, EDGE_RAYS, endpoint=False)
    dirs = np.c_[np.cos(th), np.sin(th)]
    nb = np.zeros((0, 2)) if nb is None else np.asarray(nb, float).reshape(-1, 2)
    if len(nb):  # among neighbours: the centroid in its cell is near
        cc, bands = c0.copy(), EDGE_BANDS_CROWDED
    else:  # alone: a halo, a shadow or a cushion may have pulled the centroid far off
        cc, bands = c0 + _circle_vote(roi, c0 - [x0, y0], r, dirs[::2]), EDGE_BANDS
    rho, share, floor = r, 0.0, 0.0
    for it, (lo, hi) in enumerate(bands):
        inner = it > 0 or not len(nb)  # from a centroid maybe far off: the strongest step
        rays = _ray_edges(roi, cc - [x0, y0], r, dirs, (lo, hi), nb - cc, inner)
        if rays is None:
            return None
        ok, rad, strength = rays
        fit = _fit_circle(cc + dirs[ok] * rad[ok, None], strength, cc, rho, r)
        if fit is None:
            return None
        cc, rho, inl = fit
        share = float(inl.sum()) / EDGE_RAYS
        floor = float(np.median(strength[inl])) if inl.any() else 0.0
        if floor < EDGE_MIN_STEP or share < EDGE_WEAK_SHARE:
            return None  # no sharp circular edge here (a moving ball's is smeared)
    if (
        share < EDGE_MIN_INLIERS
        or floor < EDGE_MIN_STEP
        or np.linalg.norm(cc - c0) > EDGE_MAX_SHIFT * r
        or not EDGE_RADIUS[0] * r <= rho <= EDGE_RADIUS[1] * r
    ):
        return None
    return cc, rho, share


def _ray_edges(
    roi: np.ndarray,
    c: np.ndarray,
    r: float,
    dirs: np.ndarray,
    band: tuple[float, float],
    nb: np.ndarray,
    inner: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each ray's edge from ``c`` (ROI px) within ``band`` (shares of ``r``) and short of
    the bisectors with the neighbours ``nb`` (M,2, relative to ``c``): its innermost
    strong step (``inner``) or its strongest. Returns (rays with an edge (K,) bool, edge
    radius px (K,), colour step at the edges with one (8-bit BGR per px)); None with too
    few edges."""
    lo, hi = band
    t = np.arange(lo * r - EDGE_STEP, hi * r + 1.5 * EDGE_STEP, EDGE_STEP)
    px = (c[0] + dirs[:, :1] * t[None, :]).astype(np.float32)
    py = (c[1] + dirs[:, 1:] * t[None, :]).astype(np.float32)
    s = cv2.remap(roi, px, py, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    step = np.linalg.norm(s[:, 2:] - s[:, :-2], axis=2) / (2 * EDGE_STEP)  # (K, J-2)
    tt = t[1:-1]
    reach = np.full(len(dirs), np.inf)  # along each ray: up to the nearest bisector
    for d in nb:
        cos = dirs @ d
        with np.errstate(divide="ignore"):
            reach = np.minimum(reach, np.where(cos > 1e-6, 0.5 * (d @ d) / cos, np.inf))
    step = np.where(tt[None, :] <= reach[:, None], step, 0.0)
    # the innermost strong step beyond a highlight's reach: a halo, the ball's shadow or
    # a cushion's edge lies outside the ball's own edge
    peak = np.zeros(step.shape, bool)
    peak[:, 1:-1] = (step[:, 1:-1] >= step[:, :-2]) & (step[:, 1:-1] > step[:, 2:])
    peak &= (step >= EDGE_PEAK * step.max(axis=1, keepdims=True)) & (tt >= EDGE_INNER * r)
    first = np.where(peak.any(axis=1), np.argmax(peak, axis=1), 0)
    j = first if inner else np.argmax(step, axis=1)
    k = np.arange(len(dirs))
    ok = (j > 0) & (j < len(tt) - 1) & (step[k, j] > 0)
    if ok.sum() < EDGE_WEAK_SHARE * len(dirs):
        return None
    a, b, e = step[k, np.maximum(j - 1, 0)], step[k, j], step[k, np.minimum(j + 1, len(tt) - 1)]
    den = a - 2 * b + e
    off = np.where(ok & (den < 0), 0.5 * (a - e) / np.where(den < 0, den, -1.0), 0.0)
    rad = tt[j] + np.clip(off, -0.5, 0.5) * EDGE_STEP
    return ok, rad, b[ok]


def _circle_vote(roi: np.ndarray, c: np.ndarray, r: float, dirs: np.ndarray) -> np.ndarray:
    """The offset (px) from ``c`` (ROI px) of the centre whose circle of radius about
    ``r`` px crosses the strongest colour edges of ``roi`` (a Hough vote for a known
    radius, whole pixels within :data:`EDGE_SEARCH` r): every ray ``dirs`` (K,2) votes
    its strongest edge near the circle, clipped so that a few strong edges that are not
    the ball's (a highlight, a halo, a cushion) cannot outvote its whole outline."""
    opp = cv2.transform(roi, OPPONENT)  # brightness (weighted) and two hue axes
    gx = cv2.Sobel(opp, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(opp, cv2.CV_32F, 0, 1, ksize=3)
    g = cv2.sqrt(cv2.transform(gx * gx + gy * gy, np.ones((1, 3), np.float32)))
    m = int(np.ceil(EDGE_SEARCH * r / VOTE_STEP)) * VOTE_STEP
    o = np.arange(-m, m + 1, VOTE_STEP)
    ox, oy = np.meshgrid(o, o)
    ox, oy = ox.ravel(), oy.ravel()
    rad = r * np.array([0.92, 1.0, 1.08])
    dx = np.rint(dirs[:, 0, None] * rad[None]).astype(int).ravel()  # (K*3,)
    dy = np.rint(dirs[:, 1, None] * rad[None]).astype(int).ravel()
    cx, cy = int(round(c[0])), int(round(c[1]))
    h, w = g.shape
    xi = np.clip(cx + ox[:, None] + dx[None], 0, w - 1)
    yi = np.clip(cy + oy[:, None] + dy[None], 0, h - 1)
    vote = g[yi, xi].reshape(len(ox), len(dirs), 3).max(axis=2)  # (centres, K)
    cap = float(np.percentile(vote, EDGE_CLIP))
    best = int(np.argmax(np.minimum(vote, cap).sum(axis=1)))
    return np.array([cx + ox[best] - c[0], cy + oy[best] - c[1]], float)


def _fit_circle(
    pts: np.ndarray, strength: np.ndarray, c: np.ndarray, rho: float, r: float
) -> tuple[np.ndarray, float, np.ndarray] | None:
    """Robust circle through edge points ``pts`` (K,2 px) weighted by ``strength`` (K,),
    from centre ``c`` and radius ``rho`` (px); the radius is held near the expected
    ``r`` by a weak prior. Returns (centre, radius, (K,) bool: the points on it)."""
    scale = EDGE_INLIER * r
    prior = 0.5 * float(np.median(strength)) * len(pts) / 16.0  # about 1/16 of the rays
    px, py = pts[:, 0], pts[:, 1]
    for _ in range(FIT_ITERS):
        dx, dy = px - c[0], py - c[1]
        dist = np.sqrt(dx * dx + dy * dy)
        if dist.min() < 1e-6:
            return None
        ux, uy = dx / dist, dy / dist
        res = dist - rho
        z = res / (3.0 * scale)
        w = np.where(np.abs(z) < 1, (1 - z * z) ** 2, 0.0) * strength  # Tukey's biweight
        sw = float(w.sum())
        if sw <= 0:
            return None
        wx, wy = w * ux, w * uy  # normal equations of d res / d (cx, cy, rho) = -(ux, uy, 1)
        A = np.array(
            [
                [wx @ ux, wx @ uy, wx.sum()],
                [wx @ uy, wy @ uy, wy.sum()],
                [wx.sum(), wy.sum(), sw + prior],
            ]
        )
        g = np.array([wx @ res, wy @ res, w @ res - prior * (rho - r)])
        try:
            delta = np.linalg.solve(A, g)
        except np.linalg.LinAlgError:
            return None
        c, rho = c + delta[:2], rho + float(delta[2])
        if float(np.abs(delta).max()) < 0.01:
            break
    res = np.linalg.norm(pts - c, axis=1) - rho
    return c, rho, np.abs(res) < scale
