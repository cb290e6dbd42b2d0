"""Which touching pairs of a frozen cluster (a rack) carried an impulse when a moving
ball hit it, from the members' velocities after the hit.

Each member's change of velocity is the sum of the impulses along the lines of centres
of its touching neighbours (equal masses), each pushing, never pulling. Fifteen balls
in a triangle touch in thirty pairs, and the thirty velocity rows fix only 27 of the
impulses: a wheel of pushes round an inner ball cancels. With exact velocities the
pushing-only solution (NNLS) is still the true one, but noise moves impulse round the
wheels, and a pair whose impulse a small misreading sets to nothing may have carried
none. So each pair's impulse is read again over resamples of the measurements within
their noise, and a pair counts when its impulse clears the floor in all but a tenth of
them (:func:`impulse_spread`). Where the measurements cannot tell, nothing is reported.
Each member's sigma there is its reading's, grown by what the lines of centres' error
makes of the impulses it passed on (a side of the rack passes on 170 mm/frame), and a
member still misfit beyond 3 of its sigmas is widened alone: a common widening by the
misfit of one fast member hid the inner pairs of 1-2 mm/frame the slow members show.

The measurements, made as good as they can be: a member's velocity is read over several
frames once it has parted from its neighbours (:func:`member_velocity`: it slides off,
then rolls), its rest position a loose anchor (a detector places balls that touch a mm
or two off, a bias that goes as they part); the lines of centres are read from the rest
positions moved the least that makes every touching pair touch
(:func:`touching_positions`), ten times straighter than as read.

Positions table mm, velocities and impulses mm per frame (per unit mass), times
fractional frames relative to the series' first frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.base.solvers import least_squares, minimize_scalar, nnls

FIT_SKIP = 1  # samples after the hit left out of a member's fit (touching neighbours)
FIT_SAMPLES = 6  # samples fitted after those (until a kink: the member met something)
FIT_SIGMAS = 4.0  # a sample off the fitted travel by more (position sigmas) ends the fit
PART_WAIT = 4  # frames a member's fit waits at most for it to part from its neighbours
PART_SIGMAS = 4.0  # parted: this many motion-noise sigmas clear of touching
BOOT = 200  # resamples of the measurements
BOOT_QUANTILE = 0.1  # a pair counts when this low quantile of its impulse clears the floor
MEMBER_SIGMAS = 3.0  # a member misfit by more (RMS of its rows, its own sigmas) is widened
MEMBER_ROUNDS = 10  # refits that widen misfit members
ANGLE_ROUNDS = 3  # refits of the impulses the lines' error is scaled by


@dataclass(frozen=True)
class MemberVelocity:
    """A member's velocity (mm/frame) just after the hit, and its sigma per axis."""

    v: np.ndarray
    sigma: float


def travel(v0: float, tau: np.ndarray, slide: float, roll: float) -> np.ndarray:
    """Distance (mm) a ball set off at ``v0`` mm/frame without spin covers in ``tau``
    frames: it slides, slowing by ``slide`` mm/frame^2, until it rolls at 5/7 of ``v0``,
    then rolls slowing by ``roll`` mm/frame^2 until it stops."""
    tau = np.maximum(np.asarray(tau, float), 0.0)
    if slide <= 0.0:
        return v0 * tau
    ts = 2.0 * v0 / (7.0 * slide)
    t1 = np.minimum(tau, ts)
    slid = v0 * t1 - 0.5 * slide * t1 * t1
    vr = 5.0 * v0 / 7.0
    tr = np.maximum(tau - ts, 0.0)
    if roll > 0.0:
        tr = np.minimum(tr, vr / roll)
    return slid + vr * tr - 0.5 * max(roll, 0.0) * tr * tr


