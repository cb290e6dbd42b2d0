"""A ball first named ``wN`` (its number not read yet, contract §3) and later under its
number is one ball (``adjudicator.doubt.read_since``): live vision hands each shot out
under the numbers read so far. A guess between two candidates is not made: then the ball
vanished, and the referee is asked as before."""

from __future__ import annotations

import pytest

from adjudicator.doubt import MOVED_MM, between, read_since
from contract.match import Shot


def _shot(i: int, rest: dict) -> Shot:
    f = 100 * i
    return Shot.model_validate({
        "index": i, "start": {"frame": f, "t": f / 30}, "end": {"frame": f + 50, "t": (f + 50) / 30},
        "events": [{"frame": f, "t": f / 30, "type": "strike", "ball": "yellow"},
                   {"frame": f + 10, "t": (f + 10) / 30, "type": "cushion", "ball": "yellow",
                    "cushion": "back"}],
        "rest": rest,
    })  # fmt: skip


Y = {"yellow": (600.0, 600.0)}


@pytest.mark.parametrize(
    "before, after, asked",
    [
        # w3 read as 3 between the shots, where it lay: one ball, nothing asked
        ({"w3": (1000.0, 500.0)}, {"3": (1000.5, 500.2)}, None),
        # ... also when it crept a little (rest jitter, a touch under the moved bound)
        ({"w3": (1000.0, 500.0)}, {"3": (1000.0 + MOVED_MM - 1, 500.0)}, None),
        # the number appeared far from where w3 lay: w3 vanished
        ({"w3": (1000.0, 500.0)}, {"3": (1400.0, 500.0)}, "w3 vanished"),
        # two new numbers by w3: which one is it? not guessed
        ({"w3": (1000.0, 500.0)}, {"3": (1005.0, 500.0), "8": (995.0, 500.0)}, "w3 vanished"),
        # a numbered ball does not turn into another number
        ({"5": (1000.0, 500.0)}, {"3": (1000.0, 500.0)}, "5 vanished"),
        # a w ball still under its w name is unchanged
        ({"w3": (1000.0, 500.0)}, {"w3": (1000.0, 500.0)}, None),
    ],
)
def test_a_number_read_between_two_shots_is_the_same_ball(before, after, asked):
    why = between(_shot(1, before | Y), (), _shot(2, after | Y))
    assert (why is None) if asked is None else (why is not None and why.startswith(asked))


def test_read_since_renames_only_the_ball_read():
    before = {"w3": (1000.0, 500.0), "w4": (2000.0, 500.0), "7": (3000.0, 500.0)}
    after = {"3": (1000.0, 500.0), "w4": (2000.0, 500.0), "7": (3000.0, 500.0)}
    assert read_since(before, after) == {"3": (1000.0, 500.0), "w4": (2000.0, 500.0),
                                         "7": (3000.0, 500.0)}  # fmt: skip
