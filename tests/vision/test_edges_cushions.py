"""Cushion bounces the one- and two-frame V test misses (issue: shots and events): a slow
ball's bounce under measurement noise, a bounce whose retreat creeps below the motion
threshold, and a fast ball stopped by a jaw with one sample after. Positions table mm,
30 fps; noise Gaussian on every row."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import path_tracks

from contract.events import EventType
from contract.tables import load_table
from vision.events.shots import cut_tracks

FPS = 30.0
CAROM = load_table("carom-match")
PYR = load_table("pyramid-12ft")


def _path(p0, f0: int, legs: list[tuple[tuple[float, float], int]], n: int) -> np.ndarray:
    """At rest at ``p0`` until frame ``f0``, then each leg (velocity mm/frame, frames) in
    turn, then at rest (or gone, when the last leg's frames are negative: that many
    frames on, then no rows)."""
    out = [np.tile(np.asarray(p0, float), (f0 + 1, 1))]
    p = np.asarray(p0, float)
    gone = False
    for v, k in legs:
        gone = k < 0
        steps = p + np.outer(np.arange(1, abs(k) + 1), v)
        out.append(steps)
        p = steps[-1]
    path = np.vstack(out)
    tail = np.full((n - len(path), 2), np.nan) if gone else np.tile(p, (n - len(path), 1))
    return np.vstack([path, tail])


def _cut(table, paths, sigma: float, seed: int):
    rng = np.random.default_rng(seed)
    noisy = {k: p + rng.normal(0.0, sigma, p.shape) for k, p in paths.items()}
    cut = cut_tracks(path_tracks(noisy, FPS), table, FPS)
    return [
        (e.ball, e.cushion, e.frame)
        for s in cut.shots
        for e in s.events
        if e.type == EventType.CUSHION
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(
    ("normal_in", "normal_out", "gap0", "bounce"),
    [
        # 2.3 mm/frame into the back cushion, 1 mm/frame off it (carom break, seed 1)
        (2.3, -1.0, None, True),
        # rolling along it 1 mm off the nose line: no bounce, however the noise falls
        (0.0, 0.0, 1.0, False),
    ],
)
def test_a_slow_bounce_under_noise_is_one_cushion(seed, normal_in, normal_out, gap0, bounce):
    L, R = CAROM.L, CAROM.ball_radius
    n = 120
    if bounce:
        x0 = L - R - 20 * normal_in  # reaches the nose line 20 frames after the strike
        legs = [((normal_in, 14.0), 20), ((normal_out, 13.0), 30), ((-0.3, 3.0), 10)]
    else:
        x0 = L - R - gap0
        legs = [((0.0, 14.0), 50), ((0.0, 3.0), 10)]
    white = _path((x0, 200.0), 19, legs, n)
    paths = {
        "white": white,
        "yellow": np.tile((700.0, 700.0), (n, 1)),
        "red": np.tile((1400.0, 300.0), (n, 1)),
    }
    found = _cut(CAROM, paths, 0.5, seed)
    expected = [("white", "back", 40)] if bounce else []
    assert [(b, c) for b, c, _ in found] == [(b, c) for b, c, _ in expected]
    assert all(abs(f - e[2]) <= 1 for (_, _, f), e in zip(found, expected, strict=True))


@pytest.mark.parametrize("seed", [1, 2])
def test_a_fast_ball_stopped_by_the_back_jaw_then_dropping_is_a_cushion(seed):
    """Along the right rail at 23 mm/frame into the back-right pocket: the back jaw stops
    its x motion at frame 40 (one sample there, 7 mm past the back cushion line), it
    turns toward the pocket at 16 mm/frame and drops (pyramid-pots seed 0, ball 6)."""
    L, W, R = PYR.L, PYR.W, PYR.ball_radius
    n = 90
    p0 = (L - R + 7.0 - 21 * 23.0, W - R - 2.0)
    w1 = _path(p0, 19, [((23.0, 0.0), 21), ((-0.7, 16.0), -1)], n)
    paths = {"w1": w1, "w2": np.tile((1000.0, 600.0), (n, 1))}
    assert _cut(PYR, paths, 0.5, seed) == [("w1", "back", 40)]


@pytest.mark.parametrize("bridged", [(), (38, 39)])
def test_a_track_jumping_onto_a_ball_by_the_cushion_is_no_cushion(bridged):
    """A track rolling mid-table is handed to another ball rolling along the right cushion
    1 mm off its nose line at frame 40 (the jump ``bridged`` in a straight line by missing
    rows or not): its gap to the cushion falls 300 mm in one frame and stays, which no
    ball approaching that cushion does (pool 8-ball break, red2, frame 214)."""
    W, R = PYR.W, PYR.ball_radius
    n = 90
    w1 = _path((1200.0, 600.0), 19, [((3.0, 1.0), 20), ((0.0, 0.0), 1)], n)
    w1[40:70] = np.c_[np.linspace(2000.0, 1700.0, 30), np.full(30, W - R - 1.0)]
    w1[70:] = w1[69]
    w1[list(bridged)] = np.nan
    paths = {"w1": w1, "w2": np.tile((600.0, 300.0), (n, 1))}
    assert [c for c in _cut(PYR, paths, 0.5, 4) if c[1].startswith("right")] == []


@pytest.mark.parametrize("pulled", [True, False])
def test_one_sample_pulled_towards_the_cushion_is_no_bounce(pulled):
    """A ball rolling at 100 mm/frame toward the left cushion is slowed to 5 mm/frame at
    frame 31 (a ball it struck flew off) and bounces off the cushion at frame 40; at
    the hit its blob merged with the struck ball's and its centre was pulled 35 mm nearer
    the cushion, then the samples come on toward the cushion (pyramid respot seed 1 at
    720p, yellow at 213). Only the bounce at 40 is a cushion."""
    R = PYR.ball_radius
    n = 90
    y_hit = R + 9 * 5.0  # the cushion line is reached 9 frames after the hit
    legs = [((0.0, -100.0), 12), ((0.0, -5.0), 9), ((0.0, 2.0), 20)]
    w1 = _path((2000.0, y_hit + 12 * 100.0), 19, legs, n)
    if pulled:
        w1[31, 1] -= 35.0
    paths = {"w1": w1, "w2": np.tile((600.0, 900.0), (n, 1))}
    found = _cut(PYR, paths, 0.3, 5)
    assert [(b, c) for b, c, _ in found] == [("w1", "left")]
    assert abs(found[0][2] - 40) <= 1
