"""A real server (uvicorn in a subprocess): ``kill -9`` in the middle of a match loses
nothing recorded (on SQLite and on PostgreSQL); SSE over HTTP delivers live events and resumes after Last-Event-ID."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from svc_helpers import AUTH, server, shot


def snapshot(c: httpx.Client, mid: int) -> dict:
    return {
        "match": c.get(f"/matches/{mid}").json(),
        "state": c.get(f"/matches/{mid}/state").json(),
        "shots": c.get(f"/matches/{mid}/shots").json(),
        "audit": c.get(f"/matches/{mid}/audit").json(),
        "events": c.get("/stream", params={"match_id": mid, "once": True}).text,
    }


@pytest.mark.backends("sqlite", "postgres")
def test_kill9_loses_nothing(tmp_path: Path, db_target: str) -> None:
    with (
        server(tmp_path, db_target) as (url, p),
        httpx.Client(base_url=url, headers=AUTH, timeout=10) as c,
    ):
        mid = c.post(
            "/matches", json={"game": "pyramid-free", "players": {"A": "a", "B": "b"}}
        ).json()["id"]
        for i in range(4):
            assert c.post(f"/matches/{mid}/shots", json=shot(frame=i * 100)).status_code == 201
        assert (
            c.post(f"/matches/{mid}/referee/fouls", json={"foul": "foot", "shot": 2}).status_code
            == 200
        )
        before = snapshot(c, mid)
        os.kill(p.pid, signal.SIGKILL)  # no shutdown, no flush
        p.wait()
    assert len(before["shots"]["shots"]) == 4 and before["audit"][-1]["action"] == "add_foul"
    with (
        server(tmp_path, db_target) as (url, _),
        httpx.Client(base_url=url, headers=AUTH, timeout=10) as c,
    ):
        after = snapshot(c, mid)
        assert after == before
        r = c.post(f"/matches/{mid}/shots", json=shot(frame=900))  # the match goes on
        assert r.status_code == 201 and r.json()["index"] == 5


def read_events(lines: Iterator[str], n: int) -> list[tuple[int, str, dict]]:
    out, block = [], {}
    for line in lines:
        if line.startswith(("id: ", "event: ", "data: ")):
            k, v = line.split(": ", 1)
            block[k] = v
        elif line == "" and "id" in block:
            out.append((int(block["id"]), block["event"], json.loads(block["data"])))
            block = {}
            if len(out) == n:
                return out
    return out


def test_sse_live_and_resume(tmp_path: Path) -> None:
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        mid = c.post(
            "/matches", json={"game": "pyramid-free", "players": {"A": "a", "B": "b"}}
        ).json()["id"]
        with c.stream("GET", "/stream", params={"match_id": mid}) as resp:
            lines = resp.iter_lines()
            first = read_events(lines, 2)  # match + state, already in the log
            c.post(f"/matches/{mid}/shots", json=shot())
            live = read_events(lines, 2)  # shot + state, pushed as they happen
        assert [e[1] for e in first] == ["match", "state"] and [e[1] for e in live] == [
            "shot",
            "state",
        ]
        # while disconnected: two more shots; the reconnect resumes right after the last id
        c.post(f"/matches/{mid}/shots", json=shot(frame=100))
        c.post(f"/matches/{mid}/shots", json=shot(frame=200))
        with c.stream(
            "GET", "/stream", params={"match_id": mid}, headers={"Last-Event-ID": str(live[-1][0])}
        ) as resp:
            resumed = read_events(resp.iter_lines(), 4)
        ids = [e[0] for e in first + live + resumed]
        text = c.get("/stream", params={"match_id": mid, "once": True}).text
        log = [e[0] for e in read_events(iter(text.split("\n")), 100)]
        assert ids == log  # every event exactly once, in order, no gap
        assert [e[2]["shot"]["index"] for e in resumed if e[1] == "shot"] == [2, 3]
