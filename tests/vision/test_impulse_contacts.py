"""Contacts read from impulses (vision.events.impulse, vision.events.impulse_scan, vision.events.contact_checks):
sliding starts, the hit time of a frozen cluster, a striker set off just before it hits,
balls that stayed put, a push of repeated contacts, a rack read at 720p noise. Small
hand-integrated paths in table mm, frames at 30 fps."""

from __future__ import annotations

import numpy as np
import pytest

from vision.events.contact_checks import stayed_put, untouched
from vision.events.impulse import (
    _hit_time,
    _v_after,
    rack_contacts,
    rest_positions,
    slide_decel,
    slide_travel,
)
from vision.events.impulse_scan import impulse_scan
from vision.events.series import Series

R = 34.0
A = slide_decel(30.0)  # mm/frame^2 of a ball sliding without spin


def _series(paths: dict[str, np.ndarray]) -> Series:
    ids = tuple(sorted(paths))
    xy = np.stack([paths[i] for i in ids]).astype(float)
    n = xy.shape[1]
    return Series(ids, 0, np.arange(n) / 30.0, xy, ~np.isnan(xy[..., 0]), 30.0)


def _sliding(p0, v, f0: float, n: int) -> np.ndarray:
    """At rest at ``p0`` until ``f0``, then set off at ``v`` (mm/frame) without spin."""
    v = np.asarray(v, float)
    speed = float(np.linalg.norm(v))
    if speed == 0.0:
        return np.tile(np.asarray(p0, float), (n, 1))
    run = slide_travel(speed, np.clip(np.arange(n) - f0, 0.0, None), A)
    return np.asarray(p0, float) + np.outer(run, v / speed)


def _rack(f0: float, imp: dict[str, float], n: int = 20):
    """Striker ``c`` along x at 150 mm/frame into ``a``; ``b`` and ``d`` touch ``a`` at 30
    degrees either side of the line behind it, ``e`` touches ``b`` behind it along x. The
    pairs carry ``imp`` (mm/frame; keys ``ca``, ``ab``, ``ad``, ``be``) at ``f0``; every
    ball then slides off (c rolls on, straight)."""
    a = np.array([1000.0, 600.0])
    u = {"b": np.array([np.cos(np.pi / 6), np.sin(np.pi / 6)])}
    u["d"] = u["b"] * [1.0, -1.0]
    x = np.array([1.0, 0.0])
    pos = {"a": a, "b": a + 2 * R * u["b"], "d": a + 2 * R * u["d"]}
    pos["e"] = pos["b"] + 2 * R * x
    j = {k: imp.get(k, 0.0) for k in ("ca", "ab", "ad", "be")}
    vel = {
        "a": j["ca"] * x - j["ab"] * u["b"] - j["ad"] * u["d"],
        "b": j["ab"] * u["b"] - j["be"] * x,
        "d": j["ad"] * u["d"],
        "e": j["be"] * x,
    }
    t = np.arange(n, dtype=float)
    c0 = a - 2 * R * x
    c = c0 + np.outer(np.where(t < f0, 150.0 * (t - f0), (150.0 - j["ca"]) * (t - f0)), x)
    return {"c": c, **{k: _sliding(pos[k], vel[k], f0, n) for k in pos}}


@pytest.mark.parametrize("v0", [3.0, 30.0, 150.0])
@pytest.mark.parametrize("f0", [10.3, 10.8])
def test_a_sliding_start_reads_its_start_speed(v0, f0):
    """A ball set off without spin slows by mu g until it rolls: the fit with the slowing
    gives its start speed; a straight fit reads it short (by up to 0.9 mu g)."""
    xy = _sliding((500.0, 500.0), (v0, 0.0), f0, 16)
    v = _v_after(xy, xy[0], f0, 2, A)
    assert v[0] == pytest.approx(v0, abs=0.01)
    assert v[1] == pytest.approx(0.0, abs=1e-9)
    straight = _v_after(xy, xy[0], f0, 2, 0.0)
    assert v0 - straight[0] > 0.1 * min(v0, A)


@pytest.mark.parametrize("late", [0.0, 0.4, 0.9])
def test_hit_time_comes_from_the_fast_members(late):
    """A cluster's start read a little late (a slow member's first visible move) is put
    back where the fast members' paths leave their rest positions."""
    f0 = 10.35
    s = _series(_rack(f0, {"ca": 140.0, "ab": 20.0, "ad": 20.0, "be": 10.0}))
    rest = rest_positions(s, f0 + late, {"c"})
    got = _hit_time(s, ["a", "b", "d", "e"], rest, f0 + late)
    assert got == pytest.approx(f0, abs=0.04)


