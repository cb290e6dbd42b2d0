"""5-pin point values as data (seed 002 rule 8) and their per-match overrides."""

from __future__ import annotations

import pytest
from carom_helpers import down, hit, rules, shot, state

from adjudicator.carom.values import DEFAULT_VALUES, carom_points, skittle_points, values_for

P = pytest.param


@pytest.mark.parametrize(
    ("down_", "points"),
    [
        P((), 0, id="carom:8.1 nothing down = 0"),
        P(("left",), 2, id="carom:8.1 one side skittle = 2"),
        P(("front", "back", "left", "right"), 8, id="carom:8.1 four sides, centre standing = 8"),
        P(("centre",), 8, id="carom:8.1 centre alone = 8"),
        P(("centre", "right"), 6, id="carom:8.1 centre with a side = 4 + 2"),
        P(("centre", "front", "back", "left", "right"), 12, id="carom:8.1 all five = 4 + 8"),
    ],
)
def test_skittle_points_seed(down_, points):
    assert skittle_points(down_) == points


@pytest.mark.parametrize(
    ("cue_red", "kiss", "points"),
    [
        P(False, False, 0, id="carom:8.2 no carom = 0"),
        P(True, False, 4, id="carom:8.2 cue ball on the red = 4"),
        P(False, True, 3, id="carom:8.2 kiss on the red = 3"),
        P(True, True, 4, id="carom:8.2 both: only one counted = 4"),
    ],
)
def test_carom_points(cue_red, kiss, points):
    assert carom_points(cue_red, kiss) == points


@pytest.mark.parametrize(
    ("overrides", "down_", "points"),
    [
        P({"centre_alone": 10}, ("centre",), 10, id="rules.md: current codes centre alone = 10"),
        P(
            {"centre_alone": 10},
            ("centre", "left"),
            6,
            id="rules.md: centre with a side stays 4 + 2",
        ),
        P(
            {"all_five": 16},
            ("centre", "front", "back", "left", "right"),
            16,
            id="rules.md: a fixed all-five value",
        ),
        P(
            {"all_five": 16},
            ("centre", "front"),
            6,
            id="rules.md: all-five value only when all five fall",
        ),
    ],
)
def test_overrides(overrides, down_, points):
    assert skittle_points(down_, values_for(overrides)) == points


def test_settings_override_reaches_the_verdict():
    s = state(carom_values={"centre_alone": 10, "kiss_red": 5})
    v = rules().judge(s, shot(hit("white", "yellow"), hit("yellow", "red"), down("centre", "red")))
    assert v.scored == {"A": 15, "B": 0}


def test_foul_value_override():
    s = state(carom_values={"foul": 3})
    v = rules().judge(s, shot(hit("white", "red")))
    assert v.scored == {"A": 0, "B": 5}  # 3 for the foul + 2 for touching the red (15.3b)


@pytest.mark.parametrize(
    ("overrides", "msg"),
    [
        P({"centre": 10}, "unknown carom value 'centre'", id="bad key"),
        P({"side": -1}, "non-negative integer", id="negative"),
        P({"side": 2.5}, "non-negative integer", id="not an integer"),
    ],
)
def test_bad_overrides(overrides, msg):
    with pytest.raises(ValueError, match=msg):
        values_for(overrides)
    with pytest.raises(ValueError, match=msg):
        state(carom_values=overrides)


def test_defaults_are_the_seed():
    assert (
        DEFAULT_VALUES["side"],
        DEFAULT_VALUES["centre_with_sides"],
        DEFAULT_VALUES["centre_alone"],
    ) == (2, 4, 8)
    assert (DEFAULT_VALUES["carom_red"], DEFAULT_VALUES["kiss_red"], DEFAULT_VALUES["foul"]) == (
        4,
        3,
        2,
    )
