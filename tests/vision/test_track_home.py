"""A resting ball whose track a false detection drew away (an arm's end read as a ball
while the ball was hidden) is the same ball when it is seen again at its home: no new
track, no re-spot name taken from a pocketed ball (pyr-reach-720, frames 30-360)."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from vision.detect.detector import Detections
from vision.track.tracker import Tracker

FPS = 30.0
HOME = np.array([1389.0, 300.0])
OTHER = np.array([1000.0, 900.0])


def _ids(tracker: Tracker, frames) -> list[set[str]]:
    out = []
    for k, (xy, cls) in enumerate(frames):
        rows = tracker.update(Detections.from_xy(k, k / FPS, xy, cls))
        out.append({str(i) for i in rows.id})
    return out


@pytest.mark.parametrize("false_at", [(1239.0, 290.0), (1389.0, 160.0), (1500.0, 420.0)])
@pytest.mark.parametrize("back_after", [10, 40])
def test_ball_seen_again_at_home_keeps_its_track(false_at, back_after):
    frames = [([HOME, OTHER], ["white", "white"]) for _ in range(30)]
    frames += [([OTHER], ["white"])] * 2  # hidden
    frames += [([OTHER, false_at], ["white", "white"])]  # a false ball, once
    frames += [([OTHER], ["white"])] * back_after
    back = len(frames)
    frames += [([HOME + 0.4, OTHER], ["white", "white"]) for _ in range(30)]
    tracker = Tracker(load_table("pyramid-12ft"))
    seen = _ids(tracker, frames)
    assert seen[10] == {"w1", "w2"}
    assert all(s == {"w1", "w2"} for s in seen[back:])  # no third ball, no new name
    last = tracker.update(
        Detections.from_xy(len(frames), len(frames) / FPS, [HOME, OTHER], ["white"] * 2)
    )
    at = {str(i): (x, y) for i, x, y in zip(last.id, last.x, last.y, strict=True)}
    assert np.hypot(*(np.array(at["w1"]) - HOME)) < 2.0


def test_ball_struck_from_home_does_not_return_there():
    """A ball that rolled away for real has no home: a ball of its colour that later
    stops there is tracked as itself, not as the struck ball."""
    frames = [([HOME, OTHER], ["white", "white"]) for _ in range(30)]
    for k in range(1, 21):  # the first ball rolls away, 20 mm a frame, and stays
        frames.append(([HOME + [20.0 * k, 0.0], OTHER], ["white", "white"]))
    away = HOME + [400.0, 0.0]
    frames += [([away, OTHER], ["white", "white"])] * 10
    for k in range(1, 21):  # the other ball rolls to the first one's home
        p = OTHER + (HOME - OTHER) * k / 20
        frames.append(([away, p], ["white", "white"]))
    frames += [([away, HOME], ["white", "white"])] * 10
    tracker = Tracker(load_table("pyramid-12ft"))
    _ids(tracker, frames)
    rows = tracker.update(Detections.from_xy(len(frames), 9.0, [away, HOME], ["white"] * 2))
    at = {str(i): (x, y) for i, x, y in zip(rows.id, rows.x, rows.y, strict=True)}
    assert np.hypot(*(np.array(at["w1"]) - away)) < 2.0
    assert np.hypot(*(np.array(at["w2"]) - HOME)) < 2.0
