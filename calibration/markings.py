"""Markings searched where the model predicts them: spots (small faint dots), the house
and centre lines (faint straight lines across the table), skittle marks, pockets (dark
mouths). Input: the clean plate's lightness (float32, recorded px) and a ``to_px``
function mapping table mm (N,2) to recorded pixels.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from calibration.detect import _sample
from contract.tables import TableSpec

ToPx = Callable[[np.ndarray], np.ndarray]
END_PROFILES = 120  # profiles across each end line (house, spotting) for the end evidence
END_REACH_MM = 45.0  # the profiles' half length (mm); noise is read beyond 2 windows
END_WINDOW_MM = 10.0  # a line is read within this of where the model puts it (mm)


def px_per_mm(to_px: ToPx, xy: tuple[float, float]) -> float:
    """Local picture scale (px per mm) at a table point."""
    p = to_px(np.array([xy, (xy[0] + 10, xy[1]), (xy[0], xy[1] + 10)]))
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20)


def find_spot(
    light: np.ndarray,
    to_px: ToPx,
    xy: tuple[float, float],
    spot_mm: float = 16.0,
    search_mm: float = 40.0,
) -> tuple[np.ndarray, float] | None:
    """A small dot (lighter or darker than the cloth) near the predicted table point.

    Returns (sub-pixel centre in recorded px, contrast / noise) or None."""
    c = to_px(np.array([xy]))[0]
    s = px_per_mm(to_px, xy)
    r_spot = max(1.0, spot_mm * s / 2)
    half = int(np.ceil(search_mm * s + 3 * r_spot + 4))
    x0, y0 = int(round(c[0])) - half, int(round(c[1])) - half
    h, w = light.shape
    if x0 < 0 or y0 < 0 or x0 + 2 * half + 1 > w or y0 + 2 * half + 1 > h:
        return None
    win = light[y0 : y0 + 2 * half + 1, x0 : x0 + 2 * half + 1]
    bg = cv2.medianBlur(win.astype(np.uint8), max(3, int(4 * r_spot) | 1)).astype(np.float32)
    d = cv2.GaussianBlur(win - bg, (0, 0), max(0.7, r_spot / 2))
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    inside = np.hypot(xx, yy) <= search_mm * s + 1
    noise = 1.4826 * np.median(np.abs(d - np.median(d))) + 0.3
    best = None
    for sign in (1.0, -1.0):
        dd = np.where(inside, sign * d, -np.inf)
        k = int(np.argmax(dd))
        v = dd.flat[k] / noise
        if best is None or v > best[1]:
            best = (k, v, sign)
    k, score, sign = best
    if score < 6.0:
        return None
    ky, kx = divmod(k, win.shape[1])
    y1, y2, x1, x2 = max(ky - 2, 0), ky + 3, max(kx - 2, 0), kx + 3
    wts = np.clip(sign * d[y1:y2, x1:x2], 0, None)
    if wts.sum() <= 0:
        return None
    gy, gx = np.mgrid[y1:y2, x1:x2]
    cy, cx = (wts * gy).sum() / wts.sum(), (wts * gx).sum() / wts.sum()
    return np.array([x0 + cx, y0 + cy]), float(score)


def profiles(
    light: np.ndarray,
    to_px: ToPx,
    a: tuple[float, float],
    b: tuple[float, float],
    search_mm: float,
    t: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """High-passed lightness profiles across the line from table point ``a`` to ``b``
    (mm) at the fractions ``t`` of its length, ``search_mm`` either side plus 6 px, every
    0.5 px. Returns (the line's px at ``t`` (n,2), its unit normal, offsets px, profiles
    (n, S), px per mm at its middle)."""
    from scipy.ndimage import median_filter

    pts_mm = np.array(a)[None] + t[:, None] * (np.array(b) - np.array(a))[None]
    p = to_px(pts_mm)
    d = p[-1] - p[0]
    d /= np.linalg.norm(d)
    nrm = np.array([-d[1], d[0]])
    s_px = px_per_mm(to_px, tuple(pts_mm[len(t) // 2]))
    reach = search_mm * s_px + 6
    off = np.arange(-reach, reach + 0.5, 0.5)
    prof = _sample(light, p[:, None, :] + off[None, :, None] * nrm[None, None, :])
    width = max(4, int(round(2 * max(2.0, 6 * s_px))))  # samples: wider than a line
    prof = prof - median_filter(prof, size=(1, 2 * width + 1), mode="nearest")  # high-pass
    return p, nrm, off, prof, s_px


def seen_flat(
    light: np.ndarray, to_px: ToPx, a: tuple[float, float], b: tuple[float, float], band: float
) -> bool:
    """Whether a pose shows the table line ``a``-``b`` (mm) with a search ``band`` (mm either
    side) narrower than the picture's diagonal: a pose near degenerate (the table seen almost
    edge-on, a wrong guess) asks for more pixels than the picture has."""
    mid = tuple(np.add(a, b) / 2.0)
    with np.errstate(invalid="ignore", over="ignore"):
        s_px = px_per_mm(to_px, mid)
    return bool(np.isfinite(s_px) and band * s_px < float(np.hypot(*light.shape[:2])))


def line_score(
    light: np.ndarray,
    to_px: ToPx,
    a: tuple[float, float],
    b: tuple[float, float],
    search_mm: float = 30.0,
    n: int = 40,
) -> tuple[float, float]:
    """Evidence of a thin straight line from table point ``a`` to ``b`` (mm): the mean
    profile across the predicted line, its strongest thin peak (either polarity) over
    the noise. Returns (score, offset of the peak in px along the line's normal)."""
    if not seen_flat(light, to_px, a, b, search_mm):
        return 0.0, 0.0
    _, _, off, prof, s_px = profiles(light, to_px, a, b, search_mm, np.linspace(0.1, 0.9, n))
    mean = np.median(prof, axis=0)  # robust to balls lying on the line
    inner = np.abs(off) <= search_mm * s_px
    k = int(np.argmax(np.where(inner, np.abs(mean), -1)))
    away = np.abs(off - off[k]) > 3  # px: the aggregated profile's own noise elsewhere
    noise = max(float(1.4826 * np.median(np.abs(mean[away] - np.median(mean[away])))), 0.3)
    return float(abs(mean[k]) / noise), float(off[k])


def pocket_dark(
    light: np.ndarray, to_px: ToPx, table: TableSpec, cloth_light: float
) -> dict[str, np.ndarray]:
    """Pockets whose mouth is dark (mean lightness < 55% of the cloth's): name -> px."""
    out: dict[str, np.ndarray] = {}
    h, w = light.shape
    for p in table.pockets:
        c = np.array(p.centre)
        ring = c[None] + (p.mouth_mm / 4) * np.array(
            [[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 12, endpoint=False)]
        )
        q = to_px(np.vstack([c, ring]))
        if np.any(q < 0) or np.any(q[:, 0] >= w) or np.any(q[:, 1] >= h):
            continue
        if float(np.mean(_sample(light, q))) < 0.55 * cloth_light:
            out[f"pocket:{p.name}"] = q[0]
    return out


def _across(
    light: np.ndarray, to_px: ToPx, a, b, reach_mm: float, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """The aggregated profile across the line a -> b (mm): (offsets mm along its normal,
    the trimmed mean of ``n`` high-passed profiles; balls on the line fall in the trim)."""
    _, _, off, prof, s_px = profiles(light, to_px, a, b, reach_mm, np.linspace(0.06, 0.94, n))
    lo, hi = np.percentile(prof, [20, 80], axis=0)
    keep = (prof >= lo) & (prof <= hi)
    return off / s_px, (prof * keep).sum(0) / np.maximum(keep.sum(0), 1)


def end_evidence(light: np.ndarray, to_px: ToPx, table: TableSpec) -> tuple[float, float]:
    """Evidence that the front is where the model says (house line at L/4, spotting line
    from the back spot towards the back cushion) and for the turned reading (the same
    lines at the mirrored places). Pyramid only; (0, 0) elsewhere.

    The centre line (at L/2 either way) is the template: a candidate scores its profile's
    value within ``END_WINDOW_MM`` of where the model puts it, of the centre line's
    polarity, over the noise of its own profile away from there (a faint one-pixel line
    at 720p stands several noise levels clear of the cloth; the model must already be
    within a few mm there: the centre line is fitted first). Each end sums its two lines'
    scores (each at least 0)."""
    if table.kind != "pyramid":
        return 0.0, 0.0
    L, W = table.L, table.W
    sm = cv2.GaussianBlur(light.astype(np.float32), (0, 0), 0.8)
    off, c = _across(sm, to_px, (L / 2, 0), (L / 2, W), END_REACH_MM, END_PROFILES)
    near = np.abs(off) <= END_WINDOW_MM
    sign = 1.0 if c[near][np.argmax(np.abs(c[near]))] >= 0 else -1.0

    def score(a, b) -> float:
        o, m = _across(sm, to_px, a, b, END_REACH_MM, END_PROFILES)
        w = np.abs(o) <= END_WINDOW_MM
        away = np.abs(o) > 2 * END_WINDOW_MM
        noise = max(float(1.4826 * np.median(np.abs(m[away] - np.median(m[away])))), 0.05)
        return max(0.0, float((sign * m[w]).max()) / noise)

    here = score((L / 4, 0), (L / 4, W)) + score((3 * L / 4 + 60, W / 2), (L - 60, W / 2))
    there = score((3 * L / 4, 0), (3 * L / 4, W)) + score((L / 4 - 60, W / 2), (60, W / 2))
    return here, there


def line_points(
    light: np.ndarray,
    to_px: ToPx,
    a: tuple[float, float],
    b: tuple[float, float],
    search_mm: float = 12.0,
    n: int = 60,
    min_score: float = 4.0,
) -> np.ndarray:
    """Sub-pixel points (recorded px) on a thin line marking from table point ``a`` to
    ``b`` (mm), searched ``search_mm`` either side of where the model puts it: the line's
    polarity and offset from the aggregated profile (:func:`line_score`), then the peak of
    each profile within 2 px of that offset. Empty (0, 2) when the line is not clearly
    there (score under ``min_score``); profiles whose peak is weak (under a third of the
    aggregate's) or covered (a ball) are dropped."""
    score, off0 = line_score(light, to_px, a, b, search_mm=search_mm)
    if score < min_score:
        return np.zeros((0, 2))
    p, nrm, off, prof, _ = profiles(light, to_px, a, b, search_mm, np.linspace(0.04, 0.96, n))
    prof = cv2.GaussianBlur(prof.astype(np.float32), (3, 1), 0.6)
    mean = np.median(prof, axis=0)
    k0 = int(np.argmin(np.abs(off - off0)))
    sign = 1.0 if mean[k0] >= 0 else -1.0
    win = np.abs(off - off0) <= 2.0
    out = []
    for i in range(n):
        g = np.where(win, sign * prof[i], -np.inf)
        k = int(np.argmax(g))
        if not 0 < k < len(off) - 1 or g[k] < abs(mean[k0]) / 3:
            continue
        m0, m1, m2 = sign * prof[i, k - 1], sign * prof[i, k], sign * prof[i, k + 1]
        den = m0 - 2 * m1 + m2
        frac = 0.5 * (m0 - m2) / den if den < 0 else 0.0
        out.append(p[i] + (off[k] + np.clip(frac, -1, 1) * 0.5) * nrm)
    return np.array(out).reshape(-1, 2)


def ball_on_spot(lab: np.ndarray, to_px: ToPx, xy: tuple[float, float], radius_mm: float) -> float:
    """Share (0..1) of two rings (half and three quarters of a ball radius) around table
    point ``xy`` (mm) that is not cloth-coloured in ``lab`` (a frame in Lab): near 1 where
    a ball sits on the spot, near 0 on bare cloth (the spot's own dot, about 8 mm across
    the centre, lies inside the rings)."""
    c = to_px(np.array([xy]))[0]
    r = 0.75 * radius_mm * px_per_mm(to_px, xy)
    h, w = lab.shape[:2]
    if not (r < c[0] < w - r and r < c[1] < h - r):
        return 0.0
    ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    disk = np.concatenate([c[None] + rr * np.c_[np.cos(ang), np.sin(ang)] for rr in (r / 1.5, r)])
    # the cloth: a ring at 3 ball radii around the spot
    far = c[None] + 4 * r * np.c_[np.cos(ang), np.sin(ang)]
    far = far[(far[:, 0] > 0) & (far[:, 0] < w - 1) & (far[:, 1] > 0) & (far[:, 1] < h - 1)]
    if len(far) < 4:
        return 0.0
    cloth = np.median(_sample(lab.astype(np.float32), far), axis=0)
    d = _sample(lab.astype(np.float32), disk) - cloth
    return float(np.mean(np.hypot(np.hypot(d[:, 1], d[:, 2]), 0.5 * d[:, 0]) > 20.0))


def break_spot_evidence(
    first_bgr: np.ndarray, to_px: ToPx, table: TableSpec
) -> tuple[float, float]:
    """5-pin carom: a break is set up with the red ball on the red spot (3L/4) and the
    opponent's ball on the top spot (L - 100): balls on those spots say the back end is
    where the model puts it, balls on their mirror images (the lag and bottom spots) the
    other way. Returns (evidence for the model as it is, for it turned): the shares of the
    two spots' disks covered by a ball, summed (0..2 each)."""
    lab = cv2.cvtColor(first_bgr, cv2.COLOR_BGR2LAB)
    R = table.ball_radius
    s = table.spots
    here = ball_on_spot(lab, to_px, s["red"], R) + ball_on_spot(lab, to_px, s["top"], R)
    there = ball_on_spot(lab, to_px, s["lag"], R) + ball_on_spot(lab, to_px, s["bottom"], R)
    return here, there
