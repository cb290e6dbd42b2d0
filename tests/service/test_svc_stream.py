"""SSE: every event with its id, resumed after Last-Event-ID without gaps."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, new_match, shot


def parse(text: str) -> list[tuple[int, str, dict]]:
    out = []
    for block in text.split("\n\n"):
        f = dict(
            line.split(": ", 1)
            for line in block.splitlines()
            if ": " in line and not line.startswith(":")
        )
        if "id" in f:
            out.append((int(f["id"]), f["event"], json.loads(f["data"])))
    return out


@pytest.mark.backends("sqlite", "postgres")
def test_resume_without_gaps(client: TestClient) -> None:
    mid = new_match(client)["id"]
    for i in range(3):
        client.post(f"/matches/{mid}/shots", json=shot(frame=100 * i), headers=AUTH)
    everything = parse(client.get("/stream", params={"match_id": mid, "once": True}).text)
    ids = [e[0] for e in everything]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    kinds = [e[1] for e in everything]
    assert (
        kinds[:2] == ["match", "state"] and kinds.count("shot") == 3 and kinds.count("state") == 4
    )
    shots = [e[2]["shot"]["index"] for e in everything if e[1] == "shot"]
    assert shots == [1, 2, 3]
    assert all(e[2]["shot"]["verdict"] for e in everything if e[1] == "shot")
    cut = ids[3]
    # a client that saw up to `cut` reconnects: it gets exactly the rest, by header or query
    rest_h = parse(
        client.get(
            "/stream", params={"match_id": mid, "once": True}, headers={"Last-Event-ID": str(cut)}
        ).text
    )
    rest_q = parse(
        client.get("/stream", params={"match_id": mid, "once": True, "last_event_id": cut}).text
    )
    assert rest_h == rest_q == everything[4:]
    # new changes after the reconnect continue the sequence
    client.post(f"/matches/{mid}/referee/fouls", json={"foul": "foot"}, headers=AUTH)
    more = parse(
        client.get("/stream", params={"match_id": mid, "once": True, "last_event_id": ids[-1]}).text
    )
    assert [e[1] for e in more] == ["referee", "state"] and more[0][0] > ids[-1]
    assert more[0][2]["action"] == "add_foul" and "foot" in more[0][2]["verdict"]["fouls"]


def test_stream_filters_by_match(client: TestClient) -> None:
    a, b = new_match(client)["id"], new_match(client)["id"]
    client.post(f"/matches/{b}/shots", json=shot(), headers=AUTH)
    ev_a = parse(client.get("/stream", params={"match_id": a, "once": True}).text)
    assert {e[2]["match"] for e in ev_a} == {a}
    all_ev = parse(client.get("/stream", params={"once": True}).text)
    assert {e[2]["match"] for e in all_ev} == {a, b}


def test_stream_errors(client: TestClient) -> None:
    assert client.get("/stream", params={"match_id": 9}).status_code == 404
    assert client.get("/stream", params={"last_event_id": -1}).status_code == 422


def test_ring_and_database_paths_agree(tmp_path) -> None:
    """A stream resuming from before the broker's ring reads the database, then the ring;
    either way every event comes once, in order."""
    from svc_helpers import client_for, make_settings

    s = make_settings(tmp_path)
    with client_for(s) as c:
        a = new_match(c)["id"]
        b = new_match(c)["id"]
        for i in range(3):
            c.post(f"/matches/{a}/shots", json=shot(frame=100 * i), headers=AUTH)
    with client_for(s) as c:  # a fresh process-like runtime: the ring is empty
        c.post(f"/matches/{b}/shots", json=shot(), headers=AUTH)  # ring holds only b's events
        rt = c.app.state.runtimes[s.db_target]
        assert rt.broker.floor > 0
        ev_a = parse(c.get("/stream", params={"match_id": a, "once": True}).text)
        ev_b = parse(c.get("/stream", params={"match_id": b, "once": True}).text)
        ev_all = parse(c.get("/stream", params={"once": True}).text)
        log = rt.db.events(0, limit=10_000)
    assert [e[0] for e in ev_all] == [r.id for r in log]
    assert [e[0] for e in ev_a] == [r.id for r in log if r.match_id == a]
    assert [e[0] for e in ev_b] == [r.id for r in log if r.match_id == b]
    assert ev_a[-1][0] <= rt.broker.floor  # a's stream ended on the database path, no loop
