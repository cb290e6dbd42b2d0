"""Combined, dynamic and classic pyramid (rules.md), each case citing its rule."""

from __future__ import annotations

import pytest
from pyramid_helpers import L, S, judge, play, state

from contract.match import Foul

MID = {"3": (2000.0, 900.0), "5": (2400.0, 600.0), "7": (1500.0, 1200.0), "yellow": (900.0, 800.0)}
HOUSE_BALL = {"3": (2000.0, 900.0), "9": (400.0, 300.0), "yellow": (900.0, 800.0)}


# ----------------------------------------------------------------- combined / dynamic
@pytest.mark.parametrize(
    "game, tokens, ref, scored, taken, zone",
    [
        pytest.param(
            "pyramid-combined",
            ("yellow>3", "yellow@back-left"),
            {"take_ball": "7"},
            1,
            "7",
            "house",
            id="combined: свояк counts, ball taken, play from the house",
        ),
        pytest.param(
            "pyramid-combined",
            ("yellow>3", "3@back-right", "yellow@back-left"),
            {"take_ball": "5"},
            2,
            "5",
            "house",
            id="combined: object ball and свояк",
        ),
        pytest.param(
            "pyramid-combined",
            ("yellow>3", "yellow@back-left"),
            {},
            1,
            "3",
            "house",
            id="combined: default premium ball is the lowest number",
        ),
        pytest.param(
            "pyramid-dynamic",
            ("yellow>3", "yellow@back-left"),
            {"take_ball": "7"},
            1,
            "7",
            "anywhere",
            id="dynamic: premium stroke from anywhere",
        ),
    ],
)
def test_premium_ball(game, tokens, ref, scored, taken, zone):
    v, st = play(state(game, on_table=MID), S(*tokens, **ref))
    assert v.legal and v.scored == {"A": scored, "B": 0} and v.next == "A"
    assert v.model_extra["taken"] == taken and f"{game.split('-')[1]}:premium" in v.rule_refs
    assert taken in st.shelf["A"] and taken not in st.on_table and "yellow" not in st.on_table
    assert st.premium_pending and st.ball_in_hand == zone and st.score["A"] == scored


@pytest.mark.parametrize(
    "game, zone, tokens, foul",
    [
        pytest.param(
            "pyramid-combined",
            "house",
            ("yellow>9", "9@front-left"),
            True,
            id="combined: from the house only balls beyond the house line",
        ),
        pytest.param(
            "pyramid-combined",
            "house",
            ("yellow>3", "3@back-left"),
            False,
            id="combined: ball beyond the house line",
        ),
        pytest.param(
            "pyramid-dynamic",
            "anywhere",
            ("yellow>9", "9@front-left"),
            False,
            id="dynamic: premium stroke may strike any ball",
        ),
    ],
)
def test_from_hand_restriction(game, zone, tokens, foul):
    st = state(game, on_table=HOUSE_BALL, ball_in_hand=zone)
    v = judge(st, S(*tokens))
    assert (Foul.WRONG_BALL in v.fouls) is foul


def test_ball_on_house_line_may_be_struck_11_2():
    st = state("pyramid-combined", on_table={"9": (L / 4, 300.0)}, ball_in_hand="house")
    assert judge(st, S("yellow>9", "9@front-left")).legal


def test_temporary_house_when_no_ball_beyond():
    """combined (rules.md): no ball beyond the house line: the back end is a temporary
    house through the back spot, and balls inside it may not be struck from it."""
    only_house = {"3": (500.0, 900.0), "5": (700.0, 400.0), "yellow": (900.0, 800.0)}
    v, st = play(
        state("pyramid-combined", on_table=only_house),
        S("yellow>3", "yellow@front-left", take_ball="5"),
    )
    assert st.ball_in_hand == "temp_house"
    inside = state("pyramid-combined", on_table={"3": (3000.0, 900.0)}, ball_in_hand="temp_house")
    assert Foul.WRONG_BALL in judge(inside, S("yellow>3", "3@back-left")).fouls


@pytest.mark.parametrize(
    "game, tokens, fouls",
    [
        pytest.param(
            "pyramid-combined",
            ("strike:yellow", "yellow@back-left"),
            (Foul.NO_CONTACT,),
            id="combined: foul with the cue ball pocketed",
        ),
        pytest.param(
            "pyramid-dynamic",
            ("yellow>3", "3|left", "3|back", "yellow!"),
            (Foul.BALL_OFF_TABLE,),
            id="dynamic: foul with the cue ball off the table",
        ),
        pytest.param(
            "pyramid-classic",
            ("yellow>3", "3@back-left", "yellow@back-right"),
            (Foul.CUE_BALL_POCKETED,),
            id="classic: cue ball pocketed is a foul",
        ),
    ],
)
def test_cue_ball_gone_on_foul_hand_from_house(game, tokens, fouls):
    v, st = play(state(game, on_table=MID), S(*tokens, call=("3", "back-left")))
    assert v.fouls == fouls and v.next == "B" and v.scored == {"A": 0, "B": 1}
    assert st.ball_in_hand == "house" and "yellow" not in st.on_table
    assert all(r.id != "yellow" for r in v.respot)  # 25 note: only object balls re-spotted
    assert st.shelf["A"] == ()