def _parted(xy: np.ndarray, lo: int, others: np.ndarray | None, clear: float) -> int:
    """The first frame from ``lo`` on (at most ``PART_WAIT`` later) where the member at
    ``xy`` (F, 2) mm is at least ``clear`` mm from every other member ``others``
    (K, F, 2) mm seen then: a detector pulls a ball still pressed to a neighbour a few
    mm towards it, a bias that goes as they part (on the synthetic 720p break it bent
    the first frames of slow members by 1-3 mm)."""
    if others is None or len(others) == 0:
        return lo
    for f in range(lo, min(lo + PART_WAIT, len(xy))):
        if np.isnan(xy[f, 0]):
            continue
        d = np.linalg.norm(others[:, f] - xy[f], axis=1)
        if not np.any(d[~np.isnan(d)] < clear):
            return f
    return lo + PART_WAIT


def _window(
    xy: np.ndarray,
    f0: float,
    kink: float,
    others: np.ndarray | None = None,
    clear: float = 0.0,
) -> np.ndarray:
    """Frames of a member's fit: ``FIT_SAMPLES`` seen after the first ``FIT_SKIP`` ones
    after ``f0`` and once it parted from the others (:func:`_parted`), cut after the
    first sample where the path bends by more than ``kink`` mm (second difference): the
    member met another ball or a cushion there."""
    lo = _parted(xy, int(np.floor(f0)) + 1 + FIT_SKIP, others, clear)
    fr = np.arange(lo, min(lo + FIT_SAMPLES, len(xy)))
    fr = fr[~np.isnan(xy[fr, 0])]
    for i in range(1, len(fr) - 1):
        a, b, c = fr[i - 1], fr[i], fr[i + 1]
        if c - a != 2:
            continue
        if float(np.linalg.norm(xy[c] - 2 * xy[b] + xy[a])) > kink:
            return fr[: i + 1]
    return fr


def member_velocity(
    xy: np.ndarray,
    p0: np.ndarray,
    f0: float,
    motion: tuple[float, float, float],
    anchor: float,
    rel: float,
    others: np.ndarray | None = None,
    R: float = 0.0,
) -> MemberVelocity | None:
    """Velocity (mm/frame) a member of a cluster hit at ``f0`` (fractional frame) set off
    with, from its samples ``xy`` (F, 2) mm over the frames after (:func:`_window`) and
    its rest position ``p0`` (mm, misplaced by about ``anchor`` mm: a neighbour's edge
    pulls a pressed ball's centre): the speed of the sliding-then-rolling travel
    (:func:`travel`) that fits them, their offset from ``p0`` free within ``anchor``,
    along the straight fit's direction; the fit ends before a sample it misses by more
    than ``FIT_SIGMAS`` sigmas and ``anchor`` (the member met something). ``motion``: (sliding and rolling deceleration,
    mm/frame^2; position noise of a ball in motion, mm). The velocity's sigma (per
    axis) is the fit's, plus ``rel`` of the speed (the model's own error). None when
    fewer than two samples are seen. ``others`` (K, F, 2) mm: the other members'
    samples, radius ``R`` mm: the fit starts once the member parted from them by
    ``PART_SIGMAS`` sigmas (:func:`_parted`)."""
    slide, roll, sigma = motion
    sigma = max(sigma, 1e-3)
    anchor = max(anchor, sigma)
    clear = 2.0 * R + PART_SIGMAS * sigma
    fr = _window(xy, f0, 2.0 * slide + 8.0 * sigma + 1.0, others, clear)
    if len(fr) < 2:
        return None
    while True:
        fit = _fit_travel(xy[fr], fr - f0, p0, (slide, roll, sigma), anchor)
        if len(fr) <= 2 or fit[2] <= FIT_SIGMAS * sigma + anchor:
            break
        fr = fr[:-1]  # a later sample off the fitted travel: the member met something
    v0, u, _, info = fit
    return MemberVelocity(v0 * u, sigma / np.sqrt(max(info, 1e-12)) + rel * v0)


