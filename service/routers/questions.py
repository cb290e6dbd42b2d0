"""The referee's questions (contract §11): list them, answer one, withdraw an answer, and the
decisive stills.

A question is named by its ``id`` as the latest listing gave it (``q3``) or stably by
``ref`` (``7-verdict``). An answer is stored as the shot's ``RefereeInput.answers[about]``
through :meth:`service.core.MatchService.correct` (audit action ``answer``), so every later
verdict is judged again. A referee may change an answer (a correction like any other);
answering with the option already chosen changes nothing.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from contract.match import Question, RefereeInput
from service.core import Conflict, Current, NotFound, Unprocessable
from service.deps import MatchId, ReaderDep, RuntimeDep, WriterDep
from service.questions import (
    STILLS,
    answered_by,
    find,
    is_open,
    option_view,
    question_view,
    video_source,
)
from service.routers.matches import ERR
from service.schemas import AnswerIn, AnswerOut, QuestionOut, QuestionsOut, StateOut

router = APIRouter(prefix="/matches/{match_id}/questions", tags=["questions"])
QuestionId = Annotated[
    str,
    Path(
        min_length=2,
        max_length=40,
        pattern=r"^(q[0-9]+|[0-9]+-[a-z]+)$",
        description="``q3`` as last listed, or ``7-verdict`` (shot-about)",
    ),
]


def _out(rt: RuntimeDep, c: Current, q: Question, audit: list | None = None) -> QuestionOut:
    names = c.match.settings["players"]
    view = question_view(q, c.judged.match, names, rt.service.has_video(c), c.match.id)
    full = [{**option_view(o, names), "verdict": o.verdict} for o in q.options]
    by, at = answered_by(q, audit if audit is not None else rt.db.audit(c.match.id))
    return QuestionOut(**{**view, "options": full, "by": by, "at": at})


def _listing(rt: RuntimeDep, c: Current) -> QuestionsOut:
    audit = rt.db.audit(c.match.id)
    qs = c.judged.match.questions
    st = c.judged.state
    return QuestionsOut(
        match_id=c.match.id,
        rev=c.rev,
        open=sum(is_open(q) for q in qs),
        score=dict(st.score),
        score_as_read=st.score_as_read,
        pending=c.judged.match.pending,
        questions=[_out(rt, c, q, audit) for q in qs],
    )


@router.get("", responses=ERR)
def list_questions(match_id: MatchId, rt: RuntimeDep, _: ReaderDep) -> QuestionsOut:
    """Every question of the match, open and answered, with options (each with what each
    player gains and the verdict under it), decisive frames and stills, the settled score
    and what is pending."""
    return rt.service.memo(("questions",), match_id, lambda c: _listing(rt, c))  # type: ignore[return-value]


@router.get("/{question_id}", responses=ERR)
def get_question(
    match_id: MatchId, question_id: QuestionId, rt: RuntimeDep, _: ReaderDep
) -> QuestionOut:
    c = rt.service.current(match_id)
    return _out(rt, c, find(c.judged.match, match_id, question_id))


def _answer(rt: RuntimeDep, match_id: int, qid: str, option: str | None, who: str) -> AnswerOut:
    """Store ``option`` (None: withdraw the answer) as the shot's answer about the question."""
    c = rt.service.current(match_id)
    q = find(c.judged.match, match_id, qid)
    if q.shot is None:
        raise Conflict(f"question {qid} is about no shot: it cannot be answered here")
    if option is not None and option not in [o.key for o in q.options]:
        keys = ", ".join(o.key for o in q.options) or "none"
        raise Unprocessable(f"question {qid} has no option {option[:80]!r}; options: {keys}")
    if option is None and q.answer is None:
        raise Conflict(f"question {qid} is not answered")
    if option != q.answer:
        about = q.about

        def change(r: RefereeInput) -> RefereeInput:
            answers = {k: v for k, v in r.answers.items() if k != about}
            return r.model_copy(update={"answers": answers | ({about: option} if option else {})})

        action = "answer" if option is not None else "withdraw_answer"
        rt.service.correct(match_id, q.shot, action, change, who)
        c = rt.service.current(match_id)
    same = (x for x in c.judged.match.questions if (x.shot, x.about) == (q.shot, q.about))
    now = next(same, None) or q.model_copy(update={"answer": option})  # judged away: as given
    return AnswerOut(question=_out(rt, c, now), state=StateOut(**rt.service.state_json(match_id)))


@router.post("/{question_id}/answer", responses=ERR)
def answer(
    match_id: MatchId, question_id: QuestionId, body: AnswerIn, rt: RuntimeDep, who: WriterDep
) -> AnswerOut:
    """The referee's answer: one of the question's option keys. Stored as a correction
    (audited), every later verdict judged again. Answering again with another option changes
    the answer; with the same one changes nothing. 404 no such question, 422 no such option."""
    return _answer(rt, match_id, question_id, body.option, who)


@router.delete("/{question_id}/answer", responses=ERR)
def withdraw(
    match_id: MatchId, question_id: QuestionId, rt: RuntimeDep, who: WriterDep
) -> AnswerOut:
    """Withdraw the answer: the question is open again (409 when it is not answered)."""
    return _answer(rt, match_id, question_id, None, who)


@router.get(
    "/{question_id}/stills/{frame}.jpg",
    responses={**ERR, 200: {"content": {"image/jpeg": {}}}},
    response_class=Response,
)
async def still(
    match_id: MatchId,
    question_id: QuestionId,
    frame: Annotated[int, Path(ge=0, le=10**9, description="one of the question's frames")],
    rt: RuntimeDep,
    _: ReaderDep,
) -> Response:
    """A decisive still of the question: the frame of the video file the match's table
    plays, as JPEG. 404 for a frame the question does not list, or where the table plays a
    camera (no file to read it from)."""
    c = await run_in_threadpool(rt.service.current, match_id)
    q = find(c.judged.match, match_id, question_id)
    if frame not in q.frames:
        listed = ", ".join(map(str, q.frames)) or "none"
        raise NotFound(f"question {question_id} has no still at frame {frame}; frames: {listed}")
    src = await run_in_threadpool(rt.service.table_source, c.match.table_id)
    video, why = video_source(c, src)
    if video is None:
        raise NotFound(why)
    data = await run_in_threadpool(STILLS.jpeg, video, frame)
    if data is None:
        raise NotFound(f"the video {video.name} has no frame {frame}")
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=3600"})
