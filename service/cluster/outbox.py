"""A worker's durable outbox: what is not yet acknowledged by JetStream, on its disk.

A SQLite file (WAL, ``synchronous=FULL``): a message is on disk before it is sent, removed
once the stream acknowledged it, so a worker that loses the broker, or is killed, sends it
when it is back — with its message id, so the stream (and the API) store it once. The same
file keeps the worker's small state (``state``): the stream epoch, where a file source was
in its clock, whether a shot was in progress (a restart marks it cut).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any


class Outbox:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        try:
            self._c = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._c.execute("PRAGMA journal_mode=WAL")
            self._c.execute("PRAGMA synchronous=FULL")
            self._c.execute(
                "CREATE TABLE IF NOT EXISTS outbox (n INTEGER PRIMARY KEY AUTOINCREMENT, "
                "key TEXT UNIQUE NOT NULL, subject TEXT NOT NULL, payload BLOB NOT NULL, "
                "at REAL NOT NULL, tries INTEGER NOT NULL DEFAULT 0)"
            )
            self._c.execute("CREATE TABLE IF NOT EXISTS state (k TEXT PRIMARY KEY, v TEXT)")
        except sqlite3.Error as e:
            raise ValueError(f"{path}: cannot open the worker's outbox: {e}") from None

    def put(self, key: str, subject: str, payload: bytes) -> bool:
        """Keep a message until it is acknowledged; False when that key is kept already."""
        with self._lock:
            cur = self._c.execute(
                "INSERT OR IGNORE INTO outbox(key, subject, payload, at) VALUES (?,?,?,?)",
                (key, subject, payload, time.time()),
            )
            return cur.rowcount == 1

    def pending(self, limit: int = 100) -> list[tuple[str, str, bytes]]:
        """The oldest ``limit`` messages not yet acknowledged: ``(key, subject, payload)``."""
        with self._lock:
            rows = self._c.execute(
                "SELECT key, subject, payload FROM outbox ORDER BY n LIMIT ?", (limit,)
            ).fetchall()
        return [(k, s, bytes(p)) for k, s, p in rows]

    def done(self, key: str) -> None:
        with self._lock:
            self._c.execute("DELETE FROM outbox WHERE key=?", (key,))

    def tried(self, key: str) -> None:
        with self._lock:
            self._c.execute("UPDATE outbox SET tries=tries+1 WHERE key=?", (key,))

    def __len__(self) -> int:
        with self._lock:
            return int(self._c.execute("SELECT count(*) FROM outbox").fetchone()[0])

    def get(self, k: str, default: Any = None) -> Any:
        with self._lock:
            r = self._c.execute("SELECT v FROM state WHERE k=?", (k,)).fetchone()
        return default if r is None else json.loads(r[0])

    def set(self, k: str, v: Any) -> None:
        with self._lock:
            self._c.execute(
                "INSERT INTO state(k, v) VALUES (?,?) ON CONFLICT(k) DO UPDATE SET v=excluded.v",
                (k, json.dumps(v)),
            )

    def close(self) -> None:
        with self._lock:
            self._c.close()