def test_combined_only_yellow():
    v = judge(state("pyramid-combined", on_table=MID), S("3>5", "5@back-left", cue="3"))
    assert Foul.WRONG_BALL in v.fouls and "combined:cue" in v.rule_refs


@pytest.mark.parametrize(
    "setting, fouls, scored",
    [
        pytest.param(
            True,
            (Foul.CUE_BALL_POCKETED,),
            {"A": 0, "B": 1},
            id="dynamic: premium stroke, cue ball pocketed is a foul (default)",
        ),
        pytest.param(
            False, (), {"A": 1, "B": 0}, id="dynamic setting off: the cue ball just does not count"
        ),
    ],
)
def test_dynamic_premium_only_object_ball(setting, fouls, scored):
    st = state(
        "pyramid-dynamic",
        on_table=MID,
        premium_pending=True,
        ball_in_hand="anywhere",
        dynamic_premium_cue_pocket_foul=setting,
    )
    v, nxt = play(st, S("yellow>3", "3@back-left", "yellow@back-right"))
    assert v.fouls == fouls and v.scored == scored
    assert nxt.ball_in_hand == "house" and not nxt.premium_pending


def test_dynamic_premium_object_ball_scores():
    st = state("pyramid-dynamic", on_table=MID, premium_pending=True, ball_in_hand="anywhere")
    v, nxt = play(st, S("yellow>3", "3@back-left"))
    assert v.legal and v.scored == {"A": 1, "B": 0} and not nxt.premium_pending and nxt.turn == "A"


# ----------------------------------------------------------------------------- classic
@pytest.mark.parametrize(
    "tokens, call, scored, respot, nxt",
    [
        pytest.param(
            ("yellow>3", "3@back-left"),
            ("3", "back-left"),
            3,
            (),
            "A",
            id="classic: called ball as called scores its number",
        ),
        pytest.param(
            ("yellow>1", "1@back-left"),
            ("1", "back-left"),
            11,
            (),
            "A",
            id="classic: ball 1 is worth 11",
        ),
        pytest.param(
            ("yellow>3", "3@back-left", "3>5", "5@middle-left"),
            ("3", "back-left"),
            8,
            (),
            "A",
            id="classic: every ball on a made call counts",
        ),
        pytest.param(
            ("yellow>5", "5@back-right"),
            ("3", "back-left"),
            0,
            ("5",),
            "B",
            id="classic: uncalled ball alone is re-spotted",
        ),
        pytest.param(
            ("yellow>3", "3@back-right"),
            ("3", "back-left"),
            0,
            ("3",),
            "B",
            id="classic: called ball in another pocket is re-spotted",
        ),
    ],
)
def test_classic_call(tokens, call, scored, respot, nxt):
    on = {"1": (2000.0, 900.0)} | MID
    v, st = play(state("pyramid-classic", on_table=on), S(*tokens, call=call))
    assert v.legal and v.scored == {"A": scored, "B": 0} and v.next == nxt
    assert tuple(r.id for r in v.respot) == respot
    assert all(b in st.on_table for b in respot)


def test_classic_no_call_scores_and_marks_uncalled():
    v = judge(state("pyramid-classic", on_table=MID), S("yellow>7", "7@back-left"))
    assert v.legal and v.scored == {"A": 7, "B": 0}
    assert any("uncalled" in r["en"].lower() for r in v.reasons)


def test_classic_uncalled_foul_setting():
    st = state("pyramid-classic", on_table=MID, classic_uncalled_foul=True)
    v = judge(st, S("yellow>5", "5@back-right", call=("3", "back-left")))
    assert v.fouls == (Foul.NOT_CALLED,) and v.scored == {"A": 0, "B": 1}


def test_classic_last_ball_bonus_and_71():
    shelves = {"A": tuple(str(i) for i in range(1, 8)), "B": tuple(str(i) for i in range(8, 15))}
    st = state(
        "pyramid-classic",
        on_table={"15": (3000.0, 900.0), "yellow": (900.0, 800.0)},
        shelf=shelves,
        score={"A": 40, "B": 66},
    )
    v, nxt = play(st, S("yellow>15", "15@back-left", call=("15", "back-left")))
    assert v.scored == {"A": 25, "B": 0}  # 15 + 10 for the last ball
    assert any("10" in r["en"] for r in v.reasons) and "classic:last" in v.rule_refs
    assert (
        nxt.score["A"] == 65 and nxt.frame_over and nxt.frame_winner == "B"
    )  # table empty, B leads
    st = state("pyramid-classic", on_table=MID, score={"A": 64, "B": 10})
    v, nxt = play(st, S("yellow>7", "7@back-left", call=("7", "back-left")))
    assert nxt.score["A"] == 71 and nxt.frame_over and nxt.frame_winner == "A"


def test_classic_ball_penalty_deducts_the_ball_value():
    """Older form (rules.md): the offender's last shelf ball goes back; classic scores by
    number, so the offender loses that ball's points; the ball is re-spotted (25.2)."""
    st = state(
        "pyramid-classic",
        on_table=MID,
        penalty="ball",
        shelf={"A": ("2", "12"), "B": ()},
        score={"A": 14, "B": 0},
    )
    v, nxt = play(st, S("strike:yellow", "yellow|left"))
    assert v.scored == {"A": -12, "B": 0} and [r.id for r in v.respot] == ["12"]
    assert nxt.score["A"] == 2 and nxt.shelf["A"] == ("2",) and "12" in nxt.on_table
