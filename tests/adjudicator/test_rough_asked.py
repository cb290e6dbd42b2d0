"""A match replayed on a rough frame (the table found by its cloth's outline alone,
``video.calibration: "rough"``): every verdict is asked about the calibration, one tap
("as read") settles it, and the score counts only what is settled. carom-match: L = 2840,
W = 1420; A white, B yellow. Positions table mm."""

from __future__ import annotations

from carom_helpers import hit, shot, strike

from adjudicator.engine import judge_match
from contract.match import Match, MatchStart, RefereeInput, VideoInfo


def _match(*shots, rough: bool) -> Match:
    extra = {"calibration": "rough"} if rough else {}
    return Match(
        game="carom-5pin", table="carom-match", video=VideoInfo(fps=30.0, frames=600, **extra),
        shots=shots, start=MatchStart(breaker="A"),
    )  # fmt: skip


FIRST = shot(strike("white", (600.0, 400.0)), hit("white", "yellow"))
SECOND = shot(hit("yellow", "white"), cue="yellow", index=2)


def test_every_verdict_on_a_rough_frame_is_asked_about_the_calibration():
    sure, _ = judge_match(_match(FIRST, SECOND, rough=False))
    j, _ = judge_match(_match(FIRST, SECOND, rough=True))
    assert [q.shot for q in j.questions] == [1, 2]
    for q, s, plain in zip(j.questions, j.shots, sure.shots, strict=True):
        assert q.about == "calibration" and q.answer is None
        assert "cloth's outline" in s.verdict.uncertain
        assert [o.key for o in q.options] == ["as_read"]
        assert q.options[0].verdict.scored == plain.verdict.scored  # the reading offered
    assert all(s.verdict.uncertain is None for s in sure.shots) and sure.questions == ()


def test_the_referee_confirms_a_rough_verdict_with_one_tap():
    ref = RefereeInput(answers={"calibration": "as_read"})
    j, _ = judge_match(_match(FIRST.model_copy(update={"referee": ref}), SECOND, rough=True))
    assert j.shots[0].verdict.uncertain is None
    assert j.questions[0].answer == "as_read"
    assert j.questions[1].answer is None  # the next shot is still open


def test_a_rough_break_whose_half_the_ends_decide_offers_both_readings():
    """The replay writes a rough frame's front as assumed too: the break's half (rule 4.2)
    is then one more reading in the same question."""
    m = _match(FIRST, rough=True)
    m = m.model_copy(
        update={"video": VideoInfo(fps=30.0, frames=600, calibration="rough", ends="assumed")}
    )
    j, _ = judge_match(m)
    q = j.questions[0]
    assert q.answer is None and "cloth's outline" in q.why
    assert [o.key for o in q.options] == ["as_read", "ends"]
