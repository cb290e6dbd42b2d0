"""Scoreboards: a flat JSON per match or table for overlays (CueScore-like names), and the
scoreboard page (``/scoreboard/{match_id}?lang=ru|en``) that draws the table in SVG."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response

from contract.tables import load_table
from service.core import NotFound
from service.deps import MatchId, ReaderDep, RuntimeDep, TableId
from service.overlay import build
from service.routers.matches import ERR
from service.schemas import ScoreboardOut
from service.texts import FOULS

router = APIRouter(tags=["scoreboard"])
Lang = Annotated[Literal["ru", "en"], Query(description="language of the texts")]
PAGE = Path(__file__).resolve().parent.parent / "static" / "scoreboard.html"


def scoreboard(rt: RuntimeDep, match_id: MatchId, lang: str) -> ScoreboardOut:
    """The overlay object, built once per rev and language."""
    return rt.service.memo(("scoreboard", lang), match_id, lambda c: build(rt.db, c, lang))  # type: ignore[return-value]


@router.get(
    "/scoreboard/matches/{match_id}.json",
    responses={**ERR, 304: {"description": "unchanged since the ETag sent in If-None-Match"}},
    response_model=ScoreboardOut,
)
async def match_scoreboard(
    match_id: MatchId,
    rt: RuntimeDep,
    _: ReaderDep,
    lang: Lang = "en",
    if_none_match: Annotated[str | None, Header(max_length=200)] = None,
) -> Response:
    """The overlay object of a match; ``rev`` grows on every change. Serialised once per
    rev and language; a poll of an unchanged match is answered from memory in the event loop
    (no database, no thread), with an ``ETag`` (``If-None-Match`` -> 304)."""
    key = ("scoreboard-bytes", lang)
    hit = rt.service.peek(key, match_id)
    if hit is None:  # a new rev (or not cached): built once, in a worker thread
        hit = await run_in_threadpool(
            rt.service.memo_rev, key, match_id, lambda c: _bytes(rt, c, lang)
        )
    rev, body = hit
    etag = f'W/"{match_id}-{rev}-{lang}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if if_none_match is not None and etag in (t.strip() for t in if_none_match.split(",")):
        return Response(status_code=304, headers=headers)
    return Response(content=body, media_type="application/json", headers=headers)


def _bytes(rt: RuntimeDep, c, lang: str) -> bytes:
    return scoreboard(rt, c.match.id, lang).model_dump_json().encode()


@router.get("/scoreboard/tables/{table_id}.json", responses=ERR)
def table_scoreboard(
    table_id: TableId, rt: RuntimeDep, _: ReaderDep, lang: Lang = "en"
) -> ScoreboardOut:
    """The overlay object of the latest match on a table."""
    if rt.db.table(table_id) is None:
        raise NotFound(f"table {table_id} not found")
    ms = rt.db.matches(table_id)
    if not ms:
        raise NotFound(f"table {table_id} has no match")
    return scoreboard(rt, ms[-1].id, lang)


@router.get("/scoreboard/{match_id}", response_class=HTMLResponse, responses=ERR)
def page(match_id: MatchId, rt: RuntimeDep, _: ReaderDep, lang: Lang = "en") -> HTMLResponse:
    """The scoreboard page: table in SVG with the balls, score, turn, verdicts; live over SSE."""
    m = rt.service.match(match_id)
    html = PAGE.read_text(encoding="utf-8")
    for key, value in (
        ("{{MATCH_ID}}", str(match_id)),
        ("{{LANG}}", lang),
        ("{{TABLE}}", json.dumps(table_drawing(m.settings["table"]))),
        ("{{FOULS}}", json.dumps(FOULS, ensure_ascii=False)),
    ):
        html = html.replace(key, value)
    return HTMLResponse(html)


def table_drawing(spec: str) -> dict:
    """What the page draws, in table mm: size, ball, pockets [x, y, mouth], spots, house line."""
    t = load_table(spec)
    spots = t.skittle_spots if t.kind == "carom" else t.spots
    return {
        "L": t.L,
        "W": t.W,
        "ball": t.ball_mm,
        "rail": t.rail_mm,
        "pockets": [[p.x, p.y, p.mouth_mm] for p in t.pockets] if t.has_pockets else [],
        "spots": {k: list(v) for k, v in spots.items()},
        "house_x": t.house_line_x if t.kind == "pyramid" else None,
    }
