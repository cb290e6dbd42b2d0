"""Ball-ball contacts read from the velocity changes of balls in motion, interval by
interval over a shot (:func:`impulse_scan`): each group of balls near enough to touch
has its velocity changes explained by non-negative impulses along the lines of centres
(and cushion normals), as :mod:`vision.events.impulse` does for a frozen cluster.

Positions table mm, velocities and impulses mm per frame (per unit mass), times
fractional frames relative to the series' first frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.events.series import Series

SPIN_WEIGHT = 0.3  # weight of a spinning ball's velocity change in the impulse scan


@dataclass(frozen=True)
class ScanContact:
    """A contact found by :func:`impulse_scan`: balls ``a`` (striking) and ``b`` touched
    at fractional frame ``f`` (series index) near ``at`` (mm), exchanging ``impulse``
    mm/frame of velocity along their line of centres."""

    f: float
    a: str
    b: str
    at: tuple[float, float]
    impulse: float
    # a later (or earlier) touch of the pair split off a run of intervals around its
    # peak (:meth:`_ScanCtx.split`), read with fits that do not straddle the peak's touch
    repeat: bool = False


def _fits(xy: np.ndarray, k: int, n: int = 3, na: int | None = None) -> np.ndarray | None:
    """Straight motions (position at frame ``k``, velocity mm/frame) of every ball before
    (frames ``k-n+1 .. k``) and after (``k+1 .. k+na``, ``na`` = ``n`` unless given) the
    interval ``(k, k+1)``: array (B, 2, 2, 2) [ball][before/after][pos/vel]; None when the
    window leaves the series."""
    lo, hi = k - n + 1, k + (n if na is None else na) + 1
    if lo < 0 or hi > xy.shape[1]:
        return None
    t0 = np.arange(lo, k + 1, dtype=float) - k
    t1 = np.arange(k + 1, hi, dtype=float) - k
    out = np.full((xy.shape[0], 2, 2, 2), np.nan)
    for j, (t, seg) in enumerate(((t0, xy[:, lo : k + 1]), (t1, xy[:, k + 1 : hi]))):
        tm = t.mean()
        dt = t - tm
        mean = seg.mean(axis=1)  # (B, 2)
        v = (seg * dt[None, :, None]).sum(axis=1) / float(dt @ dt)
        out[:, j, 0] = mean - v * tm  # position at frame k
        out[:, j, 1] = v
    return out


def impulse_scan(
    series: Series,
    R: float,
    lo: int,
    hi: int,
    threshold: float,
    tol_mm: float,
    balls: list[str],
    cushions: tuple[float, float] | None = None,
    starts: dict[str, list[float]] | None = None,
    decel: float | None = None,
    spin: frozenset[str] = frozenset(),
    hop_mm: float | None = None,
) -> list[ScanContact]:
    """Ball-ball contacts within frames ``lo .. hi`` from the velocity changes of the
    balls (ids ``balls``; mm, frames): for each interval ``(k, k+1)`` the balls within
    ``tol_mm`` of touching one another (by their straight motion before or after, or
    their samples at ``k`` and ``k+1``) form groups; each ball's change of velocity
    (straight fits over three frames each side) is explained by non-negative impulses
    along the lines of centres of its touching pairs, and along the cushion normals for
    a ball within ``tol_mm`` of a cushion line (``cushions``: table L, W in mm; the
    cushion absorbs what it carries, it is no contact). A pair whose impulse exceeds
    ``threshold`` (mm/frame) at the interval where it peaks is a contact, dated where
    the straight paths before it reach one diameter (within the interval). A ball that
    started from rest (``starts``: fractional frames per id) within the three frames
    before an interval has no straight motion before it there: its pairs are skipped.
    ``decel`` (mm/frame^2): the rolling deceleration, taken off the fitted velocities
    first (:func:`_unbrake`). ``spin``: balls whose spin is unknown (the cue ball), their
    velocity changes weighed less (:func:`_solve`). ``hop_mm``: a moving ball's detection
    that hops off its path by more for a frame or two and back (:func:`hops`) is not read
    in the intervals whose fits hold it."""
    idx = [series.index(b) for b in balls]
    seen = series.visible[idx]
    began = [np.asarray((starts or {}).get(b, []), float) for b in balls]
    xy = series.xy[idx]
    names = list(balls)
    hits: dict[tuple[int, int], list[tuple[int, float, float, np.ndarray]]] = {}
    weak = frozenset(k for k, b in enumerate(balls) if b in spin)
    hop = hops(xy, hop_mm) if hop_mm else None
    ctx = _ScanCtx(xy, seen, began, R, threshold, tol_mm, cushions, decel, weak, hop)
    for k in range(max(lo, 2), min(hi, series.n_frames - 3)):
        for (a, b), (j, f, at) in ctx.interval(k).items():
            if j >= threshold:
                hits.setdefault((a, b), []).append((k, j, f, at))
    out: list[ScanContact] = []
    for (a, b), hs in hits.items():
        for run in _runs(hs):
            found = ctx.split(a, b, max(run, key=lambda h: h[1]), run)
            for n, (k, j, f, at) in enumerate(found):
                pa, pb = fit_speed_toward(xy, a, b, k)
                s, t = (a, b) if pa >= pb else (b, a)
                xy_at = (float(at[0]), float(at[1]))
                out.append(ScanContact(f, names[s], names[t], xy_at, j, repeat=n > 0))
    return sorted(out, key=lambda c: c.f)


@dataclass(frozen=True)
class _ScanCtx:
    """What :func:`impulse_scan` reads each interval with (balls' positions ``xy`` (B, F, 2)
    mm, ``seen`` (B, F), start frames ``began`` per ball; thresholds mm/frame and mm)."""

    xy: np.ndarray
    seen: np.ndarray
    began: list[np.ndarray]
    R: float
    threshold: float
    tol: float
    cushions: tuple[float, float] | None
    decel: float | None
    weak: frozenset[int] = frozenset()
    hop: np.ndarray | None = None  # (B, F): samples off the ball's path (:func:`hops`)

    def interval(
        self, k: int, nb: int = 3, na: int = 3
    ) -> dict[tuple[int, int], tuple[float, float, np.ndarray]]:
        """Impulses (mm/frame) of the touching pairs at the interval ``(k, k+1)``, with
        straight fits over ``nb`` frames before and ``na`` after: (a, b) -> (impulse,
        touch time (fractional frame), touching point mm)."""
        fit = _fits(self.xy, k, nb, na)
        if fit is None:
            return {}
        ok = ~np.isnan(fit[:, :, :, 0]).any(axis=(1, 2))
        # a bridged stretch (not measured: under an arm) is straight by construction and
        # bends where it meets the measurements: no velocity change to read there
        ok &= self.seen[:, k - 2 : k + 4].all(axis=1)
        if self.hop is not None:
            ok &= ~self.hop[:, k - 2 : k + 4].any(axis=1)
        gap = _segment_gaps(self.xy[:, k], self.xy[:, k + 1]) - 2 * self.R
        speed0 = np.nan_to_num(np.linalg.norm(fit[:, 0, 1], axis=1))
        near = (gap < self.tol) & ok[:, None] & ok[None]
        # a pair at rest before the interval is pushed through a frozen cluster: the
        # rack finder's work, not this one's
        near &= np.maximum(speed0[:, None], speed0[None]) > 0.5 * self.threshold
        fresh = np.array([bool(np.any((g > k - 2.5) & (g <= k + 1))) for g in self.began])
        near &= ~(fresh[:, None] & fresh[None])
        if not near.any():
            return {}
        if self.decel:
            fit = _unbrake(fit, self.decel, nb / 2, na / 2)
        out = {}
        for comp in _groups(near):
            got = _solve(comp, near, fit, self.R, self.cushions, self.tol, self.weak)
            for (a, b), (j, at) in got.items():
                out[(a, b)] = (j, _touch_time(fit, a, b, k, self.R), at)
        return out

    def split(self, a: int, b: int, peak: tuple, run: list) -> list[tuple]:
        """The contacts of pair ``a``-``b`` in one run of intervals that carried an impulse:
        the peak, and any later (or earlier) touch of the pair (two balls pushed along
        together knock again and again, a few frames apart) that shows when the velocity
        fits stop at the peak's touch (the run's other intervals read with windows that
        do not straddle it: at least two frames, the threshold raised for the shorter
        fits). Each as (interval, impulse, touch time, point)."""
        out = [peak]
        ks = [h[0] for h in run]
        for side in (1, -1):
            ref = peak
            while True:
                best = None
                for m in range(ref[0] + 2 * side, (max(ks) + 1 if side > 0 else min(ks) - 1), side):
                    edge = int(np.floor(ref[2]))
                    nb, na = (min(3, m - edge), 3) if side > 0 else (3, min(3, edge - m))
                    if min(nb, na) < 2:
                        continue
                    got = self.interval(m, nb, na).get((a, b))
                    thr = self.threshold * float(np.sqrt(_slope_var(nb) + _slope_var(na)))
                    if got is not None and got[0] >= thr and (best is None or got[0] > best[1]):
                        best = (m, got[0], got[1], got[2])
                if best is None:
                    break
                out.append(best)
                ref = best
        return out


def hops(xy: np.ndarray, threshold_mm: float) -> np.ndarray:
    """(B, F) True at the samples of a ball's positions ``xy`` (B, F, 2) mm that hop off
    its path and back: one or two samples more than ``threshold_mm`` off the straight
    motion through the two samples before and the two after, those four within half of
    it of that line and the steps of the two pairs within half of it of each other (the
    same motion before and after: no contact turned it, no ball set off from rest). A
    pressed ball's detection pulled to a neighbour for a frame or two is such a hop; a
    contact changes the motion after it, a hop does not, and the velocity fits that
    straddle a hop read it as two impulses that cancel."""
    B, F = xy.shape[:2]
    out = np.zeros((B, F), bool)
    for width in (1, 2):
        K = np.arange(2, F - 1 - width)
        if len(K) == 0:
            continue
        t = np.array([-2.0, -1.0, width, width + 1.0])
        nb = np.stack([xy[:, K - 2], xy[:, K - 1], xy[:, K + width], xy[:, K + width + 1]])
        tm = t.mean()
        mean = nb.mean(axis=0)  # (B, K, 2)
        slope = np.tensordot(t - tm, nb - mean, axes=(0, 0)) / float((t - tm) @ (t - tm))
        line = mean[None] + (t - tm)[:, None, None, None] * slope[None]
        with np.errstate(invalid="ignore"):
            spread = np.linalg.norm(nb - line, axis=3).max(axis=0)
            dev = np.stack(
                [
                    np.linalg.norm(xy[:, K + j] - (mean + (j - tm) * slope), axis=2)
                    for j in range(width)
                ]
            )  # (width, B, K)
            turn = np.linalg.norm((nb[3] - nb[2]) - (nb[1] - nb[0]), axis=2)
            hit = (spread < threshold_mm / 2) & (turn < threshold_mm / 2)
            hit &= dev.max(axis=0) > threshold_mm
            for j in range(width):  # the samples of the hop: each off by half of it
                bi, ki = np.nonzero(hit & (dev[j] > threshold_mm / 2))
                out[bi, K[ki] + j] = True
    return out


def _slope_var(n: int) -> float:
    """Variance of the slope of a straight fit to ``n`` unit-spaced samples (per unit
    sample variance): 12 / (n (n^2 - 1))."""
    return 12.0 / (n * (n * n - 1))


def _unbrake(fit: np.ndarray, decel: float, back: float = 1.5, ahead: float = 1.5) -> np.ndarray:
    """The fitted velocities of :func:`_fits` carried to the middle of their interval
    (``k + 0.5``) by the rolling deceleration ``decel`` (mm/frame^2): the fit before is
    centred ``back`` frames earlier (1.5 for three frames; the ball has slowed by up to
    ``back * decel`` since), the one after ``ahead`` frames later (it was faster by that
    then); so a change of velocity from friction alone is not read as an impulse."""
    out = fit.copy()
    for j, sign, lag in ((0, -1.0, back), (1, 1.0, ahead)):
        v = np.nan_to_num(fit[:, j, 1])
        speed = np.linalg.norm(v, axis=1)
        step = np.minimum(lag * decel, speed) if sign < 0 else np.full(len(v), lag * decel)
        out[:, j, 1] = fit[:, j, 1] + sign * (step / np.maximum(speed, 1e-9))[:, None] * v
    return out


def _segment_gaps(p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """(B, B) nearest centre distance (mm) of every pair over the interval between two
    frames, both balls moving straight from ``p0`` to ``p1`` (B, 2); inf where absent."""
    r0 = p0[:, None] - p0[None]
    dr = (p1[:, None] - p1[None]) - r0
    den = (dr**2).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.clip(-(r0 * dr).sum(axis=2) / np.where(den > 1e-12, den, np.inf), 0.0, 1.0)
        d = np.linalg.norm(r0 + s[..., None] * dr, axis=2)
    d = np.nan_to_num(d, nan=np.inf)
    np.fill_diagonal(d, np.inf)
    return d


def fit_speed_toward(xy: np.ndarray, a: int, b: int, k: int) -> tuple[float, float]:
    """Speeds (mm/frame) of ``a`` toward ``b`` and of ``b`` toward ``a`` before the
    interval ``(k, k+1)`` (straight fits over three frames), along their line of centres."""
    fit = _fits(xy[[a, b]], k)
    if fit is None:
        return 0.0, 0.0
    n = fit[1, 0, 0] - fit[0, 0, 0]
    n = n / max(float(np.linalg.norm(n)), 1e-9)
    return float(fit[0, 0, 1] @ n), float(-(fit[1, 0, 1] @ n))


def _groups(near: np.ndarray) -> list[list[int]]:
    """Connected components (ball indices) of the ``near`` graph with an edge."""
    seen: set[int] = set()
    out = []
    for s in np.nonzero(near.any(axis=1))[0]:
        if s in seen:
            continue
        comp, todo = [], [int(s)]
        seen.add(int(s))
        while todo:
            a = todo.pop()
            comp.append(a)
            for b in np.nonzero(near[a])[0]:
                if int(b) not in seen:
                    seen.add(int(b))
                    todo.append(int(b))
        out.append(sorted(comp))
    return out


def _solve(
    comp: list[int],
    near: np.ndarray,
    fit: np.ndarray,
    R: float,
    cushions: tuple[float, float] | None,
    tol: float,
    weak: frozenset[int] = frozenset(),
) -> dict[tuple[int, int], tuple[float, np.ndarray]]:
    """Non-negative impulses (mm/frame) of the touching pairs of one group from the
    balls' velocity changes; (a, b) with a < b -> (impulse, touching point mm). The balls
    ``weak`` (a cue ball, its spin unknown: the cloth's friction on a spinning ball
    changes its velocity by up to ``mu g`` per frame without any contact) count at
    ``SPIN_WEIGHT``: their partners' changes tell their impulses."""
    from scipy.optimize import nnls

    col = {b: i for i, b in enumerate(comp)}
    pos = fit[:, 0, 0] + 0.5 * fit[:, 0, 1]  # mid-interval, from the motion before
    dv = (fit[:, 1, 1] - fit[:, 0, 1])[comp].reshape(-1)
    cols: list[np.ndarray] = []
    pairs: list[tuple[int, int]] = []
    for i, a in enumerate(comp):
        for b in comp[i + 1 :]:
            if not near[a, b]:
                continue
            n = pos[b] - pos[a]
            n = n / max(float(np.linalg.norm(n)), 1e-9)
            c = np.zeros(len(dv))
            c[2 * col[b] : 2 * col[b] + 2] = n
            c[2 * col[a] : 2 * col[a] + 2] = -n
            cols.append(c)
            pairs.append((a, b))
    if cushions is not None:
        L, W = cushions
        for a in comp:
            x, y = pos[a]
            for gap, n in (
                (x - R, (1.0, 0.0)),
                (L - R - x, (-1.0, 0.0)),
                (y - R, (0.0, 1.0)),
                (W - R - y, (0.0, -1.0)),
            ):
                if gap < tol + float(np.linalg.norm(fit[a, 0, 1])):
                    c = np.zeros(len(dv))
                    c[2 * col[a] : 2 * col[a] + 2] = n
                    cols.append(c)
    if not pairs:
        return {}
    w = np.repeat([SPIN_WEIGHT if b in weak else 1.0 for b in comp], 2)
    J, _ = nnls(np.stack(cols, axis=1) * w[:, None], dv * w)
    return {p: (float(J[i]), (pos[p[0]] + pos[p[1]]) / 2) for i, p in enumerate(pairs)}


