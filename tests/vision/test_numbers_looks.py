"""Where a ball was best seen (``vision.numbers.looks``): a pocketed ball without a number
is shown to the referee lying still before the shot, not dropping into the pocket."""

from __future__ import annotations

import numpy as np
import pytest

from contract.match import Shot
from contract.tracks import Tracks
from vision.numbers.looks import MIN_RUN, StillRuns, with_looks


def rows(frame: int, balls: dict[str, tuple[float, float]], hidden: tuple[str, ...] = ()):
    ids = list(balls)
    n = len(ids)
    return Tracks(
        np.full(n, frame),
        np.full(n, frame / 30),
        np.array(ids, object),
        np.array([balls[i][0] for i in ids]),
        np.array([balls[i][1] for i in ids]),
        np.array([i not in hidden for i in ids]),
        np.full(n, np.nan),
        np.full(n, np.nan),
    )


def film(path: list[tuple[float, float]], ball: str = "t4", hidden=()) -> StillRuns:
    runs = StillRuns()
    for f, xy in enumerate(path):
        runs.add(rows(f, {ball: xy}, ball if f in hidden else ()))
    return runs


STILL, ROLL = [(500.0, 400.0)] * 10, [(500.0 + 20 * k, 400.0) for k in range(1, 11)]


@pytest.mark.parametrize(
    "path, hidden, frame, want",
    [
        (STILL + ROLL, (), 10, 9),  # still 0-9, struck at 10: its last still frame
        (STILL + ROLL, (), 5, 4),  # asked about a shot that began mid-stretch
        (ROLL + STILL, (), 10, None),  # never still before frame 10
        (ROLL + STILL + ROLL, (), 25, 19),  # still 10-19
        (STILL[: MIN_RUN - 1] + ROLL, (), 10, None),  # too short a stretch
        (STILL + ROLL, (3,), 10, 9),  # a frame hidden splits the stretch: 4-9 is kept
        ([(500.0 + 0.3 * k, 400.0) for k in range(10)] + ROLL, (), 10, 9),  # rest jitter
    ],
)
def test_last_still_frame_before_a_shot(path, hidden, frame, want):
    assert film(path, hidden=hidden).before("t4", frame) == want


def _pot(ball: str) -> Shot:
    return Shot.model_validate({
        "index": 2, "start": {"frame": 10, "t": 0.33}, "end": {"frame": 40, "t": 1.33},
        "events": [{"frame": 10, "t": 0.33, "type": "strike", "ball": "yellow"},
                   {"frame": 30, "t": 1.0, "type": "pocket", "ball": ball,
                    "pocket": "back-left"}],
    })  # fmt: skip


@pytest.mark.parametrize(
    "ball, tracked, names, want",
    [
        ("w3", "w3", {}, {"w3": (9,)}),  # unread: its still before the shot
        ("w3", "t4", {"t4": "w3"}, {"w3": (9,)}),  # runs kept under the tracker's name
        ("7", "t4", {"t4": "7"}, {}),  # read: nothing to ask, nothing to show
        ("w5", "w3", {}, {}),  # the pocketed ball was never seen still
    ],
)
def test_looks_of_pocketed_balls_without_a_number(ball, tracked, names, want):
    runs = film(STILL + ROLL, ball=tracked)
    (shot,) = with_looks((_pot(ball),), runs, names)
    assert shot.looks == want
