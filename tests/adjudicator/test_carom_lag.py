"""5-pin lag for the break (seed 002 rule 3). A plays white from y = 410, B yellow from
y = 1010 (the lag line x = 710, 300 mm either side of its spot); both go to the top
cushion and back; the nearer to the bottom cushion (smaller x) wins the choice."""

from __future__ import annotations

from dataclasses import replace

import pytest
from carom_helpers import cushion, down, ev, hit, rules, shot, state, strike

from adjudicator.base import frozen_map

P = pytest.param
W, Y = "white", "yellow"
LAG = ev("lag", balls=(W, Y))
GO = [LAG, strike(W, (710.0, 410.0)), strike(Y, (710.0, 1010.0))]
BACK = [cushion(W, "back"), cushion(Y, "back")]


def lag_shot(*events, rest=None, choice=None):
    rest = rest or {W: (300.0, 400.0), Y: (450.0, 1000.0)}
    return shot(*events, cue=None, rest=rest, choice=choice)


@pytest.mark.parametrize(
    ("events", "rest", "winner"),
    [
        P(GO + BACK, None, "A", id="carom:3 white nearer the bottom cushion: A wins"),
        P(GO + BACK, {W: (500.0, 400.0), Y: (450.0, 1000.0)}, "B", id="carom:3 yellow nearer: B wins"),
        P(GO + BACK, {W: (450.0, 400.0), Y: (450.2, 1000.0)}, "A",
          id="carom:3 0.2 mm apart: too close to call, the nearer is the likely winner (asked)"),
        P(GO + BACK + [cushion(W, "left")], None, "B", id="carom:3 white touches a long cushion: loses"),
        P(GO + BACK + [hit(Y, "red")], {W: (500.0, 400.0), Y: (450.0, 1000.0)}, "A",
          id="carom:3 yellow touches the red: loses though nearer"),
        P(GO + BACK + [down("left", Y)], {W: (500.0, 400.0), Y: (450.0, 1000.0)}, "A",
          id="carom:3 yellow knocks a skittle: loses"),
        P(GO + BACK + [hit(Y, W, at=(1200.0, 600.0))], None, "A",
          id="carom:3 yellow crosses into A's half and hits white: B loses"),
        P(GO + BACK + [hit(Y, W)], None, None, id="carom:3 collision, culprit unknown: repeated"),
        P(GO + BACK + [cushion(W, "right"), hit(Y, "red")], None, None, id="carom:3 both lose: repeated"),
        P([LAG, strike(W), cushion(W, "back"), strike(Y), cushion(Y, "back")], None, None,
          id="carom:3 yellow still when white reached the top: repeated"),
    ],
)  # fmt: skip
def test_lag(events, rest, winner):
    s = state()
    s = replace(s, is_break=True)
    v = rules().judge(s, lag_shot(*events, rest=rest))
    assert v.legal and v.scored == {"A": 0, "B": 0}
    assert v.lag_winner == winner
    assert "carom:3" in v.rule_refs
    s2 = rules().apply(s, lag_shot(*events, rest=rest), v)
    if winner is not None:
        assert s2.breaker == winner and s2.turn == winner and s2.is_break
        assert s2.ball_in_hand == "carom_hand" and s2.extra["hand_half"] == "bottom"
    else:
        assert s2.breaker == s.breaker


def test_late_twice_loses():
    """carom:3 a player who breaks the both-moving rule twice loses the lag."""
    late = [LAG, strike(W), cushion(W, "back"), strike(Y), cushion(Y, "back")]
    r = rules()
    s = replace(state(), is_break=True)
    s = r.apply(s, lag_shot(*late), r.judge(s, lag_shot(*late)))
    assert s.extra["lag_faults"]["B"] == 1
    v = r.judge(s, lag_shot(*late, rest={W: (900.0, 400.0), Y: (300.0, 1000.0)}))
    assert v.lag_winner == "A"


def test_winner_concedes_the_break():
    r = rules()
    s = replace(state(), is_break=True)
    sh = lag_shot(*GO, *BACK, choice="concede")
    v = r.judge(s, sh)
    assert v.lag_winner == "A" and v.next == "B"
    s2 = r.apply(s, sh, v)
    assert s2.breaker == "B" and s2.cue_ball == "yellow"
    assert s2.on_table["white"] == (2740.0, 710.0)  # the non-breaker's ball on the top spot (4.1b)


def test_lag_only_before_a_break():
    with pytest.raises(ValueError, match="only before a frame's break"):
        rules().judge(state(), lag_shot(*GO, *BACK))


def test_lag_needs_rest():
    s = replace(state(), is_break=True)
    with pytest.raises(ValueError, match="rest position of 'yellow'"):
        rules().judge(s, lag_shot(*GO, *BACK, rest={W: (300.0, 400.0), Y: None}))


def test_lag_faults_start_at_zero():
    s = rules().initial_state(state().settings)
    assert s.extra["lag_faults"] == frozen_map({"A": 0, "B": 0})
