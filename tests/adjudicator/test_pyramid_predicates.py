"""Pyramid general rules as predicates: each case cites its clause (seed 000; 8–20: seed 003)."""

from __future__ import annotations

import pytest
from pyramid_helpers import L, R, S, W, state

from adjudicator.pyramid import predicates as P

MID = {"3": (2000.0, 900.0), "5": (2400.0, 600.0), "7": (1500.0, 1200.0)}


def frozen(**where: str) -> dict:
    """MID with some balls moved against a cushion (surface touching the nose)."""
    at = dict(MID)
    for ball, cushion in where.items():
        at[ball] = {
            "left": (2000.0, R),
            "right": (2000.0, W - R),
            "front": (R, 900.0),
            "back": (L - R, 900.0),
        }[cushion]
    return at


@pytest.mark.parametrize(
    "tokens, expected",
    [
        pytest.param(("yellow>3",), True, id="pyramid:6.1 direct contact"),
        pytest.param(
            ("strike:yellow", "yellow|left", "yellow>3"), True, id="pyramid:6.3 via cushion"
        ),
        pytest.param(
            ("strike:yellow", "yellow|left", "yellow|back"), False, id="pyramid:6.2 no contact"
        ),
        pytest.param(("strike:yellow", "3>5"), False, id="pyramid:6.2 only object balls met"),
        pytest.param(("strike:yellow", "3>yellow"), True, id="pyramid:6.1 object listed first"),
    ],
)
def test_contact(tokens, expected):
    assert P.touched_object_ball(state(on_table=MID), S(*tokens)) is expected


@pytest.mark.parametrize(
    "tokens, side, expected",
    [
        pytest.param(
            ("yellow>1", "5@back-right"), False, True, id="pyramid:12.1(1) a ball pocketed"
        ),
        pytest.param(
            ("yellow>1", "4|back", "6|left", "8|right"),
            False,
            True,
            id="pyramid:12.1(2) three balls to cushions",
        ),
        pytest.param(
            ("yellow>1", "4|back", "4|left", "8|right"),
            False,
            False,
            id="pyramid:12.1(2) three cushions but two balls",
        ),
        pytest.param(
            ("yellow>1", "4|back", "6|left", "7/"),
            False,
            True,
            id="pyramid:12.1(3) two cushions and a crossing",
        ),
        pytest.param(
            ("yellow>1", "4|back", "6|left"), False, False, id="pyramid:12.1 two cushions only"
        ),
        pytest.param(
            ("yellow>1", "4|back", "6|left", "yellow/"),
            False,
            False,
            id="pyramid:12.1(3) the cue ball crossing does not count",
        ),
        pytest.param(
            ("yellow>1", "yellow|back", "4|left", "6|right"),
            False,
            False,
            id="pyramid:12.1(2) the cue ball's cushion does not count",
        ),
        pytest.param(
            ("strike:yellow", "4|back", "6|left", "8|right", "yellow>1"),
            False,
            False,
            id="pyramid:12.1 cushions before the contact",
        ),
        pytest.param(("strike:yellow", "yellow|back"), False, False, id="pyramid:12.1 no contact"),
        pytest.param(
            ("yellow>1", "4|back", "6|left", "8|right"),
            True,
            False,
            id="dynamic setting: side cushions only",
        ),
        pytest.param(
            ("yellow>1", "4|left", "6|left-back", "8|right"),
            True,
            True,
            id="dynamic setting: three side cushions",
        ),
    ],
)
def test_legal_break(tokens, side, expected):
    st = state(is_break=True)
    assert P.legal_break(st, S(*tokens), side_cushions_only=side) is expected


