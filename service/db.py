"""Persistence: every SQL statement of the service, on SQLite or PostgreSQL.

SQLite (a file path, the default): WAL journal with ``synchronous=FULL``. PostgreSQL (a
``postgresql://`` URL, where a club outgrows one machine): the same statements, schema and
migrations; what differs between the two is in :mod:`service.sqlbackend`. Either way a
change is on disk when its request returns, so ``kill -9`` loses nothing that was recorded.
Schema migrations are a versioned list applied at start. The repository returns frozen
values, never rows. One connection guarded by a lock (the API process is the only writer).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.sqlbackend import connect

MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        source TEXT NOT NULL,
        spec TEXT NOT NULL,
        calibration TEXT,
        created REAL NOT NULL
    );
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id INTEGER REFERENCES tables(id),
        settings TEXT NOT NULL,
        pending TEXT NOT NULL DEFAULT '{}',
        created REAL NOT NULL
    );
    CREATE TABLE shots (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        idx INTEGER NOT NULL,
        shot TEXT NOT NULL,
        created REAL NOT NULL,
        PRIMARY KEY (match_id, idx)
    );
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        match_id INTEGER NOT NULL REFERENCES matches(id),
        shot_idx INTEGER,
        at REAL NOT NULL,
        who TEXT NOT NULL,
        action TEXT NOT NULL,
        before TEXT,
        after TEXT
    );
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        match_id INTEGER,
        table_id INTEGER,
        at REAL NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL
    );
    CREATE INDEX events_match ON events(match_id, id);
    CREATE INDEX events_table ON events(table_id, id);
    CREATE TABLE replays (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        video TEXT NOT NULL,
        game TEXT NOT NULL,
        spec TEXT,
        status TEXT NOT NULL,
        progress REAL NOT NULL DEFAULT 0,
        error TEXT,
        result TEXT,
        annotated TEXT,
        created REAL NOT NULL,
        updated REAL NOT NULL
    );
    """,
    # 2: a replay may carry its CALIB.json
    "ALTER TABLE replays ADD COLUMN calibration TEXT",
    # 3: broker mode (service/cluster): the message ids stored (a re-sent shot is stored
    # once) and which match each remote table's shots feed
    """
    CREATE TABLE ingested (
        msg_id TEXT PRIMARY KEY,
        table_id INTEGER,
        match_id INTEGER,
        shot_idx INTEGER,
        at REAL NOT NULL
    );
    CREATE TABLE table_feeds (
        table_id INTEGER PRIMARY KEY REFERENCES tables(id),
        match_id INTEGER REFERENCES matches(id),
        at REAL NOT NULL
    );
    """,
)
# pg_advisory_xact_lock key taken by every PostgreSQL write transaction: commits happen in
# event-id order, so a process reading the events after the last id it has seen never
# skips one that another process committed late (several API processes on one database)
_WRITE_LOCK = 0x7AB1F
NOTIFY_CHANNEL = "tablemon_events"


def _unavailable(e: BaseException) -> str:
    return (
        f"database unavailable ({' '.join(str(e).split())[:160]}); nothing was recorded, try again"
    )


def _j(v: Any) -> str | None:
    return None if v is None else json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def _l(s: str | None) -> Any:
    return None if s is None else json.loads(s)


@dataclass(frozen=True)
class TableRow:
    id: int
    name: str
    source: str
    spec: str
    calibration: dict | None
    created: float


@dataclass(frozen=True)
class MatchRow:
    """A match; ``settings`` holds game, table spec, players, race_to, penalty, target,
    breaker, start score (the create request, validated); ``pending`` a classic call
    made before its shot exists."""

    id: int
    table_id: int | None
    settings: dict
    pending: dict
    created: float


@dataclass(frozen=True)
class ShotRow:
    match_id: int
    idx: int
    shot: dict  # a contract §8 shot as JSON, with the referee's input
    created: float


