"""The scoreboard's overlay object of a match (CueScore-like names), built from its judged
state: served by :mod:`service.routers.scoreboard` and prebuilt after every change by the
runtime (:func:`service.deps.open_runtime`); below both, so neither imports the other."""

from __future__ import annotations

from service.db import Database
from service.questions import doubts, is_open, option_view, ref
from service.schemas import ScoreboardOut
from service.texts import lag_text, verdict_reason, verdict_text


def build(db: Database, c, lang: str) -> ScoreboardOut:
    """The overlay object of the match of ``c`` (its judged state) in ``lang``."""
    match_id = c.match.id
    s, st = c.match.settings, c.judged.state
    names = s["players"]
    table = db.table(c.match.table_id) if c.match.table_id else None
    v = st.last_verdict
    status = "finished" if st.match_over else ("frame_over" if st.frame_over else "playing")
    return ScoreboardOut(
        matchId=match_id,
        tableId=c.match.table_id,
        tableName=table.name if table else None,
        game=s["game"],
        playerA=names["A"],
        playerB=names["B"],
        scoreA=st.score.get("A", 0),
        scoreB=st.score.get("B", 0),
        framesA=st.frames.get("A", 0),
        framesB=st.frames.get("B", 0),
        raceTo=s["race_to"],
        frame=st.frame,
        turn=st.turn,
        turnName=names.get(st.turn, st.turn),
        ballInHand=st.ball_in_hand,
        lastVerdict=verdict_text(v, lang, names),
        lastVerdictReason=verdict_reason(v, lang),
        lastFoul=bool(v is not None and (v.fouls or not v.legal)),
        shots=st.shot_no,
        status=status,
        winner=st.winner,
        lang=lang,
        rev=c.rev,
        **_questions(c, lang),
        lag=st.lag,
        lagText=lag_text(st.lag, lang, names),
    )


def _questions(c, lang: str) -> dict:
    """The overlay's open questions (contract §11): the score above is settled; ``pendingA``
    and ``pendingB`` are what the shots in question give as read."""
    st = c.judged.state
    open_qs = [q for q in c.judged.match.questions if is_open(q)]
    names = c.match.settings["players"]
    read = st.score_as_read or st.score
    qs = []
    for q in open_qs:
        opts = [option_view(o, names) for o in q.options]
        qs.append(
            {"id": q.id, "ref": ref(q), "shot": q.shot, "why": q.why}
            | {"doubts": doubts(c.judged.match, q)}
            | {"options": [o | {"text": o["text"][lang]} for o in opts]}
        )
    return {
        "awaitingReferee": bool(open_qs),
        "openQuestions": len(open_qs),
        "pendingA": int(read.get("A", 0)) - int(st.score.get("A", 0)),
        "pendingB": int(read.get("B", 0)) - int(st.score.get("B", 0)),
        "questions": qs,
    }


def prebuild(db: Database, c) -> dict[tuple, object]:
    """The overlay objects of a changed match (both languages, and their bytes), built right
    after the change in the writer's thread, published with the new rev."""
    out: dict[tuple, object] = {}
    for lang in ("en", "ru"):
        board = build(db, c, lang)
        out[("scoreboard", lang)] = board
        out[("scoreboard-bytes", lang)] = board.model_dump_json().encode()
    return out