@pytest.mark.parametrize(
    ("imp", "pairs"),
    [
        # a passes most on to the pair behind it, b on to e
        ({"ca": 140.0, "ab": 40.0, "ad": 40.0, "be": 12.0}, {"c-a", "a-b", "a-d", "b-e"}),
        # e takes nothing (b leaves beside it, not into it)
        ({"ca": 140.0, "ab": 40.0, "ad": 40.0}, {"c-a", "a-b", "a-d"}),
        # a thin share for d only: a chain c-a-d, b and e untouched
        ({"ca": 100.0, "ad": 3.0}, {"c-a", "a-d"}),
    ],
)
def test_rack_pairs_that_carried_an_impulse(imp, pairs):
    f0 = 10.35
    s = _series(_rack(f0, imp))
    rest = rest_positions(s, 11.0, {"c"})
    found = rack_contacts(s, "c", "a", 11.0, ["a", "b", "d", "e"], rest, R, 1.5, 0.3)
    assert {f"{c.striker}-{c.struck}" for c in found} == pairs
    assert all(abs(c.f - f0) < 0.04 for c in found)
    got = {f"{c.striker}-{c.struck}": c.impulse for c in found}
    for k, j in imp.items():
        assert got[f"{k[0]}-{k[1]}"] == pytest.approx(j, rel=0.05, abs=0.2)


def test_a_striker_set_off_just_before_it_hits_is_not_read_for_speed():
    """``g`` is knocked at frame 10.0 and hits the frozen pair e-h half a frame later: its
    speed before was never sampled; the pair's changes alone give the impulses (without
    ``since`` the fit over g's rest and motion invents a change that pulls them off)."""
    n = 20
    e, h = np.array([1000.0, 500.0]), np.array([1000.0 + 2 * R, 500.0])
    g0 = e - np.array([2 * R + 6.0, 0.0])  # 6 mm behind e, at rest until 10.0
    t = np.arange(n, dtype=float)
    g = np.c_[g0[0] + np.clip(12.0 * (t - 10.0), 0.0, 6.0), np.full(n, 500.0)]
    paths = {"g": g, "e": np.tile(e, (n, 1)), "h": _sliding(h, (12.0, 0.0), 10.5, n)}
    s = _series(paths)
    rest = rest_positions(s, 10.5, {"g"})
    found = rack_contacts(s, "g", "e", 10.5, ["e", "h"], rest, R, 1.5, 0.3, since=10.0)
    got = {f"{c.striker}-{c.struck}": c.impulse for c in found}
    assert set(got) == {"g-e", "e-h"}
    assert got["e-h"] == pytest.approx(12.0, rel=0.02)


def _two(pa: np.ndarray, pb: np.ndarray, pc: np.ndarray | None = None) -> Series:
    paths = {"a": pa, "b": pb}
    if pc is not None:
        paths["c"] = pc
    return _series(paths)


@pytest.mark.parametrize(
    ("case", "expect"),
    [
        ("passes_by", True),  # b at rest, a rolls past it 0.4 mm off: b never moved
        ("struck", False),  # b set off
        ("cradle", False),  # b stays put but passes the push on to c behind it
        ("cradle_side", True),  # c beside b (not behind it along the push) stays put too
    ],
)
def test_untouched_ball(case, expect):
    n = 12
    t = np.arange(n, dtype=float)
    b = np.tile([1000.0, 500.0], (n, 1))
    a = np.c_[1000.0 - 2 * R - 0.0 + 15.0 * (t - 5.5), np.full(n, 500.0 - 2 * R - 0.4)]
    c = None
    if case == "struck":
        a = np.c_[np.minimum(1000.0 - 2 * R + 10.0 * (t - 5.5), 1000.0 - 2 * R), np.full(n, 500.0)]
        b = _sliding((1000.0, 500.0), (9.5, 0.0), 5.5, n)
    if case.startswith("cradle"):
        a = np.c_[np.minimum(1000.0 - 2 * R + 10.0 * (t - 5.5), 1000.0 - 2 * R), np.full(n, 500.0)]
        if case == "cradle":
            c = _sliding((1000.0 + 2 * R + 1.0, 500.0), (9.5, 0.0), 5.5, n)
        else:
            c = np.tile([1000.0, 500.0 + 2 * R + 1.0], (n, 1))
    s = _two(a, b, c)
    assert stayed_put(s, s.index("b"), 5.5, 0.0) == (case != "struck")
    assert untouched(s, s.index("b"), s.index("a"), 5.5, R, 0.0) == expect


