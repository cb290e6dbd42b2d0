"""A ball set off by another ball was not touched (rule 16 needs a touch nothing explains):
``ball_touched`` / ``early_strike`` dropped when a contact strikes that ball within 2
frames of its start."""

from __future__ import annotations

import pytest

from contract.events import Event, EventType
from vision.events.finder import _explained


def _ev(frame: int, type_: EventType, **kw) -> Event:
    return Event(frame=frame, t=frame / 30, type=type_, **kw)


@pytest.mark.parametrize(
    ("kind", "contact_frame", "contact_balls", "kept"),
    [
        (EventType.BALL_TOUCHED, 213, ("yellow", "w1"), False),  # hit a frame after it moved
        (EventType.BALL_TOUCHED, 214, ("yellow", "w1"), False),
        (EventType.BALL_TOUCHED, 216, ("yellow", "w1"), True),  # too late to explain it
        (EventType.BALL_TOUCHED, 213, ("w1", "yellow"), True),  # it struck, it was not struck
        (EventType.BALL_TOUCHED, 213, ("yellow", "w2"), True),  # another ball struck
        (EventType.EARLY_STRIKE, 212, ("yellow", "w1"), False),
    ],
)
def test_explained_drops_touches_a_contact_explains(kind, contact_frame, contact_balls, kept):
    touched = _ev(212, kind, ball="w1")
    contact = _ev(contact_frame, EventType.CONTACT, balls=contact_balls)
    out = _explained([touched, contact])
    assert (touched in out) == kept and contact in out
