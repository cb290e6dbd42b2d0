"""Keeping several API processes' caches and SSE streams right: PostgreSQL LISTEN/NOTIFY.

Every write transaction that adds events ends with ``pg_notify`` (:mod:`service.db`): the
server delivers it at commit, to every listening process, in commit order, and never for a
transaction that rolled back. Each API process listens on its own connection (a thread): a
notification names the matches changed and their new last event id; the process reads each
such match again (:meth:`MatchService.refresh`: state judged, scoreboard bytes built) and
wakes its SSE streams (:meth:`Broker.publish` reads the new events from the database).

A lost connection (the server restarted) is opened again with backoff; since notifications
sent meanwhile are lost, every cached match is then dropped and the streams woken: what the
process serves after that comes from the database.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from typing import Any

from service.db import NOTIFY_CHANNEL


class ChangeListener:
    def __init__(self, url: str, service: Any) -> None:
        self.url, self.service = url, service
        self._stop = threading.Event()
        self._conn: Any = None
        self.received = 0
        self.reconnects = 0
        self.last_error: str | None = None
        self._thread = threading.Thread(target=self._run, name="tablemon-listen", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psycopg

        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    self._conn = conn
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    if not first:  # what changed while deaf is unknown: read all again
                        self.reconnects += 1
                        self._resync()
                    first = False
                    while not self._stop.is_set():
                        for n in conn.notifies(timeout=0.5, stop_after=None):
                            self._on(n.payload)
                            if self._stop.is_set():
                                break
            except Exception as e:
                self.last_error = f"{type(e).__name__}: {e}".splitlines()[0]
                if not first:
                    self._resync()
                self._stop.wait(0.5)

    def _on(self, payload: str) -> None:
        self.received += 1
        try:
            data = json.loads(payload)
        except ValueError:
            return
        if data.get("src") == self.service.db.source:  # this process's own change: settled
            return
        for mid, rev in (data.get("m") or {}).items():
            with contextlib.suppress(Exception):
                self.service.refresh(int(mid), int(rev))
        with contextlib.suppress(Exception):
            self.service.broker.publish()

    def _resync(self) -> None:
        with self.service._cache_lock:
            ids = list(self.service._cache)
        for mid in ids:
            self.service.forget(mid)
        with contextlib.suppress(Exception):
            self.service.broker.publish()

    def close(self) -> None:
        self._stop.set()
        t0 = time.monotonic()
        self._thread.join(timeout=3)
        if self._thread.is_alive() and time.monotonic() - t0 >= 3:
            with contextlib.suppress(Exception):
                self._conn.close()
