"""5-pin carom: valid, no-score and invalid shots, points and fouls (seed 002, rules 5–8,
12, 15), judged through the registered rules. Player A (white) is to move; B has yellow.
Expected points are worked from the rule text by hand (rule 8: side skittle 2, centre
with sides 4, centre alone 8; carom on the red 4, kiss 3; each 15.3 foul 2)."""

from __future__ import annotations

import pytest
from carom_helpers import cushion, down, ev, hit, off, rules, shot, state, strike

from contract.match import Foul

P = pytest.param
W, Y, R = "white", "yellow", "red"

VALID = [
    P([hit(W, Y), down("left", Y)], 2, "carom:5.1", id="carom:5.1 opponent ball knocks a side skittle = 2"),
    P([hit(W, Y), down("left", Y), down("right", Y)], 4, "carom:5.1", id="carom:5.1 two side skittles = 4"),
    P([hit(W, Y), down("centre", Y)], 8, "carom:5.1", id="carom:5.1 opponent ball knocks the centre alone = 8 (8.1)"),
    P([hit(W, Y), down("centre", Y), down("front", Y)], 6, "carom:5.1", id="carom:8.1 centre with one side = 4 + 2"),
    P([hit(W, Y), down("back", Y), down("centre", Y), down("front", Y)], 8, "carom:5.1",
      id="carom:8.1 centre with two sides = 4 + 2 + 2"),
    P([hit(W, Y)] + [down(s, Y) for s in ("centre", "front", "back", "left", "right")], 12, "carom:5.1",
      id="carom:8.1 all five = 4 + 4 x 2"),
    P([hit(W, Y), hit(W, R), down("front", R)], 6, "carom:5.2",
      id="carom:5.2 cue ball on red after opponent ball, red knocks side = 4 + 2"),
    P([hit(W, Y), hit(Y, R), down("back", Y)], 5, "carom:5.3",
      id="carom:5.3 opponent ball touches red then knocks side = 3 + 2"),
    P([hit(W, Y), hit(Y, R), down("centre", R)], 11, "carom:5.3",
      id="carom:5.3 opponent ball moves red, red knocks centre alone = 3 + 8"),
    P([hit(W, Y), hit(W, R), hit(Y, R), down("left", R), down("right", Y)], 8, "carom:5.4",
      id="carom:5.4 cue on red, red hit by opponent ball, skittles = 4 + 2 + 2"),
    P([hit(W, Y), hit(W, R)], 4, "carom:5.5", id="carom:5.5 carom of the cue ball on the red = 4"),
    P([hit(W, Y), hit(Y, R)], 3, "carom:5.6", id="carom:5.6 kiss: opponent ball touches red = 3"),
    P([hit(W, Y), hit(R, Y)], 3, "carom:5.6", id="carom:5.6 kiss listed red-first in the contact = 3"),
    P([hit(W, Y), hit(W, R), hit(Y, R)], 4, "carom:5.7", id="carom:5.7 both caroms, only one counts (8.2) = 4"),
    P([hit(W, Y), cushion(W, "left"), cushion(Y, "back")], 0, "carom:6",
      id="carom:6 only the opponent ball touched: valid, no points"),
    P([hit(W, Y), ev("contact", balls=(Y, "left"))], 0, "carom:6",
      id="carom:12.5 a skittle touched but standing is not knocked"),
    P([hit(W, Y), down("left", Y), down("centre", "left")], 6, "carom:5.1",
      id="carom:12.3 skittle knocked by a falling skittle: credited to the opponent ball"),
    P([hit(W, Y), hit(Y, "right"), down("right", None)], 2, "carom:5.1",
      id="carom:12.3 knocker not given: the last ball seen touching the skittle"),
]  # fmt: skip


@pytest.mark.parametrize(("events", "points", "ref"), VALID)
def test_valid_shots(events, points, ref):
    v = rules().judge(state(), shot(*events))
    assert v.legal and v.fouls == ()
    assert v.scored == {"A": points, "B": 0}
    assert [r for r in v.rule_refs if r.startswith(("carom:5", "carom:6"))] == [ref]  # one clause
    assert v.next == "B"  # rule 2: strokes alternate
    assert v.options == ()


