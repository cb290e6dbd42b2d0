"""Referee corrections: call a shot, add/remove a foul, annul, replace a verdict, restore the
last rest position, the opponent's choice after a foul, end a frame, the lag's winner.

Each is stored in the shot's ``referee`` input (contract RefereeInput) with an audit row; the
adjudicator then recomputes every verdict and the state.
"""

from __future__ import annotations

from fastapi import APIRouter

from contract.match import Call, RefereeInput
from service.deps import MatchId, RuntimeDep, WriterDep
from service.routers.matches import ERR
from service.schemas import (
    AnnulIn,
    CallIn,
    ChoiceIn,
    EndFrameIn,
    FoulIn,
    LagIn,
    RestoreIn,
    StateOut,
    VerdictIn,
)

router = APIRouter(prefix="/matches/{match_id}/referee", tags=["referee"])


def _upd(r: RefereeInput, **kw: object) -> RefereeInput:
    return r.model_copy(update=kw)


def _state(rt: RuntimeDep, match_id: MatchId) -> StateOut:
    return StateOut(**rt.service.state_json(match_id))


@router.post("/call", responses=ERR)
def call(match_id: MatchId, body: CallIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """Classic pyramid: the called ball and pocket, for the next shot (or a given one)."""
    c = Call(ball=body.ball, pocket=body.pocket)
    if body.shot is None:
        rt.service.set_pending_call(match_id, c.model_dump(mode="json"), who)
    else:
        rt.service.correct(match_id, body.shot, "call", lambda r: _upd(r, call=c), who)
    return _state(rt, match_id)


@router.post("/fouls", responses=ERR)
def add_foul(match_id: MatchId, body: FoulIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """A foul the camera cannot see (foot, double hit ...)."""

    def change(r: RefereeInput) -> RefereeInput:
        return _upd(r, fouls=(*r.fouls, body.foul) if body.foul not in r.fouls else r.fouls)

    rt.service.correct(match_id, body.shot, "add_foul", change, who)
    return _state(rt, match_id)


@router.post("/fouls/remove", responses=ERR)
def remove_foul(match_id: MatchId, body: FoulIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """Remove a foul the referee added earlier (409 when it is not there)."""
    from service.core import Conflict

    def change(r: RefereeInput) -> RefereeInput:
        if body.foul not in r.fouls:
            raise Conflict(f"the referee did not add foul {body.foul.value!r} to that shot")
        return _upd(r, fouls=tuple(f for f in r.fouls if f != body.foul))

    rt.service.correct(match_id, body.shot, "remove_foul", change, who)
    return _state(rt, match_id)


@router.post("/annul", responses=ERR)
def annul(match_id: MatchId, body: AnnulIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """Annul the camera's fouls on a shot (``annul: false`` undoes it)."""
    rt.service.correct(match_id, body.shot, "annul", lambda r: _upd(r, annul=body.annul), who)
    return _state(rt, match_id)


@router.post("/verdict", responses=ERR)
def replace_verdict(match_id: MatchId, body: VerdictIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """Replace a shot's verdict entirely (``verdict: null`` returns it to the adjudicator)."""
    rt.service.correct(
        match_id, body.shot, "replace_verdict", lambda r: _upd(r, verdict=body.verdict), who
    )
    return _state(rt, match_id)


@router.post("/restore", responses=ERR)
def restore(match_id: MatchId, body: RestoreIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """Outside interference: the balls go back to the rest position before the shot."""
    rt.service.correct(match_id, body.shot, "restore", lambda r: _upd(r, restore=body.restore), who)
    return _state(rt, match_id)


@router.post("/choice", responses=ERR)
def choice(match_id: MatchId, body: ChoiceIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """The opponent's option after a foul (play, hand_back, rerack, rebreak)."""
    rt.service.correct(match_id, body.shot, "choice", lambda r: _upd(r, choice=body.choice), who)
    return _state(rt, match_id)


@router.post("/end-frame", responses=ERR)
def end_frame(match_id: MatchId, body: EndFrameIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """End the frame after a shot (concession, or a frame the camera cannot finish)."""
    rt.service.correct(
        match_id, body.shot, "end_frame", lambda r: _upd(r, end_frame=body.winner), who
    )
    return _state(rt, match_id)


@router.post("/lag", responses=ERR)
def lag(match_id: MatchId, body: LagIn, rt: RuntimeDep, who: WriterDep) -> StateOut:
    """The lag's winner breaks (before the first shot only)."""
    rt.service.set_lag(match_id, body.winner, who)
    return _state(rt, match_id)