def _touch_time(fit: np.ndarray, a: int, b: int, k: int, R: float) -> float:
    """Fractional frame in ``[k, k+1]`` where the straight motions before the interval
    bring ``a`` and ``b`` to one diameter (``k + 0.5`` when they already touch or never
    do)."""
    p0 = fit[a, 0, 0] - fit[b, 0, 0]
    dp = fit[a, 0, 1] - fit[b, 0, 1]
    qa, qb, qc = float(dp @ dp), 2 * float(p0 @ dp), float(p0 @ p0) - (2 * R) ** 2
    disc = qb * qb - 4 * qa * qc
    if qa < 1e-9 or disc < 0 or qc <= 0:
        return k + 0.5
    s = (-qb - disc**0.5) / (2 * qa)
    return float(k + np.clip(s, 0.0, 1.0))


def _runs(hs: list[tuple[int, float, float, np.ndarray]]) -> list[list]:
    """Hits of one pair split into runs of intervals at most two frames apart."""
    hs = sorted(hs, key=lambda h: h[0])
    out = [[hs[0]]]
    for h in hs[1:]:
        if h[0] - out[-1][-1][0] <= 2:
            out[-1].append(h)
        else:
            out.append([h])
    return out


def scan_copies(found: list[ScanContact], named: list[tuple[float, frozenset]]) -> set[int]:
    """Indices into ``found`` (scan contacts, fractional frames) of the scan's own
    readings of the contacts ``named`` by the other finders (frame, pair): for each, the
    scan contact of the pair nearest it within three frames. A named touch explains one
    reading; another of the pair beside it is a touch of its own."""
    out: set[int] = set()
    for g, key in named:
        near = [
            (abs(c.f - g), n)
            for n, c in enumerate(found)
            if frozenset((c.a, c.b)) == key and abs(c.f - g) < 3.0 and n not in out
        ]
        if near:
            out.add(min(near)[1])
    return out
