"""The forward model of a break (vision.events.rack_sim): hard-sphere impacts, the rack's
lattice, and the contacts it names from a rack and a striker read with measurement
noise, checked against the synthetic world's own simulator (synth.physics) as truth."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from vision.events.rack_sim import (
    RUN_FRAMES,
    _striker_line,
    collided_pairs,
    lattice,
    model_pairs,
    open_rack,
    run,
    straight_run,
)

R = 34.0


@pytest.mark.parametrize("e", [1.0, 0.95, 0.9])
def test_head_on_impact_shares_velocity_by_restitution(e: float) -> None:
    """Equal masses head on: the struck ball leaves at (1 + e) / 2 of the striker's speed,
    the striker keeps (1 - e) / 2; momentum is kept."""
    pos = np.array([[0.0, 0.0], [2 * R + 5.0, 0.0]])
    vel = np.array([[10.0, 0.0], [0.0, 0.0]])
    imp, v = run(pos, vel, R, horizon=2.0, e=e)
    assert len(imp) == 1 and (imp[0].a, imp[0].b) == (0, 1)
    assert imp[0].t == pytest.approx(0.5)
    assert v[1, 0] == pytest.approx(10.0 * (1 + e) / 2)
    assert v[0, 0] == pytest.approx(10.0 * (1 - e) / 2)
    assert v.sum(axis=0) == pytest.approx([10.0, 0.0])


@pytest.mark.parametrize("n", [2, 3, 5])
def test_cradle_passes_the_impulse_down_the_line(n: int) -> None:
    """A ball hitting a line of ``n`` touching balls (opened by a vanishing gap) along it:
    every neighbouring pair collides, and the last ball leaves fastest."""
    line = np.array([[k * 2 * R, 0.0] for k in range(n)])
    line = open_rack(line, [(k, k + 1) for k in range(n - 1)], R, 1e-3)
    pos = np.vstack([[-2 * R - 1.0, 0.0], line])
    vel = np.zeros_like(pos)
    vel[0] = (10.0, 0.0)
    imp, v = run(pos, vel, R, horizon=1.0)
    assert {(x.a, x.b) for x in imp} >= {(k, k + 1) for k in range(n)}
    assert int(np.argmax(v[:, 0])) == n


def _triangle(rng: np.random.Generator, sigma: float) -> dict[str, np.ndarray]:
    d = 2 * R
    out, k = {}, 0
    for row in range(5):
        for j in range(row + 1):
            p = np.array([row * d * np.sqrt(3) / 2, (j - row / 2) * d])
            out[str(k)] = p + rng.normal(0.0, sigma, 2)
            k += 1
    return out


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.0])
def test_lattice_puts_touching_pairs_one_diameter_apart(sigma: float) -> None:
    """Rest positions misread by ``sigma`` mm: the lattice the touches make puts every
    touching pair one diameter apart (to a nanometre), the triangle's shape exact."""
    rest = _triangle(np.random.default_rng(3), sigma)
    pairs = [
        (a, b)
        for a in rest
        for b in rest
        if a < b and np.linalg.norm(rest[a] - rest[b]) < 2 * R + 8
    ]
    assert len(pairs) == 30
    snap = lattice(rest, pairs, R)
    gaps = [np.linalg.norm(snap[a] - snap[b]) - 2 * R for a, b in pairs]
    assert np.abs(gaps).max() < 1e-6
    # the two balls of the base's ends are four diameters apart, as in a perfect rack
    assert np.linalg.norm(snap["10"] - snap["14"]) == pytest.approx(8 * R, abs=1e-5)


