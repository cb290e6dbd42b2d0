"""Broker mode end to end, all parts real: nats-server -js, PostgreSQL, two API processes
(uvicorn), ``tablemon worker`` processes. A worker's shots reach every API process once;
a referee's correction through one is served by the other; SSE streams on both see them."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx
import pytest
from cluster_helpers import apis, fake_clip, natsd, setup_table, shots_of, start_worker, wait_for
from svc_helpers import AUTH

__all__ = ["natsd"]


def sse_collect(url: str, mid: int, into: list, stop: threading.Event) -> None:
    """The match's SSE events, ``(kind, data)``, appended as they come."""
    try:
        with httpx.stream("GET", f"{url}/stream", params={"match_id": mid}, timeout=60) as r:
            block: dict = {}
            for line in r.iter_lines():
                if line.startswith(("event: ", "data: ")):
                    k, v = line.split(": ", 1)
                    block[k] = v
                elif line == "" and "event" in block:
                    into.append((block["event"], json.loads(block["data"])))
                    block = {}
                if stop.is_set():
                    return
    except httpx.HTTPError:  # the server was stopped: the test reads what came
        return


def test_worker_two_apis_one_scoreboard(tmp_path: Path, natsd, pg_cluster) -> None:
    db = pg_cluster.new_db()
    clip = fake_clip(tmp_path / "v", n=4, every_s=0.5)
    with apis(tmp_path, db, natsd.url, n=2) as (a, b):
        table, mid = setup_table(a.url)
        seen_b: list = []
        stop = threading.Event()
        t = threading.Thread(target=sse_collect, args=(b.url, mid, seen_b, stop), daemon=True)
        t.start()
        w = start_worker(tmp_path, table, clip, natsd.url)
        try:
            # the worker's health reaches both API processes
            wait_for(lambda: httpx.get(f"{b.url}/tables/{table}").json()["status"]["running"])
            pos = wait_for(
                lambda: (
                    (r := httpx.get(f"{a.url}/tables/{table}/positions")).is_success and r.json()
                )
            )
            assert pos["table"] == table and pos["simulated"] is True and "balls" in pos
            got = wait_for(lambda: len(shots_of(b.url, mid)) == 4 and shots_of(b.url, mid))
            assert w.wait(timeout=30) == 0
        finally:
            if w.poll() is None:
                w.kill()
        assert [s["index"] for s in got] == [1, 2, 3, 4]
        assert shots_of(a.url, mid) == got  # the same, stored once, on either process
        # a correction through B is what A serves (A's cache is refreshed by NOTIFY)
        r = httpx.post(
            f"{b.url}/matches/{mid}/referee/fouls", json={"foul": "foot", "shot": 2}, headers=AUTH
        )
        assert r.status_code == 200, r.text
        rev_b = r.json()["rev"]
        state_a = wait_for(
            lambda: (s := httpx.get(f"{a.url}/matches/{mid}/state").json())["rev"] == rev_b and s
        )
        assert state_a == httpx.get(f"{b.url}/matches/{mid}/state").json()
        board = httpx.get(f"{a.url}/scoreboard/matches/{mid}.json").json()
        assert board["rev"] == rev_b
        wait_for(lambda: sum(1 for k, _ in seen_b if k == "referee") == 1)
        stop.set()
        kinds = [k for k, _ in seen_b]
        assert kinds.count("shot") == 4
        keys = [d["key"] for k, d in seen_b if k == "shot"]
        assert len(set(keys)) == 4 and all(k.startswith(f"t{table}/") for k in keys)


def test_default_without_broker_unchanged(tmp_path: Path) -> None:
    """No TABLEMON_BROKER: the embedded default (child-process workers, no NATS)."""
    from svc_helpers import client_for, make_settings

    from service.live import LiveManager

    s = make_settings(tmp_path)
    with client_for(s) as c:
        rt = c.app.state.runtimes[s.db_target]
        assert isinstance(rt.extras["live"], LiveManager) and "listen" not in rt.extras
        t = c.post("/tables", json={"name": "T", "source": "0"}, headers=AUTH).json()["id"]
        r = c.get(f"/tables/{t}/positions")
        assert r.status_code == 404 and "remote worker" in r.json()["detail"]


@pytest.mark.parametrize("bad", ["http://x:4222", "redis://y"])
def test_broker_setting_refused(bad: str) -> None:
    from pydantic import ValidationError

    from service.settings import Settings

    with pytest.raises(ValidationError, match="not a nats:// URL"):
        Settings(broker=bad)
