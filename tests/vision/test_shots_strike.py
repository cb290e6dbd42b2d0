"""A strike and a ``ball_touched`` need a ball seen rolling (issue: shots and events):
tracks that jump under a reaching arm, or a centre pulled a few mm that stays, are not
motion; a real strike and a real touch still are. Positions table mm, 30 fps."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import path_tracks

from contract.events import EventType
from contract.tables import load_table
from vision.events.shots import cut_tracks

FPS = 30.0
T = load_table("pyramid-12ft")
N = 160


def _still(p: tuple[float, float], n: int = N) -> np.ndarray:
    return np.tile(np.asarray(p, float), (n, 1))


def _struck(p0: tuple[float, float], f0: int, v0: float, decel: float = 0.25) -> np.ndarray:
    """At rest at ``p0`` until frame ``f0``, then rolling along +x from ``v0`` mm/frame,
    slowing by ``decel`` mm/frame^2 to a stop."""
    t = np.clip(np.arange(N) - f0, 0, None).astype(float)
    t_stop = v0 / decel
    t = np.minimum(t, t_stop)
    x = p0[0] + v0 * t - 0.5 * decel * t**2
    return np.c_[x, np.full(N, p0[1])]


def _events(paths, hidden=None):
    cut = cut_tracks(path_tracks(paths, FPS, hidden), T, FPS)
    return cut.shots, [(e.type, e.ball, e.frame) for s in cut.shots for e in s.events]


@pytest.mark.parametrize(
    ("refound_mm", "away"),
    [
        (3.0, None),  # found again 3 mm off after the arm passed
        (12.0, None),  # 12 mm off, and it stays there
        (150.0, None),  # the track jumps to a false detection under the arm, stays there
        (150.0, 54),  # ... and comes back to the ball at frame 54
    ],
)
def test_a_ball_refound_elsewhere_after_an_arm_passed_is_no_strike(refound_mm, away):
    """w1 rests by the left cushion; an arm covers it from frame 28 (predicted rows);
    from frame 30 its track is measured ``refound_mm`` along -x now and then, and with
    ``away`` back where it stood (pyramid-reach 720p, frame 27). No ball was struck: no
    shot."""
    w1 = _still((1389.0, 52.0))
    w1[30:] -= (refound_mm, 0.0)
    if away is not None:
        w1[away:] = (1389.0, 52.0)
    seen = {30, 31, 44, 46, 49, 50} | ({away} if away else set())
    hidden = {"w1": [f for f in range(28, N) if f not in seen and f < 80]}
    shots, events = _events({"w1": w1, "w2": _still((2500.0, 900.0))}, hidden)
    assert shots == ()
    assert events == []


def test_the_real_strike_beside_the_jumping_track_is_still_found():
    """The same jump of w1 under the arm, and yellow struck at frame 90: one shot, struck
    by yellow at frame 89 (at rest through 89, moving at 90)."""
    w1 = _still((1389.0, 52.0))
    w1[30:54] -= (150.0, 0.0)
    hidden = {"w1": [f for f in range(28, 80) if f not in {30, 31, 44, 46, 49, 50, 54}]}
    yellow = _struck((800.0, 900.0), 89, 30.0)
    shots, events = _events({"w1": w1, "yellow": yellow}, hidden)
    assert [(s.cue_ball, s.start.frame) for s in shots] == [("yellow", 89)]
    assert [e for e in events if e[0] == EventType.STRIKE] == [(EventType.STRIKE, "yellow", 89)]


@pytest.mark.parametrize(
    ("shift_mm", "then_rolls", "touched"),
    [
        (5.5, False, False),  # the centre pulled 5.5 mm toward an arm, and it stays
        (12.0, False, False),  # 12 mm in one frame and not a mm more: no ball rolls so
        (0.0, True, True),  # w2 really rolls off by itself: ball_touched (rule 16)
    ],
)
def test_a_detection_that_jumps_and_stays_is_no_ball_touched(shift_mm, then_rolls, touched):
    """During yellow's shot, as yellow passes 32 mm from w2 (near enough to have set it off,
    not touching), w2 jumps ``shift_mm`` at frame 40 and stays (pyramid-reach 720p, frame
    167), or rolls off at 3 mm/frame for 20 frames."""
    yellow = _struck((800.0, 500.0), 10, 25.0)  # at x = 1437.5 at frame 40
    w2 = _still((1440.0, 600.0))
    w2[40:] += (0.0, -shift_mm)
    if then_rolls:
        w2[40:60] += np.outer(np.arange(1, 21), (3.0, 0.0))
        w2[60:] = w2[59]
    _, events = _events({"yellow": yellow, "w2": w2})
    kinds = [(k, b) for k, b, _ in events]
    assert ((EventType.BALL_TOUCHED, "w2") in kinds) is touched
    assert [b for k, b, _ in events if k == EventType.STRIKE] == ["yellow"]


def test_a_ball_pulled_toward_the_coming_ball_then_hit_is_not_touched():
    """Carom: the white's centre is pulled 1.7 mm toward the yellow three frames before the
    yellow hits it (the ball's blur reaching it); the white is hit, not touched."""
    c = load_table("carom-match")
    n = 120
    yellow = np.c_[np.linspace(1200.0, 1200.0 + 30.0 * 40, 41), np.full(41, 700.0)]
    yellow = np.vstack([_still(yellow[0], 10), yellow, _still(yellow[-1], n - 51)])
    # yellow reaches x = 2400 - 61.5 = 2338.5 at frame 10 + 37.95: the white is hit at 48
    white = _still((2400.0, 700.0), n)
    white[45:48] += (-1.7, 0.0)
    t = np.arange(n - 48, dtype=float)
    white[48:] = np.c_[
        2400.0 + 25.0 * np.minimum(t, 40) - 0.3 * np.minimum(t, 40) ** 2, white[48:, 1]
    ]
    yellow[48:] = yellow[47]
    red = _still((600.0, 300.0), n)
    cut = cut_tracks(path_tracks({"yellow": yellow, "white": white, "red": red}, FPS), c, FPS)
    kinds = [(e.type, e.ball) for s in cut.shots for e in s.events]
    assert (EventType.BALL_TOUCHED, "white") not in kinds
    assert [s.cue_ball for s in cut.shots] == ["yellow"]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_stop_is_fitted_on_the_last_approach_after_a_slow_rise(seed):
    """A ball nears its rest (40 -> 16 mm away), is sent off again slowly (2.5 mm a frame
    for four frames: under the one-frame rise test at 0.5 mm of noise) and rolls back to
    a stop at frame 29.1 (0.2 mm/frame^2, pyramid-pots seed 2): the stop is fitted on
    that last approach alone, within a frame."""
    from vision.events.motion import stop_time

    t = np.arange(50, dtype=float)
    d = np.where(t <= 9, 40.0 - 2.7 * t, 16.0 + 2.5 * (t - 9))
    d = np.where(t >= 13, 0.1 * np.clip(29.1 - t, 0.0, None) ** 2, d)
    rng = np.random.default_rng(seed)
    xy = np.c_[d, np.zeros(50)] + rng.normal(0.0, 0.5, (50, 2))
    f = stop_time(xy, 0, 49, np.zeros(2), eps=2.3, floor=10.0, decel=0.2)
    assert abs(f - 29.1) <= 1.0


def _run(xy: np.ndarray):
    from vision.events.motion import Movement

    at = (float(xy[0, 0]), float(xy[0, 1]))
    return Movement("w1", 1.0, 20.0, at, at, (0, 0), (0, 0), (), False, False, 1, 20)


@pytest.mark.parametrize(
    ("case", "hidden", "expected"),
    [
        ("rolls", (), 4.0),  # at rest through frame 4, 2 mm/frame from frame 5
        ("rolls", (4, 5), 5.0),  # rows 4, 5 missing: it may have stood until frame 5
        ("jumps", (), None),  # 6 mm in one frame, then stays: no roll
        ("jumps", (4, 5), None),
        ("teleports", (), None),  # seen at rest, then 150 mm off four frames later, still
    ],
)
def test_seen_moving_needs_two_measured_steps_the_same_way(case, hidden, expected):
    """:func:`vision.events.motion.seen_moving` on one ball's rows (mm, measured unless
    ``hidden``): the frame before its first rolling step ends, or None."""
    from vision.events.motion import seen_moving

    t = np.arange(24, dtype=float)
    x = {
        "rolls": 1000.0 + 2.0 * np.clip(t - 4, 0, None),
        "jumps": np.where(t >= 5, 1006.0, 1000.0),
        "teleports": np.where(t >= 8, 850.0, 1000.0),
    }[case]
    xy = np.c_[x, np.full(24, 500.0)]
    vis = np.ones(24, bool)
    vis[list(hidden)] = False
    if case == "teleports":
        vis[5:8] = False
        vis[9:14] = False
    assert seen_moving(_run(xy), xy, vis, 0.75) == expected