def _break(seed: int, aim_mm: float):
    """A pyramid rack (synth's own racking) broken by the yellow from the house aimed
    ``aim_mm`` off the apex ball's centre, simulated by synth.physics: the rack, the
    yellow's positions (F, 2) mm per frame, the hit (fractional frame) and the pairs that
    collided within 5 ms of it."""
    from synth.params import Params
    from synth.physics import Simulator
    from synth.planner import rack

    table = load_table("pyramid-12ft")
    pos = rack(table, np.random.default_rng(seed))
    apex = np.array(table.spots["back"])
    start = np.array([table.L / 4 - 300.0, table.W / 2 + 150.0])
    u = (apex - start) / np.linalg.norm(apex - start)
    aim = apex + aim_mm * np.array([-u[1], u[0]])
    direction = (aim - start) / np.linalg.norm(aim - start)
    positions = {**pos, "yellow": (float(start[0]), float(start[1]))}
    sim = Simulator(table, Params(max_time=0.45)).run(
        positions, "yellow", tuple(6000.0 * direction)
    )
    hits = [e for e in sim.events if e["type"] == "contact"]
    t0 = hits[0]["t"]
    truth = {frozenset(e["balls"]) for e in hits if e["t"] < t0 + 0.005}
    yi = sim.ids.index("yellow")
    return {b: np.array(p) for b, p in pos.items()}, sim.pos[:, yi], t0 * 30.0, truth


# (seed, aim off the apex mm, rest noise mm an axis, motion noise mm an axis): 1080p reads
# the set's breaks' rest positions 0.7-1.1 mm RMS, 720p 1.3-1.9 mm
NOISY_BREAKS = [
    (0, 0.5, 1.0, 0.3),
    (1, -3.0, 1.0, 0.3),
    (2, 8.0, 1.7, 0.3),
    (3, -0.8, 1.7, 0.3),
    # 720p motion noise: the line of the last three samples alone misses 2-3 faint
    # pairs in each of these (its lateral error at the rack about twice the run's)
    (2, -3.0, 1.7, 0.35),
    (5, -3.0, 1.7, 0.35),
    (5, 15.0, 1.7, 0.35),
]


def noisy_break(seed: int, aim_mm: float, sigma: float, sigma_move: float):
    """A simulated break (:func:`_break`) as measured: rest positions misread by
    ``sigma`` mm an axis, the yellow's samples by ``sigma_move`` mm; (rest, touching
    pairs, the yellow's samples, the hit's fractional frame, the pairs that collided)."""
    rest, yellow, f0, truth = _break(seed, aim_mm)
    rng = np.random.default_rng(seed + 10)
    seen = {b: p + rng.normal(0.0, sigma, 2) for b, p in rest.items()}
    xy = yellow + rng.normal(0.0, sigma_move, yellow.shape)
    return seen, _near(seen, 8.0), xy, f0, truth


@pytest.mark.parametrize("seed, aim_mm, sigma, sigma_move", NOISY_BREAKS)
def test_model_names_the_breaks_contacts_from_noisy_positions(
    seed: int, aim_mm: float, sigma: float, sigma_move: float
) -> None:
    """From rest positions misread by ``sigma`` mm an axis and the striker's samples
    before the hit misread by ``sigma_move`` mm, the model names the very pairs that
    collided at the hit in the simulator (tiny impulses through the rack included), and no
    other."""
    seen, pairs, xy, f0, truth = noisy_break(seed, aim_mm, sigma, sigma_move)
    got = model_pairs(seen, pairs, "yellow", xy, f0, None, R, (sigma, sigma_move))
    assert got is not None
    assert len(truth) > 10
    assert set(got.robust) == truth


# the 1080p-like motion noise ones: at 0.35 mm a draw now and then collides two or three
# touching pairs more (the union of 21 runs only keeps more measured pairs: none dropped)
@pytest.mark.parametrize("seed, aim_mm, sigma, sigma_move", NOISY_BREAKS[:4])
def test_model_runs_collide_every_pair_that_collided_and_hardly_another(
    seed: int, aim_mm: float, sigma: float, sigma_move: float
) -> None:
    """Over all its runs (the measured one and the redrawn ones) the model has every pair
    collide that collided in the simulator, and at most one touching pair that did not:
    the other ten or so touching pairs no impulse reached collide in none of them."""
    seen, pairs, xy, f0, truth = noisy_break(seed, aim_mm, sigma, sigma_move)
    got = model_pairs(seen, pairs, "yellow", xy, f0, None, R, (sigma, sigma_move))
    assert got is not None
    touching = {frozenset(p) for p in pairs}
    assert truth <= got.seen
    assert len((touching - truth) & got.seen) <= 1
    assert len(touching - got.seen) >= 8


