"""Wake-ups for SSE streams: writers (any thread) tell every waiting stream to look again.

The events themselves live in the database (monotonic ids); this only says "look now".
"""

from __future__ import annotations

import asyncio
import threading


class Broker:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    def subscribe(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
        """Register the calling coroutine's loop; call :meth:`unsubscribe` when done."""
        w = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.add(w)
        return w

    def unsubscribe(self, w: tuple[asyncio.AbstractEventLoop, asyncio.Event]) -> None:
        with self._lock:
            self._waiters.discard(w)

    def publish(self) -> None:
        """Wake every subscriber (thread-safe)."""
        with self._lock:
            waiters = list(self._waiters)
        for loop, ev in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(ev.set)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._waiters)
