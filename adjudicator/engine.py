"""Judge a whole match: every verdict recomputed from the shot list, in order.

``judge_match`` is the interface the service and the synthetic world call. It starts
from ``match.start`` (score, target, breaker) or the game's initial state, so a referee
correction of shot 5 (a foul added, a verdict annulled or replaced, a call) changes every
state after it. Pure: no I/O besides loading the table spec by name once.
"""

from __future__ import annotations

from dataclasses import replace

from adjudicator.asking import Asker
from adjudicator.base import MatchSettings, MatchState, frozen_map, rules_for
from adjudicator.pyramid.view import view
from contract.match import Match, Question, RefereeInput, Shot

PREMIUM_GAMES = ("pyramid-combined", "pyramid-dynamic")


def settings_for(match: Match, settings: MatchSettings | None = None) -> MatchSettings:
    """The settings to judge ``match`` with: the given ones (their game wins over the
    file's) or the defaults for the file's game and table; ``match.start.target`` wins."""
    s = settings or MatchSettings(game=str(match.game), table=match.table)
    if match.start is not None and match.start.target is not None:
        s = replace(s, target=match.start.target)
    return s


def start_state(match: Match, settings: MatchSettings) -> MatchState:
    """The state before the first shot: the game's initial state, then ``match.start``."""
    rules = rules_for(settings.game)
    start = match.start
    state = rules.initial_state(settings, breaker=start.breaker if start else "A")
    if start is not None:
        score = {"A": 0, "B": 0} | {k: int(v) for k, v in start.score.items()}
        state = replace(state, score=frozen_map(score))
    return state


def _infer_take_ball(shot: Shot, nxt: Shot | None) -> Shot:
    """Combined/dynamic: when the referee did not enter the ball taken off after a pocketed
    cue ball, it is the one ball on the table after this shot that is missing from the
    next shot's rest without having fallen or jumped in that shot."""
    if nxt is None or not shot.rest or not nxt.rest:
        return shot
    if shot.referee is not None and (shot.referee.take_ball or shot.referee.verdict):
        return shot
    v = view(shot)
    cue = shot.cue_ball or v.strike or "yellow"
    if cue not in v.pocketed():
        return shot
    nv = view(nxt)
    gone = set(nv.pocketed()) | set(nv.off_table()) | {b for _, b, _ in nv.hanging}
    missing = set(shot.rest) - set(v.pocketed()) - {cue} - set(nxt.rest) - gone
    if len(missing) != 1:
        return shot
    ref = shot.referee or RefereeInput()
    return shot.model_copy(update={"referee": ref.model_copy(update={"take_ball": missing.pop()})})


def replay_states(
    match: Match, settings: MatchSettings | None = None
) -> tuple[tuple[Shot, ...], tuple[MatchState, ...]]:
    """Judge every shot in order: the judged shots and the state after each."""
    shots, states, _ = judge_all(match, settings)
    return shots, states


def ends_assumed(match: Match) -> bool:
    """Whether the video's front end was assumed, not read (``video.ends == "assumed"``,
    written by ``tablemon replay`` from an ambiguous calibration)."""
    extra = (match.video.model_extra or {}) if match.video is not None else {}
    return extra.get("ends") == "assumed"


def rough_calibration(match: Match) -> bool:
    """Whether the video's table was found by its cloth's outline alone
    (``video.calibration == "rough"``, written by ``tablemon replay``): every verdict is
    then asked."""
    extra = (match.video.model_extra or {}) if match.video is not None else {}
    return extra.get("calibration") == "rough"


def judge_all(
    match: Match, settings: MatchSettings | None = None
) -> tuple[tuple[Shot, ...], tuple[MatchState, ...], tuple[Question, ...]]:
    """Judge every shot in order with its doubts (:mod:`adjudicator.asking`): the judged
    shots, the state after each and the questions for the referee (answered ones included,
    with their answers)."""
    s = settings_for(match, settings)
    rules = rules_for(s.game)
    fps = match.video.fps if match.video is not None else 30.0
    asker = Asker(
        rules,
        fps,
        premium=s.game in PREMIUM_GAMES,
        carom=s.game == "carom-5pin",
        infer=_infer_take_ball,
        numbered=s.game == "pyramid-classic",
        ends_assumed=ends_assumed(match),
        rough=rough_calibration(match),
    )
    return asker.run(start_state(match, s), match.shots)


def settled_score(
    shots: tuple[Shot, ...], states: tuple[MatchState, ...], questions: tuple[Question, ...]
) -> tuple[dict[str, int], dict[str, dict[str, dict[str, int]]]]:
    """Contract §11: the score of the last frame counting only settled shots, and for each
    open question what each player gains under each option."""
    final = states[-1]
    score = {"A": 0, "B": 0} | {k: int(v) for k, v in final.score.items()}
    pending: dict[str, dict[str, dict[str, int]]] = {}
    by_index = {sh.index: (sh, st) for sh, st in zip(shots, states, strict=True)}
    for q in questions:
        if q.answer is not None or q.shot not in by_index:
            continue
        shot, after = by_index[q.shot]
        pending[q.id] = {
            o.key: {p: int(o.verdict.scored.get(p, 0)) for p in ("A", "B")}
            for o in q.options
            if o.verdict is not None
        }
        if after.frame_no == final.frame_no and shot.verdict is not None:
            for p in ("A", "B"):
                score[p] -= int(shot.verdict.scored.get(p, 0))
    return score, pending


def judge_match(
    match: Match, settings: MatchSettings | None = None
) -> tuple[Match, tuple[MatchState, ...]]:
    """Recompute every verdict of ``match`` and fill ``match.score`` (points of the last
    frame played, settled shots only), ``questions`` and ``pending`` (contract §11).
    Returns the judged match and the state after each shot."""
    s = settings_for(match, settings)
    shots, states, questions = judge_all(match, s)
    if states:
        score, pending = settled_score(shots, states, questions)
    else:
        score, pending = dict(start_state(match, s).score), {}
    judged = match.model_copy(
        update={
            "shots": shots,
            "score": score,
            "questions": questions,
            "pending": pending,
            "game": type(match.game)(s.game),
        }
    )
    return judged, states
