"""Judge a whole match: every verdict recomputed from the shot list, in order.

``judge_match`` is the interface the service and the synthetic world call. It starts
from ``match.start`` (score, target, breaker) or the game's initial state, so a referee
correction of shot 5 (a foul added, a verdict annulled or replaced, a call) changes every
state after it. Pure: no I/O besides loading the table spec by name once.
"""

from __future__ import annotations

from dataclasses import replace

from adjudicator.base import MatchSettings, MatchState, frozen_map, rules_for
from adjudicator.pyramid.view import view
from contract.match import Match, RefereeInput, Shot

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
    s = settings_for(match, settings)
    rules = rules_for(s.game)
    state = start_state(match, s)
    shots = match.shots
    out: list[Shot] = []
    states: list[MatchState] = []
    premium = s.game in PREMIUM_GAMES
    for i, shot in enumerate(shots):
        judged_in = shot
        if premium:
            judged_in = _infer_take_ball(shot, shots[i + 1] if i + 1 < len(shots) else None)
        verdict = rules.judge(state, judged_in)
        state = rules.apply(state, judged_in, verdict)
        out.append(shot.model_copy(update={"verdict": verdict}))
        states.append(state)
    return tuple(out), tuple(states)


def judge_match(
    match: Match, settings: MatchSettings | None = None
) -> tuple[Match, tuple[MatchState, ...]]:
    """Recompute every verdict of ``match`` and fill ``match.score`` (points of the last
    frame played). Returns the judged match and the state after each shot."""
    s = settings_for(match, settings)
    shots, states = replay_states(match, s)
    final = states[-1] if states else start_state(match, s)
    judged = match.model_copy(
        update={"shots": shots, "score": dict(final.score), "game": type(match.game)(s.game)}
    )
    return judged, states
