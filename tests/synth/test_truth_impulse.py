"""Truth contacts carry their impulse (contract §9, optional ``impulse``, mm/frame): the
simulator's velocity change per contact, summed over merged repeats; old truth without
it still loads."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contract.events import Event
from contract.match import Match, read_match, write_match
from contract.tables import load_table
from synth.params import Params
from synth.physics import simulate
from synth.truth import coalesce_contacts

PYR = load_table("pyramid-12ft")
R = PYR.ball_radius
E = Params().e_ball


@pytest.mark.parametrize(
    ("speed", "angle_deg", "fps"),
    [
        (1000.0, 0.0, 30.0),  # head-on: (1 + e) / 2 of the speed
        (1000.0, 0.0, 60.0),  # per frame: half as much at twice the frame rate
        (3000.0, 0.0, 30.0),
        (2000.0, 60.0, 30.0),  # a cut: only the part along the line of centres
        (2000.0, 85.0, 30.0),  # a thin kiss: a small impulse
    ],
)
def test_contact_impulse_is_the_velocity_change_per_frame(speed, angle_deg, fps):
    # b placed so that a, moving along +x, touches it after 0.5 mm with the line of
    # centres at ``angle_deg``: within the first sub-step, before any friction
    a = (1000.0, 800.0)
    th = math.radians(angle_deg)
    b = (a[0] + 0.5 + 2 * R * math.cos(th), a[1] + 2 * R * math.sin(th))
    res = simulate(PYR, {"a": a, "b": b}, "a", 0.0, speed, fps=fps)
    contact = next(e for e in res.events if e["type"] == "contact")
    want = 0.5 * (1 + E) * speed * math.cos(th) / fps
    assert contact["impulse"] == pytest.approx(want, rel=1e-3, abs=2e-4)
    # and it is what ball b took: its speed one frame on, less one frame of sliding
    # friction (mu g, mm/frame per frame) or, a slow ball rolling by then, 5/7 of it
    vb = float(np.hypot(*res.vel[1, 1])) / fps
    slid = max(want - Params().mu_slide * 9810.0 / fps**2, 5.0 / 7.0 * want)
    assert vb == pytest.approx(slid, abs=0.05)


def _contact(frame: int, a: str, b: str, impulse: float | None) -> Event:
    kw = {} if impulse is None else {"impulse": impulse}
    return Event(frame=frame, t=frame / 30, type="contact", balls=(a, b), **kw)


@pytest.mark.parametrize(
    ("rows", "want"),
    [
        # same pair within two frames: one contact, the impulses added
        ([(10, "a", "b", 1.0), (11, "b", "a", 0.5)], [(10, ("a", "b"), 1.5)]),
        # three frames apart: two contacts
        (
            [(10, "a", "b", 1.0), (13, "a", "b", 0.5)],
            [(10, ("a", "b"), 1.0), (13, ("a", "b"), 0.5)],
        ),
        # another pair in the same frame is its own contact
        (
            [(10, "a", "b", 1.0), (10, "b", "c", 0.2)],
            [(10, ("a", "b"), 1.0), (10, ("b", "c"), 0.2)],
        ),
        # no impulses (an old truth): merged as before, none made up
        ([(10, "a", "b", None), (11, "a", "b", None)], [(10, ("a", "b"), None)]),
    ],
)
def test_coalesced_contacts_sum_their_impulses(rows, want):
    got = coalesce_contacts(tuple(_contact(*r) for r in rows), 30.0)
    assert [(e.frame, e.balls, e.impulse) for e in got] == want


def _truth(events: list[dict]) -> dict:
    return {
        "format": "tablemon-match/1",
        "game": "pyramid-free",
        "table": "pyramid-12ft",
        "shots": [
            {
                "index": 1,
                "start": {"frame": 10, "t": 0.333},
                "end": {"frame": 90, "t": 3.0},
                "events": events,
            }
        ],
    }


def test_old_truth_without_impulses_loads_and_new_truth_keeps_them(tmp_path):
    old = _truth([{"frame": 20, "t": 0.667, "type": "contact", "balls": ["yellow", "1"]}])
    m = Match.model_validate(old)
    assert m.shots[0].events[0].impulse is None
    p = tmp_path / "x.truth.json"
    write_match(p, m)
    assert "impulse" not in p.read_text()  # nothing written where nothing is known
    new = _truth(
        [{"frame": 20, "t": 0.667, "type": "contact", "balls": ["yellow", "1"], "impulse": 2.5}]
    )
    write_match(p, Match.model_validate(new))
    assert read_match(p).shots[0].events[0].impulse == 2.5
