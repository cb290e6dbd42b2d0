"""Broker mode's security and idempotency: workers log in to NATS with their table's secret
and may publish only on their own table's subjects; a shot delivered twice (a re-send past
JetStream's duplicate window, or a redelivery) is stored once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cluster_helpers import (
    apis,
    fake_clip,
    need_nats,
    setup_table,
    shots_of,
    start_worker,
    wait_for,
)
from natsd import Nats
from svc_helpers import client_for, make_settings, new_match, shot

from service.cluster import subjects
from service.cluster.natsconf import permissions_for_table, write_config


@pytest.fixture
def secured(tmp_path: Path):
    """nats-server with the hall's configuration: user ``api``, ``table-1``, ``table-2``."""
    n = Nats(need_nats())
    conf = tmp_path / "nats.json"
    secrets = write_config(conf, [1, 2], n.dir, port=n.port, host="127.0.0.1")
    n.config = conf
    n.start()
    yield n, secrets
    n.close()


def test_permissions_shape() -> None:
    p = permissions_for_table(7)
    assert p["publish"]["allow"] == ["tablemon.table.7.>"]
    assert p["subscribe"]["allow"] == ["_INBOX.>"]


def test_worker_publishes_only_its_own_table(tmp_path: Path, secured) -> None:
    n, secret = secured
    assert (tmp_path / "secrets.env").read_text().count("TOKEN=") == 4  # api, 2 tables, referee
    clip = fake_clip(tmp_path / "v", n=1, every_s=0.5)
    api_env = {"TABLEMON_BROKER_USER": "api", "TABLEMON_BROKER_TOKEN": secret["api"]}
    with apis(tmp_path, str(tmp_path / "k.db"), n.url, n=1, **api_env) as (a,):
        t1, m1 = setup_table(a.url, "T1")
        t2, m2 = setup_table(a.url, "T2")
        assert (t1, t2) == (1, 2)
        # table 2's worker holding table 1's secret: logged in as table-1, refused on 2
        env = {"TABLEMON_BROKER_USER": "table-1", "TABLEMON_BROKER_TOKEN": secret["table-1"]}
        bad = start_worker(tmp_path, 2, clip, n.url, env=env)
        log = tmp_path / "worker-2.log"
        try:
            wait_for(lambda: "not sent t2/" in log.read_text(), timeout=30)
        finally:
            bad.kill()
            bad.wait()
        assert shots_of(a.url, m2) == []
        # with its own secret (user table-2 by default) the kept shot goes through, once
        env = {"TABLEMON_BROKER_TOKEN": secret["table-2"]}
        good = start_worker(tmp_path, 2, clip, n.url, env=env)
        try:
            got = wait_for(lambda: shots_of(a.url, m2), timeout=30)
            assert good.wait(timeout=30) == 0
        finally:
            if good.poll() is None:
                good.kill()
        # the shot kept by the refused run, and the file played again by this one: each once
        kept = {x.split()[1] for x in log.read_text().split("\n") if x.startswith("kept ")}
        assert len(kept) == 2
        got = wait_for(lambda: len(s := shots_of(a.url, m2)) >= 2 and s)
        assert len(got) == 2 and shots_of(a.url, m1) == []
        # a wrong secret does not log in at all
        env = {"TABLEMON_BROKER_TOKEN": "wrong"}
        w = start_worker(tmp_path, 1, clip, n.url, "--outbox", str(tmp_path / "ob-x"), env=env)
        try:
            wait_for(lambda: "kept t1/" in (tmp_path / "worker-1.log").read_text(), timeout=30)
            assert not any(
                "sent t1/" in x
                for x in (tmp_path / "worker-1.log").read_text().split("\n")
                if x.startswith("sent")
            )
        finally:
            w.kill()
            w.wait()
        assert shots_of(a.url, m1) == []


