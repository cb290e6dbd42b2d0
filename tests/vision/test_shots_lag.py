"""The lag cut from tracks (issue 32; pyramid rules 8, 5-pin rules 3): two balls struck
within a second of each other from the house / lag line, one on each half, are one shot
with a ``lag`` event and both strikes; the segmentation is not confused by two balls."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import path_tracks

from contract.events import EventType
from contract.tables import load_table
from vision.events.shots import cut_tracks

FPS = 30.0
DECEL = 0.2  # mm/frame^2


def lag_path(table, x0, y0, x_rest, wait, vy=0.0, total=420) -> np.ndarray:
    """A lag ball: still at (x0, y0) for ``wait`` frames, then rolled up the table, off the
    far (back/top) cushion and back to rest at ``x_rest`` under constant deceleration;
    ``vy`` mm per frame of sideways drift (scaled with the speed). (total, 2) mm."""
    far = table.L - table.ball_radius
    dist = (far - x0) + (far - x_rest)
    v0 = np.sqrt(2 * DECEL * dist)
    n = int(np.ceil(v0 / DECEL))
    out = [(x0, y0)] * wait
    y = y0
    for k in range(1, n + 1):
        s = min(v0 * k - DECEL * k * k / 2, dist)
        x = x0 + s if s <= far - x0 else far - (s - (far - x0))
        y += vy * max(0.0, 1 - k / n)
        out.append((x, y))
    out += [out[-1]] * max(0, total - len(out))
    return np.asarray(out[:total], float)


def cut(table, paths):
    return cut_tracks(path_tracks(paths, FPS), table, FPS).shots


@pytest.mark.parametrize(
    ("table_name", "balls", "x0", "ys"),
    [
        pytest.param("pyramid-12ft", ("yellow", "w1"), 600.0, (450.0, 1325.0), id="pyramid from the house"),
        pytest.param("carom-match", ("white", "yellow"), 710.0, (410.0, 1010.0), id="5-pin from the lag line"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("gap", [0, 12, 25], ids=["together", "0.4 s apart", "0.8 s apart"])
def test_two_balls_struck_together_are_one_lag_shot(table_name, balls, x0, ys, gap):
    t = load_table(table_name)
    # the right half's ball is struck first: the lag event still names the left one first
    paths = {
        balls[1]: lag_path(t, x0, ys[1], 320.0, 20),
        balls[0]: lag_path(t, x0, ys[0], 300.0, 20 + gap),
    }
    if "white" in balls:
        paths["red"] = np.tile([3 * t.L / 4, t.W / 2], (420, 1))
    shots = cut(t, paths)
    assert len(shots) == 1
    (s,) = shots
    lag = s.ev.of_type(EventType.LAG)
    assert len(lag) == 1 and lag[0].balls == balls
    strikes = s.ev.of_type(EventType.STRIKE)
    assert sorted(e.ball for e in strikes) == sorted(balls)
    assert {e.ball: e.frame for e in strikes} == pytest.approx(
        {balls[1]: 19, balls[0]: 19 + gap}, abs=1
    )
    assert not s.ev.of_type(EventType.BALL_TOUCHED) and not s.ev.of_type(EventType.EARLY_STRIKE)
    backs = [e.ball for e in s.ev.of_type(EventType.CUSHION) if e.cushion == "back"]
    assert sorted(backs) == sorted(balls)
    assert s.rest[balls[0]][0] == pytest.approx(300.0, abs=1.0)
    assert s.rest[balls[1]][0] == pytest.approx(320.0, abs=1.0)
    assert not s.ev.of_type(EventType.CROSS) or all(
        e.line != "half" for e in s.ev.of_type(EventType.CROSS)
    )


def test_a_ball_crossing_into_the_other_half_is_seen():
    t = load_table("pyramid-12ft")
    paths = {
        "yellow": lag_path(t, 600.0, 700.0, 300.0, 20, vy=2.5),  # drifts right past y = 887.5
        "w1": lag_path(t, 600.0, 1325.0, 320.0, 22),
    }
    (s,) = cut(t, paths)
    half = [e for e in s.ev.of_type(EventType.CROSS) if e.line == "half"]
    assert [e.ball for e in half] == ["yellow"]


@pytest.mark.parametrize(
    ("why", "second"),
    [
        pytest.param("1.5 s apart", dict(x0=600.0, wait=65), id="too late: no lag"),
        pytest.param("same half", dict(x0=600.0, y0=700.0, wait=25), id="same half: no lag"),
        pytest.param("from beyond the house", dict(x0=1500.0, wait=25), id="not from the house: no lag"),
    ],
)  # fmt: skip
def test_not_a_lag(why, second):
    t = load_table("pyramid-12ft")
    kw = {"y0": 1325.0} | second
    paths = {
        "yellow": lag_path(t, 600.0, 450.0, 300.0, 20),
        "w1": lag_path(t, kw["x0"], kw["y0"], 320.0, kw["wait"], total=420),
    }
    shots = cut(t, paths)
    assert shots and all(not s.ev.of_type(EventType.LAG) for s in shots)


def test_the_calibrations_uncertainty_rides_on_the_lag_event():
    from types import SimpleNamespace

    from vision.events.lag import FIT_FLOOR_MM, REST_NOISE_MM, lag_sigma_mm

    t = load_table("pyramid-12ft")
    paths = {
        "yellow": lag_path(t, 600.0, 450.0, 300.0, 20),
        "w1": lag_path(t, 600.0, 1325.0, 320.0, 22),
    }
    (s,) = cut_tracks(path_tracks(paths, FPS), t, FPS, lag_sigma_mm=3.0).shots
    (lag,) = s.ev.of_type(EventType.LAG)
    assert lag.uncertainty_mm == 3.0
    calib = SimpleNamespace(rms_mm=0.6, __pydantic_extra__={"uncertainty": {"rms_mm": 4.0}})
    assert lag_sigma_mm(calib) == pytest.approx(np.hypot(4.0, REST_NOISE_MM))
    worst = {"uncertainty": {"rms_mm": 1.0, "max_mm": 18.0}}
    assert lag_sigma_mm(SimpleNamespace(rms_mm=0.6, __pydantic_extra__=worst)) == pytest.approx(
        np.hypot(6.0, REST_NOISE_MM)
    )
    from contract.calib import Uncertainty

    made = SimpleNamespace(
        rms_mm=0.6, uncertainty=Uncertainty(rms_mm=2.0, max_mm=3.0, orientation="sure")
    )
    assert lag_sigma_mm(made) == pytest.approx(np.hypot(2.0, REST_NOISE_MM))
    fit_only = SimpleNamespace(rms_mm=0.6, __pydantic_extra__={})  # a fit residual: floored
    assert lag_sigma_mm(fit_only) == pytest.approx(np.hypot(FIT_FLOOR_MM, REST_NOISE_MM))
    assert lag_sigma_mm(SimpleNamespace(rms_mm=None, __pydantic_extra__={})) is None


def _live(t, paths):
    from vision.events.shots_live import LiveShotCutter

    live = LiveShotCutter(t, FPS, lag_sigma_mm=2.0)
    n = len(next(iter(paths.values())))
    got = []
    for f in range(n):
        got += live.update(f, {b: (float(p[f, 0]), float(p[f, 1]), True) for b, p in paths.items()})
    return got


def test_live_the_lag_only_before_the_first_shot():
    """The live cutter reads a lag first; once a shot that is not a lag was handed out, two
    balls struck together are not a lag (the lag comes before a match's first shot)."""
    t = load_table("pyramid-12ft")
    lag = {
        "yellow": lag_path(t, 600.0, 450.0, 300.0, 20),
        "1": lag_path(t, 600.0, 1325.0, 320.0, 24),
    }
    (s,) = _live(t, lag)
    (ev,) = s.ev.of_type(EventType.LAG)
    assert ev.balls == ("yellow", "1") and ev.uncertainty_mm == 2.0
    # a plain shot first (the yellow alone up and back), then both balls struck together
    first = {
        "yellow": lag_path(t, 600.0, 450.0, 300.0, 20),
        "1": np.tile([600.0, 1325.0], (420, 1)),
    }
    again = {
        "yellow": lag_path(t, 300.0, 450.0, 320.0, 20),
        "1": lag_path(t, 600.0, 1325.0, 330.0, 24),
    }
    paths = {b: np.vstack([first[b], again[b]]) for b in first}
    shots = _live(t, paths)
    assert len(shots) == 2 and not any(s.ev.of_type(EventType.LAG) for s in shots)