def _near(pos: dict[str, np.ndarray], tol: float) -> list[tuple[str, str]]:
    """Pairs of ``pos`` (mm) within one diameter and ``tol`` mm: the touching pairs."""
    return [
        (a, b) for a in pos for b in pos if a < b and np.linalg.norm(pos[a] - pos[b]) < 2 * R + tol
    ]


def _turned(yellow: np.ndarray, j: int, degrees: float) -> np.ndarray:
    """The striker's samples (F, 2) mm with its path before frame ``j`` turned by
    ``degrees`` about its position there: it came off a cushion at ``j``."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    out = yellow.copy()
    out[:j] = yellow[j] + (yellow[:j] - yellow[j]) @ np.array([[c, s], [-s, c]])
    return out


@pytest.mark.parametrize(
    "since, turn_at, first",
    [
        (None, None, 0),  # straight from the series' start: all its samples up to the hit
        (3.2, None, 4),  # started (or was last hit) at 3.2: from frame 4 on
        (None, 6, 6),  # turned at frame 6 (by 20 degrees): the samples before are off
    ],
)
def test_striker_run_is_its_straight_path_since_it_started(
    since: float | None, turn_at: int | None, first: int
) -> None:
    """The striker's run before the hit: its samples from when it started, back to where
    its path turned, none of them further across its line than the tolerance."""
    _, yellow, f0, _ = _break(0, 0.5)
    if turn_at is not None:
        yellow = _turned(yellow, turn_at, 20.0)
    fr = straight_run(yellow, f0, since, 3.0)
    assert list(fr) == list(range(first, int(np.floor(f0)) + 1))


def test_striker_run_keeps_a_hop_within_the_tolerance() -> None:
    """A sample read 2 mm across the line (within the 3 mm tolerance) stays in the run,
    and the run is at most ``RUN_FRAMES`` samples long."""
    _, yellow, f0, _ = _break(0, 0.5)
    xy = np.vstack([np.repeat(yellow[:1], 10, axis=0), yellow])  # at rest for 10 frames
    k = int(np.floor(f0)) + 10
    xy[k - 4] += (0.0, 2.0)
    fr = straight_run(xy, k + 0.5, None, 3.0)
    assert len(fr) == RUN_FRAMES and fr[-1] == k


def test_striker_line_from_its_run_lies_nearer_the_truth() -> None:
    """The striker's line at the rack from its whole run, misread by 0.35 mm an axis a
    sample, misses the true line by well under the line of its last three samples does
    (lateral RMS over 40 readings; the impulse's path through a rack turns on tenths of
    a mm there)."""
    rest, yellow, f0, _ = _break(2, -3.0)
    k = int(np.floor(f0))
    apex = min(rest.values(), key=lambda p: float(np.linalg.norm(p - yellow[k])))
    u = yellow[k] - yellow[k - 1]
    n = np.array([-u[1], u[0]]) / np.linalg.norm(u)
    rng = np.random.default_rng(7)
    err: dict[str, list[float]] = {"run": [], "three": []}
    for _ in range(40):
        xy = yellow + rng.normal(0.0, 0.35, yellow.shape)
        for name, fr in (
            ("run", straight_run(xy, f0, None, 3.0)),
            ("three", np.arange(k - 2, k + 1)),
        ):
            p, v = _striker_line(xy, fr, k)
            w = np.array([-v[1], v[0]]) / np.linalg.norm(v)
            err[name].append(float((apex - p) @ w - (apex - yellow[k]) @ n))
    rms = {name: float(np.sqrt(np.mean(np.square(e)))) for name, e in err.items()}
    assert rms["run"] < 0.6 * rms["three"]


def test_model_reads_the_line_after_a_cushion_turned_the_striker() -> None:
    """A striker that came off a cushion five frames before the hit: the model reads its
    line from the samples after the turn alone and names the simulator's pairs."""
    rest, yellow, f0, truth = _break(0, 0.5)
    xy = _turned(yellow, int(np.floor(f0)) - 4, 20.0)
    got = model_pairs(rest, _near(rest, 1.0), "yellow", xy, f0, None, R, (0.3, 0.3))
    assert got is not None and set(got.robust) == truth


