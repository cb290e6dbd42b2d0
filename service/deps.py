"""Dependencies of the routes: settings, the runtime (database, services), auth.

``SettingsDep``: the cached settings (tests override :func:`get_settings`);
the dependencies are ``async`` so a request costs no worker-thread hop before its route
(a read that is answered from memory never leaves the event loop);
``RuntimeDep``: the database and services opened for those settings;
``WriterDep``: the referee's bearer token, required by every write (401 missing, 403 wrong,
403 when ``TABLEMON_TOKEN`` is unset); ``ReaderDep``: the same for reads when
``reads_require_token`` is set (``?token=`` is accepted too, for EventSource clients).
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.broker import Broker
from service.core import MatchService
from service.db import Database
from service.overlay import prebuild
from service.settings import Settings, get_settings


async def current_settings(request: Request) -> Settings:
    """The settings: ``get_settings`` or its override in ``app.dependency_overrides``
    (called here, in the event loop: it is a cached value, no I/O)."""
    return request.app.dependency_overrides.get(get_settings, get_settings)()


SettingsDep = Annotated[Settings, Depends(current_settings)]
MAX_ID = 2**62  # ids and indexes past this are refused (422), never sent to SQLite
MatchId = Annotated[int, Path(ge=1, le=MAX_ID, description="match id")]
TableId = Annotated[int, Path(ge=1, le=MAX_ID, description="table id")]
ReplayId = Annotated[int, Path(ge=1, le=MAX_ID, description="replay id")]
_bearer = HTTPBearer(auto_error=False, description="the referee's token (TABLEMON_TOKEN)")
_lock = threading.Lock()


@dataclass
class Runtime:
    """Everything opened for one settings object; closed by the app's lifespan."""

    settings: Settings
    db: Database
    service: MatchService
    broker: Broker
    extras: dict = field(default_factory=dict)  # replays runner, live manager

    def close(self) -> None:
        for x in self.extras.values():
            x.close()
        self.db.close()


def open_runtime(app_state: object, settings: Settings) -> Runtime:
    """The runtime for these settings, opened once per database path."""
    key = settings.db_target
    with _lock:
        runtimes: dict[str, Runtime] = app_state.__dict__.setdefault("runtimes", {})
        rt = runtimes.get(key)
        if rt is None:
            from service.calibrate import Calibrator
            from service.live import LiveManager
            from service.replays import ReplayRunner

            db = Database(settings.db_target)
            broker = Broker(db)
            rt = Runtime(settings, db, MatchService(db, broker), broker)
            rt.extras["replays"] = ReplayRunner(db, settings, broker)
            if settings.broker:  # broker mode: the tables' workers run elsewhere
                from service.cluster.consumer import RemoteTables

                rt.extras["live"] = RemoteTables(rt.service, settings)
            else:
                rt.extras["live"] = LiveManager(rt.service, settings, settings.live_vision)
            if db.backend == "postgres":  # other API processes' changes, on the same database
                from service.cluster.notify import ChangeListener

                rt.extras["listen"] = ChangeListener(settings.db_target, rt.service)
            rt.extras["calibrate"] = Calibrator(db, settings, broker)
            rt.service.on_change.append(lambda c, db=db: prebuild(db, c))
            runtimes[key] = rt
        return rt


async def get_runtime(request: Request, settings: SettingsDep) -> Runtime:
    """The runtime (opened by the app's lifespan; a cached lookup here)."""
    rt = request.app.state.__dict__.get("runtimes", {}).get(settings.db_target)
    if rt is not None:
        return rt
    return await run_in_threadpool(open_runtime, request.app.state, settings)


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def _check(
    settings: Settings, creds: HTTPAuthorizationCredentials | None, token: str | None
) -> None:
    if not settings.token:
        raise HTTPException(403, "writes are disabled: TABLEMON_TOKEN is not set on the server")
    given = creds.credentials if creds is not None else token
    if not given:
        raise HTTPException(
            401, "missing bearer token (Authorization: Bearer ...)", {"WWW-Authenticate": "Bearer"}
        )
    if not secrets.compare_digest(given.encode(), settings.token.encode()):
        raise HTTPException(403, "wrong bearer token")


async def require_token(
    settings: SettingsDep,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    x_tablemon_user: Annotated[str | None, Header(max_length=100)] = None,
) -> str:
    """Check the referee's token; returns who made the change (``X-Tablemon-User`` or
    ``referee``) for the audit trail."""
    _check(settings, creds, None)
    return x_tablemon_user or "referee"


async def require_read(
    settings: SettingsDep,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    token: Annotated[str | None, Query(max_length=200, description="for EventSource")] = None,
) -> None:
    if settings.reads_require_token:
        _check(settings, creds, token)


WriterDep = Annotated[str, Depends(require_token)]
ReaderDep = Annotated[None, Depends(require_read)]
