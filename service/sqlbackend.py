"""The SQL dialects behind :class:`service.db.Database`: SQLite and PostgreSQL.

Everything that differs between the two lives here, in one place: how to connect, the
parameter style (the repository writes ``?``; PostgreSQL gets ``%s``), the column types of
the migrations (``INTEGER PRIMARY KEY AUTOINCREMENT`` becomes ``BIGSERIAL PRIMARY KEY``,
``INTEGER`` ``BIGINT``, ``REAL`` ``DOUBLE PRECISION`` so Unix times keep their fraction),
the new row's id (``lastrowid`` or ``RETURNING id``), where the schema version is kept
(``PRAGMA user_version`` or a one-row ``tablemon_schema`` table), how a write transaction
begins and how concurrent migrations are kept apart (an advisory lock).

``TABLEMON_DB`` chooses: ``postgresql://`` or ``postgres://`` URL -> PostgreSQL (through
psycopg 3, imported only then, so SQLite installs never need it); a file path or
``sqlite:///PATH`` -> SQLite.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

PG_SCHEMES = ("postgresql://", "postgres://")
_PG_TYPES = (
    (re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b"), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
)
_MIGRATION_LOCK = 0x7AB1E  # pg_advisory_xact_lock key of tablemon's migrations


def is_postgres(target: str | Path) -> bool:
    return str(target).startswith(PG_SCHEMES)


def redact(url: str) -> str:
    """The URL without its password (for error lines)."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


class SqliteBackend:
    """One SQLite connection in WAL mode with ``synchronous=FULL``."""

    name = "sqlite"

    def __init__(self, path: Path) -> None:
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        self.label = str(path)
        try:
            self.c = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self.c.execute("PRAGMA journal_mode=WAL")
            self.c.execute("PRAGMA synchronous=FULL")
            self.c.execute("PRAGMA foreign_keys=ON")
            self.c.execute("PRAGMA busy_timeout=5000")
        except sqlite3.Error as e:
            raise ValueError(f"{path}: cannot open the database: {e}") from None

    def execute(self, sql: str, args: tuple = ()) -> Any:
        return self.c.execute(sql, args)

    def insert(self, sql: str, args: tuple) -> int:
        """Run an INSERT; the new row's id."""
        return int(self.c.execute(sql, args).lastrowid or 0)

    def ddl(self, sql: str) -> str:
        return sql

    def begin(self) -> None:
        self.c.execute("BEGIN IMMEDIATE")

    def lock_schema(self) -> None:
        """Inside the migration transaction: BEGIN IMMEDIATE already excludes other writers."""

    def version(self) -> int:
        return int(self.c.execute("PRAGMA user_version").fetchone()[0])

    def lost(self, e: BaseException) -> bool:
        return False

    def set_version(self, n: int) -> None:
        self.c.execute(f"PRAGMA user_version={int(n)}")

    def close(self) -> None:
        self.c.close()


class PostgresBackend:
    """One psycopg 3 connection in autocommit mode; transactions are explicit
    ``BEGIN``/``COMMIT`` like SQLite's. Each COMMIT is durable (``synchronous_commit`` is
    the server's, on by default), so ``kill -9`` of the service loses nothing recorded."""

    name = "postgres"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise ValueError(
                "TABLEMON_DB is a PostgreSQL URL but psycopg is not installed "
                "(pip install 'psycopg[binary]')"
            ) from None
        self.label = redact(url)
        self._errors = psycopg.Error
        try:
            self.c = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as e:
            msg = " ".join(str(e).split())
            raise ValueError(f"{self.label}: cannot open the database: {msg}") from None

    def execute(self, sql: str, args: tuple = ()) -> Any:
        _no_nul(args)
        return self.c.execute(sql.replace("?", "%s"), args or None)

    def insert(self, sql: str, args: tuple) -> int:
        return int(self.execute(sql + " RETURNING id", args).fetchone()[0])

    def ddl(self, sql: str) -> str:
        for pat, rep in _PG_TYPES:
            sql = pat.sub(rep, sql)
        return sql

    def begin(self) -> None:
        self.c.execute("BEGIN")

    def lock_schema(self) -> None:
        """Two services starting at once migrate one after the other; the version row is
        made by the first."""
        self.c.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        self.c.execute("CREATE TABLE IF NOT EXISTS tablemon_schema (version INTEGER NOT NULL)")
        self.c.execute(
            "INSERT INTO tablemon_schema SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM tablemon_schema)"
        )

    def version(self) -> int:
        return int(self.c.execute("SELECT version FROM tablemon_schema").fetchone()[0])

    def lost(self, e: BaseException) -> bool:
        """``e`` came from a connection that is gone (server restarted or unreachable)."""
        import psycopg

        return bool(self.c.closed or self.c.broken or isinstance(e, psycopg.InterfaceError))

    def set_version(self, n: int) -> None:
        self.c.execute("UPDATE tablemon_schema SET version=%s", (int(n),))

    def close(self) -> None:
        self.c.close()


def _no_nul(args: tuple) -> None:
    """PostgreSQL text cannot hold NUL characters (SQLite can): refuse them in one line."""
    for a in args:
        if isinstance(a, str) and "\x00" in a:
            raise NulInText("text values may not contain NUL characters")


class NulInText(ValueError):
    """A text value PostgreSQL cannot store (-> 422)."""


def connect(target: str | Path) -> SqliteBackend | PostgresBackend:
    """The backend for a database setting: a PostgreSQL URL or a SQLite file path."""
    if is_postgres(target):
        return PostgresBackend(str(target))
    return SqliteBackend(Path(target))