@pytest.mark.parametrize(
    "tokens, on_table, warned, expected",
    [
        pytest.param(("yellow>3", "3@back-left"), MID, False, "20(1)", id="pyramid:20(1) pocketed"),
        pytest.param(("yellow>3",), MID, False, None, id="pyramid:20 contact only: foul"),
        pytest.param(
            ("yellow>3", "3|left", "3|back"),
            MID,
            False,
            "20(2а)",
            id="pyramid:20(2а) cushion then another cushion",
        ),
        pytest.param(
            ("yellow>3", "3|left", "3|left"),
            MID,
            False,
            None,
            id="pyramid:20(2а) same cushion twice is not another",
        ),
        pytest.param(
            ("yellow>3", "3|left-front", "3|left-back"),
            MID,
            False,
            None,
            id="pyramid:20(2а) halves of one long cushion",
        ),
        pytest.param(
            ("yellow>3", "yellow|back", "yellow|left"),
            MID,
            False,
            "20(2а)",
            id="pyramid:20(2а) the cue ball itself",
        ),
        pytest.param(
            ("yellow>3", "3|left", "3>5", "5|right"),
            MID,
            False,
            "20(2б)",
            id="pyramid:20(2б) drives a ball to another cushion",
        ),
        pytest.param(
            ("yellow>3", "3|left", "3>5", "5|left"),
            MID,
            False,
            None,
            id="pyramid:20(2б) driven to the same cushion",
        ),
        pytest.param(
            ("yellow>3", "3|left", "3>5"),
            frozen(**{"5": "right"}),
            False,
            "20(2в)",
            id="pyramid:20(2в) touches a ball frozen to another cushion",
        ),
        pytest.param(
            ("yellow>3", "3|left", "3>5"),
            frozen(**{"5": "left"}),
            False,
            None,
            id="pyramid:20(2в) frozen to the same cushion",
        ),
        pytest.param(
            ("yellow>3", "3/", "3|front"),
            MID,
            False,
            "20(3а)",
            id="pyramid:20(3а) centre line then cushion",
        ),
        pytest.param(
            ("yellow>3", "3/", "3>5", "5|front"),
            MID,
            False,
            "20(3б)",
            id="pyramid:20(3б) centre line then drives to cushion",
        ),
        pytest.param(
            ("yellow>3", "3/", "3>5"),
            frozen(**{"5": "front"}),
            False,
            "20(3в)",
            id="pyramid:20(3в) centre line then ball frozen to a cushion",
        ),
        pytest.param(
            ("yellow>3", "3/", "3>5"), MID, False, None, id="pyramid:20(3в) the ball was not frozen"
        ),
        pytest.param(
            ("yellow>3", "3|back", "3/"),
            MID,
            False,
            "20(4а)",
            id="pyramid:20(4а) cushion then centre line",
        ),
        pytest.param(
            ("yellow>3", "3|back", "3>5", "5/"),
            MID,
            False,
            "20(4б)",
            id="pyramid:20(4б) cushion then rolls a ball over",
        ),
        pytest.param(("yellow>3", "3/"), MID, False, None, id="pyramid:20 centre line alone"),
        pytest.param(
            ("strike:yellow", "yellow|left", "yellow>3", "3/"),
            MID,
            False,
            None,
            id="pyramid:20.1 cushion before the contact does not count",
        ),
        pytest.param(
            ("yellow>3", "5|left", "3>5"),
            MID,
            False,
            None,
            id="pyramid:20.1 cushion before the drive: wrong order",
        ),
        pytest.param(
            ("yellow>3", "yellow|right"),
            frozen(**{"3": "left"}),
            False,
            None,
            id="pyramid:20.2 frozen ball, one contact, no warning",
        ),
        pytest.param(
            ("yellow>3", "yellow|right"),
            frozen(**{"3": "left"}),
            True,
            "20.2",
            id="pyramid:20.2 frozen ball, one contact, warned",
        ),
        pytest.param(
            ("yellow>3", "3>yellow", "yellow|right"),
            frozen(**{"3": "left"}),
            False,
            "20.2",
            id="pyramid:20.2 two separate contacts",
        ),
        pytest.param(
            ("yellow>3", "3>yellow", "yellow/"),
            frozen(**{"3": "left"}),
            False,
            "20.2",
            id="pyramid:20.2 two contacts then centre line",
        ),
        pytest.param(
            ("yellow>3", "3>yellow", "yellow|left"),
            frozen(**{"3": "left"}),
            False,
            None,
            id="pyramid:20.2 back to the same cushion",
        ),
    ],
)
def test_completion(tokens, on_table, warned, expected):
    shot = S(*tokens, warned_frozen=True) if warned else S(*tokens)
    st = state(on_table=on_table)
    assert P.completion_pattern(st, shot) == expected
    assert P.shot_completed(st, shot) is (expected is not None)


@pytest.mark.parametrize(
    "x, zone, inside",
    [
        pytest.param(L / 4, "house", False, id="pyramid:11.2 ball on the house line is outside"),
        pytest.param(L / 4 - 1, "house", True, id="pyramid:11.1 just inside the house"),
        pytest.param(L / 4 + 1, "house", False, id="pyramid:11 beyond the house line"),
        pytest.param(
            3 * L / 4, "temp_house", False, id="combined: on the temporary house line is outside"
        ),
        pytest.param(3 * L / 4 + 1, "temp_house", True, id="combined: inside the temporary house"),
    ],
)
def test_house_line(x, zone, inside):
    st = state("pyramid-combined", on_table={"3": (x, 900.0)})
    assert P.in_zone(st, zone, (x, 900.0)) is inside
    assert P.first_object_in_zone(st, S("yellow>3", "3@back-left"), zone) is inside


@pytest.mark.parametrize(
    "tokens, off, replay, restored",
    [
        pytest.param(("yellow>3", "3!"), True, False, (), id="pyramid:23.1 ball off the table"),
        pytest.param(
            ("yellow>3", "3|left", "3|back"), False, False, (), id="pyramid:23.2 no off-table event"
        ),
        pytest.param(
            ("yellow>3", "7~back-left"),
            False,
            False,
            ("7",),
            id="pyramid:22.1 hanging ball falls by itself",
        ),
        pytest.param(
            ("yellow>3", "3>7", "7~back-left"),
            False,
            True,
            (),
            id="pyramid:22.2 hanging ball knocked in",
        ),
    ],
)
def test_balls_off_and_hanging(tokens, off, replay, restored):
    st = state(on_table=MID)
    shot = S(*tokens)
    assert P.ball_off_table(st, shot) is off
    assert P.hanging_replay(st, shot) is replay
    assert P.hanging_restored(st, shot) == restored


@pytest.mark.parametrize(
    "tokens, early, touched",
    [
        pytest.param(("*yellow", "yellow>3"), True, False, id="pyramid:14.2 early strike"),
        pytest.param(("yellow>3", "5^"), False, True, id="pyramid:17 ball touched"),
        pytest.param(("yellow>3",), False, False, id="pyramid:14 clean"),
    ],
)
def test_camera_seen_fouls(tokens, early, touched):
    st = state(on_table=MID)
    assert P.early_strike(st, S(*tokens)) is early
    assert P.ball_touched(st, S(*tokens)) is touched