def test_same_message_twice_is_stored_once(tmp_path: Path) -> None:
    """:meth:`RemoteTables.handle` given one shot message twice (as a redelivery, or a
    re-send after the duplicate window, would): one shot, one event; the key on the SSE."""
    s = make_settings(tmp_path, broker="nats://127.0.0.1:9")  # nothing listens: no broker
    with client_for(s) as c:
        t = c.post(
            "/tables",
            json={"name": "T", "source": "0"},
            headers={"Authorization": "Bearer ref-secret"},
        )
        mid = new_match(c, table_id=t.json()["id"])["id"]
        rt = c.app.state.runtimes[s.db_target]
        remote = rt.extras["live"]
        body = {"table": 1, "key": "t1/e1/s10", "shot": shot(frame=10)}
        data = json.dumps(body).encode()
        remote.handle(subjects.subject(1, "shots"), data)
        remote.handle(subjects.subject(1, "shots"), data)
        shots = c.get(f"/matches/{mid}/shots").json()["shots"]
        assert len(shots) == 1
        log = c.get("/stream", params={"match_id": mid, "once": True}).text
        assert log.count("event: shot") == 1 and '"key":"t1/e1/s10"' in log
        # a shot for a table with no match is kept as a table event, not lost, not placed
        t2 = c.post(
            "/tables",
            json={"name": "T2", "source": "1"},
            headers={"Authorization": "Bearer ref-secret"},
        ).json()["id"]
        remote.handle(
            subjects.subject(t2, "shots"), json.dumps({**body, "key": "t2/e/s1"}).encode()
        )
        remote.handle(
            subjects.subject(t2, "shots"), json.dumps({**body, "key": "t2/e/s1"}).encode()
        )
        ev = c.get("/stream", params={"table_id": t2, "once": True}).text
        assert ev.count("unplaced_shot") == 1
        # the calibration a worker runs with becomes the table's (once per message id)
        calib = json.loads(Path("fixtures/videos/pyramid-respot.calib.json").read_text())
        cal = {
            "table": t2,
            "key": "t2/e/calibration",
            "event": {"type": "calibration", "calibration": calib},
        }
        assert c.get(f"/tables/{t2}").json()["calibrated"] is False
        remote.handle(subjects.subject(t2, "events"), json.dumps(cal).encode())
        remote.handle(subjects.subject(t2, "events"), json.dumps(cal).encode())
        assert c.get(f"/tables/{t2}").json()["calibrated"] is True
        log = c.get("/stream", params={"table_id": t2, "once": True}).text
        assert log.count("from the worker") == 1
        assert "no match on the table" in c.get(f"/tables/{t2}").json()["status"]["last_error"]


def test_subjects_and_keys() -> None:
    assert subjects.parse("tablemon.table.12.shots") == (12, "shots")
    assert subjects.parse("tablemon.table.x.shots") is None
    assert subjects.parse("tablemon.table.3.secrets") is None
    assert subjects.shot_key(3, "fabc-1", 120) == "t3/fabc-1/s120"
    with pytest.raises(ValueError):
        subjects.subject(1, "nope")


def test_outbox_survives_reopen(tmp_path: Path) -> None:
    from service.cluster.outbox import Outbox

    box = Outbox(tmp_path / "o" / "outbox.db")
    assert box.put("k1", "s", b"1") and box.put("k2", "s", b"2")
    assert not box.put("k1", "s", b"again")  # one copy per key
    box.set("shot_open", {"t": 1.5, "frame": 45})
    box.close()
    box = Outbox(tmp_path / "o" / "outbox.db")
    assert [k for k, _, _ in box.pending()] == ["k1", "k2"]
    box.done("k1")
    assert [p for _, _, p in box.pending()] == [b"2"] and box.get("shot_open")["frame"] == 45
    box.close()


def test_worker_without_broker_is_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from cluster_helpers import ROOT

    clip = fake_clip(tmp_path / "v", n=1)
    r = subprocess.run(
        [sys.executable, "-m", "service.cli", "worker", "--table", "1", "--camera", str(clip)],
        capture_output=True, text=True, cwd=ROOT, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}, timeout=60,
    )  # fmt: skip
    assert r.returncode != 0 and r.stderr.strip().count("\n") == 0 and "broker" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "service.cli", "worker", "--table", "1", "--camera", str(tmp_path / "none.mp4"), "--broker", "nats://127.0.0.1:9"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert r.returncode != 0 and "no such video file" in r.stderr and "Traceback" not in r.stderr
