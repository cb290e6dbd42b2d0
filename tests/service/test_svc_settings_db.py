"""Settings from the environment; the database: migrations, WAL, frozen values."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from service.db import MIGRATIONS, Database
from service.settings import Settings


def test_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TABLEMON_TOKEN", "abc")
    monkeypatch.setenv("TABLEMON_DATA", str(tmp_path))
    monkeypatch.setenv("TABLEMON_CORS_ORIGINS", "http://a.example, http://b.example")
    monkeypatch.setenv("TABLEMON_READS_REQUIRE_TOKEN", "true")
    s = Settings()
    assert s.token == "abc"
    assert s.cors_origins == ["http://a.example", "http://b.example"]
    assert s.reads_require_token is True
    assert s.db_path == tmp_path / "tablemon.db"


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ("x/y.db", Path("x/y.db")),
        ("sqlite:///tmp/z.db", Path("tmp/z.db")),
        ("sqlite:////abs.db", Path("/abs.db")),
    ],
)
def test_db_path(raw: str, path: Path) -> None:
    assert Settings(db=raw).db_path == path


def test_db_other_url_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="'postgresql' is not supported"):
        Settings(db="postgresql://u@h/db").db_path  # noqa: B018


def test_migrations_and_pragmas(tmp_path: Path) -> None:
    db = Database(tmp_path / "a.db")
    assert db.version == len(MIGRATIONS)
    assert db._q1("PRAGMA journal_mode")[0] == "wal"
    assert db._q1("PRAGMA synchronous")[0] == 2  # FULL
    m = db.add_match(None, {"game": "pyramid-free"})
    db.close()
    db2 = Database(tmp_path / "a.db")  # reopening applies nothing twice, keeps the data
    assert db2.version == len(MIGRATIONS)
    assert db2.match(m.id) == m
    with pytest.raises(AttributeError):
        m.id = 5  # type: ignore[misc]  (frozen value)
    db2.close()


def test_newer_schema_refused(tmp_path: Path) -> None:
    c = sqlite3.connect(tmp_path / "n.db")
    c.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
    c.close()
    with pytest.raises(ValueError, match="newer than this tablemon"):
        Database(tmp_path / "n.db")


def test_write_rolls_back_on_error(tmp_path: Path) -> None:
    db = Database(tmp_path / "r.db")
    m = db.add_match(None, {"game": "pyramid-free"})
    with pytest.raises(RuntimeError), db.write():
        db.add_shot(m.id, 1, {"index": 1})
        raise RuntimeError("boom")
    assert db.shots(m.id) == []
    db.close()
