"""The pollers' fast path: ``GET /scoreboard/matches/{id}.json`` answered straight from the
pre-serialised bytes, below the framework.

Broadcast overlays poll the scoreboard JSON once a second each, hundreds of them per table;
between two changes of a match every answer is the same bytes. This ASGI layer answers such
a poll from :meth:`service.core.MatchService.peek` (bytes built right after the change, see
:func:`service.overlay.prebuild`) without routing, dependency resolution or
validation, a fraction of the CPU per request. It answers only what the route would answer
the same way; anything else goes on to the route: reads that need a token, a query other
than ``lang=en|ru``, a match whose bytes are not ready (new rev, evicted, unknown: 404 there).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

PATH = re.compile(r"/scoreboard/matches/([1-9][0-9]{0,17})\.json")
QUERIES = {b"": "en", b"lang=en": "en", b"lang=ru": "ru"}


class ScoreboardFastPath:
    """``runtime()`` gives the app's runtime for its current settings, or None."""

    def __init__(self, app: ASGIApp, runtime: Callable[[], Any]) -> None:
        self.app, self.runtime = app, runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            m = PATH.fullmatch(scope["path"])
            lang = QUERIES.get(scope.get("query_string", b"")) if m else None
            if lang is not None and await self._answer(scope, send, int(m[1]), lang):
                return
        await self.app(scope, receive, send)

    async def _answer(self, scope: Scope, send: Send, match_id: int, lang: str) -> bool:
        rt = self.runtime()
        if rt is None or rt.settings.reads_require_token:
            return False
        hit = rt.service.peek(("scoreboard-bytes", lang), match_id)
        if hit is None:
            return False
        rev, body = hit
        etag = f'W/"{match_id}-{rev}-{lang}"'.encode()
        headers = [(b"etag", etag), (b"cache-control", b"no-cache")]
        inm = next((v for k, v in scope["headers"] if k == b"if-none-match"), None)
        if inm is not None and etag in (t.strip() for t in inm.split(b",")):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return True
        headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )
        return True
