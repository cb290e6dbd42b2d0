"""A second touch the frames cannot tell (vision.events.kiss): a ball hit by the cushion
bounces straight back into the striker still following on (a double kiss, rule 20)."""

from __future__ import annotations

import numpy as np
import pytest

from contract.events import Event, EventType
from contract.tables import load_table
from vision.events.kiss import kiss_doubts
from vision.events.series import Series

PYR = load_table("pyramid-12ft")
R = PYR.ball_radius
FPS = 30.0


def _series(struck_y: float, follow: float) -> tuple[Series, list[Event]]:
    """The striker rolls down (-y) onto a ball at ``struck_y`` mm from the front-left...
    long cushion (y = 0) at frame 10; the struck ball reaches the cushion and comes back
    at 40 mm a frame; the striker follows on at ``follow`` mm a frame."""
    n = 20
    struck = np.tile([1500.0, struck_y], (n, 1))
    striker = np.tile([1500.0, struck_y + 2 * R], (n, 1))
    striker[:10, 1] += np.arange(10, 0, -1) * 30.0
    for k in range(10, n):
        striker[k, 1] = struck_y + 2 * R - (k - 10) * follow
    to_cushion = struck_y - R
    for k in range(11, n):
        travel = (k - 10) * 40.0
        struck[k, 1] = R + abs(travel - to_cushion) if travel > to_cushion else struck_y - travel
    xy = np.stack([striker, struck])
    s = Series(("w5", "w2"), 0, np.arange(n) / FPS, xy, np.ones((2, n), bool), FPS)
    events = [
        Event(frame=10, t=10 / FPS, type=EventType.CONTACT, balls=("w5", "w2"), at=(1500.0, 80.0)),
        Event(frame=11, t=11 / FPS, type=EventType.CUSHION, ball="w2", cushion="left"),
    ]
    return s, events


@pytest.mark.parametrize(
    ("struck_y", "follow", "doubt"),
    [
        (45.0, 12.0, True),  # 11 mm of cloth to the cushion, the striker follows on: ask
        (45.0, -40.0, False),  # the striker drew back at once: seen apart
        (3 * R + 40.0, 12.0, False),  # a ball farther off: its way back is seen
    ],
)
def test_a_double_kiss_at_the_cushion_is_asked(struck_y, follow, doubt):
    s, events = _series(struck_y, follow)
    out = kiss_doubts(events, s, PYR)
    assert bool(out) == doubt
    if doubt:
        e = out[0]
        assert e.type is EventType.CONTACT and set(e.balls) == {"w5", "w2"}
        assert e.uncertain and "second touch" in e.uncertain and e.frame >= 11


def test_a_second_touch_already_read_is_not_asked_again():
    s, events = _series(45.0, 12.0)
    again = Event(frame=12, t=12 / FPS, type=EventType.CONTACT, balls=("w2", "w5"), at=(1500, 80))
    assert kiss_doubts([*events, again], s, PYR) == []
