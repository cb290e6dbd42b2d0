"""The next match state from a shot and its verdict (any verdict: ours or the referee's).

Reads the verdict's contract fields (``scored``, ``pocketed``, ``next``, ``respot``,
``legal``, ``options``) and, where present, the extensions that
:mod:`adjudicator.pyramid.rules` writes (``shelved``, ``taken``, ``ball_in_hand``,
``premium``, ``owed``, ``rerack``, ``replay``, ``frame_over``, ``winner``). Positions in
table mm.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from adjudicator.base import MatchState, Player, frozen_map, other
from adjudicator.pyramid import predicates as P
from adjudicator.pyramid.geometry import OBJECT_BALLS, rack_positions, table_for
from adjudicator.pyramid.view import view
from contract.match import Shot, Verdict


class Rules(Protocol):
    """What applying a verdict reads of a discipline's rules
    (:class:`adjudicator.pyramid.rules.PyramidRules`, which calls :func:`apply_verdict`)."""

    @property
    def any_cue_ball(self) -> bool: ...

    def ready(self, state: MatchState) -> MatchState: ...

    def frame_target(self, state: MatchState) -> int: ...


def _ext(verdict: Verdict, key: str, default=None):
    return (verdict.__pydantic_extra__ or {}).get(key, default)


def apply_verdict(rules: Rules, state: MatchState, shot: Shot, verdict: Verdict) -> MatchState:
    """Score, shelves, balls on the table, turn, ball in hand, frame and match end."""
    state = rules.ready(state)
    striker: Player = shot.player or state.turn
    n = state.shot_no + 1
    if _ext(verdict, "lag") is not None:  # rule 8: the lag decides who breaks, nothing else
        won = _ext(verdict, "lag_winner") is not None
        turn = verdict.next if won else state.turn
        return replace(state, shot_no=n, turn=turn, breaker=turn, last_verdict=verdict)
    if _ext(verdict, "replay"):  # 22.2 / 26.1: balls back where they were, same turn
        if _ext(verdict, "rerack"):  # 26.2: positions lost: (partial) pyramid, yellow in hand
            on_shelf = {b for s in state.shelf.values() for b in s}
            ids = [b for b in OBJECT_BALLS if b not in on_shelf]
            table = rack_positions(table_for(state.settings.table), ids)
            return replace(
                state,
                shot_no=n,
                turn=verdict.next,
                last_verdict=verdict,
                on_table=frozen_map(table),
                ball_in_hand="house",
                is_break=True,
                premium_pending=False,
                options=(),
            )
        return replace(state, shot_no=n, turn=verdict.next, last_verdict=verdict)
    cue = P.cue_of(state, shot)
    v = view(shot)
    taken = _ext(verdict, "taken")
    shelved = _ext(verdict, "shelved")
    if shelved is None:  # a verdict from outside: the pocketed balls, minus re-spots
        spotted = {r.id for r in verdict.respot}
        shelved = [b for b in verdict.pocketed if b not in spotted] if verdict.legal else []
        if not rules.any_cue_ball:
            shelved = [b for b in shelved if b != cue]
    # balls on the table at rest
    table = dict(shot.rest) if shot.rest else state.on_table.copy()
    for b in (*verdict.pocketed, *v.off_table(), *(b for _, b, _ in v.hanging)):
        table.pop(b, None)
    if taken:
        table.pop(taken, None)
    for r in verdict.respot:
        table[r.id] = tuple(r.at)
    # shelves: this shot's balls on, re-spotted shelf balls (penalty, debt) off
    back = {r.id for r in verdict.respot}
    shelf = {p: tuple(b for b in state.shelf.get(p, ()) if b not in back) for p in ("A", "B")}
    shelf[striker] = shelf[striker] + tuple(shelved)
    score = {p: state.score.get(p, 0) + verdict.scored.get(p, 0) for p in ("A", "B")}
    owed = state.extra.get("owed", {"A": 0, "B": 0}).copy()
    for p, d in (_ext(verdict, "owed") or {}).items():
        owed[p] = owed.get(p, 0) + d
    fouls = state.consecutive_fouls.copy()
    fouls[striker] = 0 if verdict.legal else fouls.get(striker, 0) + 1
    hand = _ext(verdict, "ball_in_hand")
    if hand is None and not verdict.legal and not rules.any_cue_ball and cue not in table:
        hand = "house"  # an outside verdict on a foul that took the cue ball away
    is_break = False
    if _ext(verdict, "rerack"):  # 003 12.2 (3)/(4): re-rack the balls left (partial, 8)
        ids = sorted((b for b in table if b != P.BREAK_BALL), key=_num)
        table = rack_positions(table_for(state.settings.table), ids)
        hand, is_break = "house", True
    if hand in ("house", "temp_house"):
        table.pop(P.BREAK_BALL, None)
    turn = verdict.next
    choice = shot.referee.choice if shot.referee is not None else None
    if not verdict.legal and choice in ("hand_back", "rebreak") and choice in verdict.options:
        turn = striker  # 7.4 / 003 12.2 (2), (4): the opponent makes the offender play
    nxt = replace(
        state,
        shot_no=n,
        score=frozen_map(score),
        shelf=frozen_map(shelf),
        on_table=frozen_map(table),
        turn=turn,
        is_break=is_break,
        ball_in_hand=hand,
        cue_ball=None if rules.any_cue_ball else P.BREAK_BALL,
        premium_pending=bool(_ext(verdict, "premium")),
        options=tuple(verdict.options),
        call=None,
        consecutive_fouls=frozen_map(fouls),
        last_verdict=verdict,
        extra=frozen_map(
            {
                **state.extra,
                "owed": frozen_map(owed),
                "offender": None if verdict.legal else striker,
            }
        ),
    )
    if hand == "house" and not P.any_ball_outside(nxt, "house", P.BREAK_BALL):
        nxt = replace(nxt, ball_in_hand="temp_house")  # rules.md: back end, through back spot
    return _end(rules, nxt, shot, verdict, score)


def _num(b: str) -> tuple:
    return (0, int(b), b) if b.isdigit() else (1, 0, b)


def _end(rules: Rules, state: MatchState, shot: Shot, verdict: Verdict, score: dict) -> MatchState:
    """Close the frame when the verdict says so (or a verdict from outside reaches the
    target): frames won, match over at ``race_to`` frames."""
    over = _ext(verdict, "frame_over")
    winner = _ext(verdict, "winner")
    ref = shot.referee
    if ref is not None and ref.end_frame:  # the referee ends the frame (any verdict)
        over, winner = True, ref.end_frame
    if over is None:
        target = rules.frame_target(state)
        for p in ("A", "B"):
            if score[p] >= target:
                over, winner = True, p
    if not over:
        return state
    frames = dict(state.frames)
    if winner:
        frames[winner] = frames.get(winner, 0) + 1
    match_over = state.match_over or any(frames[p] >= state.settings.race_to for p in ("A", "B"))
    return replace(
        state,
        frame_over=True,
        frame_winner=winner,
        frames=frozen_map(frames),
        match_over=match_over,
        winner=state.winner or (winner if match_over else None),
        turn=other(state.breaker),
    )