def _fit_travel(
    pts: np.ndarray,
    tau: np.ndarray,
    p0: np.ndarray,
    motion: tuple[float, float, float],
    anchor: float,
) -> tuple[float, np.ndarray, float, float]:
    """The travel (:func:`travel`) through positions ``pts`` (K, 2) mm at ``tau`` frames
    after the start and through the rest position ``p0`` within ``anchor`` mm: (start
    speed mm/frame, unit direction, the largest miss of a sample in mm, the fit's
    information on the speed per unit position variance)."""
    slide, roll, sigma = motion
    tau = np.r_[0.0, tau]
    w = np.r_[(sigma / anchor) ** 2, np.ones(len(pts))]
    pts = np.vstack([p0, pts])
    X = np.c_[np.ones(len(tau)), tau] * np.sqrt(w)[:, None]
    vl = np.linalg.lstsq(X, pts * np.sqrt(w)[:, None], rcond=None)[0][1]
    speed = float(np.linalg.norm(vl))
    u = vl / speed if speed > 1e-9 else np.array([1.0, 0.0])
    s = (pts - p0) @ u

    def offset(d: np.ndarray) -> float:
        return float(w @ (s - d) / w.sum())

    def cost(v0: float) -> float:
        d = travel(v0, tau, slide, roll)
        return float(w @ (s - d - offset(d)) ** 2)

    v0 = float(minimize_scalar(cost, bounds=(0.0, 2.0 * speed + 5.0), method="bounded").x)
    d = travel(v0, tau, slide, roll)
    model = p0 + np.outer(offset(d) + d, u)
    miss = float(np.linalg.norm(pts[1:] - model[1:], axis=1).max())
    # a slow ball stops within the window, its travel growing as the speed squared: no
    # speed below that which travels one sigma by the window's end is told from none
    ve = max(v0, float(np.sqrt(sigma / max(float(travel(1.0, tau[-1:], slide, roll)[0]), 1e-9))))
    h = 1e-3 * ve
    jac = (travel(ve + h, tau, slide, roll) - travel(ve - h, tau, slide, roll)) / (2 * h)
    info = float(w @ jac**2 - (w @ jac) ** 2 / w.sum())
    return v0, u, miss, info


def angle_sigma(rest: dict[str, np.ndarray], pairs: list[tuple[str, str]], R: float) -> float:
    """Sigma (radians) of a line of centres read from rest positions: the RMS of the
    touching pairs' gaps (mm; balls that touch, their centres misplaced) over one
    diameter, the misplacement sideways taken as large as along."""
    gaps = [float(np.linalg.norm(rest[a] - rest[b])) - 2 * R for a, b in pairs]
    return float(np.sqrt(np.mean(np.square(gaps)))) / (2 * R) if gaps else 0.0


def rigid(pairs: list[tuple[str, str]]) -> bool:
    """Whether touching ``pairs`` (ids) can hold the balls they join in one shape: at
    least ``2 n - 3`` pairs among those ``n`` balls, the count of a rigid frame in the
    plane (a racked triangle of fifteen, thirty pairs; a chain of ``n``, ``n - 1``).
    Only then do the touches, put one diameter each, fix the balls' relative positions
    better than they were read (:func:`touching_positions`)."""
    balls = {b for p in pairs for b in p}
    return len(balls) >= 2 and len(pairs) >= 2 * len(balls) - 3


def line_sigma(rest: dict[str, np.ndarray], pairs: list[tuple[str, str]], R: float) -> float:
    """Sigma (radians) of a line of centres read from the rest positions ``rest`` (mm)
    once the touching ``pairs`` are put one diameter apart (:func:`touching_positions`):
    as read (:func:`angle_sigma`), over ``2 sqrt(P)`` where the ``P`` pairs make a rigid
    frame (:func:`rigid`) and hold each other straight (on the synthetic breaks, P = 30,
    the lines turned 7 to 12 times less than as read). A looser cluster's touches hold
    nothing straight: putting them to one diameter moves its members by their gaps
    (balls left a few mm apart within the touching tolerance) and turns the lines round
    them (on the synthetic loose clusters so solved, the lines' RMS error against the
    truth 0.24-0.70 degree as read, 0.74-1.79 put to touching)."""
    eps = angle_sigma(rest, pairs, R)
    return eps / (2.0 * np.sqrt(len(pairs))) if rigid(pairs) else eps