@pytest.mark.parametrize(
    ("v0", "expect"),
    [
        (0.55, False),  # rolls at 0.39 mm/frame: past 0.3 + 4 sigma 3.5 frames after the touch
        (0.3, True),  # rolls at 0.21 mm/frame: within it then (too gentle to tell from noise)
        (0.0, True),  # never moved
    ],
)
def test_a_gently_pushed_ball_is_touched(v0, expect):
    # a at rest against b pushes it off at 5.5; rest noise 0.2 mm (1.1 mm allowed)
    n = 14
    a = np.tile([1000.0 - 2 * R, 500.0], (n, 1))
    b = _sliding((1000.0, 500.0), (v0, 0.0), 5.5, n)
    s = _two(a, b)
    assert untouched(s, s.index("b"), s.index("a"), 5.5, R, 0.2) == expect


def _push(va: float, spin: float, n: int = 40, e: float = 0.95):
    """A cue ball ``a`` with topspin (gaining ``spin`` mm/frame^2 for 12 frames after its
    first hit) pushes ``b`` (sliding, slowing 1 mm/frame^2) along x: it catches b again
    and again. 1-D, integrated in 1/100 frame steps. Returns the series and the contacts
    as the truth lists them (of one pair within two frames, one): (frame, impulse)."""
    dt, xa, xb, v = 0.01, 1000.0, 1000.0 + 2 * R + 5.4 * va, [va, 0.0]
    pa, pb, hits = [], [], []
    for i in range(n * 100):
        if i % 100 == 0:
            pa.append(xa)
            pb.append(xb)
        if xb - xa - 2 * R <= 0.0 and v[0] > v[1]:
            u0, u1 = v
            v = [0.5 * (1 - e) * u0 + 0.5 * (1 + e) * u1, 0.5 * (1 + e) * u0 + 0.5 * (1 - e) * u1]
            if hits and i * dt - hits[-1][0] <= 2.0:
                hits[-1][1] += v[1] - u1
            else:
                hits.append([i * dt, v[1] - u1])
        if hits and i * dt - hits[0][0] < 12.0:
            v[0] += spin * dt
        v = [max(0.0, v[0] - 0.1 * dt), max(0.0, v[1] - 1.0 * dt)]
        xa, xb = xa + v[0] * dt, xb + v[1] * dt
    xy = {"a": np.c_[pa, np.full(n, 600.0)], "b": np.c_[pb, np.full(n, 600.0)]}
    return _series(xy), hits


@pytest.mark.parametrize(
    ("va", "spin", "first"),
    [
        (6.0, 1.5, 5),  # touches 4 frames apart
        (6.0, 2.0, 4),  # 3.4 frames apart: each one's fits straddle the next
    ],
)
def test_a_push_is_read_as_its_repeated_contacts(va, spin, first):
    """The ``first`` touches of a push found, each once within a frame of its time, and
    nothing else: the windows of a later touch's fits stop at the earlier touch, and the
    cue ball's own velocity changes (its spin's friction) weigh little."""
    s, hits = _push(va, spin)
    assert len(hits) >= first
    found = impulse_scan(s, R, 0, s.n_frames, 0.4, 4.0, ["a", "b"], None, {}, 0.1, frozenset("a"))
    assert {(c.a, c.b) for c in found} == {("a", "b")}
    for t, _ in hits[:first]:
        assert min(abs(c.f - t) for c in found) < 1.0
    for c in found:
        assert min(abs(c.f - t) for t, _ in hits) < 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_rack_at_720p_noise_keeps_its_strong_pairs_and_invents_none(seed):
    """The rack read from positions with 0.5 mm noise (720p at rest) and the threshold
    the event finder uses there (2 sigma): the pairs that carried tens of mm/frame are
    found, the member that took nothing (e) is in no contact."""
    f0 = 10.35
    paths = _rack(f0, {"ca": 140.0, "ab": 40.0, "ad": 40.0})
    rng = np.random.default_rng(seed)
    paths = {k: p + rng.normal(0.0, 0.5, p.shape) for k, p in paths.items()}
    s = _series(paths)
    rest = rest_positions(s, 11.0, {"c"})
    found = rack_contacts(s, "c", "a", 11.0, ["a", "b", "d", "e"], rest, R, 3.0, 1.0)
    assert {f"{c.striker}-{c.struck}" for c in found} == {"c-a", "a-b", "a-d"}


