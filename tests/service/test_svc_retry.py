"""A change cut by a lost database connection is redone once; one recorded before the
connection went is never redone (503 says so); one made on a state another API process
changed meanwhile is redone on the new state."""

from __future__ import annotations

from pathlib import Path

from svc_helpers import AUTH, client_for, make_settings, new_match, shot

from service.db import DatabaseUnavailable


def _runtime(c, s):
    return c.app.state.runtimes[s.db_target]


def test_cut_before_commit_is_redone_once(tmp_path: Path, monkeypatch) -> None:
    s = make_settings(tmp_path)
    with client_for(s) as c:
        mid = new_match(c)["id"]
        db = _runtime(c, s).db
        real, calls = db.add_shot, []

        def flaky(*a, **k):
            calls.append(1)
            if len(calls) == 1:
                raise DatabaseUnavailable("database unavailable (gone); nothing was recorded")
            return real(*a, **k)

        monkeypatch.setattr(db, "add_shot", flaky)
        r = c.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
        assert r.status_code == 201 and r.json()["index"] == 1 and len(calls) == 2
        assert len(c.get(f"/matches/{mid}/shots").json()["shots"]) == 1


def test_cut_twice_answers_503(tmp_path: Path, monkeypatch) -> None:
    s = make_settings(tmp_path)
    with client_for(s) as c:
        mid = new_match(c)["id"]
        db = _runtime(c, s).db

        def down(*a, **k):
            raise DatabaseUnavailable(
                "database unavailable (gone); nothing was recorded, try again"
            )

        monkeypatch.setattr(db, "add_shot", down)
        r = c.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.json()["detail"] == "database unavailable (gone); nothing was recorded, try again"


def test_lost_after_commit_is_not_redone(tmp_path: Path, monkeypatch) -> None:
    s = make_settings(tmp_path)
    with client_for(s) as c:
        mid = new_match(c)["id"]
        rt = _runtime(c, s)

        def gone() -> None:
            raise DatabaseUnavailable("database unavailable (gone); nothing was recorded")

        monkeypatch.setattr(rt.service.broker, "publish", gone)
        r = c.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
        assert r.status_code == 503
        assert r.json()["detail"].startswith("database unavailable (gone) after the change was")
        monkeypatch.undo()
        assert len(c.get(f"/matches/{mid}/shots").json()["shots"]) == 1  # once, not twice


def test_stale_write_is_redone_on_the_new_state(tmp_path: Path) -> None:
    """Another process's shot lands between this one's read and write (simulated by a
    second service object on the same database): the correction is redone, not lost, and
    applies to the shot it named."""
    from service.core import MatchService
    from service.db import Database

    s = make_settings(tmp_path)
    with client_for(s) as c:
        mid = new_match(c)["id"]
        assert c.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH).status_code == 201
        rt = _runtime(c, s)
        other = MatchService(Database(s.db_target))
        other.add_shot(mid, shot(frame=100), "other process")  # rt's cache is now stale
        forgot: list[int] = []
        real_forget = rt.service.forget
        rt.service.forget = lambda m: (forgot.append(m), real_forget(m))[1]
        r = c.post(f"/matches/{mid}/referee/fouls", json={"foul": "foot", "shot": 1}, headers=AUTH)
        assert r.status_code == 200, r.text
        st = c.get(f"/matches/{mid}/state").json()
        assert st["shot_no"] == 2 and st["rev"] == rt.db.last_event_id(mid)
        assert forgot == [mid]  # the stale read was noticed inside the write and redone
        audit = c.get(f"/matches/{mid}/audit").json()[-1]
        assert audit["action"] == "add_foul" and audit["shot"] == 1
        other.db.close()


def test_commits_count_per_thread(tmp_path: Path) -> None:
    import threading

    from service.db import Database

    db = Database(tmp_path / "x.db")
    mine = db.commits()
    t = threading.Thread(target=db.add_table, args=("T", "0", "pyramid-12ft", None))
    t.start()
    t.join()
    assert db.commits() == mine  # another thread's commit is not this one's
    db.add_table("T2", "0", "pyramid-12ft", None)
    assert db.commits() == mine + 1
    db.close()
