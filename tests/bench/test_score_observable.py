"""Contacts scored against the observable truth: repeats of a pair pressed together since
its previous contact are left out (bench.score_observable.pressed_repeats)."""

from __future__ import annotations

import pytest

from bench.score_observable import pressed_repeats, score_observable, score_observable_contacts
from contract.events import Event
from contract.match import Match

R = 34.0


def _match(contacts: list[tuple[int, str, str]]) -> Match:
    events = [{"frame": 10, "t": 0.333, "type": "strike", "ball": "yellow"}]
    events += [
        {"frame": f, "t": round(f / 30, 4), "type": "contact", "balls": [a, b]}
        for f, a, b in contacts
    ]
    return Match.model_validate(
        {
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
    )


def _positions(gap_mm: dict[int, float]):
    """Ball ``a`` at the origin, ``b`` one diameter plus ``gap_mm[frame]`` (default 0) away."""

    def pos(ident: str, frame: int):
        if ident == "a":
            return (1000.0, 500.0)
        return (1000.0 + 2 * R + gap_mm.get(frame, 0.0), 500.0)

    return pos


@pytest.mark.parametrize(
    ("gaps", "hidden"),
    [
        ({}, {(30, frozenset("ab"))}),  # pressed together throughout: the repeat is hidden
        ({25: 0.6}, {(30, frozenset("ab"))}),  # within the 1 mm margin: still pressed
        ({25: 3.0}, set()),  # came 3 mm apart in between: a visible second approach
    ],
)
def test_pressed_repeats(gaps, hidden):
    truth = _match([(20, "a", "b"), (30, "a", "b")])
    assert pressed_repeats(truth, _positions(gaps), R) == frozenset(hidden)


def test_first_contact_of_a_pair_is_never_hidden():
    truth = _match([(20, "a", "b")])
    assert pressed_repeats(truth, _positions({}), R) == frozenset()


def test_observable_score_leaves_hidden_truth_and_its_match_out():
    truth = _match([(20, "a", "b"), (30, "a", "b"), (50, "yellow", "c")])
    hidden = frozenset({(30, frozenset("ab"))})
    # the prediction found the first and the hidden repeat, missed yellow>c, invented one
    pred = _match([(20, "a", "b"), (31, "a", "b"), (70, "c", "d")])
    s = score_observable_contacts(pred, truth, lambda i: i, hidden)
    assert (s.truth, s.pred, s.tp) == (2, 2, 1)
    assert s.recall == 0.5 and s.precision == 0.5


def _cushions(events: list[tuple[int, str]]) -> Match:
    """One shot with cushion events (frame, ball), a third of a frame after the frame."""
    shot = _match([]).shots[0]
    evs = [
        Event.model_validate(
            {"frame": f, "t": round((f + 0.33) / 30, 4), "type": "cushion"}
            | {"ball": b, "cushion": "front"}
        )
        for f, b in events
    ]
    shot = shot.model_copy(update={"events": (*shot.events, *evs)})
    return _match([]).model_copy(update={"shots": (shot,)})


@pytest.mark.parametrize(
    ("last_row", "unseen"),
    [
        (40, set()),  # seen on the cloth after the touch: its bend is there to see
        (20, {(20, "a")}),  # last row at the touch's own frame: dropped before the next
    ],
)
def test_unseen_cushions_are_those_after_the_ball_last_frame(last_row, unseen):
    from bench.bench_events import unseen_cushions
    from contract.tracks import Tracks

    truth = _cushions([(20, "a")])
    rows = [(f, f / 30, "a", 40.0, 60.0, 1, None, None) for f in range(last_row + 1)]
    rows += [(f, f / 30, "b", 900.0, 600.0, 1, None, None) for f in range(60)]
    assert unseen_cushions(truth, Tracks.from_rows(rows), 30.0) == frozenset(unseen)


def test_observable_cushions_leave_the_unseen_and_their_match_out():
    truth = _cushions([(20, "a"), (40, "b"), (60, "c")])
    pred = _cushions([(21, "a"), (41, "b"), (80, "d")])
    s = score_observable(pred, truth, lambda i: i, frozenset({(20, "a")}))
    assert (s.truth, s.pred, s.tp) == (2, 2, 1)