def _kiss(offset_mm: float, n: int = 90) -> tuple[dict[str, np.ndarray], float | None]:
    """``yellow`` struck at frame 5 rolls along x at 20 mm/frame (slowing 0.3 mm/frame^2)
    past ``1`` at rest, their centres' paths ``offset_mm`` apart across: closer than one
    diameter they touch once (equal masses, elastic along the line of centres). Integrated
    in 1/100 frame steps. Returns the paths and the frame of the touch (None: none)."""
    pos = {"yellow": np.array([800.0, 600.0]), "1": np.array([1200.0, 600.0 + offset_mm])}
    vel = {"yellow": np.zeros(2), "1": np.zeros(2)}
    out = {k: [] for k in pos}
    dt, touched = 0.01, None
    for i in range(n * 100):
        if i % 100 == 0:
            for k in pos:
                out[k].append(pos[k].copy())
        if i == 500:
            vel["yellow"] = np.array([20.0, 0.0])
        d = pos["1"] - pos["yellow"]
        if touched is None and np.linalg.norm(d) <= 2 * R:
            nrm = d / np.linalg.norm(d)
            j = float((vel["yellow"] - vel["1"]) @ nrm)
            vel["yellow"], vel["1"] = vel["yellow"] - j * nrm, vel["1"] + j * nrm
            touched = i * dt
        for k in pos:
            sp = float(np.linalg.norm(vel[k]))
            if sp > 0:
                vel[k] *= max(sp - 0.3 * dt, 0.0) / sp
            pos[k] = pos[k] + vel[k] * dt
    return {k: np.array(v) for k, v in out.items()}, touched


@pytest.mark.parametrize(
    ("offset_mm", "contact"),
    [
        (2 * R - 1.0, True),  # a thin kiss: 1 sets off at 3.4 mm/frame across
        (2 * R - 0.1, True),  # thinner: 1.1 mm/frame
        (2 * R + 0.4, False),  # 0.4 mm apart at their nearest: 1 never moves
        (2 * R + 3.0, False),
    ],
)
def test_a_thin_kiss_against_a_near_miss(offset_mm, contact):
    """Through the event finder: a kiss that sets the resting ball off, however thin, is a
    contact; a cue ball passing a resting ball that never moves is none, though their
    centres came within the touch tolerance."""
    from contract.events import EventType
    from contract.tables import load_table
    from tests.vision.vision_scene import path_tracks
    from vision.events.shots import cut_tracks

    paths, touched = _kiss(offset_mm)
    assert (touched is not None) == contact
    shots = cut_tracks(path_tracks(paths), load_table("pyramid-12ft"), 30.0).shots
    contacts = [e for s in shots for e in s.events if e.type == EventType.CONTACT]
    assert [c.balls for c in contacts] == ([("yellow", "1")] if contact else [])
    if contact:
        assert abs(contacts[0].frame - touched) <= 1


@pytest.mark.parametrize(
    ("ve", "thr", "pairs"),
    [
        # a-b carries under the threshold: b-e above it is reached through nothing
        (2.0, 1.0, {"c-a", "a-d"}),
        (4.0, 2.0, {"c-a", "a-d"}),
        # a-b above it too: the chain c-a-b-e reached (b passes the push on, cradle-like)
        (6.0, 2.0, {"c-a", "a-d", "a-b", "b-e"}),
    ],
)
def test_a_pair_the_striker_does_not_reach_carried_nothing(ve, thr, pairs):
    """``e`` leaves along x at ``ve`` mm/frame at the hit (set off by something the cluster
    does not show) while ``b`` beside it stays put: the non-negative solve gives b-e a
    share; unless a pair over ``thr`` joins b to the striker, every ball of the cluster
    at rest before, it carried none."""
    f0 = 10.35
    paths = _rack(f0, {"ca": 100.0, "ad": 3.0})
    paths["e"] = _sliding(paths["e"][0], (ve, 0.0), f0, len(paths["e"]))
    s = _series(paths)
    rest = rest_positions(s, 11.0, {"c"})
    found = rack_contacts(s, "c", "a", 11.0, ["a", "b", "d", "e"], rest, R, 1.5, thr)
    assert {f"{c.striker}-{c.struck}" for c in found} == pairs


