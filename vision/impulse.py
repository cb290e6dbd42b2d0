"""Contacts inside a cluster of balls frozen together (a rack, a pair touching at rest).

When a moving ball hits one ball of a cluster, the impulse runs through the touching
balls within microseconds: every ball of the cluster starts in the same frame and no
approach is visible, so contacts cannot be found from paths that bend. They can be
found from what the balls did next: each ball's change of velocity is the sum of the
impulses along the lines of centres of its touching neighbours (equal masses), each
impulse pushing (never pulling). Solving ``dv = A J, J >= 0`` (non-negative least
squares) over the candidate pairs gives the impulse each pair carried; the pairs that
carried more than the velocity noise are the contacts.

Positions table mm, velocities and impulses mm per frame (per unit mass), times
fractional frames relative to the series' first frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from vision.series import Series, line_fit

SLIDE_MU = 0.2  # sliding friction of ball on cloth (textbook 0.2)
SPIN_WEIGHT = 0.3  # weight of a spinning ball's velocity change in the impulse scan
RACK_AFTER = 2  # samples after a rack is hit that give each member's start velocity
RACK_GAP_SHARE = 1.3  # least impulse in a rack (mm/frame) per mm of its touching gaps' rms


@dataclass(frozen=True)
class RackContact:
    """One pair that carried an impulse: ``striker`` pushed ``struck`` at frame ``f``."""

    f: float
    striker: str
    struck: str
    at: tuple[float, float]  # mm, the touching point
    impulse: float  # mm/frame of velocity given to the struck ball


def rest_positions(series: Series, f: float, skip: set[str]) -> dict[str, np.ndarray]:
    """Balls at rest just before frame ``f``: id -> median position (mm) of the six
    frames before, for the balls most of whose positions there agree within a few mm
    (a detection that hops now and then still marks a ball at rest)."""
    lo = int(np.floor(f))
    out: dict[str, np.ndarray] = {}
    if lo < 1:
        return out
    for b, ident in enumerate(series.ids):
        if ident in skip:
            continue
        p = series.xy[b, max(0, lo - 6) : lo]
        p = p[~np.isnan(p[:, 0])]
        if len(p) == 0:
            continue
        med = np.median(p, axis=0)
        near = np.linalg.norm(p - med, axis=1) < 3.0
        if near.mean() > 0.5 and near[-1]:
            out[ident] = med
    return out


def component(seed: str, rest: dict[str, np.ndarray], R: float, tol: float) -> list[str]:
    """The balls at rest touching ``seed`` directly or through others (gap < ``tol`` mm)."""
    out, todo = [seed], [seed]
    while todo:
        a = todo.pop()
        for b, p in rest.items():
            if b not in out and np.linalg.norm(p - rest[a]) - 2 * R < tol:
                out.append(b)
                todo.append(b)
    return out


def slide_decel(fps: float) -> float:
    """Deceleration (mm/frame^2) of a ball sliding on the cloth without spin, as a ball
    set off from rest by another ball does for its first ``v / (3.5 mu g)`` seconds:
    ``mu g`` with the cloth's sliding friction ``SLIDE_MU``."""
    return SLIDE_MU * 9810.0 / (fps * fps)


def _v_after(
    xy: np.ndarray, p0: np.ndarray, f0: float, n: int = 2, decel: float = 0.0
) -> np.ndarray:
    """Velocity (mm/frame) of a ball that left ``p0`` (mm) at ``f0`` (fractional frame),
    fitted to its next ``n`` samples: the motion through ``p0`` at ``f0``, straight or
    (``decel`` mm/frame^2, a ball set off without spin) sliding, slowing along its
    direction; without the slowing a fast ball's start reads ``0.9 decel`` short, an
    impulse the pairs would have to explain."""
    lo = int(np.floor(f0))
    fr = np.arange(lo + 1, min(lo + 1 + n, len(xy)))
    fr = fr[~np.isnan(xy[fr, 0])]
    if len(fr) == 0:
        return np.zeros(2)
    tau = (fr - f0).astype(float)
    v = np.zeros(2)
    for _ in range(5 if decel > 0 else 1):
        speed = float(np.linalg.norm(v))
        x = xy[fr] - p0
        if speed > 1e-9:  # put back the slowing of the sliding start
            x = x + np.outer(speed * tau - slide_travel(speed, tau, decel), v / speed)
        v = (x * tau[:, None]).sum(axis=0) / float(tau @ tau)
    return v


def slide_travel(v0: float, tau: np.ndarray, decel: float) -> np.ndarray:
    """Distance (mm) a ball set off at ``v0`` mm/frame without spin covers in ``tau``
    frames: it slides, slowing by ``decel`` mm/frame^2, until it rolls at 5/7 of ``v0``
    (after ``2 v0 / (7 decel)`` frames), then rolls on (its slow rolling loss left out)."""
    ts = 2.0 * v0 / (7.0 * decel)
    tau = np.asarray(tau, float)
    slid = v0 * np.minimum(tau, ts) - 0.5 * decel * np.minimum(tau, ts) ** 2
    return slid + (5.0 / 7.0) * v0 * np.maximum(tau - ts, 0.0)


