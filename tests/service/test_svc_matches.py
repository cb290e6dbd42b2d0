"""Matches: create, state through the adjudicator, shots with paging, MATCH.json, errors."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, new_match, shot

from contract.match import match_from_json

BOTH = pytest.mark.backends("sqlite", "postgres")  # the stored values, on both databases


@BOTH
def test_create_and_read(client: TestClient) -> None:
    m = new_match(client, race_to=3, penalty="ball", breaker="B", target=71)
    assert (m["game"], m["race_to"], m["penalty"], m["breaker"], m["target"]) == (
        "pyramid-free",
        3,
        "ball",
        "B",
        71,
    )
    assert m["table"] == "pyramid-12ft" and m["players"] == {"A": "Ivanov", "B": "Petrov"}
    assert client.get(f"/matches/{m['id']}").json() == m
    assert [x["id"] for x in client.get("/matches").json()] == [m["id"]]
    st = client.get(f"/matches/{m['id']}/state").json()
    assert st["score"] == {"A": 0, "B": 0} and st["turn"] == "B" and st["shot_no"] == 0
    assert st["judged_by"] == "adjudicator"
    assert len(st["on_table"]) == 15 and st["ball_in_hand"] == "house"  # the racked pyramid


def test_carom_match_gets_carom_table(client: TestClient) -> None:
    m = new_match(client, game="carom-5pin")
    assert m["table"] == "carom-match"


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"game": "snooker", "players": {"A": "a", "B": "b"}}, 422, "body.game"),
        ({"game": "pyramid-free"}, 422, "body.players: field required"),
        ({"game": "pyramid-free", "players": {"A": "", "B": "b"}}, 422, "body.players.A"),
        ({"game": "pyramid-free", "players": {"A": "a", "B": "b"}, "race_to": 0}, 422, "race_to"),
        ({"game": "pyramid-free", "players": {"A": "a", "B": "b"}, "breaker": "C"}, 422, "breaker"),
        ({"game": "pyramid-free", "players": {"A": "a", "B": "b"}, "x": 1}, 422, "body.x"),
        (
            {"game": "pyramid-free", "players": {"A": "a", "B": "b"}, "table": "nope"},
            422,
            "unknown table",
        ),
        (
            {"game": "pyramid-free", "players": {"A": "a", "B": "b"}, "table_id": 7},
            404,
            "table 7 not found",
        ),
    ],
)
def test_create_errors(client: TestClient, body: dict, status: int, detail: str) -> None:
    r = client.post("/matches", json=body, headers=AUTH)
    assert r.status_code == status, r.text
    assert detail in r.json()["detail"]
    assert "\n" not in r.json()["detail"]


@pytest.mark.parametrize(
    "path",
    [
        "/matches/9",
        "/matches/9/state",
        "/matches/9/shots",
        "/matches/9/audit",
        "/matches/9/match.json",
    ],
)
def test_unknown_match_404(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404 and r.json()["detail"] == "match 9 not found"


@BOTH
def test_shots_judged_and_paged(client: TestClient) -> None:
    mid = new_match(client)["id"]
    revs = []
    for i in range(5):
        r = client.post(f"/matches/{mid}/shots", json=shot(frame=i * 100), headers=AUTH)
        assert r.status_code == 201, r.text
        body = r.json()
        assert body["index"] == i + 1
        assert body["verdict"] is not None  # judged by the adjudicator
        assert body["state"]["shot_no"] == i + 1
        assert body["state"]["last_verdict"] == body["verdict"]
        revs.append(body["state"]["rev"])
    assert revs == sorted(revs) and len(set(revs)) == 5
    page = client.get(f"/matches/{mid}/shots", params={"since": 1, "limit": 2}).json()
    assert [s["index"] for s in page["shots"]] == [2, 3] and page["next_since"] == 3
    page = client.get(f"/matches/{mid}/shots", params={"since": 3}).json()
    assert [s["index"] for s in page["shots"]] == [4, 5] and page["next_since"] is None
    assert all(s["verdict"] for s in page["shots"])
    m = match_from_json(client.get(f"/matches/{mid}/match.json").json())
    assert [s.index for s in m.shots] == [1, 2, 3, 4, 5]
    st = client.get(f"/matches/{mid}/state").json()
    assert m.score == st["score"]


@BOTH
@pytest.mark.parametrize(
    ("change", "status", "detail"),
    [
        ({"index": 3}, 409, "shot index 3 out of order; the next is 2"),
        ({"index": 1}, 409, "out of order"),
        ({"start": None}, 422, "body.start"),
        ({"player": "C"}, 422, "body.player"),
        (
            {
                "events": [
                    {"frame": 9, "t": 0.3, "type": "strike", "ball": "w1"},
                    {"frame": 2, "t": 0.1, "type": "strike", "ball": "w1"},
                ]
            },
            422,
            "sorted by frame",
        ),
        (
            {"events": [{"frame": 9, "t": 0.3, "type": "pocket", "ball": "w1"}]},
            422,
            "pocket event needs pocket",
        ),
        ({"events": [{"frame": 9, "t": 0.3, "type": "bounce"}]}, 422, "body.events.0.type"),
    ],
)
def test_shot_errors(client: TestClient, change: dict, status: int, detail: str) -> None:
    mid = new_match(client)["id"]
    assert client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH).status_code == 201
    body = {k: v for k, v in {**shot(), **change}.items() if v is not None}
    r = client.post(f"/matches/{mid}/shots", json=body, headers=AUTH)
    assert r.status_code == status, r.text
    assert detail in r.json()["detail"]
    assert len(client.get(f"/matches/{mid}/shots").json()["shots"]) == 1  # nothing stored


def test_shot_to_unknown_match(client: TestClient) -> None:
    r = client.post("/matches/42/shots", json=shot(), headers=AUTH)
    assert r.status_code == 404 and "match 42 not found" in r.json()["detail"]


@BOTH
def test_start_score(client: TestClient) -> None:
    mid = new_match(client, start_score={"A": 54, "B": 10}, target=60)["id"]
    assert client.get(f"/matches/{mid}/state").json()["score"] == {"A": 54, "B": 10}


@pytest.mark.parametrize(
    "path",
    [
        "/matches/9223372036854775808",
        "/tables/9223372036854775808",
        "/replays/0",
        "/matches?table_id=99999999999999999999",
    ],
)
def test_ids_out_of_range_are_422(client: TestClient, path: str) -> None:
    """Found by the schema fuzz: an id past SQLite's integers was a 500."""
    r = client.get(path)
    assert r.status_code == 422 and r.json()["detail"]


