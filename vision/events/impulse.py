"""Contacts inside a cluster of balls frozen together (a rack, a pair touching at rest).

When a moving ball hits one ball of a cluster, the impulse runs through the touching
balls within microseconds: every ball of the cluster starts in the same frame and no
approach is visible, so contacts cannot be found from paths that bend. They can be
found from what the balls did next: each ball's change of velocity is the sum of the
impulses along the lines of centres of its touching neighbours (equal masses), each
impulse pushing (never pulling). Solving ``dv = A J, J >= 0`` (non-negative least
squares) over the candidate pairs gives the impulse each pair carried; the pairs that
carried more than the velocity noise are the contacts. The same reading over every
interval of a shot, for balls in motion, is :mod:`vision.events.impulse_scan` (re-exported).

Positions table mm, velocities and impulses mm per frame (per unit mass), times
fractional frames relative to the series' first frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.events.impulse_scan import ScanContact, fit_speed_toward, impulse_scan  # noqa: F401
from vision.events.rack_solve import (
    MemberVelocity,
    angle_sigma,
    line_sigma,
    member_velocity,
    solve_rack,
    touching_positions,
)
from vision.events.series import Series, frames_before, line_fit

# members this many times the touching tolerance apart may meet in the frames their
# velocities are read over (a ball set off by a neighbour reaches the next a frame on)
NEAR = 2.0
# a member's start speed read by the sliding-then-rolling fit errs by this share of it
# (on exact tracks of the synthetic breaks the big impulses came out within 0.5 %)
REL_ERR = 0.01

SLIDE_MU = 0.2  # sliding friction of ball on cloth (textbook 0.2)
RACK_AFTER = 2  # samples after a rack is hit that give each member's start velocity


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
    pre = frames_before(xy, f0, since)
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
    motion: tuple[float, float, float] | None = None,
    floor: float = 0.0,
) -> list[RackContact]:
    """Contacts of a cluster ``members`` (at rest, touching, ``entry`` among them) hit by
    the moving ``striker`` at ``f0``. The pair striker-entry is always a contact; the
    others carry at least ``threshold`` mm/frame. Striking ball first: the one nearer the
    striker along the pairs that carried an impulse. ``since``: when the striker started
    (fractional frame); a striker set off less than two frames before it hit has no
    measured velocity before, and only the members' changes count. A pair the striker
    does not reach through pairs that carried an impulse is none: every ball of the
    cluster was at rest, so an impulse runs only on from a ball that took one.
    ``motion``: (position noise of a ball in motion, mm; rolling deceleration,
    mm/frame^2; position noise of a ball at rest, mm): the members' velocities are then
    read over several frames, once they parted, and a pair counts when its impulse
    stays above ``threshold`` in all but a tenth of the explanations of them within
    their noise (:func:`_bounded`); members up to ``NEAR`` tolerances apart are pairs
    too (they may meet in those frames). Without it, from two samples each (NNLS).
    ``floor`` (mm/frame): the least impulse a pair's own reading must carry besides.
    """
    from scipy.optimize import nnls

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
    if motion is not None:  # a striker between two members reaches the second within a frame
        sxy = series.xy[series.index(striker)]
        reach = tol + _speed_after(sxy, f0)
        for m in members:
            if m == entry or np.linalg.norm(pc - rest[m]) - 2 * R >= reach:
                continue
            if _path_gap(sxy, pc, f0, rest[m]) < 2 * R + tol:
                pairs.append((striker, m))
    near: list[tuple[str, str]] = []
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            gap = np.linalg.norm(rest[a] - rest[b]) - 2 * R
            if gap < tol:
                pairs.append((a, b))
            elif motion is not None and gap < NEAR * tol:
                near.append((a, b))
    pairs += near
    A = np.zeros((len(dv), len(pairs)))
    for k, (a, b) in enumerate(pairs):
        n = pos[b] - pos[a]
        n = n / max(float(np.linalg.norm(n)), 1e-9)
        A[2 * col[b] : 2 * col[b] + 2, k] += n
        A[2 * col[a] : 2 * col[a] + 2, k] -= n
    keep = slice(2 if np.isnan(sdv).any() else 0, None)  # no striker rows: unmeasured
    if motion is not None:
        J, low = _bounded(series, tol, f0, members, pos, pairs, R, slide, motion)
    else:
        J, _ = nnls(A[keep], dv[keep])
        low = J
    used = [k for k in range(len(pairs)) if k == 0 or (low[k] >= threshold and J[k] >= floor)]
    depth = _depths(striker, [pairs[k] for k in used])
    out = []
    for k in used:
        a, b = pairs[k]
        if a not in depth:
            continue  # not reached from the striker through pairs that carried one
        if depth.get(b, 99) < depth.get(a, 99):
            a, b = b, a
        at = (pos[a] + pos[b]) / 2 if k else pos[b] + (pos[a] - pos[b]) / 2
        out.append(RackContact(f0, a, b, (float(at[0]), float(at[1])), float(J[k])))
    return out


def _bounded(
    series: Series,
    tol: float,
    f0: float,
    members: list[str],
    pos: dict[str, np.ndarray],
    pairs: list[tuple[str, str]],
    R: float,
    slide: float,
    motion: tuple[float, float, float],
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's impulse (mm/frame) and its low quantile over the explanations of the
    members' velocities within their noise (:func:`vision.events.rack_solve.solve_rack`). The
    rest positions ``pos`` (mm, as read: a pressed ball's centre pulled a mm or two
    toward its neighbours) are first put one diameter apart
    (:func:`vision.events.rack_solve.touching_positions`); the members' velocities are read
    over several frames from those, anchored within the RMS of the touching pairs' gaps
    (on the synthetic 720p break the positions as read were up to 3 mm off, put to
    touching 0.3 mm, and the pull bent a slow member's start by 0.6 mm/frame), and the
    lines of centres are read from them too. The striker's own change is left out: its
    spin turns it in the frames after."""
    sigma, roll, sigma_rest = motion
    striker = pairs[0][0]
    touch = [
        p
        for p in pairs[1:]
        if striker not in p and np.linalg.norm(pos[p[0]] - pos[p[1]]) - 2 * R < tol
    ]
    anchor = max(angle_sigma(pos, touch, R) * 2 * R, sigma_rest)  # RMS gap, mm
    raw = pos
    pos = touching_positions(pos, touch, R)
    vel: dict[str, MemberVelocity | None] = {pairs[0][0]: None}
    for m in members:
        xy = series.xy[series.index(m)]
        others = series.xy[[series.index(o) for o in [pairs[0][0], *members] if o != m]]
        vel[m] = member_velocity(
            xy, pos[m], f0, (slide, roll, sigma), anchor, REL_ERR, others=others, R=R
        )
    eps = line_sigma(raw, touch, R)
    return solve_rack(vel, pos, pairs, eps)


