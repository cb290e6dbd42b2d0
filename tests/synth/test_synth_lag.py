"""Lag scenarios (issue 32): two balls struck in one stroke, with the exact lag truth (the
lag event, both strikes, the half-line crossings, rest distances) that the adjudicator
judges as the rules say (pyramid rules 8; 5-pin rules 3)."""

from __future__ import annotations

import pytest

from adjudicator.engine import judge_match
from contract.match import MatchStart
from synth.clip import build_clip
from synth.lag import case, lag_spec
from synth.truth import truth_match


def judged_lag(name: str):
    clip = build_clip(lag_spec(case(name)))
    m = truth_match(clip, judge=False)
    m, _ = judge_match(m.model_copy(update={"start": MatchStart(breaker="A")}))
    (shot,) = m.shots
    return shot, shot.verdict.lag


@pytest.mark.parametrize(
    ("name", "winner", "loser", "says"),
    [
        pytest.param("pyr-clean-40", "B", None, None, id="pyramid:8.1 B nearer by about 40 mm"),
        pytest.param("pyr-cross", "A", "B", "crossed", id="pyramid:8.1 B crosses into A's half"),
        pytest.param("car-red", "A", "B", "red", id="carom:3 B touches the red"),
    ],
)
def test_lag_truth(name, winner, loser, says):
    shot, lag = judged_lag(name)
    lags = [e for e in shot.events if e.type == "lag"]
    assert len(lags) == 1 and lags[0].uncertainty_mm == 0.01
    strikes = [e for e in shot.events if e.type == "strike"]
    assert len(strikes) == 2 and all(e.at is not None for e in strikes)
    assert lag["winner"] == winner and shot.verdict.uncertain is None
    if loser is None:
        assert lag["difference_mm"] == pytest.approx(40.0, abs=1.0)
        assert not lag["losers"]
    else:
        assert lag["losers"] == [loser] and says in lag["balls"][loser]["lost"]["en"]


def test_lag_cases_are_scenarios_by_name():
    from synth.scenarios import scenario

    assert "red" in scenario("lag-car-red").__doc__
    with pytest.raises(ValueError, match="unknown lag case"):
        scenario("lag-nothing")
