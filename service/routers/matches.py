"""Matches: create, read, current state, shots (paged with ``since``), add a shot, audit."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from contract.match import Shot, match_to_json
from service.db import MatchRow
from service.deps import MAX_ID, MatchId, ReaderDep, RuntimeDep, WriterDep
from service.schemas import (
    AuditOut,
    ErrorOut,
    MatchIn,
    MatchOut,
    ShotAdded,
    ShotIn,
    ShotsOut,
    StateOut,
)

router = APIRouter(prefix="/matches", tags=["matches"])
ERR = {c: {"model": ErrorOut} for c in (401, 403, 404, 409, 422)}


def match_out(m: MatchRow, rev: int) -> MatchOut:
    s = m.settings
    return MatchOut(
        id=m.id,
        table_id=m.table_id,
        game=s["game"],
        table=s["table"],
        players=s["players"],
        race_to=s["race_to"],
        penalty=s["penalty"],
        target=s.get("target"),
        breaker=s.get("breaker_player") or s["breaker"],
        created=m.created,
        rev=rev,
    )


@router.post("", status_code=201, responses=ERR)
def create_match(body: MatchIn, rt: RuntimeDep, who: WriterDep) -> MatchOut:
    """Create a match (game, players, race-to, penalty form, breaker or lag)."""
    m = rt.service.create_match(body.model_dump(mode="json"), who)
    return match_out(m, rt.db.last_event_id(m.id))


@router.get("", responses=ERR)
def list_matches(
    rt: RuntimeDep, _: ReaderDep, table_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None
) -> list[MatchOut]:
    return [match_out(m, rt.db.last_event_id(m.id)) for m in rt.db.matches(table_id)]


@router.get("/{match_id}", responses=ERR)
def get_match(match_id: MatchId, rt: RuntimeDep, _: ReaderDep) -> MatchOut:
    m = rt.service.match(match_id)
    return match_out(m, rt.db.last_event_id(match_id))


@router.get("/{match_id}/state", responses=ERR)
def get_state(match_id: MatchId, rt: RuntimeDep, _: ReaderDep) -> StateOut:
    """Score, frame, turn, ball in hand and zone, balls on the table (mm), shelf, last verdict."""
    return StateOut(**rt.service.state_json(match_id))


@router.get("/{match_id}/shots", responses=ERR)
def list_shots(
    match_id: MatchId,
    rt: RuntimeDep,
    _: ReaderDep,
    since: Annotated[int, Query(ge=0, le=MAX_ID, description="shots with index > since")] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> ShotsOut:
    """Shots with their events and the verdicts in force, in index order."""
    shots = rt.service.current(match_id).judged.match.shots
    page = [s for s in shots if s.index > since][:limit]
    more = page and page[-1].index < shots[-1].index
    return ShotsOut(
        match_id=match_id,
        shots=[s.model_dump(mode="json", exclude_none=True) for s in page],
        next_since=page[-1].index if more else None,
    )


@router.post("/{match_id}/shots", status_code=201, responses=ERR)
def add_shot(match_id: MatchId, body: ShotIn, rt: RuntimeDep, who: WriterDep) -> ShotAdded:
    """Add the next shot (how the vision pipeline or a test feeds shots); it is judged with
    every shot before it and the state recomputed."""
    idx, j = rt.service.add_shot(match_id, body.model_dump(mode="json", exclude_none=True), who)
    s: Shot = j.match.shots[-1]
    v = s.referee.verdict if s.referee and s.referee.verdict else s.verdict
    return ShotAdded(index=idx, verdict=v, state=StateOut(**rt.service.state_json(match_id)))


@router.get("/{match_id}/match.json", responses=ERR)
def match_json(match_id: MatchId, rt: RuntimeDep, _: ReaderDep) -> dict:
    """The match as a judged MATCH.json (contract §8)."""
    c = rt.service.current(match_id)
    return match_to_json(c.judged.match.model_copy(update={"score": c.judged.state.score}))


@router.get("/{match_id}/audit", responses=ERR)
def audit(match_id: MatchId, rt: RuntimeDep, _: ReaderDep) -> list[AuditOut]:
    """Every change made to the match: who, when, what, before and after."""
    rt.service.match(match_id)
    return [
        AuditOut(
            id=a.id,
            match_id=a.match_id,
            shot=a.shot_idx,
            at=a.at,
            who=a.who,
            action=a.action,
            before=a.before
            if isinstance(a.before, dict) or a.before is None
            else {"value": a.before},
            after=a.after if isinstance(a.after, dict) or a.after is None else {"value": a.after},
        )
        for a in rt.db.audit(match_id)
    ]