def _striker_dv(
    xy: np.ndarray, f0: float, since: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Velocity change (mm/frame) of the moving ball that hit the cluster at ``f0``, and
    its position then (mm), from straight fits before and after. ``since``: the frame the
    striker itself started or was last hit (its samples before that are another motion).
    The change is NaN when fewer than two samples show the motion before ``f0`` (a ball
    set off less than two frames before it hit the cluster: its speed is unknown)."""
    lo = int(np.floor(f0))
    pre = np.arange(max(0, lo - 2), lo + 1)
    if since is not None:
        pre = pre[pre >= since]
    pre = pre[~np.isnan(xy[pre, 0])]
    if len(pre) < 2:
        seen = np.flatnonzero(~np.isnan(xy[:, 0]))
        near = seen[np.argmin(np.abs(seen - f0))] if len(seen) else lo
        dv = np.full(2, np.nan) if since is not None else np.zeros(2)
        return dv, np.nan_to_num(xy[near])
    a, v0 = line_fit(pre.astype(float), xy[pre])
    pc = a + v0 * f0
    return _v_after(xy, pc, f0) - v0, pc


def rack_contacts(
    series: Series,
    striker: str,
    entry: str,
    f0: float,
    members: list[str],
    rest: dict[str, np.ndarray],
    R: float,
    tol: float,
    threshold: float,
    since: float | None = None,
) -> list[RackContact]:
    """Contacts of a cluster ``members`` (at rest, touching, ``entry`` among them) hit by
    the moving ``striker`` at ``f0``. The pair striker-entry is always a contact; the
    others carry at least ``threshold`` mm/frame. Striking ball first: the one nearer the
    striker along the pairs that carried an impulse. ``since``: when the striker started
    (fractional frame); a striker set off less than two frames before it hit has no
    measured velocity before, and only the members' changes count."""
    f0 = _hit_time(series, members, rest, f0)
    balls = [striker, *members]
    col = {b: k for k, b in enumerate(balls)}
    dv = np.zeros(2 * len(balls))
    sdv, pc = _striker_dv(series.xy[series.index(striker)], f0, since)
    dv[0:2] = np.nan_to_num(sdv)
    pos = {striker: pc, **{m: rest[m] for m in members}}
    slide = slide_decel(series.fps)
    for m in members:
        dv[2 * col[m] : 2 * col[m] + 2] = _v_after(
            series.xy[series.index(m)], rest[m], f0, RACK_AFTER, slide
        )
    pairs = [(striker, entry)]
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            if np.linalg.norm(rest[a] - rest[b]) - 2 * R < tol:
                pairs.append((a, b))
    A = np.zeros((len(dv), len(pairs)))
    for k, (a, b) in enumerate(pairs):
        n = pos[b] - pos[a]
        n = n / max(float(np.linalg.norm(n)), 1e-9)
        A[2 * col[b] : 2 * col[b] + 2, k] += n
        A[2 * col[a] : 2 * col[a] + 2, k] -= n
    keep = slice(2 if np.isnan(sdv).any() else 0, None)  # no striker rows: unmeasured
    J, _ = nnls(A[keep], dv[keep])
    # the measured gaps of a frozen cluster's touching pairs should all be zero: their
    # spread is the error of the rest positions, which a slow member's start velocity
    # carries nearly whole (its first sample is a frame away from its rest position)
    gaps = [float(np.linalg.norm(rest[a] - rest[b])) - 2 * R for a, b in pairs[1:]]
    floor = RACK_GAP_SHARE * float(np.sqrt(np.mean(np.square(gaps)))) if gaps else 0.0
    used = [k for k in range(len(pairs)) if k == 0 or J[k] >= max(threshold, floor)]
    depth = _depths(striker, [pairs[k] for k in used])
    out = []
    for k in used:
        a, b = pairs[k]
        if depth.get(b, 99) < depth.get(a, 99):
            a, b = b, a
        at = (pos[a] + pos[b]) / 2 if k else pos[b] + (pos[a] - pos[b]) / 2
        out.append(RackContact(f0, a, b, (float(at[0]), float(at[1])), float(J[k])))
    return out


def _hit_time(series: Series, members: list[str], rest: dict[str, np.ndarray], f0: float) -> float:
    """The moment (fractional frame) a frozen cluster was hit, from the members that left
    fast: where the line through each one's next two samples (its sliding slowing put
    back) leaves its rest position, weighted by speed squared (a fast ball dates its start
    to a small fraction of a frame). ``f0`` (a start read from a slow ball, or a frame
    late) when none left faster than 5 mm/frame; within a frame of ``f0``."""
    lo = int(np.floor(f0))
    if lo + 2 >= series.n_frames:
        return f0
    decel = slide_decel(series.fps)
    num = den = 0.0
    for m in members:
        xy = series.xy[series.index(m), lo + 1 : lo + 3]
        if np.isnan(xy).any():
            continue
        v = xy[1] - xy[0]
        speed = float(np.linalg.norm(v))
        if speed < 5.0:
            continue
        # sliding: the step between the samples is short of the speed at the first by a/2
        v = v * (1.0 + 0.5 * decel * (speed > 3.5 * decel) / speed)
        t = float((rest[m] - xy[0]) @ v) / float(v @ v)  # frames from lo + 1
        miss = float(np.linalg.norm(xy[0] + t * v - rest[m]))
        if miss > 2.0 + 0.05 * speed or not -2.0 <= t <= 0.0:
            continue
        w = speed * speed
        num += w * (lo + 1 + t)
        den += w
    if den == 0.0:
        return f0
    return float(np.clip(num / den, f0 - 1.0, f0 + 1.0))


def _depths(root: str, edges: list[tuple[str, str]]) -> dict[str, int]:
    """Breadth-first distance (edges) of each ball from ``root``."""
    depth = {root: 0}
    frontier = [root]
    while frontier:
        nxt = []
        for a in frontier:
            for p, q in edges:
                for u, w in ((p, q), (q, p)):
                    if u == a and w not in depth:
                        depth[w] = depth[a] + 1
                        nxt.append(w)
        frontier = nxt
    return depth


def closest_approaches(
    xa: np.ndarray, xb: np.ndarray, R: float, tol: float, rise: float
) -> list[tuple[float, float]]:
    """Touches of two balls from their positions (F, 2) mm over the same frames: local
    minima of their distance, closed to within ``tol`` of one diameter, that they
    approached by more than ``rise`` mm over the two frames before. Returns (fractional
    frame, distance mm) of each, the time where the straight motion between samples
    first reaches one diameter (or comes nearest)."""
    d = np.linalg.norm(xa - xb, axis=1)
    out: list[tuple[float, float]] = []
    n = len(d)
    if n < 4:
        return out
    rel = xa - xb
    step = np.r_[np.linalg.norm(np.diff(rel, axis=0), axis=1), 0.0]
    ks = np.arange(2, n - 1)
    with np.errstate(invalid="ignore"):
        cand = (
            (d[ks] <= d[ks - 1])
            & (d[ks] <= d[ks + 1])
            & (d[ks - 2] - d[ks] >= rise)
            & (d[ks] - np.maximum(step[ks - 1], step[ks]) <= 2 * R + tol)
        )
    for k in (int(i) for i in ks[cand]):  # NaN anywhere near fails the comparisons
        best = (float(k), float(d[k]))
        for a in (k - 1, k):  # the nearest point of each straight piece around k
            p0, dp = xa[a] - xb[a], (xa[a + 1] - xb[a + 1]) - (xa[a] - xb[a])
            den = float(dp @ dp)
            s = float(np.clip(-(p0 @ dp) / den, 0.0, 1.0)) if den > 1e-12 else 0.0
            dist = float(np.linalg.norm(p0 + s * dp))
            if dist < best[1]:
                best = (a + s, dist)
        if best[1] > 2 * R + tol:
            continue
        # first reach of one diameter on the two pieces up to the minimum
        t = best[0]
        m = int(np.floor(best[0]))
        for a in (m - 1, m):
            if a < 0 or a + 1 >= n or np.isnan(d[a]) or np.isnan(d[a + 1]):
                continue
            p0, dp = xa[a] - xb[a], (xa[a + 1] - xb[a + 1]) - (xa[a] - xb[a])
            qa, qb, qc = float(dp @ dp), 2 * float(p0 @ dp), float(p0 @ p0) - (2 * R) ** 2
            disc = qb * qb - 4 * qa * qc
            if qa > 1e-12 and disc >= 0:
                s = (-qb - disc**0.5) / (2 * qa)
                if 0.0 <= s <= min(1.0, best[0] - a):
                    t = a + s
                    break
        out.append((t, best[1]))
    return out


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
    velocity changes weighed less (:func:`_solve`)."""
    idx = [series.index(b) for b in balls]
    seen = series.visible[idx]
    began = [np.asarray((starts or {}).get(b, []), float) for b in balls]
    xy = series.xy[idx]
    names = list(balls)
    hits: dict[tuple[int, int], list[tuple[int, float, float, np.ndarray]]] = {}
    weak = frozenset(k for k, b in enumerate(balls) if b in spin)
    ctx = _ScanCtx(xy, seen, began, R, threshold, tol_mm, cushions, decel, weak)
    for k in range(max(lo, 2), min(hi, series.n_frames - 3)):
        for (a, b), (j, f, at) in ctx.interval(k).items():
            if j >= threshold:
                hits.setdefault((a, b), []).append((k, j, f, at))
    out: list[ScanContact] = []
    for (a, b), hs in hits.items():
        for run in _runs(hs):
            for k, j, f, at in ctx.split(a, b, max(run, key=lambda h: h[1]), run):
                pa, pb = fit_speed_toward(xy, a, b, k)
                s, t = (a, b) if pa >= pb else (b, a)
                out.append(ScanContact(f, names[s], names[t], (float(at[0]), float(at[1])), j))
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