def solve_rack(
    velocities: dict[str, MemberVelocity | None],
    pos: dict[str, np.ndarray],
    pairs: list[tuple[str, str]],
    eps: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's impulse (mm/frame) and its low quantile (:func:`impulse_spread`) from
    the balls' velocity changes (None: unmeasured) and positions (mm) at the hit;
    ``eps``: the sigma (radians) of a line of centres."""
    balls = list(velocities)
    col = {b: k for k, b in enumerate(balls)}
    dv = np.full((len(balls), 2), np.nan)
    sig = np.ones(len(balls))
    for b, mv in velocities.items():
        if mv is not None:
            dv[col[b]], sig[col[b]] = mv.v, mv.sigma
    normals = np.array([pos[b] - pos[a] for a, b in pairs], float).reshape(-1, 2)
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-9)
    inc = [(col[a], col[b]) for a, b in pairs]
    return impulse_spread(normals, inc, dv, sig, eps)


def touching_positions(
    rest: dict[str, np.ndarray],
    pairs: list[tuple[str, str]],
    R: float,
    anchor: float = 0.1,
    exact: bool = False,
) -> dict[str, np.ndarray]:
    """Rest positions (mm) moved the least that puts every touching pair exactly one
    diameter apart: a detector places balls pressed together a mm or two off (a
    neighbour's edge pulls the centre), which turns their lines of centres by a few
    degrees; the touches themselves hold them to a lattice. ``anchor``: the weight of
    each position's pull back to where it was read (a rigid move of the whole cluster
    costs, a gap costs more); the default leaves each gap about a hundredth of a mm off.
    ``exact``: solved with the analytic Jacobian to machine tolerance (with a light
    anchor, the gaps then close to within a nanometre: :func:`vision.events.rack_sim.lattice`)."""
    balls = sorted({b for p in pairs for b in p})
    if not balls:
        return dict(rest)
    col = {b: k for k, b in enumerate(balls)}
    p0 = np.array([rest[b] for b in balls], float)
    ia = np.array([col[a] for a, _ in pairs])
    ib = np.array([col[b] for _, b in pairs])
    rows = np.arange(len(pairs))

    def resid(x: np.ndarray) -> np.ndarray:
        p = x.reshape(-1, 2)
        gap = np.linalg.norm(p[ia] - p[ib], axis=1) - 2 * R
        return np.r_[gap, anchor * (p - p0).reshape(-1)]

    def jac(x: np.ndarray) -> np.ndarray:
        p = x.reshape(-1, 2)
        d = p[ia] - p[ib]
        n = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
        J = np.zeros((len(pairs) + x.size, x.size))
        for ax in range(2):
            J[rows, 2 * ia + ax] += n[:, ax]
            J[rows, 2 * ib + ax] -= n[:, ax]
        J[len(pairs) :] = anchor * np.eye(x.size)
        return J

    tight = {"jac": jac, "xtol": 1e-15, "ftol": 1e-15} if exact else {}
    x = least_squares(resid, p0.reshape(-1), method="lm", **tight).x.reshape(-1, 2)
    out = dict(rest)
    out.update({b: x[col[b]] for b in balls})
    return out


def _design(normals: np.ndarray, incidence: list[tuple[int, int]], n_balls: int) -> np.ndarray:
    """(2 B, P): column k pushes the second ball of pair k along its normal, the first
    back."""
    A = np.zeros((2 * n_balls, len(incidence)))
    for k, (a, b) in enumerate(incidence):
        A[2 * b : 2 * b + 2, k] += normals[k]
        A[2 * a : 2 * a + 2, k] -= normals[k]
    return A


def impulse_spread(
    normals: np.ndarray,
    incidence: list[tuple[int, int]],
    dv: np.ndarray,
    sigma: np.ndarray,
    eps: float,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's impulse (mm/frame, NNLS weighted by the rows' sigmas) and its low
    ``BOOT_QUANTILE`` quantile over ``BOOT`` resamples: velocity changes ``dv`` (B, 2)
    redrawn within their sigmas ``sigma`` (B,) and lines of centres ``normals`` (P, 2)
    turned within ``eps`` radians. NaN rows of ``dv``: unmeasured, left out."""
    rng = np.random.default_rng(seed)
    A = _design(normals, incidence, len(dv))
    rows = ~np.isnan(dv.reshape(-1))
    w = 1.0 / np.repeat(sigma, 2)[rows]
    y0 = dv.reshape(-1)[rows]
    # each member's sigma grown by the lines of centres' error on its pairs' impulses,
    # then a member still misfit beyond its sigma widened alone
    member = np.repeat(np.arange(len(dv)), 2)[rows]
    inc = np.zeros((len(dv), len(incidence)))
    for k, (a, b) in enumerate(incidence):
        inc[a, k] = inc[b, k] = 1.0
    w = _angle_weights(A[rows], y0, w, member, inc, eps)
    w = _member_weights(A[rows], y0, w, member)
    p = nnls(A[rows] * w[:, None], y0 * w)[0]
    r = (A[rows] @ p - y0) * w
    # rows that disagree beyond their sigmas (a velocity misread by more than its noise
    # says) widen every sigma by the misfit per degree of freedom
    chi2 = float(np.sum(r**2))
    dof = max(int(rows.sum()) - int((p > 0).sum()), 1)
    w = w / max(1.0, np.sqrt(chi2 / dof))
    ang = np.arctan2(normals[:, 1], normals[:, 0])
    draws = np.empty((BOOT, len(incidence)))
    for i in range(BOOT):
        a = ang + rng.normal(0.0, eps, len(ang))
        y = y0 + rng.normal(0.0, 1.0, len(y0)) / w
        Ab = _design(np.c_[np.cos(a), np.sin(a)], incidence, len(dv))[rows]
        draws[i] = nnls(Ab * w[:, None], y * w)[0]
    return p, np.quantile(draws, BOOT_QUANTILE, axis=0)


def _member_weights(A: np.ndarray, y: np.ndarray, w: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Row weights (1 / sigma, per mm/frame) with each member misread beyond its own
    sigma widened to its misfit: the NNLS fit's residual of a member (RMS over its rows,
    in its sigmas) above ``MEMBER_SIGMAS`` widens that member's sigma by it over
    ``MEMBER_SIGMAS``, refitted until none does. A fast member's start read a few per
    cent off (on a synthetic 1080p break, 7 % short at 175 mm/frame) misfits by 14 of
    its sigmas; widening every member by the common misfit hid the slow members'
    impulses of a mm/frame or two that their own readings show."""
    w = w.copy()
    for _ in range(MEMBER_ROUNDS):
        p = nnls(A * w[:, None], y * w)[0]
        r = (A @ p - y) * w
        ms = np.sqrt(np.bincount(member, r * r) / np.maximum(np.bincount(member), 1))
        over = np.maximum(ms / MEMBER_SIGMAS, 1.0)
        if np.all(over < 1.0 + 1e-3):
            break
        w = w / over[member]
    return w


def _angle_weights(
    A: np.ndarray, y: np.ndarray, w: np.ndarray, member: np.ndarray, inc: np.ndarray, eps: float
) -> np.ndarray:
    """Row weights (1 / sigma, per mm/frame) with each member's sigma grown by what the
    lines of centres' own error ``eps`` (radians) makes of the impulses it took: a pair
    carrying ``J`` mm/frame along a line off by ``eps`` pushes its balls ``J eps``
    sideways, so a member of a side of the rack that passed on 170 mm/frame is
    predicted no better than a few tenths of a mm/frame, whatever its own reading's
    noise. ``inc`` (B, P): 1 where pair P touches member B. Refitted as the impulses
    settle."""
    s2 = 1.0 / (w * w)
    out = w
    for _ in range(ANGLE_ROUNDS):
        p = nnls(A * out[:, None], y * out)[0]
        out = 1.0 / np.sqrt(s2 + (eps * eps) * (inc @ (p * p))[member])
    return out