def _speed_after(xy: np.ndarray, f0: float) -> float:
    """Speed (mm/frame) of a ball over the first whole frame after ``f0`` (0 where
    unseen): how far a striker goes on after its hit."""
    lo = int(np.floor(f0)) + 1
    if lo + 1 >= len(xy) or np.isnan(xy[lo : lo + 2, 0]).any():
        return 0.0
    return float(np.linalg.norm(xy[lo + 1] - xy[lo]))


def _path_gap(xy: np.ndarray, pc: np.ndarray, f0: float, p: np.ndarray) -> float:
    """Least distance (mm) from ``p`` to a striker's path after its hit at ``f0``: the
    polyline from its position then ``pc`` through its next two samples (those seen).
    A striker that touches a second member comes within one diameter of it; a sampled
    path cuts the corner of that touch by well under the touching tolerance (the
    synthetic breaks' double touches: 1.2 mm at most). 0 where no sample follows."""
    lo = int(np.floor(f0))
    nxt = [xy[k] for k in (lo + 1, lo + 2) if k < len(xy) and not np.isnan(xy[k, 0])]
    if not nxt:
        return 0.0
    best = np.inf
    for a, b in zip([pc, *nxt[:-1]], nxt, strict=True):
        d = b - a
        t = float(np.clip((p - a) @ d / max(float(d @ d), 1e-12), 0.0, 1.0))
        best = min(best, float(np.linalg.norm(a + t * d - p)))
    return best


def _hit_time(series: Series, members: list[str], rest: dict[str, np.ndarray], f0: float) -> float:
    """The moment (fractional frame) a frozen cluster was hit, from the members that left
    fast: when each one, sliding off its rest position (:func:`slide_travel`), covers
    the distances to its next two samples, weighted by speed squared (a fast ball dates
    its start to a small fraction of a frame). ``f0`` (a start read from a slow ball, or a
    frame late) when none left faster than 5 mm/frame; within a frame of ``f0``."""
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
        off = xy - rest[m]
        miss = abs(float(off[0, 0] * v[1] - off[0, 1] * v[0])) / speed  # mm off its line
        d1, d2 = float(off[0] @ v) / speed, float(off[1] @ v) / speed
        if miss > 2.0 + 0.05 * speed or not 0.0 <= d1 <= 2.0 * speed:
            continue
        tau = d1 / speed  # frames from the start to sample lo + 1, sliding
        for _ in range(4):
            u = _solve_up(lambda x, t=tau: _step(x, t, decel), d2 - d1)
            tau = _solve_up(lambda x, u=u: slide_travel(u, x, decel), d1)
        w = speed * speed
        num += w * (lo + 1 - float(tau))
        den += w
    if den == 0.0:
        return f0
    return float(np.clip(num / den, f0 - 1.0, f0 + 1.0))


def _step(v0: float, tau: float, decel: float) -> float:
    """Distance (mm) a ball set off at ``v0`` covers from ``tau`` to ``tau + 1`` frames
    after its start (:func:`slide_travel`)."""
    return float(slide_travel(v0, np.array([tau, tau + 1.0]), decel) @ [-1.0, 1.0])


def _solve_up(fn, target: float, hi: float = 1.0) -> float:
    """The x >= 0 where the increasing ``fn`` reaches ``target`` (bisection)."""
    while float(fn(hi)) < target and hi < 1e6:
        hi *= 2.0
    lo = 0.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if float(fn(mid)) < target else (lo, mid)
    return 0.5 * (lo + hi)


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
    xa: np.ndarray, xb: np.ndarray, R: float, tol: float, rise: float, flat: float = 0.0
) -> list[tuple[float, float]]:
    """Touches of two balls from their positions (F, 2) mm over the same frames: local
    minima of their distance, closed to within ``tol`` of one diameter, that they
    approached by more than ``rise`` mm over the two frames before. The approach ends at
    the sample before the minimum where the two lie within ``flat`` mm (the noise of a
    difference of two distances): a pair that stays at its nearest for two samples (a
    slow ball pushing a ball at rest along) has its least distance at either by noise,
    and the rise is read over the two frames before the first. Returns (fractional
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
            & (d[ks] - np.maximum(step[ks - 1], step[ks]) <= 2 * R + tol)
        )
    for k in (int(i) for i in ks[cand]):  # NaN anywhere near fails the comparisons
        k0 = k - 1 if k > 2 and d[k - 1] - d[k] <= flat else k  # where the approach ended
        if not d[k0 - 2] - d[k] >= rise:
            continue
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
