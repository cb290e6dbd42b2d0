"""A 5-pin match replayed on a calibration whose front end was assumed (``video.ends:
"assumed"``): only the shots the ends decide are asked (the break's half, rule 4.2; the
lag's near cushion, rule 3); the rest is judged as usual. carom-match: L = 2840, W = 1420;
the centre line x = 1420; A white, B yellow. Positions table mm."""

from __future__ import annotations

import pytest
from carom_helpers import hit, shot, strike
from test_lag_judged import lag_match

from adjudicator.engine import judge_match
from contract.match import Foul, Match, MatchStart, RefereeInput, VideoInfo


def _match(*shots, ends: bool) -> Match:
    video = VideoInfo(fps=30.0, frames=600, **({"ends": "assumed"} if ends else {}))
    return Match(
        game="carom-5pin", table="carom-match", video=video, shots=shots,
        start=MatchStart(breaker="A"),
    )  # fmt: skip


BREAK_TOP = shot(strike("white", (2500.0, 400.0)), hit("white", "yellow"))  # the top half


@pytest.mark.parametrize(
    ("ends", "asked"),
    [
        (False, False),  # ends read: the break from the top half is a sure foul (4.2)
        (True, True),  # ends assumed: the same break may be from the bottom half: asked
    ],
)
def test_the_break_half_is_asked_only_when_the_ends_were_assumed(ends, asked):
    j, _ = judge_match(_match(BREAK_TOP, ends=ends))
    v = j.shots[0].verdict
    assert Foul.OTHER in v.fouls  # as read: placed outside the bottom half
    assert bool(v.uncertain) is asked
    if asked:
        assert any(Foul.OTHER not in r.fouls for r in v.readings)  # the turned reading
        assert len(j.questions) == 1 and j.questions[0].shot == 1
        keys = [o.key for o in j.questions[0].options]
        assert "ends" in keys
    else:
        assert j.questions == ()


def test_the_answer_settles_the_break_and_the_score_follows():
    ref = RefereeInput(answers={"verdict": "ends"})
    j, _ = judge_match(_match(BREAK_TOP.model_copy(update={"referee": ref}), ends=True))
    v = j.shots[0].verdict
    assert Foul.OTHER not in v.fouls and not v.uncertain
    assert j.questions[0].answer == "ends"


def test_a_shot_after_the_break_is_not_asked_about_the_ends():
    """After the break no half is the rules' own (a foul's half is opposite the offender's
    ball, read in the same frame as every position): the ends decide nothing there."""
    second = shot(hit("yellow", "white"), cue="yellow", index=2)
    first = shot(strike("white", (600.0, 400.0)), hit("white", "yellow"))
    j, _ = judge_match(_match(first, second, ends=True))
    assert j.shots[1].verdict.uncertain is None
    assert all(q.shot != 2 for q in j.questions)


def test_a_lag_whose_winner_turns_with_the_table_is_asked_about_the_calibration():
    m = lag_match("car", 300.0, 2500.0)
    m = m.model_copy(update={"video": VideoInfo(fps=30.0, frames=60, ends="assumed")})
    j, _ = judge_match(m)
    v = j.shots[0].verdict
    assert v.uncertain and "front end" in v.uncertain
    q = j.questions[0]
    assert q.about == "calibration" and [o.key for o in q.options] == ["as_read", "ends"]
    assert {o.verdict.model_extra["lag_winner"] for o in q.options} == {"A", "B"}
    plain, _ = judge_match(lag_match("car", 300.0, 2500.0))
    assert plain.questions == () and plain.shots[0].verdict.uncertain is None
