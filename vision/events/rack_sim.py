"""A forward model of a ball hitting a frozen rack: event-ordered hard spheres.

Equal masses, restitution ``E_BALL`` (phenolic balls), no friction between balls and
none with the cloth over the few milliseconds the impulse takes to run through a rack:
every ball flies straight between impacts, each impact is solved exactly (a quadratic in
time) and the earliest resolved first, an impact changing only the two balls' velocity
components along their line of centres.

A racked pyramid's members touch. Touching spheres meet at the same instant and the
order of simultaneous impacts decides where the impulse goes, so the rack is modelled as
the limit of equal vanishing gaps (:func:`open_rack`): every touching pair ``gap`` mm
apart. The impacts' order then depends on the geometry alone (every time scales with
``gap``), not on ``gap`` (the same pairs from 1e-5 to 0.1 mm on synthetic breaks).

From measurements (:func:`model_pairs`): the members' rest positions, misread by a mm
or two, are put on the lattice their touches make (:func:`lattice`), which fixes the
rack's shape to a few hundredths of a mm where the touches make a rigid frame; the
striker's line is a straight fit of its run before the hit (:func:`straight_run`),
where on it and how fast from its last three samples. A pair counts when it collides in
most runs over those inputs redrawn within their noise; one that collides in none of
them no impulse reaches.

Positions table mm, velocities mm/frame, times frames from the start of the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.events.rack_solve import touching_positions
from vision.events.series import frames_before, line_fit

E_BALL = 0.95  # restitution of phenolic balls (0.92-0.98)
MAX_IMPACTS = 2000  # a run stops after this many impacts (a jam of resting contacts)


@dataclass(frozen=True)
class Impact:
    """One impact: time (frames from the run's start), the two balls' indices (the faster
    one before first) and the impulse (mm/frame each ball took)."""

    t: float
    a: int
    b: int
    impulse: float


def _first_times(pos: np.ndarray, vel: np.ndarray, R: float) -> np.ndarray:
    """(N, N) time (frames) until each pair closes to one diameter; inf when it does not.
    A pair already touching (or overlapping) and closing meets now (0)."""
    dp = pos[None, :, :] - pos[:, None, :]
    dv = vel[None, :, :] - vel[:, None, :]
    a = (dv * dv).sum(2)
    b = 2.0 * (dp * dv).sum(2)
    c = (dp * dp).sum(2) - (2.0 * R) ** 2
    disc = b * b - 4.0 * a * c
    ok = (b < 0) & (disc >= 0) & (a > 1e-18)
    t = np.full(a.shape, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (-b - np.sqrt(np.where(ok, disc, 0.0))) / (2.0 * np.where(ok, a, 1.0))
    t[ok] = np.maximum(r[ok], 0.0)
    t[(b < 0) & (c <= 0)] = 0.0
    t[np.tril_indices(len(pos))] = np.inf
    return t


def run(
    pos: np.ndarray, vel: np.ndarray, R: float, horizon: float, e: float = E_BALL
) -> tuple[list[Impact], np.ndarray]:
    """Every impact among balls at ``pos`` (N, 2) mm moving at ``vel`` (N, 2) mm/frame
    within ``horizon`` frames, in order, and the velocities (N, 2) mm/frame after."""
    pos = np.array(pos, float)
    vel = np.array(vel, float)
    now = 0.0
    out: list[Impact] = []
    for _ in range(MAX_IMPACTS):
        t = _first_times(pos, vel, R)
        k = int(np.argmin(t))
        dt = float(t.flat[k])
        if not np.isfinite(dt) or now + dt > horizon:
            break
        i, j = divmod(k, len(pos))
        pos += vel * dt
        now += dt
        n = pos[j] - pos[i]
        n /= max(float(np.linalg.norm(n)), 1e-12)
        closing = float((vel[i] - vel[j]) @ n)
        if closing <= 0.0:
            continue
        jn = 0.5 * (1.0 + e) * closing
        si, sj = float(np.linalg.norm(vel[i])), float(np.linalg.norm(vel[j]))
        vel[i] -= jn * n
        vel[j] += jn * n
        a, b = (i, j) if si >= sj else (j, i)
        out.append(Impact(now, a, b, jn))
    return out, vel


def lattice(
    pos: dict[str, np.ndarray], pairs: list[tuple[str, str]], R: float
) -> dict[str, np.ndarray]:
    """Positions (mm) moved the least that puts every touching pair one diameter apart to
    within a nanometre (:func:`vision.events.rack_solve.touching_positions`, exact, with a light
    anchor to the positions as read): the vanishing gap (``GAP_MM``) that orders the
    impacts must not drown in what is left of the touches; the rack solver's default,
    whose anchor pulls against them, leaves each a hundredth of a mm off."""
    return touching_positions(pos, pairs, R, anchor=1e-5, exact=True)


def open_rack(pos: np.ndarray, pairs: list[tuple[int, int]], R: float, gap: float) -> np.ndarray:
    """Positions (N, 2) mm of a rack whose touching ``pairs`` (indices) sit exactly one
    diameter apart, moved apart so that each is ``2 R + gap``: the whole rack scaled about
    its centroid by ``1 + gap / (2 R)`` (equal gaps everywhere)."""
    pos = np.asarray(pos, float)
    idx = sorted({k for p in pairs for k in p})
    out = pos.copy()
    if idx:
        c = pos[idx].mean(axis=0)
        out[idx] = c + (pos[idx] - c) * (1.0 + gap / (2.0 * R))
    return out


DRAWS = 20  # runs of the model over the measurements redrawn within their noise
SHARE = 0.8  # a pair counts when it collides in at least this share of the draws
GAP_MM = 1e-3  # the vanishing gap of touching members (the impacts' order is the limit's)
HORIZON = 0.2  # frames after the hit the model runs (the impulse crosses a rack in < 1 ms)
# the striker's line is fitted to at most this many samples of its straight run before
# the hit (half a second at 30 fps: a break's run from the cue, 8-15 samples on the set)
RUN_FRAMES = 15
# a sample this far across the run's line (mm, and motion-noise sigmas) is off it: the
# run turned there (as SCAN_HOP in vision.events.contact_finders: a detection's hop)
RUN_OFF_MM = 3.0
RUN_OFF_SIGMAS = 6.0


def straight_run(xy: np.ndarray, f0: float, since: float | None, tol: float) -> np.ndarray:
    """Series indices of the striker's samples (``xy`` (F, 2) mm, NaN = none) on its
    straight run up to ``floor(f0)``: the last ``RUN_FRAMES``, those from ``since`` on
    (when it started or was last hit then), less the earliest while one lies off the
    straight fit of the rest by more than ``tol`` mm across it (a cushion turned it).
    Only the distance across counts: along it the cloth slows the ball (a straight fit
    in time leaves a slide's deceleration there, mm on end)."""
    k = int(np.floor(f0))
    fr = frames_before(xy, f0, since, RUN_FRAMES)
    while len(fr) > 3:
        a, v = line_fit((fr - k).astype(float), xy[fr])
        u = v / max(float(np.linalg.norm(v)), 1e-12)
        across = (xy[fr] - a) @ np.array([-u[1], u[0]])
        if np.abs(across).max() <= tol:
            break
        fr = fr[1:]
    return fr


def _striker_line(xy: np.ndarray, fr: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Position (mm) at frame ``k`` and velocity (mm/frame) of the striker from its
    samples ``fr`` (:func:`straight_run`, three or more): the line it runs on, a straight
    fit of them all (a run of ten at 200 mm/frame puts the line at the rack about twice
    as near the truth as the last three alone); where on it and how fast, those of the
    last three (the run's mean speed is not the speed at the hit)."""
    a, v = line_fit((fr - k).astype(float), xy[fr])
    u = v / max(float(np.linalg.norm(v)), 1e-12)
    last = fr[-3:]
    a3, v3 = line_fit((last - k).astype(float), xy[last])
    return a + u * float((a3 - a) @ u), u * float(v3 @ u)


def collided_pairs(
    rest: dict[str, np.ndarray],
    pairs: list[tuple[str, str]],
    striker: str,
    p_s: np.ndarray,
    v_s: np.ndarray,
    R: float,
) -> tuple[dict[frozenset, Impact], dict[str, np.ndarray]]:
    """The pairs the model says collide when ``striker`` at ``p_s`` (mm) moving at ``v_s``
    (mm/frame) meets the rack ``rest`` (id -> mm) whose touching ``pairs`` are put one
    diameter apart (:func:`lattice`) and opened by
    ``GAP_MM``: each pair's first impact (ids as frozenset keys; ``a``/``b`` index
    ``[*rest, striker]``), its impulse the sum of the pair's impacts; and every ball's
    velocity (mm/frame) after."""
    balls = list(rest)
    snap = lattice(rest, pairs, R)
    P = np.array([snap[b] for b in balls] + [p_s], float)
    col = {b: k for k, b in enumerate(balls)}
    P = open_rack(P, [(col[a], col[b]) for a, b in pairs], R, GAP_MM)
    # the striker backed off along its path until clear of every member
    d = np.linalg.norm(P[:-1] - P[-1], axis=1).min() - 2 * R
    speed = float(np.linalg.norm(v_s))
    if speed < 1e-6:
        return {}, {}
    if d < 1.0:
        P[-1] -= v_s * (1.0 - d + 2.0 * R) / speed
    V = np.zeros_like(P)
    V[-1] = v_s
    t_hit = float(np.linalg.norm(P[:-1] - P[-1], axis=1).min() - 2 * R) / speed
    imp, vel = run(P, V, R, t_hit + 1.0 + HORIZON)
    ids = [*balls, striker]
    out: dict[frozenset, Impact] = {}
    for x in imp:
        key = frozenset((ids[x.a], ids[x.b]))
        if key in out:
            y = out[key]
            out[key] = Impact(y.t, y.a, y.b, y.impulse + x.impulse)
        else:
            out[key] = x
    return out, dict(zip(ids, vel, strict=True))


@dataclass(frozen=True)
class ModelPairs:
    """What the model says of a rack's pairs over its runs (:func:`model_pairs`):
    ``robust``, the pairs that collide in at least ``SHARE`` of the draws, each with its
    balls in the order of the measured run (the faster before first); ``seen``, every
    pair that collides in at least one run, the measured or a draw."""

    robust: dict[frozenset, tuple[str, str]]
    seen: frozenset[frozenset]


def model_pairs(
    rest: dict[str, np.ndarray],
    pairs: list[tuple[str, str]],
    striker: str,
    xy_striker: np.ndarray,
    f0: float,
    since: float | None,
    R: float,
    noise: tuple[float, float],
    seed: int = 0,
) -> ModelPairs | None:
    """The pairs that collide in the model's runs (:func:`collided_pairs`): the run on
    the measurements and ``DRAWS`` runs with the rest positions redrawn within the rest
    noise and the striker's samples on its straight run before the hit
    (:func:`straight_run`) within the motion noise (``noise``: both sigmas, mm, one
    axis). None when fewer than three samples of the run are measured."""
    sig_rest, sig_move = noise
    k = int(np.floor(f0))
    fr = straight_run(xy_striker, f0, since, max(RUN_OFF_MM, RUN_OFF_SIGMAS * sig_move))
    if len(fr) < 3:
        return None
    line = _striker_line(xy_striker, fr, k)
    base = collided_pairs(rest, pairs, striker, line[0], line[1], R)[0]
    ids = [*rest, striker]
    rng = np.random.default_rng(seed)
    count: dict[frozenset, int] = {}
    for _ in range(DRAWS):
        r2 = {b: p + rng.normal(0.0, sig_rest, 2) for b, p in rest.items()}
        xy = xy_striker.copy()
        xy[fr] = xy[fr] + rng.normal(0.0, sig_move, (len(fr), 2))
        ln = _striker_line(xy, fr, k)
        for key in collided_pairs(r2, pairs, striker, ln[0], ln[1], R)[0]:
            count[key] = count.get(key, 0) + 1
    robust = {
        key: (ids[x.a], ids[x.b]) for key, x in base.items() if count.get(key, 0) >= SHARE * DRAWS
    }
    return ModelPairs(robust, frozenset(base) | frozenset(count))
