"""Server-Sent Events: every event of the log (``match``, ``shot``, ``referee``, ``state``,
``table``, ``replay``) with its id; a client reconnecting with ``Last-Event-ID`` (or
``?last_event_id=``) gets everything after it, so nothing is missed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

from anyio import to_thread
from fastapi import APIRouter, Header, Query
from fastapi.responses import StreamingResponse

from service.broker import sse_frame
from service.deps import MAX_ID, ReaderDep, Runtime, RuntimeDep
from service.routers.matches import ERR

router = APIRouter(tags=["stream"])


async def _events(
    rt: Runtime, after: int, match_id: int | None, table_id: int | None, once: bool
) -> AsyncIterator[bytes]:
    w = rt.broker.subscribe()
    try:
        yield b"retry: 1000\n\n"
        while True:
            w[1].clear()
            frames = rt.broker.since(after, match_id, table_id)
            if frames is not None:  # recent: from the broker's ring
                if frames:  # what came together goes out in one write
                    after = frames[-1][0]
                    yield b"".join(f for _, f in frames)
            else:  # resuming from further back: from the database, in pages
                floor = rt.broker.floor  # everything up to it is committed: the pages see it
                while True:
                    rows = await to_thread.run_sync(
                        lambda a=after: rt.db.events(a, match_id=match_id, table_id=table_id)
                    )
                    for r in rows:
                        after = r.id
                        yield sse_frame(r.id, r.kind, r.data)
                    if len(rows) < 500:
                        break
                after = max(after, floor)
                continue  # then the ring, for what came meanwhile
            if once:
                return
            try:
                await asyncio.wait_for(w[1].wait(), rt.settings.sse_ping_s)
            except TimeoutError:
                yield b": ping\n\n"
    finally:
        rt.broker.unsubscribe(w)


@router.get(
    "/stream",
    responses={**ERR, 200: {"content": {"text/event-stream": {}}}},
    response_class=StreamingResponse,
)
async def stream(
    rt: RuntimeDep,
    _: ReaderDep,
    match_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    table_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    last_event_id: Annotated[
        int | None, Query(ge=0, le=MAX_ID, description="resume after this id")
    ] = None,
    once: Annotated[bool, Query(description="send what is there and close")] = False,
    last_event_id_h: Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)] = None,
) -> StreamingResponse:
    """Events after ``Last-Event-ID`` (header) or ``last_event_id``, then live ones."""
    after = last_event_id or 0
    if last_event_id_h and last_event_id_h.strip().isdigit():
        after = max(after, int(last_event_id_h.strip()))
    if match_id is not None:
        rt.service.match(match_id)
    return StreamingResponse(
        _events(rt, after, match_id, table_id, once),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
