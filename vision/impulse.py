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


def _v_after(xy: np.ndarray, p0: np.ndarray, f0: float, n: int = 2) -> np.ndarray:
    """Velocity (mm/frame) of a ball at ``p0`` at ``f0`` from its next ``n`` samples: the
    straight motion through ``p0`` at ``f0`` that fits them best."""
    lo = int(np.floor(f0))
    fr = np.arange(lo + 1, min(lo + 1 + n, len(xy)))
    fr = fr[~np.isnan(xy[fr, 0])]
    if len(fr) == 0:
        return np.zeros(2)
    tau = fr - f0
    return ((xy[fr] - p0) * tau[:, None]).sum(axis=0) / float(tau @ tau)


def _striker_dv(xy: np.ndarray, f0: float) -> tuple[np.ndarray, np.ndarray]:
    """Velocity change (mm/frame) of the moving ball that hit the cluster at ``f0``, and
    its position then (mm), from straight fits before and after."""
    lo = int(np.floor(f0))
    pre = np.arange(max(0, lo - 2), lo + 1)
    pre = pre[~np.isnan(xy[pre, 0])]
    if len(pre) < 2:
        seen = np.flatnonzero(~np.isnan(xy[:, 0]))
        near = seen[np.argmin(np.abs(seen - f0))] if len(seen) else lo
        return np.zeros(2), np.nan_to_num(xy[near])
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
) -> list[RackContact]:
    """Contacts of a cluster ``members`` (at rest, touching, ``entry`` among them) hit by
    the moving ``striker`` at ``f0``. The pair striker-entry is always a contact; the
    others carry at least ``threshold`` mm/frame. Striking ball first: the one nearer the
    striker along the pairs that carried an impulse."""
    balls = [striker, *members]
    col = {b: k for k, b in enumerate(balls)}
    dv = np.zeros(2 * len(balls))
    sdv, pc = _striker_dv(series.xy[series.index(striker)], f0)
    dv[0:2] = sdv
    pos = {striker: pc, **{m: rest[m] for m in members}}
    for m in members:
        dv[2 * col[m] : 2 * col[m] + 2] = _v_after(series.xy[series.index(m)], rest[m], f0)
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
    J, _ = nnls(A, dv)
    used = [k for k in range(len(pairs)) if k == 0 or J[k] >= threshold]
    depth = _depths(striker, [pairs[k] for k in used])
    out = []
    for k in used:
        a, b = pairs[k]
        if depth.get(b, 99) < depth.get(a, 99):
            a, b = b, a
        at = (pos[a] + pos[b]) / 2 if k else pos[b] + (pos[a] - pos[b]) / 2
        out.append(RackContact(f0, a, b, (float(at[0]), float(at[1])), float(J[k])))
    return out


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


def _fits(xy: np.ndarray, k: int, n: int = 3) -> tuple[np.ndarray, np.ndarray] | None:
    """Straight motions (position at frame ``k``, velocity mm/frame) of every ball before
    (frames ``k-n+1 .. k``) and after (``k+1 .. k+n``) the interval ``(k, k+1)``: arrays
    (B, 2, 2) [before/after][pos/vel]; None when the window leaves the series."""
    lo, hi = k - n + 1, k + n + 1
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
    first (:func:`_unbrake`)."""
    idx = [series.index(b) for b in balls]
    seen = series.visible[idx]
    began = [np.asarray((starts or {}).get(b, []), float) for b in balls]
    xy = series.xy[idx]
    names = list(balls)
    hits: dict[tuple[int, int], list[tuple[int, float, float, np.ndarray]]] = {}
    for k in range(max(lo, 2), min(hi, series.n_frames - 3)):
        fit = _fits(xy, k)
        if fit is None:
            continue
        ok = ~np.isnan(fit[:, :, :, 0]).any(axis=(1, 2))
        # a bridged stretch (not measured: under an arm) is straight by construction and
        # bends where it meets the measurements: no velocity change to read there
        ok &= seen[:, k - 2 : k + 4].all(axis=1)
        gap = _segment_gaps(xy[:, k], xy[:, k + 1]) - 2 * R
        speed0 = np.nan_to_num(np.linalg.norm(fit[:, 0, 1], axis=1))
        near = (gap < tol_mm) & ok[:, None] & ok[None]
        # a pair at rest before the interval is pushed through a frozen cluster: the
        # rack finder's work, not this one's
        near &= np.maximum(speed0[:, None], speed0[None]) > 0.5 * threshold
        fresh = np.array([bool(np.any((g > k - 2.5) & (g <= k + 1))) for g in began])
        near &= ~(fresh[:, None] & fresh[None])
        if not near.any():
            continue
        if decel:
            fit = _unbrake(fit, decel)
        for comp in _groups(near):
            for (a, b), (j, at) in _solve(comp, near, fit, R, cushions, tol_mm).items():
                if j >= threshold:
                    hits.setdefault((a, b), []).append((k, j, _touch_time(fit, a, b, k, R), at))
    out: list[ScanContact] = []
    for (a, b), hs in hits.items():
        for run in _runs(hs):
            k, j, f, at = max(run, key=lambda h: h[1])
            pa, pb = fit_speed_toward(xy, a, b, k)
            s, t = (a, b) if pa >= pb else (b, a)
            out.append(ScanContact(f, names[s], names[t], (float(at[0]), float(at[1])), j))
    return sorted(out, key=lambda c: c.f)


def _unbrake(fit: np.ndarray, decel: float) -> np.ndarray:
    """The fitted velocities of :func:`_fits` carried to the middle of their interval
    (``k + 0.5``) by the rolling deceleration ``decel`` (mm/frame^2): the fit before is
    centred 1.5 frames earlier (the ball has slowed by up to ``1.5 decel`` since), the one
    after 1.5 frames later (it was faster by that then); so a change of velocity from
    friction alone is not read as an impulse."""
    out = fit.copy()
    for j, sign in ((0, -1.0), (1, 1.0)):
        v = np.nan_to_num(fit[:, j, 1])
        speed = np.linalg.norm(v, axis=1)
        step = np.minimum(1.5 * decel, speed) if sign < 0 else np.full(len(v), 1.5 * decel)
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
) -> dict[tuple[int, int], tuple[float, np.ndarray]]:
    """Non-negative impulses (mm/frame) of the touching pairs of one group from the
    balls' velocity changes; (a, b) with a < b -> (impulse, touching point mm)."""
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
    J, _ = nnls(np.stack(cols, axis=1), dv)
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