@pytest.mark.parametrize("j", [8.0, 20.0])
def test_a_striker_between_two_members_hits_both(j):
    """``c`` at 50 mm/frame along x into the notch between ``a`` and ``b`` (touching side
    by side across x) meets both at once, passing each ``j`` mm/frame along its line of
    centres, and goes on at ``50 - 1.73 j``; ``a`` and ``b`` push each other not at all.
    Both striker pairs are read, and no push between the members is made up to explain
    ``b``'s start (the solver is given the pair of the striker and any member it reaches
    within the frame after)."""
    f0, n = 10.4, 24
    a, b = np.array([1000.0, 600.0]), np.array([1000.0, 600.0 + 2 * R])
    pc = np.array([1000.0 - 2 * R * np.sin(np.pi / 3), 600.0 + R])
    ua, ub = (a - pc) / (2 * R), (b - pc) / (2 * R)
    tau = np.arange(n) - f0
    vc = np.array([50.0, 0.0]) - j * (ua + ub)
    c = pc + np.where(tau[:, None] < 0, np.outer(tau, (50.0, 0.0)), np.outer(tau, vc))
    s = _series({"a": _sliding(a, j * ua, f0, n), "b": _sliding(b, j * ub, f0, n), "c": c})
    rest = rest_positions(s, f0, {"c"})
    motion = (0.05, 0.18, 0.05)
    found = rack_contacts(s, "c", "a", f0, ["a", "b"], rest, R, 3.0, 0.3, motion=motion)
    assert {frozenset((x.striker, x.struck)) for x in found} == {
        frozenset("ca"),
        frozenset("cb"),
    }


@pytest.mark.parametrize(
    ("theta", "j", "noise", "pairs"),
    [
        (25.0, 110.0, 0.0, {"c-a", "a-b", "a-d"}),
        (25.0, 110.0, 0.2, {"c-a", "a-b", "a-d"}),
        (25.0, 90.0, 0.0, {"c-a", "a-b", "a-d"}),
        (30.0, 100.0, 0.0, {"c-a", "a-d"}),  # the line of centres a-d: b takes nothing
        (30.0, 100.0, 0.2, {"c-a", "a-d"}),
    ],
)
def test_a_striker_turned_away_by_the_apex_reaches_no_ball_behind_it(theta, j, noise, pairs):
    """``c`` at 150 mm/frame along x hits the apex ``a`` of a rack (``b``, ``d`` behind it,
    touching it at -30 and +30 degrees) along a line of centres ``theta`` degrees off x
    with ``j`` mm/frame; ``a``, backed by the rack, stays put and hands the push on to
    ``b`` and ``d``; ``c`` turns away at 60-70 mm/frame, so ``b`` and ``d`` lie within
    its speed after of where it hit, but its path never comes within a diameter of
    either. The push runs c-a-b/d, not from ``c`` to ``d`` directly (which reads as
    well: ``a`` takes and hands on equal pushes). Noise: mm an axis, seeded."""
    f0, n = 10.4, 24
    th = np.radians(theta)
    u = np.array([np.cos(th), np.sin(th)])
    nb, nd = np.array([np.sqrt(3) / 2, -0.5]), np.array([np.sqrt(3) / 2, 0.5])
    jb, jd = np.linalg.solve(np.c_[nb, nd], j * u)
    a = np.array([1500.0, 700.0])
    tau = np.arange(n) - f0
    vc = np.array([150.0, 0.0]) - j * u
    c = a - 2 * R * u + np.where(tau[:, None] < 0, np.outer(tau, (150.0, 0.0)), np.outer(tau, vc))
    paths = {
        "a": np.tile(a, (n, 1)),
        "b": _sliding(a + 2 * R * nb, jb * nb, f0, n),
        "d": _sliding(a + 2 * R * nd, jd * nd, f0, n),
        "c": c,
    }
    rng = np.random.default_rng(0)
    s = _series({k: p + rng.normal(0.0, noise, p.shape) for k, p in paths.items()})
    rest = rest_positions(s, f0, {"c"})
    motion = (max(noise, 0.05), 0.18, max(noise, 0.05))
    found = rack_contacts(s, "c", "a", f0, ["a", "b", "d"], rest, R, 3.0, 0.3, motion=motion)
    assert {f"{x.striker}-{x.struck}" for x in found} == pairs