def test_model_needs_the_striker_seen_before_the_hit() -> None:
    """No three samples of the striker before the hit: nothing is named."""
    rest = _triangle(np.random.default_rng(0), 0.0)
    pairs = [
        (a, b)
        for a in rest
        for b in rest
        if a < b and np.linalg.norm(rest[a] - rest[b]) < 2 * R + 1
    ]
    xy = np.full((20, 2), np.nan)
    assert model_pairs(rest, pairs, "yellow", xy, 10.5, None, R, (0.3, 0.3)) is None
    assert collided_pairs(rest, pairs, "yellow", np.array([-100.0, 0.0]), np.zeros(2), R)[0] == {}


@pytest.mark.parametrize("gap", [1e-5, 1e-3, 1e-2])
def test_impacts_order_does_not_depend_on_the_vanishing_gap(
    gap: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tight rack modelled as the limit of equal vanishing gaps: from a hundredth of a
    micrometre to ten micrometres the same pairs collide, those of the simulator."""
    import vision.events.rack_sim as rs

    rest, yellow, f0, truth = _break(0, 0.5)
    pairs = [
        (a, b)
        for a in rest
        for b in rest
        if a < b and np.linalg.norm(rest[a] - rest[b]) < 2 * R + 1
    ]
    monkeypatch.setattr(rs, "GAP_MM", gap)
    k = int(np.floor(f0))
    p, v = rs._striker_line(yellow, rs.straight_run(yellow, f0, None, 3.0), k)
    assert set(rs.collided_pairs(rest, pairs, "yellow", p, v, R)[0]) == truth


@pytest.mark.parametrize(
    "pair, dropped",
    [
        (("6", "8"), True),  # touching, no impulse reached it: the solve misread it
        (("1", "11"), True),
        (None, False),  # a pair that collided in the simulator is kept
        (("3", "ring"), False),  # a ball from outside the rack: the model does not see it
    ],
)
def test_rack_finder_drops_a_named_pair_the_model_never_collides(
    pair: tuple[str, str] | None, dropped: bool
) -> None:
    """The rack finder's measured solve named ``pair`` besides the striker's: it is
    dropped when the rack is rigid and the model collides it in none of its runs, kept
    when the model has it collide (a pair of the simulator's, here the first of them) or
    cannot tell (a ball not of the rack); and the model adds the simulator's pairs the
    solve did not name."""
    from types import SimpleNamespace

    from vision.events.contact_finders import ContactFinders
    from vision.events.impulse import RackContact
    from vision.events.series import Series

    seen, pairs, xy, f0, truth = noisy_break(0, 0.5, 1.0, 0.3)
    if pair is None:
        pair = tuple(sorted(min(truth - {k for k in truth if "yellow" in k}, key=sorted)))
    else:
        assert frozenset(pair) not in truth
    comp = sorted(seen)
    rest = {**seen, "ring": seen["3"] + (0.0, 2 * R + 9.0)}
    n = len(xy)
    ids = (*comp, "ring", "yellow")
    tracks = np.stack([np.tile(rest[b], (n, 1)) for b in ids[:-1]] + [xy])
    s = Series(ids, 0, np.arange(n) / 30.0, tracks, np.ones(tracks.shape[:2], bool), 30.0)
    finder = SimpleNamespace(s=s, R=R, settings=SimpleNamespace(sigma_mm=0.3), sigma_move=0.3)
    entry = next(iter(next(k for k in truth if "yellow" in k) - {"yellow"}))
    found = [RackContact(f0, "yellow", entry, (0.0, 0.0), 100.0)]
    found.append(RackContact(f0, pair[0], pair[1], (0.0, 0.0), 1.0))
    added, never = ContactFinders._rack_model(finder, "yellow", comp, rest, found, 8.0)
    assert (frozenset(pair) in never) == dropped
    assert never <= {frozenset(pair)}
    named = {frozenset((c.striker, c.struck)) for c in found}
    assert {frozenset((c.striker, c.struck)) for c in added} == truth - named