FOULS = [
    P([strike(W)], {}, (Foul.NO_CONTACT,), 2, True, "carom:15.3g",
      id="carom:7.1 cue ball touches nothing = 2 to the opponent"),
    P([strike(W), cushion(W, "back"), cushion(W, "left")], {}, (Foul.NO_CONTACT,), 2, True, "carom:15.3g",
      id="carom:15.3g opponent ball missed after cushions = 2"),
    P([hit(W, R)], {}, (Foul.RED_FIRST,), 4, True, "carom:15.3b", id="carom:15.3b red first = 2 + 2"),
    P([hit(W, R), hit(W, Y), hit(Y, R)], {}, (Foul.RED_FIRST,), 4, True, "carom:15.3b",
      id="carom:15.3b red first then both balls: no carom points beyond the 2 + 2"),
    P([hit(W, R), down("centre", R)], {}, (Foul.RED_FIRST,), 12, True, "carom:15.3b",
      id="carom:7.2 red first, red knocks centre alone = 4 + 8"),
    P([hit(W, R), down("left", W)], {}, (Foul.RED_FIRST,), 6, True, "carom:15.3b",
      id="carom:7.2 red first, cue ball knocks a side = 4 + 2"),
    P([down("front", W), hit(W, Y)], {}, (Foul.SKITTLES_FIRST,), 4, True, "carom:15.3v",
      id="carom:15.3v skittles first = 2 + 2"),
    P([down("front", W), down("centre", "front")], {}, (Foul.SKITTLES_FIRST,), 8, True, "carom:15.3v",
      id="carom:15.3v skittles first, chain, opponent ball never touched = 2 + 4 + 2"),
    P([hit(W, Y), down("left", W)], {}, (Foul.OWN_BALL_SKITTLES,), 2, False, "carom:15.2",
      id="carom:15.2 own ball knocks skittles: only the skittle points, no hand"),
    P([hit(W, Y), hit(W, R), down("left", W)], {}, (Foul.OWN_BALL_SKITTLES,), 6, False, "carom:15.2",
      id="carom:15.2 own ball skittles with a carom: skittles + carom to the opponent"),
    P([hit(W, Y), down("left", W), down("right", Y)], {}, (Foul.OWN_BALL_SKITTLES,), 4, False, "carom:15.2",
      id="carom:7.3 own ball and opponent ball both knock skittles: all to the opponent"),
    P([hit(W, Y), down("front", W), down("centre", "front")], {}, (Foul.OWN_BALL_SKITTLES,), 6, False,
      "carom:15.2", id="carom:12.3 chain started by the own ball: a 15.2 foul, 4 + 2"),
    P([hit(Y, W)], {"cue": Y}, (Foul.WRONG_BALL,), 2, True, "carom:15.3a",
      id="carom:7.4 struck the opponent's ball = 2"),
    P([hit(Y, W), down("left", W)], {"cue": Y}, (Foul.WRONG_BALL,), 4, True, "carom:15.3a",
      id="carom:15.3a wrong ball with skittles = 2 + 2"),
    P([hit(W, Y), off(Y)], {}, (Foul.BALL_OFF_TABLE,), 2, True, "carom:15.3d",
      id="carom:11.2 opponent ball off the table = 2"),
    P([hit(W, Y), off(Y), off(R)], {}, (Foul.BALL_OFF_TABLE,), 2, True, "carom:15.3d",
      id="carom:15.3d two balls off the table: 2 once"),
    P([hit(W, Y), hit(Y, R), off(R)], {}, (Foul.BALL_OFF_TABLE,), 5, True, "carom:15.3d",
      id="carom:7.5 off the table after a kiss carom: 2 + 3 to the opponent"),
    P([hit(W, Y), ev("early_strike", ball=W)], {}, (Foul.EARLY_STRIKE,), 2, True, "carom:15.3e",
      id="carom:15.3e struck before the balls stopped = 2"),
    P([hit(W, Y), ev("ball_touched", ball=R)], {}, (Foul.BALL_TOUCHED,), 2, True, "carom:15.3p",
      id="carom:15.3p a ball touched = 2"),
    P([hit(W, R), off(W)], {}, (Foul.RED_FIRST, Foul.BALL_OFF_TABLE), 6, True, "carom:15.1",
      id="carom:15.1 red first and off the table add up = 4 + 2"),
    P([hit(W, R), down("centre", R), off(R)], {}, (Foul.RED_FIRST, Foul.BALL_OFF_TABLE), 14, True,
      "carom:15.1", id="carom:15.1 red first, centre alone, red off = 4 + 8 + 2"),
    P([hit(Y, R)], {"cue": Y}, (Foul.WRONG_BALL, Foul.RED_FIRST), 6, True, "carom:15.1",
      id="carom:15.1 wrong ball that hits the red first = 2 + 4"),
    P([hit(W, Y), down("left", Y)], {"fouls": (Foul.DOUBLE_HIT,)}, (Foul.DOUBLE_HIT,), 4, True,
      "carom:15.3z", id="carom:15.3z referee double hit: the shot's 2 and the foul's 2 to the opponent"),
    P([hit(W, Y)], {"fouls": (Foul.FOOT, Foul.PUSH)}, (Foul.FOOT, Foul.PUSH), 4, True, "carom:15.1",
      id="carom:15.1 two referee fouls add up = 2 + 2"),
    P([hit(W, Y), down("left", W)], {"fouls": (Foul.FOOT,)}, (Foul.OWN_BALL_SKITTLES, Foul.FOOT), 4, True,
      "carom:15.3m", id="carom:15.1 own ball skittles with a foot foul: 2 + 2 and ball in hand"),
    P([hit(W, R)], {"fouls": (Foul.RED_FIRST,)}, (Foul.RED_FIRST,), 4, True, "carom:15.3b",
      id="carom:15.1 a foul the camera and the referee both saw counts once"),
    P([hit(W, R)], {"annul": True, "fouls": (Foul.FOOT,)}, (Foul.FOOT,), 2, True, "carom:15.3m",
      id="carom:15.3m annulled camera fouls, the referee's foot foul stays = 2"),
]  # fmt: skip


