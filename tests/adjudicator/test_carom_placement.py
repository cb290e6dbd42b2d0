"""5-pin ball in hand (rule 13), balls off the table (11), skittles set up again (12).
Table carom-match: L = 2840, W = 1420, ball 61.5 mm; spots bottom (100, 710), red
(2130, 710), top (2740, 710); skittle marks around (1420, 710), d = 72 mm."""

from __future__ import annotations

import pytest
from carom_helpers import REST, down, hit, off, play, rules, shot, state, strike

from adjudicator.carom.placement import hand_half, in_half, off_table_spots, respot_offender
from adjudicator.carom.skittles import skittle_plan
from contract.match import Foul
from contract.tables import load_table

P = pytest.param
T = load_table("carom-match")
L2, R = 1420.0, 61.5 / 2
BOTTOM, RED, TOP = (100.0, 710.0), (2130.0, 710.0), (2740.0, 710.0)


@pytest.mark.parametrize(
    ("offender", "half"),
    [
        P(
            (600.0, 300.0),
            "top",
            id="carom:13.2 offender in the bottom half: ball in hand in the top half",
        ),
        P((2000.0, 300.0), "bottom", id="carom:13.2 offender in the top half: bottom half"),
        P((L2, 300.0), "bottom", id="carom:13.4 offender exactly on the centre line: bottom half"),
        P((L2 + 5, 300.0), "bottom", id="carom:13.2 offender just past the line: bottom half"),
        P((L2 - 5, 300.0), "top", id="carom:13.2 offender just before the line: top half"),
    ],
)
def test_hand_half(offender, half):
    assert hand_half(offender, T) == half


@pytest.mark.parametrize(
    ("at", "half", "ok"),
    [
        P(
            (L2 - R, 500.0),
            "bottom",
            True,
            id="carom:13.3 touching the centre line from below: allowed",
        ),
        P(
            (L2 - R + 1, 500.0),
            "bottom",
            False,
            id="carom:13.3 part of the ball over the centre line",
        ),
        P((L2 + R, 500.0), "top", True, id="carom:13.3 top half touching the line"),
        P((800.0, 500.0), "top", False, id="carom:13.3 placed in the wrong half"),
        P((800.0, 10.0), "bottom", False, id="carom:13.3 off the playing surface"),
        P((600.0, 730.0), "bottom", False, id="carom:13.3 on top of another ball"),
    ],
)
def test_in_half(at, half, ok):
    assert in_half(at, half, T, [(600.0, 700.0)]) is ok


@pytest.mark.parametrize(
    ("on_table", "spot"),
    [
        P(
            {"white": (600.0, 700.0), "red": RED},
            TOP,
            id="carom:13.5 offender's ball to the top spot",
        ),
        P(
            {"white": (600.0, 700.0), "red": (2730.0, 700.0)},
            BOTTOM,
            id="carom:13.5 red on the top spot: bottom spot",
        ),
    ],
)
def test_respot_offender(on_table, spot):
    assert respot_offender(on_table, "white", T) == spot


@pytest.mark.parametrize(
    ("off_", "on_table", "expected"),
    [
        P(("red",), {"white": (600.0, 700.0), "yellow": (1800.0, 400.0)}, {"red": RED},
          id="carom:11.3c red back on its spot"),
        P(("red",), {"white": (2140.0, 720.0), "yellow": (1800.0, 400.0)}, {"red": TOP},
          id="carom:11.3c red spot covered: the next free spot"),
        P(("white",), {"yellow": (2000.0, 400.0), "red": RED}, {"white": BOTTOM},
          id="carom:11.3a offender's ball to the spot opposite the incoming ball (top half -> bottom)"),
        P(("white",), {"yellow": (900.0, 400.0), "red": RED}, {"white": TOP},
          id="carom:11.3a incoming ball in the bottom half -> top spot"),
        P(("white",), {"yellow": (900.0, 400.0), "red": (2740.0, 700.0)}, {"white": RED},
          id="carom:11.3a top spot covered by the red: the red's spot"),
        P(("yellow",), {"white": (600.0, 700.0), "red": RED}, {},
          id="carom:11.3b opponent's ball off: no spot, it is played from hand"),
    ],
)  # fmt: skip
def test_off_table_spots(off_, on_table, expected):
    assert off_table_spots(off_, on_table, "white", "yellow", T) == expected


MARKS = T.skittle_spots


@pytest.mark.parametrize(
    ("balls", "knocked", "removed_before", "rest", "respot", "removed"),
    [
        P(REST, ("left", "centre"), (), {}, ("centre", "left"), (), id="carom:12 knocked skittles set up again"),
        P({**REST, "red": (1420.0, 680.0)}, ("left", "centre"), (), {}, ("left",), ("centre",),
          id="carom:12.7 mark covered by a ball: that skittle stays off"),
        P(REST, (), ("centre",), {}, ("centre",), (), id="carom:12.7 mark freed: the skittle is set up"),
        P(REST, (), (), {"back": (1495.0, 710.0)}, ("back",), (), id="carom:12.4 moved 3 mm, standing: put back"),
        P(REST, (), (), {"back": (1493.0, 710.0)}, (), (), id="carom:12.4 within 2 mm: untouched"),
    ],
)  # fmt: skip
def test_skittle_plan(balls, knocked, removed_before, rest, respot, removed):
    rs, rm = skittle_plan(T, balls, knocked, removed_before, rest)
    assert tuple(r.id for r in rs) == respot
    assert all(tuple(r.at) == MARKS[r.id] for r in rs)
    assert rm == removed


