"""The FastAPI application: ``create_app()``; OpenAPI at ``/docs`` and ``/openapi.json``.

Errors are JSON ``{"detail": "one line"}`` (404, 409, 413, 422, 401/403 from auth).
Request bodies are size-limited (``max_body_bytes``; uploads ``max_upload_bytes``).
"""

from __future__ import annotations

import gc
import sys
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contract.errors import ContractError
from service.core import Conflict, NotFound, Unprocessable
from service.db import DatabaseUnavailable
from service.deps import open_runtime
from service.fastpoll import ScoreboardFastPath
from service.settings import Settings, get_settings
from service.sqlbackend import NulInText

UPLOAD_PATHS = ("/replays/upload",)


class BodyLimit:
    """Refuse request bodies over the limit with 413 (declared length or counted bytes)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        upload = scope["path"].startswith(UPLOAD_PATHS)
        limit = self.settings.max_upload_bytes if upload else self.settings.max_body_bytes
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _too_large(send, limit)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > limit:
                    raise _TooLarge(limit)
            return msg

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await _too_large(send, limit)


class _TooLarge(Exception):
    def __init__(self, limit: int) -> None:
        self.limit = limit


async def _too_large(send: Send, limit: int) -> None:
    resp = JSONResponse({"detail": f"request body larger than {limit} bytes"}, 413)
    await resp({"type": "http"}, _empty_receive, send)


async def _empty_receive() -> Message:
    return {"type": "http.request", "body": b""}


def _one_line_validation(e: RequestValidationError) -> str:
    errs = e.errors()
    if not errs:
        return "invalid request"
    err = errs[0]
    loc = ".".join(str(p) for p in err.get("loc", ()))
    msg = "field required" if err.get("type") == "missing" else err.get("msg", "invalid")
    more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
    return f"{loc}: {msg}{more}".replace("\n", " ")


def _settings_of(app: FastAPI) -> Settings:
    return app.dependency_overrides.get(get_settings, get_settings)()


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app. ``settings`` fixes the middleware's limits and CORS (default: the cached
    settings); routes take theirs from ``get_settings`` so tests can override it."""
    from service.routers import (
        matches,
        questions,
        referee,
        replays,
        scoreboard,
        stream,
        tables,
    )

    base = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        settings = _settings_of(app)
        # a thread judging a shot hands the GIL back to the event loop (pollers) sooner
        sys.setswitchinterval(settings.switch_interval_ms / 1000)
        rt = open_runtime(app.state, settings)
        rt.db.fail_interrupted_replays()
        if settings.gc_freeze:
            # the ~85k objects of the imports and the runtime live as long as the process:
            # out of the collector's sight, a full collection no longer stops every thread
            # (the event loop too) for ~100 ms in the middle of the pollers
            gc.collect()
            gc.freeze()
        try:
            yield
        finally:
            for r in list(app.state.__dict__.get("runtimes", {}).values()):
                r.close()
            app.state.__dict__.get("runtimes", {}).clear()

    app = FastAPI(
        title="tablemon",
        version="0.1.0",
        summary="Automatic billiards marker: live tables, matches, referee, replays",
        lifespan=lifespan,
    )
    for r in (tables, matches, referee, questions, replays, stream, scoreboard):
        app.include_router(r.router)

    @app.exception_handler(NotFound)
    async def _404(_: Request, e: NotFound) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, 404)

    @app.exception_handler(Conflict)
    async def _409(_: Request, e: Conflict) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, 409)

    @app.exception_handler(Unprocessable)
    @app.exception_handler(ContractError)
    @app.exception_handler(NulInText)
    async def _422(_: Request, e: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(e).splitlines()[0]}, 422)

    @app.exception_handler(DatabaseUnavailable)
    async def _503(_: Request, e: DatabaseUnavailable) -> JSONResponse:
        return JSONResponse({"detail": str(e).splitlines()[0]}, 503, headers={"Retry-After": "1"})

    @app.exception_handler(RequestValidationError)
    async def _422v(_: Request, e: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _one_line_validation(e)}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, e: StarletteHTTPException) -> JSONResponse:
        detail = e.detail if isinstance(e.detail, str) else str(e.detail)
        return JSONResponse({"detail": detail}, e.status_code, headers=e.headers)

    static = Path(__file__).parent / "static"
    if static.is_dir():
        from fastapi.staticfiles import StaticFiles

        app.mount("/static", StaticFiles(directory=static), name="static")

    def runtime() -> object:
        return app.state.__dict__.get("runtimes", {}).get(_settings_of(app).db_target)

    app.add_middleware(ScoreboardFastPath, runtime=runtime)  # inside CORS: it applies
    if base.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=base.cors_origins,
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID", "X-Tablemon-User"],
        )
    app.add_middleware(BodyLimit, settings=base)
    return app