@dataclass(frozen=True)
class AuditRow:
    id: int
    match_id: int
    shot_idx: int | None
    at: float
    who: str
    action: str
    before: Any
    after: Any


@dataclass(frozen=True)
class EventRow:
    id: int
    match_id: int | None
    table_id: int | None
    at: float
    kind: str
    data: dict


@dataclass(frozen=True)
class ReplayRow:
    id: int
    video: str
    game: str
    spec: str | None
    status: str  # queued | running | done | failed
    progress: float  # 0..1
    error: str | None
    result: str | None
    annotated: str | None
    created: float
    updated: float
    calibration: dict | None = None

    @classmethod
    def of(cls, r: tuple) -> ReplayRow:
        return cls(*r[:11], calibration=_l(r[11]) if len(r) > 11 else None)


class DatabaseUnavailable(RuntimeError):
    """The database server cannot be reached (-> 503 with this message)."""


class Database:
    """The repository. ``with db.write():`` groups statements into one transaction.

    On PostgreSQL a lost connection (the server restarted) is opened again on the next
    statement; a read outside a transaction is retried once; a transaction cut by it raises
    :class:`DatabaseUnavailable` (its caller retries the change once, then answers 503).
    Every write transaction that added events ends with a ``NOTIFY`` on
    :data:`NOTIFY_CHANNEL` (``{"m": {match: last event id}, "last": id}``), sent by the
    server at commit: the other API processes' caches listen (:mod:`service.cluster.notify`).
    """

    def __init__(self, path: str | Path) -> None:
        """``path``: a SQLite file (or ``:memory:``) or a ``postgresql://`` URL."""
        self._target = path
        self._b = connect(path)
        self.backend = self._b.name  # "sqlite" | "postgres"
        self.path = None if self.backend == "postgres" else Path(path)
        self._lock = threading.RLock()
        self._depth = 0
        self._touched: dict[int | None, int] = {}  # match -> last event id, this transaction
        self._mine = threading.local()  # commits made by the calling thread
        self.source = f"{os.getpid()}-{id(self):x}"  # names this process's NOTIFYs
        self.migrate()

    # -- plumbing -------------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            self._b.close()

    def _lost(self, e: BaseException) -> bool:
        """Whether ``e`` is a lost PostgreSQL connection (not a refused statement)."""
        return self.backend == "postgres" and self._b.lost(e)

    def reconnect(self) -> None:
        """Open the PostgreSQL connection again (one clear error when it cannot)."""
        with self._lock:
            if self.backend != "postgres":
                return
            with contextlib.suppress(Exception):
                self._b.close()
            try:
                self._b = connect(self._target)
            except ValueError as e:
                raise DatabaseUnavailable(f"database unavailable: {e}") from None

    def _run(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` on the connection; a lost connection is reopened and, outside a
        transaction, ``fn`` retried once."""
        with self._lock:
            try:
                return fn()
            except Exception as e:
                if not self._lost(e):
                    raise
                inside = self._depth > 0
                self.reconnect()
                if inside:
                    raise DatabaseUnavailable(_unavailable(e)) from None
            try:
                return fn()
            except Exception as e:
                if self._lost(e):
                    raise DatabaseUnavailable(_unavailable(e)) from None
                raise

    @property
    def version(self) -> int:
        with self._lock:
            return self._b.version()

    def migrate(self) -> None:
        """Apply every migration newer than the database's version, each in a transaction."""
        with self._lock:
            for n, sql in enumerate(MIGRATIONS, start=1):
                self._b.begin()
                try:
                    self._b.lock_schema()
                    have = self._b.version()
                    if have > len(MIGRATIONS):
                        raise ValueError(
                            f"{self._b.label}: database schema v{have} is newer than this "
                            f"tablemon (v{len(MIGRATIONS)})"
                        )
                    if have < n:
                        for stmt in self._b.ddl(sql).split(";"):
                            if stmt.strip():
                                self._b.execute(stmt)
                        self._b.set_version(n)
                    self._b.execute("COMMIT")
                except BaseException:
                    self._b.execute("ROLLBACK")
                    raise

    @contextmanager
    def write(self) -> Iterator[None]:
        """One transaction (re-entrant); also serialises read-modify-write sequences."""
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._run(self._begin)
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if outer:
                    self._touched = {}
                    with contextlib.suppress(Exception):
                        self._b.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outer:
                try:
                    self._commit()
                except Exception as e:
                    if self._lost(e):
                        self.reconnect()
                        raise DatabaseUnavailable(_unavailable(e)) from None
                    raise

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads that must agree with each other: on PostgreSQL one repeatable-read
        transaction (no write lock: other processes' writers go on); on SQLite a
        :meth:`write` (this process is the only writer)."""
        if self.backend != "postgres":
            with self.write():
                yield
            return
        with self._lock:
            if self._depth > 0:  # inside a transaction already: its view
                yield
                return
            self._run(lambda: self._b.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                with contextlib.suppress(Exception):
                    self._b.execute("COMMIT")

    def _begin(self) -> None:
        self._b.begin()
        self._touched = {}
        if self.backend == "postgres":
            self._b.execute("SELECT pg_advisory_xact_lock(?)", (_WRITE_LOCK,))

    def commits(self) -> int:
        """How many transactions the calling thread has committed (whether a change that
        failed had already been recorded)."""
        return getattr(self._mine, "n", 0)

    def _commit(self) -> None:
        touched, self._touched = self._touched, {}
        if touched and self.backend == "postgres":
            payload = {
                "src": self.source,
                "m": {str(k): v for k, v in touched.items() if k is not None},
                "last": max(touched.values()),
            }
            self._b.execute("SELECT pg_notify(?, ?)", (NOTIFY_CHANNEL, _j(payload)))
        self._b.execute("COMMIT")
        self._mine.n = self.commits() + 1

    def _q(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._run(lambda: self._b.execute(sql, args).fetchall())

    def _q1(self, sql: str, args: tuple = ()) -> tuple | None:
        return self._run(lambda: self._b.execute(sql, args).fetchone())

    def _x(self, sql: str, args: tuple = ()) -> None:
        self._run(lambda: self._b.execute(sql, args))

    def _ins(self, sql: str, args: tuple) -> int:
        """An INSERT into a table with an ``id``; the new id."""
        return self._run(lambda: self._b.insert(sql, args))

    # -- tables ---------------------------------------------------------------------------
    def add_table(self, name: str, source: str, spec: str, calibration: dict | None) -> TableRow:
        with self.write():
            i = self._ins(
                "INSERT INTO tables(name, source, spec, calibration, created) VALUES (?,?,?,?,?)",
                (name, source, spec, _j(calibration), time.time()),
            )
        return self.table(i)  # type: ignore[return-value]

    def set_calibration(self, table_id: int, calibration: dict) -> None:
        with self.write():
            self._x("UPDATE tables SET calibration=? WHERE id=?", (_j(calibration), table_id))

    def table(self, table_id: int) -> TableRow | None:
        r = self._q1("SELECT * FROM tables WHERE id=?", (table_id,))
        return None if r is None else TableRow(r[0], r[1], r[2], r[3], _l(r[4]), r[5])

    def tables(self) -> list[TableRow]:
        rows = self._q("SELECT * FROM tables ORDER BY id")
        return [TableRow(r[0], r[1], r[2], r[3], _l(r[4]), r[5]) for r in rows]

    # -- matches --------------------------------------------------------------------------
    def add_match(self, table_id: int | None, settings: dict) -> MatchRow:
        with self.write():
            i = self._ins(
                "INSERT INTO matches(table_id, settings, created) VALUES (?,?,?)",
                (table_id, _j(settings), time.time()),
            )
        return self.match(i)  # type: ignore[return-value]

    def match(self, match_id: int) -> MatchRow | None:
        r = self._q1(
            "SELECT id, table_id, settings, pending, created FROM matches WHERE id=?", (match_id,)
        )
        return None if r is None else MatchRow(r[0], r[1], _l(r[2]), _l(r[3]), r[4])

    def matches(self, table_id: int | None = None) -> list[MatchRow]:
        sql = "SELECT id, table_id, settings, pending, created FROM matches"
        rows = (
            self._q(sql + " WHERE table_id=? ORDER BY id", (table_id,))
            if table_id
            else self._q(sql + " ORDER BY id")
        )
        return [MatchRow(r[0], r[1], _l(r[2]), _l(r[3]), r[4]) for r in rows]

    def set_match_settings(self, match_id: int, settings: dict) -> None:
        self._x("UPDATE matches SET settings=? WHERE id=?", (_j(settings), match_id))

    def set_pending(self, match_id: int, pending: dict) -> None:
        self._x("UPDATE matches SET pending=? WHERE id=?", (_j(pending), match_id))

    # -- shots ----------------------------------------------------------------------------
    def add_shot(self, match_id: int, idx: int, shot: dict) -> None:
        self._x(
            "INSERT INTO shots(match_id, idx, shot, created) VALUES (?,?,?,?)",
            (match_id, idx, _j(shot), time.time()),
        )

    def replace_shot(self, match_id: int, idx: int, shot: dict) -> None:
        self._x("UPDATE shots SET shot=? WHERE match_id=? AND idx=?", (_j(shot), match_id, idx))

    def shots(self, match_id: int, since: int = 0, limit: int | None = None) -> list[ShotRow]:
        """Shots with index > ``since`` in order (``limit`` of them at most)."""
        sql = (
            "SELECT match_id, idx, shot, created FROM shots WHERE match_id=? AND idx>? ORDER BY idx"
        )
        args: tuple = (match_id, since)
        if limit is not None:
            sql += " LIMIT ?"
            args += (limit,)
        return [ShotRow(r[0], r[1], _l(r[2]), r[3]) for r in self._q(sql, args)]

    def last_shot_index(self, match_id: int) -> int:
        r = self._q1("SELECT max(idx) FROM shots WHERE match_id=?", (match_id,))
        return int(r[0] or 0) if r else 0

    # -- audit ----------------------------------------------------------------------------
    def add_audit(
        self, match_id: int, shot_idx: int | None, who: str, action: str, before: Any, after: Any
    ) -> int:
        return self._ins(
            "INSERT INTO audit(match_id, shot_idx, at, who, action, before, after) "
            "VALUES (?,?,?,?,?,?,?)",
            (match_id, shot_idx, time.time(), who, action, _j(before), _j(after)),
        )

    def audit(self, match_id: int) -> list[AuditRow]:
        rows = self._q("SELECT * FROM audit WHERE match_id=? ORDER BY id", (match_id,))
        return [AuditRow(r[0], r[1], r[2], r[3], r[4], r[5], _l(r[6]), _l(r[7])) for r in rows]

    # -- events (the SSE log) -------------------------------------------------------------
    def add_event(
        self, kind: str, data: dict, match_id: int | None = None, table_id: int | None = None
    ) -> int:
        i = self._ins(
            "INSERT INTO events(match_id, table_id, at, kind, data) VALUES (?,?,?,?,?)",
            (match_id, table_id, time.time(), kind, _j(data)),
        )
        with self._lock:
            if self._depth > 0:
                self._touched[match_id] = i
        return i

    def events(
        self,
        after: int = 0,
        match_id: int | None = None,
        table_id: int | None = None,
        limit: int = 500,
    ) -> list[EventRow]:
        """Events with id > ``after`` in id order, for one match, one table or all."""
        sql, args = "SELECT * FROM events WHERE id>?", [after]
        if match_id is not None:
            sql += " AND match_id=?"
            args.append(match_id)
        if table_id is not None:
            sql += " AND table_id=?"
            args.append(table_id)
        sql += " ORDER BY id LIMIT ?"
        args.append(limit)
        return [EventRow(r[0], r[1], r[2], r[3], r[4], _l(r[5])) for r in self._q(sql, tuple(args))]

    def last_event_id(self, match_id: int | None = None) -> int:
        if match_id is None:
            r = self._q1("SELECT max(id) FROM events")
        else:
            r = self._q1("SELECT max(id) FROM events WHERE match_id=?", (match_id,))
        return int(r[0] or 0) if r else 0

    # -- broker mode: message ids stored, the match each remote table feeds -------------
    def ingested(self, msg_id: str) -> tuple[int | None, int | None] | None:
        """``(match_id, shot_idx)`` stored for a message id, or None (not seen yet)."""
        r = self._q1("SELECT match_id, shot_idx FROM ingested WHERE msg_id=?", (msg_id,))
        return None if r is None else (r[0], r[1])

    def add_ingested(
        self, msg_id: str, table_id: int | None, match_id: int | None, shot_idx: int | None
    ) -> None:
        self._x(
            "INSERT INTO ingested(msg_id, table_id, match_id, shot_idx, at) VALUES (?,?,?,?,?)",
            (msg_id, table_id, match_id, shot_idx, time.time()),
        )

    def set_feed(self, table_id: int, match_id: int | None) -> None:
        """The match the table's remote shots feed (None: none, the shots are kept as
        table events)."""
        with self.write():
            self._x("DELETE FROM table_feeds WHERE table_id=?", (table_id,))
            self._x(
                "INSERT INTO table_feeds(table_id, match_id, at) VALUES (?,?,?)",
                (table_id, match_id, time.time()),
            )

    def feed(self, table_id: int) -> int | None:
        """The match fed by the table: the one set by :meth:`set_feed`, else the table's
        newest match, else None."""
        r = self._q1("SELECT match_id FROM table_feeds WHERE table_id=?", (table_id,))
        if r is not None:
            return r[0]
        r = self._q1("SELECT max(id) FROM matches WHERE table_id=?", (table_id,))
        return None if r is None or r[0] is None else int(r[0])

    # -- replays --------------------------------------------------------------------------
    def add_replay(
        self, video: str, game: str, spec: str | None, calibration: dict | None = None
    ) -> ReplayRow:
        now = time.time()
        with self.write():
            i = self._ins(
                "INSERT INTO replays(video, game, spec, status, created, updated, calibration) "
                "VALUES (?,?,?,?,?,?,?)",
                (video, game, spec, "queued", now, now, _j(calibration)),
            )
        return self.replay(i)  # type: ignore[return-value]

    def update_replay(self, replay_id: int, **fields: Any) -> None:
        allowed = {"status", "progress", "error", "result", "annotated"}
        bad = set(fields) - allowed
        if bad:
            raise ValueError(f"unknown replay fields: {', '.join(sorted(bad))}")
        cols = ", ".join(f"{k}=?" for k in fields)
        with self.write():
            self._x(
                f"UPDATE replays SET {cols}, updated=? WHERE id=?",
                (*fields.values(), time.time(), replay_id),
            )

    def replay(self, replay_id: int) -> ReplayRow | None:
        r = self._q1("SELECT * FROM replays WHERE id=?", (replay_id,))
        return None if r is None else ReplayRow.of(r)

    def replays(self) -> list[ReplayRow]:
        return [ReplayRow.of(r) for r in self._q("SELECT * FROM replays ORDER BY id")]

    def fail_interrupted_replays(self) -> int:
        """Jobs left queued/running by a previous process: failed, with the reason recorded."""
        with self.write():
            n = self._q1("SELECT count(*) FROM replays WHERE status IN ('queued','running')")
            self._x(
                "UPDATE replays SET status='failed', error='interrupted by a service restart', "
                "updated=? WHERE status IN ('queued','running')",
                (time.time(),),
            )
        return int(n[0]) if n else 0