@pytest.mark.parametrize(("events", "kw", "fouls", "points", "hand", "ref"), FOULS)
def test_fouls(events, kw, fouls, points, hand, ref):
    v = rules().judge(state(), shot(*events, **kw))
    assert not v.legal
    assert set(v.fouls) == set(fouls) and len(v.fouls) == len(fouls)
    assert v.scored == {"A": 0, "B": points}
    assert ref in v.rule_refs and "carom:7" in v.rule_refs
    assert v.next == "B"
    assert bool(v.options) is hand
    assert all(r["ru"] and r["en"] for r in v.reasons)


def test_red_first_sentence():
    v = rules().judge(state(), shot(hit(W, R)))
    assert v.rule_refs[:2] == ("carom:15.3b", "carom:7.2")
    assert {"ru": "Фол: первым задет красный шар (п. 15.3б, 7.2)",
            "en": "Foul: the red ball was hit first (rule 15.3b, 7.2)"} in v.reasons  # fmt: skip


def test_annul_without_referee_fouls_is_legal():
    v = rules().judge(state(), shot(hit(W, R), hit(W, Y), annul=True))
    assert v.legal and v.scored == {"A": 0, "B": 0}


def test_removed_skittle_cannot_score():
    """carom:12.7 a skittle taken off (its mark covered) is not counted."""
    from dataclasses import replace

    from adjudicator.base import frozen_map

    s = state()
    s = replace(s, extra=frozen_map({**s.extra, "skittles_removed": ("centre",)}))
    v = rules().judge(s, shot(hit(W, Y), down("centre", Y), down("left", Y)))
    assert v.scored == {"A": 2, "B": 0}


def test_player_b_scores_with_yellow():
    v = rules().judge(state(turn="B"), shot(hit(Y, W), down("left", W), cue=Y))
    assert v.legal and v.scored == {"A": 0, "B": 2} and v.next == "A"


@pytest.mark.parametrize(
    ("events", "msg"),
    [
        P([hit(W, "w1")], "unknown id 'w1'", id="bad: a pyramid ball id"),
        P([down("red", Y)], "skittle_down names a ball", id="bad: a ball as a skittle"),
        P([down("middle", Y)], "unknown id 'middle'", id="bad: unknown skittle"),
    ],
)
def test_bad_ids_one_line(events, msg):
    with pytest.raises(ValueError, match=msg) as e:
        rules().judge(state(), shot(*events))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("events", "cue", "pred", "expected"),
    [
        P([hit(W, R), hit(W, Y)], W, "red_first", True, id="carom:15.3b red before the opponent ball"),
        P([hit(W, Y), hit(W, R)], W, "red_first", False, id="carom:15.3b red after the opponent ball"),
        P([down("front", W), hit(W, Y)], W, "skittles_first", True, id="carom:15.3v knocked before"),
        P([ev("contact", balls=(W, "front")), hit(W, Y)], W, "skittles_first", False,
          id="carom:12.5 a skittle brushed but standing is not skittles first"),
        P([ev("contact", balls=(W, "front")), hit(W, Y)], W, "opponent_ball_first", True,
          id="carom:5 brushing a standing skittle keeps the contact valid"),
        P([hit(W, Y)], W, "valid_no_score", True, id="carom:6 only the opponent ball"),
        P([hit(W, Y), off(R)], W, "valid_no_score", False, id="carom:6 not when a ball leaves the table"),
        P([hit(Y, W)], Y, "wrong_ball", True, id="carom:15.3a the opponent's ball struck"),
        P([hit(R, Y)], R, "wrong_ball", True, id="carom:15.3a the red struck"),
        P([hit(W, Y), down("left", Y)], W, "own_ball_skittles", False, id="carom:15.2 not for the opponent ball"),
        P([hit(W, Y), down("left", Y), down("right", "left")], W, "own_ball_skittles", False,
          id="carom:12.3 a chain from the opponent ball is not the own ball's"),
        P([hit(W, Y), hit(Y, R)], W, "object_ball_carom", True, id="carom:5.6 kiss"),
        P([hit(W, R), hit(Y, R)], W, "object_ball_carom", False, id="carom:5.6 not without the first contact"),
    ],
)  # fmt: skip
def test_predicates(events, cue, pred, expected):
    from adjudicator.carom import facts as F

    p = getattr(F, pred)
    assert p(state(), shot(*events, cue=cue)) is expected
    assert p.ref.startswith("carom:")


def test_pyramid_foul_code_from_the_referee_is_one_line():
    with pytest.raises(ValueError, match="'cue_ball_pocketed' is not a 5-pin carom foul"):
        rules().judge(state(), shot(hit(W, Y), fouls=(Foul.CUE_BALL_POCKETED,)))