@BOTH
def test_concurrent_writers_keep_order(client: TestClient) -> None:
    """Shots and corrections from many threads at once: every shot stored once, indexes
    1..n, every correction audited."""
    from concurrent.futures import ThreadPoolExecutor

    mid = new_match(client)["id"]

    def post(i: int) -> int:
        return client.post(
            f"/matches/{mid}/shots", json=shot(frame=100 * i), headers=AUTH
        ).status_code

    def foul(i: int) -> int:
        return client.post(
            f"/matches/{mid}/referee/fouls", json={"foul": "push", "shot": 1}, headers=AUTH
        ).status_code

    assert post(0) == 201
    with ThreadPoolExecutor(6) as ex:
        codes = list(ex.map(post, range(1, 9))) + list(ex.map(foul, range(3)))
    assert codes == [201] * 8 + [200] * 3
    shots = client.get(f"/matches/{mid}/shots").json()["shots"]
    assert [s["index"] for s in shots] == list(range(1, 10))
    assert (
        len([a for a in client.get(f"/matches/{mid}/audit").json() if a["action"] == "add_foul"])
        == 3
    )
    st = client.get(f"/matches/{mid}/state").json()
    assert st["shot_no"] == 9


@BOTH
def test_cache_eviction_reloads_from_the_database(
    client: TestClient, settings, monkeypatch
) -> None:
    import service.core

    monkeypatch.setattr(service.core, "CACHED_MATCHES", 2)
    ids = [new_match(client)["id"] for _ in range(4)]
    for mid in ids:
        client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
    svc = client.app.state.runtimes[settings.db_target].service
    assert list(svc._cache) == ids[-2:]  # the least recently used were dropped
    st = client.get(f"/matches/{ids[0]}/state").json()  # reloaded and judged again
    assert st["shot_no"] == 1 and st["rev"] == svc.db.last_event_id(ids[0])
    assert list(svc._cache) == [ids[3], ids[0]]
