"""Settings from the environment; the database on SQLite and PostgreSQL: migrations, WAL,
transactions, frozen values, the dialect differences (ids, types, NUL)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from service.db import MIGRATIONS, Database
from service.settings import Settings
from service.sqlbackend import NulInText, redact

pytestmark = pytest.mark.backends("sqlite", "postgres")


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


@pytest.mark.parametrize(
    ("raw", "target"),
    [
        ("x/y.db", "x/y.db"),
        ("sqlite:///tmp/z.db", "tmp/z.db"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("postgres://u:pw@h:5433/db?sslmode=require", "postgres://u:pw@h:5433/db?sslmode=require"),
    ],
)
def test_db_target(raw: str, target: str) -> None:
    assert Settings(db=raw).db_target == target


@pytest.mark.parametrize("raw", ["mysql://u@h/db", "http://x/y"])
def test_db_other_url_is_one_clear_error(raw: str) -> None:
    scheme = raw.split(":")[0]
    with pytest.raises(ValueError, match=f"'{scheme}' is not supported; use a SQLite file"):
        Settings(db=raw).db_target  # noqa: B018


def test_postgres_url_has_no_file_path() -> None:
    with pytest.raises(ValueError, match="PostgreSQL URL has no file path"):
        Settings(db="postgresql://u@h/db").db_path  # noqa: B018


def test_redact_hides_the_password() -> None:
    assert redact("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"
    assert redact("postgresql://u@h/db") == "postgresql://u@h/db"


def test_unreachable_postgres_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    url = f"postgresql://u:pw@/db?host={tmp_path}&port=1"  # no server on that socket
    with pytest.raises(ValueError, match=r"postgresql://u:\*\*\*@/db.*cannot open") as e:
        Database(url)
    assert "\n" not in str(e.value) and "pw" not in str(e.value)


def test_migrations_and_reopen(db_target: str, backend: str) -> None:
    db = Database(db_target)
    assert db.backend == backend and db.version == len(MIGRATIONS)
    if backend == "sqlite":
        assert db._q1("PRAGMA journal_mode")[0] == "wal"
        assert db._q1("PRAGMA synchronous")[0] == 2  # FULL
    m = db.add_match(None, {"game": "pyramid-free", "players": {"A": "Иванов", "B": "b"}})
    db.close()
    db2 = Database(db_target)  # reopening applies nothing twice, keeps the data
    assert db2.version == len(MIGRATIONS)
    assert db2.match(m.id) == m
    with pytest.raises(AttributeError):
        m.id = 5  # type: ignore[misc]  (frozen value)
    db2.close()


def test_newer_schema_refused(db_target: str) -> None:
    db = Database(db_target)
    db._b.set_version(len(MIGRATIONS) + 1)
    db.close()
    with pytest.raises(ValueError, match="newer than this tablemon"):
        Database(db_target)


def test_write_rolls_back_on_error(db_target: str) -> None:
    db = Database(db_target)
    m = db.add_match(None, {"game": "pyramid-free"})
    with pytest.raises(RuntimeError), db.write():
        db.add_shot(m.id, 1, {"index": 1})
        raise RuntimeError("boom")
    assert db.shots(m.id) == []
    db.add_shot(m.id, 1, {"index": 1})  # the connection is usable after the rollback
    assert [s.idx for s in db.shots(m.id)] == [1]
    db.close()


def test_ids_times_and_paging_agree(db_target: str) -> None:
    """New ids grow from 1, Unix times keep their fraction (not float4 on PostgreSQL),
    ``since``/``limit`` and event filters page the same on both databases."""
    db = Database(db_target)
    t = db.add_table("t", "0", "pyramid-12ft", {"format": "x"})
    a, b = db.add_match(t.id, {"n": 1}), db.add_match(None, {"n": 2})
    assert (t.id, a.id, b.id) == (1, 1, 2)
    assert abs(a.created - time.time()) < 60 and a.created != int(a.created)
    for i in range(1, 6):
        db.add_shot(a.id, i, {"index": i})
    assert [s.idx for s in db.shots(a.id, since=2, limit=2)] == [3, 4]
    assert db.last_shot_index(a.id) == 5 and db.last_shot_index(b.id) == 0
    ids = [db.add_event("shot", {"i": i}, a.id if i % 2 else b.id, t.id) for i in range(6)]
    assert ids == list(range(1, 7))
    assert [e.id for e in db.events(2, match_id=a.id)] == [4, 6]
    assert db.last_event_id(b.id) == 5 and db.last_event_id() == 6
    assert db.add_audit(a.id, 1, "ref", "add_foul", None, {"f": 1}) == 1
    assert db.audit(a.id)[0].after == {"f": 1}
    r = db.add_replay("/v.mp4", "pyramid-free", None, {"format": "c"})
    db.update_replay(r.id, status="running", progress=0.25)
    assert (db.replay(r.id).progress, db.replay(r.id).calibration) == (0.25, {"format": "c"})
    assert db.fail_interrupted_replays() == 1 and db.replay(r.id).status == "failed"
    with pytest.raises(ValueError, match="unknown replay fields: bogus"):
        db.update_replay(r.id, bogus=1)
    db.close()


def test_nul_text(db_target: str, backend: str) -> None:
    """SQLite stores a NUL character; PostgreSQL cannot, and says so in one line (-> 422)."""
    db = Database(db_target)
    if backend == "sqlite":
        assert db.add_table("a\x00b", "0", "pyramid-12ft", None).name == "a\x00b"
    else:
        with pytest.raises(NulInText, match="may not contain NUL"):
            db.add_table("a\x00b", "0", "pyramid-12ft", None)
        assert db.tables() == []
    db.close()


@pytest.mark.parametrize("freeze", [True, False])
def test_gc_freeze_after_start(tmp_path: Path, freeze: bool) -> None:
    """The objects alive after start go to the permanent GC generation (full collections
    then stop the event loop for a fraction of the time), unless turned off."""
    import gc

    from svc_helpers import client_for, make_settings

    gc.unfreeze()
    with client_for(make_settings(tmp_path, gc_freeze=freeze)):
        frozen = gc.get_freeze_count()
    gc.unfreeze()
    assert (frozen > 10_000) is freeze


def test_two_processes_migrate_at_once(db_target: str) -> None:
    """Services starting together on a fresh database migrate one after the other (SQLite:
    BEGIN IMMEDIATE; PostgreSQL: an advisory lock), neither fails, nothing twice."""
    code = (
        "import sys; from service.db import Database, MIGRATIONS; "
        "db = Database(sys.argv[1]); assert db.version == len(MIGRATIONS); db.close()"
    )
    root = str(Path(__file__).resolve().parents[2])
    procs = [
        subprocess.Popen([sys.executable, "-c", code, db_target], cwd=root, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    errs = [p.communicate(timeout=60)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errs
    db = Database(db_target)
    db.add_match(None, {"n": 1})
    assert [m.id for m in db.matches()] == [1] and db.version == len(MIGRATIONS)
    db.close()
