"""Free pyramid and the general rules' verdicts: fouls, penalties (27), options (7.4, 003
12.2), re-spots (21, 23, 25), hanging balls (22), interference (26), turn order (7)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pyramid_helpers import S, break_state, judge, play, state

from adjudicator.base import frozen_map
from adjudicator.pyramid.geometry import rack_positions, table_for
from contract.match import Foul, Verdict

MID = {"3": (2000.0, 900.0), "5": (2400.0, 600.0), "7": (1500.0, 1200.0), "yellow": (900.0, 800.0)}
BACK = (2662.5, 887.5)


@pytest.mark.parametrize(
    "tokens, cue, scored, nxt, pocketed",
    [
        pytest.param(
            ("yellow>3", "3@back-left"),
            None,
            1,
            "A",
            ("3",),
            id="pyramid:21.1 ball pocketed: +1, plays on (7.1)",
        ),
        pytest.param(
            ("3>5", "3@middle-left"),
            "3",
            1,
            "A",
            ("3",),
            id="free: свояк counts (any ball is the cue ball)",
        ),
        pytest.param(
            ("5>3", "3@back-left", "5@back-right"),
            "5",
            2,
            "A",
            ("3", "5"),
            id="free: object ball and свояк both count",
        ),
        pytest.param(
            ("yellow>3", "3|left", "3|back"),
            None,
            0,
            "B",
            (),
            id="pyramid:7.2 nothing pocketed: turn passes",
        ),
    ],
)
def test_free_legal(tokens, cue, scored, nxt, pocketed):
    v = judge(state(on_table=MID), S(*tokens, cue=cue))
    assert v.legal and v.fouls == ()
    assert v.scored == {"A": scored, "B": 0}
    assert v.next == nxt and v.pocketed == pocketed
    assert "pyramid:20" in v.rule_refs


@pytest.mark.parametrize(
    "tokens, ref, fouls, clause",
    [
        pytest.param(
            ("strike:yellow", "yellow|left"),
            {},
            (Foul.NO_CONTACT,),
            "pyramid:6.2",
            id="pyramid:6.2 no contact",
        ),
        pytest.param(
            ("yellow>3",), {}, (Foul.INCOMPLETE_SHOT,), "pyramid:20", id="pyramid:20 not completed"
        ),
        pytest.param(
            ("yellow>3", "3|left", "3|back", "5!"),
            {},
            (Foul.BALL_OFF_TABLE,),
            "pyramid:23.3",
            id="pyramid:23.3 ball off the table",
        ),
        pytest.param(
            ("*yellow", "yellow>3", "3@back-left"),
            {},
            (Foul.EARLY_STRIKE,),
            "pyramid:14.2",
            id="pyramid:14.2 early strike",
        ),
        pytest.param(
            ("yellow>3", "3@back-left", "7^"),
            {},
            (Foul.BALL_TOUCHED,),
            "pyramid:17",
            id="pyramid:17 ball touched",
        ),
        pytest.param(
            ("yellow>3", "3@back-left"),
            {"fouls": (Foul.FOOT,)},
            (Foul.FOOT,),
            "pyramid:16",
            id="pyramid:16 referee: no foot on the floor",
        ),
        pytest.param(
            ("yellow>3", "3@back-left"),
            {"fouls": (Foul.DOUBLE_HIT,)},
            (Foul.DOUBLE_HIT,),
            "pyramid:18",
            id="pyramid:18 referee: double hit",
        ),
        pytest.param(
            ("yellow>3", "3@back-left"),
            {"fouls": (Foul.PUSH,)},
            (Foul.PUSH,),
            "pyramid:19",
            id="pyramid:19 referee: push",
        ),
    ],
)
def test_fouls_cited(tokens, ref, fouls, clause):
    v = judge(state(on_table=MID), S(*tokens, **ref))
    assert not v.legal and v.fouls == fouls
    assert clause in v.rule_refs and "pyramid:27.2" in v.rule_refs
    assert v.scored == {"A": 0, "B": 1} and v.next == "B"
    assert v.options == ("play", "hand_back")
    assert v.reasons[0]["ru"].startswith("Фол: ") and clause.split(":")[1] in v.reasons[0]["ru"]
    assert v.reasons[0]["en"].startswith("Foul: ")


def test_reason_sentence_6_2():
    v = judge(state(on_table=MID), S("strike:yellow", "yellow|left"))
    assert v.reasons[0] == {
        "ru": "Фол: биток не коснулся прицельного шара (п. 6.2)",
        "en": "Foul: the cue ball touched no object ball (rule 6.2)",
    }


def test_many_fouls_one_penalty_27_2():
    """pyramid:27.2: no contact, a ball off the table and a referee foul: one penalty."""
    v = judge(state(on_table=MID), S("strike:yellow", "yellow!", "*yellow", fouls=(Foul.FOOT,)))
    assert set(v.fouls) == {Foul.NO_CONTACT, Foul.BALL_OFF_TABLE, Foul.EARLY_STRIKE, Foul.FOOT}
    assert v.scored == {"A": 0, "B": 1}


@pytest.mark.parametrize(
    "tokens, respotted",
    [
        pytest.param(
            ("yellow>3", "3@back-left", "yellow!"),
            ("3", "yellow"),
            id="pyramid:21.3+23.4 foul: pocketed and jumped balls re-spotted",
        ),
        pytest.param(
            ("strike:yellow", "yellow@back-left"),
            ("yellow",),
            id="pyramid:25 note: free re-spots the cue ball too",
        ),
    ],
)
def test_foul_respots(tokens, respotted):
    st = state(on_table={k: v for k, v in MID.items() if k != "3"} | {"3": (3400.0, 100.0)})
    v, nxt = play(st, S(*tokens))
    assert tuple(r.id for r in v.respot) == respotted
    assert v.respot[0].at == BACK  # the first on the back spot, the rest behind it
    assert all(b in nxt.on_table for b in respotted)
    assert nxt.shelf["A"] == ()


@pytest.mark.parametrize(
    "shelf, owed_before, scored, respot, owed_after",
    [
        pytest.param(
            ("3", "5"),
            0,
            {"A": -1, "B": 0},
            ("5",),
            0,
            id="penalty ball form: last shelf ball back on the table",
        ),
        pytest.param((), 0, {"A": 0, "B": 0}, (), 1, id="penalty ball form: empty shelf owes one"),
    ],
)
def test_penalty_ball_form(shelf, owed_before, scored, respot, owed_after):
    st = state(
        on_table=MID, penalty="ball", shelf={"A": shelf, "B": ()}, score={"A": len(shelf), "B": 0}
    )
    v, nxt = play(st, S("strike:yellow", "yellow|left"))
    assert v.scored == scored
    assert tuple(r.id for r in v.respot) == respot
    assert nxt.extra["owed"]["A"] == owed_after
    assert nxt.shelf["A"] == shelf[: len(shelf) - len(respot)]


def test_penalty_ball_debt_paid_with_next_ball():
    st = state(on_table=MID, penalty="ball")
    _, st = play(st, S("strike:yellow", "yellow|left"))  # A owes one
    st = replace(st, turn="A", options=())
    v, st = play(st, S("yellow>3", "3@back-left"))
    assert v.scored["A"] == 0 and [r.id for r in v.respot] == ["3"]
    assert st.extra["owed"]["A"] == 0 and st.shelf["A"] == ()


@pytest.mark.parametrize(
    "choice, nxt",
    [
        pytest.param(None, "B", id="pyramid:7.4 default: opponent plays on"),
        pytest.param("play", "B", id="pyramid:7.4 opponent plays from the position"),
        pytest.param("hand_back", "A", id="pyramid:7.4 opponent hands the turn back"),
    ],
)
def test_options_after_foul(choice, nxt):
    ref = {"choice": choice} if choice else {}
    v, st = play(state(on_table=MID), S("yellow>3", **ref))
    assert v.next == "B" and v.options == ("play", "hand_back")  # contract: before the option
    assert st.turn == nxt and st.options == ("play", "hand_back")


@pytest.mark.parametrize(
    "choice, nxt, rerack",
    [
        pytest.param("play", "B", False, id="pyramid:12.2(1) accept the position"),
        pytest.param("hand_back", "A", False, id="pyramid:12.2(2) make the offender play on"),
        pytest.param("rerack", "B", True, id="pyramid:12.2(3) re-rack and break himself"),
        pytest.param("rebreak", "A", True, id="pyramid:12.2(4) re-rack, the offender breaks again"),
    ],
)
def test_illegal_break_options(choice, nxt, rerack):
    v, st = play(break_state(), S("yellow>1", "4|back", choice=choice))
    assert v.fouls == (Foul.ILLEGAL_BREAK,) and "pyramid:12.1" in v.rule_refs
    assert v.options == ("play", "hand_back", "rerack", "rebreak")
    assert v.next == "B" and st.turn == nxt
    assert st.is_break is rerack
    if rerack:
        assert dict(st.on_table) == rack_positions(
            table_for("pyramid-12ft"), [str(i) for i in range(1, 16)]
        )
        assert st.ball_in_hand == "house"


def test_break_must_use_yellow_11_2():
    v = judge(break_state(), S("3>1", "5@back-left", cue="3"))
    assert Foul.WRONG_BALL in v.fouls and "pyramid:11.2" in v.rule_refs


def test_legal_break_then_any_ball():
    v, st = play(break_state(), S("yellow>1", "4|back", "6|left", "8|right"))
    assert v.legal and "pyramid:12.1" in v.rule_refs and st.is_break is False
    assert st.ball_in_hand is None and st.cue_ball is None


@pytest.mark.parametrize(
    "player, options, offender, foul",
    [
        pytest.param("A", (), None, False, id="pyramid:7 in turn"),
        pytest.param("B", (), None, True, id="pyramid:7.3 out of turn"),
        pytest.param(
            "B",
            ("play", "hand_back"),
            "B",
            False,
            id="pyramid:7.4 turn handed back to the offender",
        ),
    ],
)
def test_out_of_turn(player, options, offender, foul):
    st = state(
        on_table=MID,
        options=options,
        extra=frozen_map({"owed": {"A": 0, "B": 0}, "offender": offender}),
    )
    v = judge(st, S("yellow>3", "3@back-left", player=player))
    assert (Foul.OTHER in v.fouls) is foul
    assert ("pyramid:7.3" in v.rule_refs) is foul


def test_referee_annul_verdict_restore():
    st = state(on_table=MID)
    v = judge(st, S("yellow>3", annul=True))
    assert v.legal and v.next == "B"  # the camera's incomplete_shot dropped
    v = judge(st, S("yellow>3", annul=True, fouls=(Foul.PUSH,)))
    assert v.fouls == (Foul.PUSH,)
    given = Verdict(legal=True, scored={"A": 3, "B": 0}, next="A", rule_refs=("referee",))
    v, nxt = play(st, S("strike:yellow", verdict=given))
    assert v == given and nxt.score["A"] == 3
    v, nxt = play(st, S("yellow>3", "3@back-left", rest={"yellow": (10.0, 10.0)}, restore=True))
    assert v.legal and v.scored == {"A": 0, "B": 0} and "pyramid:26.1" in v.rule_refs
    assert dict(nxt.on_table) == MID and nxt.turn == "A"


def test_hanging_ball_22():
    st = state(on_table=MID)
    v, nxt = play(st, S("yellow>3", "3|left", "3|back", "7~back-left"))
    assert v.legal and [(r.id, r.at) for r in v.respot] == [("7", MID["7"])]
    assert nxt.on_table["7"] == MID["7"] and nxt.score["A"] == 0
    v, nxt = play(st, S("yellow>3", "3>7", "7~back-left", "3@back-right"))
    assert "pyramid:22.2" in v.rule_refs and v.scored == {"A": 0, "B": 0} and v.next == "A"
    assert dict(nxt.on_table) == MID


@pytest.mark.parametrize(
    "setting, over",
    [
        pytest.param(False, False, id="three fouls: off by default (uncertain)"),
        pytest.param(True, True, id="three fouls setting: frame lost"),
    ],
)
def test_three_fouls(setting, over):
    st = state(on_table=MID, three_fouls_lose=setting, consecutive_fouls={"A": 2, "B": 0})
    v, nxt = play(st, S("strike:yellow", "yellow|left"))
    assert nxt.frame_over is over
    if over:
        assert nxt.frame_winner == "B"


def test_frame_to_8_and_alternate_break_14():
    st = state(on_table=MID, score={"A": 7, "B": 3}, race_to=2)
    v, st = play(st, S("yellow>3", "3@back-left"))
    assert st.frame_over and st.frame_winner == "A" and st.frames["A"] == 1 and not st.match_over
    v, st2 = play(st, S("yellow>1", "4|back", "6|left", "8|right", player="B"))
    assert v.legal and st2.frame_no == 2 and st2.breaker == "B"  # 003 13: alternate breaks
    assert st2.score == {"A": 0, "B": 0}


def test_interference_positions_lost_26_2():
    """pyramid:26.2: positions cannot be restored: the balls left go into a (partial)
    pyramid, the yellow into the house; the score stands."""
    st = state(on_table={}, shelf={"A": ("1", "2"), "B": ("3",)}, score={"A": 2, "B": 1})
    v, nxt = play(st, S("yellow>5", "5@back-left", restore=True))
    assert "pyramid:26.2" in v.rule_refs and v.scored == {"A": 0, "B": 0}
    assert sorted(nxt.on_table, key=int) == [str(i) for i in range(4, 16)]
    assert nxt.is_break and nxt.ball_in_hand == "house" and nxt.score == {"A": 2, "B": 1}


def test_referee_ends_frame_any_verdict():
    given = Verdict(legal=True, next="B")
    _, nxt = play(state(on_table=MID), S("yellow>3", verdict=given, end_frame="B"))
    assert nxt.frame_over and nxt.frame_winner == "B"
    _, nxt = play(state(on_table=MID), S("yellow>3", end_frame="A"))
    assert nxt.frame_over and nxt.frame_winner == "A"


@pytest.mark.parametrize(
    "x, noted",
    [
        pytest.param(800.0, False, id="pyramid:11.3 cue ball placed in the house"),
        pytest.param(
            3550 / 4, True, id="pyramid:11.3 cue ball on the house line: unwarned, no foul"
        ),
    ],
)
def test_cue_ball_placed_outside_house(x, noted):
    shot = S("yellow>1", "4|back", "6|left", "8|right")
    ev = list(shot.events)
    ev[0] = ev[0].model_copy(update={"at": (x, 900.0)})
    shot = shot.model_copy(update={"events": tuple(ev)})
    v = judge(break_state(), shot)
    assert v.legal
    assert ("(rule 11.3)" in " ".join(r["en"] for r in v.reasons)) is noted