def test_hand_after_foul_in_state():
    """carom:13.1 after a 15.3 foul the opponent's ball is in hand, opposite the offender."""
    s = play(state(), shot(hit("white", "red")))
    assert s.ball_in_hand == "carom_hand" and s.turn == "B" and s.cue_ball == "yellow"
    assert s.extra["hand_half"] == "top"  # white rests at x = 600
    assert "yellow" not in s.on_table  # picked up by the referee (13.2)


def test_no_hand_after_own_ball_skittles():
    """carom:13.1 no ball in hand after the 15.2 foul."""
    s = play(state(), shot(hit("white", "yellow"), down("left", "white")))
    assert s.ball_in_hand is None and s.extra["hand_half"] is None
    assert s.score == {"A": 0, "B": 2}


@pytest.mark.parametrize(
    ("at", "choice", "misplaced"),
    [
        P((2000.0, 400.0), None, False, id="carom:13.3 placed in the top half as given"),
        P((1000.0, 400.0), None, True, id="carom:13.3 placed in the wrong half: foul"),
        P(
            (1000.0, 400.0),
            "respot_offender",
            False,
            id="carom:13.5 offender's ball to the top spot: bottom half",
        ),
        P(None, None, False, id="carom:13.3 no strike position: nothing assumed"),
    ],
)
def test_ball_in_hand_placement(at, choice, misplaced):
    r = rules()
    s = play(state(), shot(hit("white", "red")))
    v = r.judge(s, shot(strike("yellow", at), hit("yellow", "white"), cue="yellow", choice=choice))
    assert (Foul.OTHER in v.fouls) is misplaced
    assert ("carom:13.3" in v.rule_refs) is misplaced


def test_respot_offender_moves_the_ball():
    r = rules()
    s = play(state(), shot(hit("white", "red")))
    sh = shot(strike("yellow", (1000.0, 400.0)), hit("yellow", "white"), cue="yellow",
              choice="respot_offender", rest={"white": None})  # fmt: skip
    s2 = r.apply(s, sh, r.judge(s, sh))
    assert s2.on_table["white"] == TOP


def test_off_table_respots_in_verdict():
    v = rules().judge(
        state(), shot(hit("white", "yellow"), hit("yellow", "red"), off("red"), rest={"red": None})
    )
    assert [(r.id, tuple(r.at)) for r in v.respot] == [("red", RED)]
    assert v.hand_half == "top"


def test_offender_ball_off_the_table_is_spotted():
    """carom:11.3a white leaves the table; yellow (in the top half) is B's ball in hand, so
    white goes to the bottom spot and B plays from hand in the top half."""
    r = rules()
    s = state()
    sh = shot(hit("white", "yellow"), off("white"), rest={"white": None})
    v = r.judge(s, sh)
    assert v.fouls == (Foul.BALL_OFF_TABLE,) and v.scored == {"A": 0, "B": 2}
    assert [(x.id, tuple(x.at)) for x in v.respot] == [("white", BOTTOM)]
    s2 = r.apply(s, sh, v)
    assert s2.on_table["white"] == BOTTOM and "yellow" not in s2.on_table
    assert s2.extra["hand_half"] == "top"


def test_offender_on_the_centre_line_through_the_state():
    """carom:13.4 the offender's ball rests exactly on the centre line: bottom half."""
    s = play(state(), shot(hit("white", "red"), rest={"white": (1420.0, 200.0)}))
    assert s.extra["hand_half"] == "bottom"


def test_covered_mark_keeps_the_skittle_off_until_free():
    """carom:12.7 yellow stops on the centre mark: the centre skittle is off, cannot score,
    and is set up again once the mark is free."""
    r = rules()
    s = play(
        state(),
        shot(hit("white", "yellow"), down("centre", "yellow"), rest={"yellow": (1420.0, 700.0)}),
    )
    assert s.extra["skittles_removed"] == ("centre",)
    sh = shot(hit("yellow", "white"), down("centre", "white"), down("left", "white"), cue="yellow",
              rest={"yellow": (1800.0, 400.0)})  # fmt: skip
    v = r.judge(s, sh)
    assert v.scored == {"A": 0, "B": 2}  # 5.1: white (B's object ball) knocks the left; centre off
    assert ("centre", MARKS["centre"]) in [(x.id, tuple(x.at)) for x in v.respot]
    assert r.apply(s, sh, v).extra["skittles_removed"] == ()
