"""Fan-out of the event log to SSE streams.

The events live in the database (monotonic ids). After each commit a writer calls
:meth:`Broker.publish`: the broker reads the new events once, keeps the last ``keep`` of them
as ready-made SSE frames, and wakes every waiting stream. A stream reads from that ring, or
from the database when it resumes from further back, so 50 clients cost one query per
change, not 50.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from typing import Any

Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]


def sse_frame(ev_id: int, kind: str, data: dict) -> bytes:
    """One SSE event: ``id``, ``event`` and one ``data`` line of JSON."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"id: {ev_id}\nevent: {kind}\ndata: {body}\n\n".encode()


class Broker:
    def __init__(self, db: Any = None, keep: int = 5000) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._fetch = threading.Lock()
        self._waiters: set[Waiter] = set()
        self._ring: deque[tuple[int, int | None, int | None, bytes]] = deque(maxlen=keep)
        self._last = db.last_event_id() if db is not None else 0
        self._floor = self._last  # ids <= floor are not in the ring

    def subscribe(self) -> Waiter:
        """Register the calling coroutine's loop; call :meth:`unsubscribe` when done."""
        w = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.add(w)
        return w

    def unsubscribe(self, w: Waiter) -> None:
        with self._lock:
            self._waiters.discard(w)

    def publish(self) -> None:
        """Take in the events committed since the last call and wake every stream
        (thread-safe; call after the commit)."""
        if self.db is not None:
            with self._fetch:
                rows = self.db.events(self._last, limit=100_000)
                with self._lock:
                    for r in rows:
                        if len(self._ring) == self._ring.maxlen:
                            self._floor = self._ring[0][0]
                        self._ring.append(
                            (r.id, r.match_id, r.table_id, sse_frame(r.id, r.kind, r.data))
                        )
                    if rows:
                        self._last = rows[-1].id
        with self._lock:
            waiters = list(self._waiters)
        for loop, ev in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(ev.set)

    def since(
        self, after: int, match_id: int | None = None, table_id: int | None = None
    ) -> list[tuple[int, bytes]] | None:
        """Frames with id > ``after`` (filtered), or None when ``after`` is older than the
        ring (read the database then)."""
        with self._lock:
            if after < self._floor:
                return None
            out = []
            for i, m, t, f in reversed(self._ring):  # newest first: cost ~ the new events
                if i <= after:
                    break
                if (match_id is None or m == match_id) and (table_id is None or t == table_id):
                    out.append((i, f))
        out.reverse()
        return out

    @property
    def floor(self) -> int:
        """Events with ids up to this are not in the ring (read them from the database)."""
        with self._lock:
            return self._floor

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._waiters)
