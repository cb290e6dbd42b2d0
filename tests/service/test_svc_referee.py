"""Referee corrections: each stored on the shot, audited (who/when/before/after), the state
recomputed by the adjudicator."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, new_match, shot, verdict

WHO = {**AUTH, "X-Tablemon-User": "judge-1"}

BOTH = pytest.mark.backends("sqlite", "postgres")  # the stored values, on both databases


def _match_with_shots(c: TestClient, n: int = 2) -> int:
    mid = new_match(c)["id"]
    for i in range(n):
        assert (
            c.post(f"/matches/{mid}/shots", json=shot(frame=100 * i), headers=AUTH).status_code
            == 201
        )
    return mid


@BOTH
def test_add_foul_is_audited_and_judged(client: TestClient) -> None:
    mid = _match_with_shots(client)
    before = client.get(f"/matches/{mid}/state").json()
    r = client.post(f"/matches/{mid}/referee/fouls", json={"foul": "foot"}, headers=WHO)
    assert r.status_code == 200, r.text
    st = r.json()
    assert "foot" in st["last_verdict"]["fouls"] and st["rev"] > before["rev"]
    assert st["last_verdict"]["next"] == "B"  # a foul passes the turn (pyramid 27)
    a = client.get(f"/matches/{mid}/audit").json()[-1]
    assert (a["who"], a["action"], a["shot"]) == ("judge-1", "add_foul", 2)
    assert a["before"]["referee"] == {} and a["after"]["referee"] == {"fouls": ["foot"]}
    assert (
        "foot" not in a["before"]["verdict"]["fouls"] and "foot" in a["after"]["verdict"]["fouls"]
    )
    shots = client.get(f"/matches/{mid}/shots").json()["shots"]
    assert shots[1]["referee"]["fouls"] == ["foot"] and "referee" not in shots[0]


@BOTH
def test_remove_foul(client: TestClient) -> None:
    mid = _match_with_shots(client, 1)
    r = client.post(f"/matches/{mid}/referee/fouls/remove", json={"foul": "push"}, headers=AUTH)
    assert r.status_code == 409 and "did not add foul 'push'" in r.json()["detail"]
    client.post(f"/matches/{mid}/referee/fouls", json={"foul": "push", "shot": 1}, headers=AUTH)
    r = client.post(
        f"/matches/{mid}/referee/fouls/remove", json={"foul": "push", "shot": 1}, headers=AUTH
    )
    assert r.status_code == 200 and "push" not in r.json()["last_verdict"]["fouls"]


@BOTH
@pytest.mark.parametrize(
    ("replacement", "score", "turn"),
    [
        (verdict(True, 3, 0, "A"), {"A": 3, "B": 0}, "A"),
        (verdict(False, 0, 1, "B", ("double_hit",)), {"A": 0, "B": 1}, "B"),
    ],
)
def test_replace_verdict_then_restore_adjudicator(
    client: TestClient, replacement: dict, score: dict, turn: str
) -> None:
    mid = _match_with_shots(client, 1)
    judged = client.get(f"/matches/{mid}/state").json()
    r = client.post(f"/matches/{mid}/referee/verdict", json={"verdict": replacement}, headers=AUTH)
    st = r.json()
    assert r.status_code == 200 and st["score"] == score and st["turn"] == turn
    assert st["last_verdict"]["scored"] == replacement["scored"]
    r = client.post(f"/matches/{mid}/referee/verdict", json={"verdict": None}, headers=AUTH)
    back = r.json()
    assert back["score"] == judged["score"] and back["last_verdict"] == judged["last_verdict"]
    assert [a["action"] for a in client.get(f"/matches/{mid}/audit").json()][-2:] == [
        "replace_verdict",
        "replace_verdict",
    ]


def test_annul_camera_fouls(client: TestClient) -> None:
    mid = _match_with_shots(client, 1)
    st = client.get(f"/matches/{mid}/state").json()
    r = client.post(f"/matches/{mid}/referee/annul", json={}, headers=AUTH)
    assert r.status_code == 200
    assert r.json()["last_verdict"]["fouls"] == []  # the camera's fouls are gone
    assert client.get(f"/matches/{mid}/shots").json()["shots"][0]["referee"]["annul"] is True
    r = client.post(f"/matches/{mid}/referee/annul", json={"annul": False}, headers=AUTH)
    assert r.json()["last_verdict"] == st["last_verdict"]


def test_restore_voids_the_shot(client: TestClient) -> None:
    mid = new_match(client)["id"]
    start = client.get(f"/matches/{mid}/state").json()
    client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
    r = client.post(f"/matches/{mid}/referee/restore", json={}, headers=AUTH)
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["score"] == start["score"] and st["on_table"] == start["on_table"]


@BOTH
def test_end_frame(client: TestClient) -> None:
    mid = _match_with_shots(client, 1)
    r = client.post(f"/matches/{mid}/referee/end-frame", json={"winner": "B"}, headers=AUTH)
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["frames"]["B"] == 1 and st["frames"]["A"] == 0


@BOTH
def test_pending_call_goes_into_next_shot(client: TestClient) -> None:
    mid = new_match(client, game="pyramid-classic")["id"]
    r = client.post(
        f"/matches/{mid}/referee/call", json={"ball": "w2", "pocket": "back-left"}, headers=AUTH
    )
    assert r.status_code == 200 and r.json()["pending_call"] == {
        "ball": "w2",
        "pocket": "back-left",
    }
    client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
    s = client.get(f"/matches/{mid}/shots").json()["shots"][0]
    assert s["referee"]["call"] == {"ball": "w2", "pocket": "back-left"}
    assert client.get(f"/matches/{mid}/state").json()["pending_call"] is None
    r = client.post(
        f"/matches/{mid}/referee/call",
        json={"ball": "w3", "pocket": "front-left", "shot": 1},
        headers=AUTH,
    )
    assert r.status_code == 200
    assert client.get(f"/matches/{mid}/shots").json()["shots"][0]["referee"]["call"]["ball"] == "w3"


@BOTH
def test_choice_and_lag(client: TestClient) -> None:
    mid = new_match(client, breaker="lag")["id"]
    r = client.post(f"/matches/{mid}/referee/lag", json={"winner": "B"}, headers=AUTH)
    assert r.status_code == 200 and r.json()["turn"] == "B"
    assert client.get(f"/matches/{mid}").json()["breaker"] == "B"
    client.post(f"/matches/{mid}/shots", json=shot(player="B"), headers=AUTH)
    r = client.post(f"/matches/{mid}/referee/lag", json={"winner": "A"}, headers=AUTH)
    assert r.status_code == 409 and "before the first shot" in r.json()["detail"]
    r = client.post(f"/matches/{mid}/referee/choice", json={"choice": "play"}, headers=AUTH)
    assert r.status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "status", "detail"),
    [
        ("fouls", {"foul": "foot"}, 409, "has no shot yet"),
        ("fouls", {"foul": "kick"}, 422, "body.foul"),
        ("verdict", {"verdict": {"legal": True}}, 422, "body.verdict.next: field required"),
        ("end-frame", {"winner": "C"}, 422, "body.winner"),
        ("choice", {"choice": "dance"}, 422, "body.choice"),
        ("call", {"ball": "w1"}, 422, "body.pocket"),
    ],
)
def test_referee_errors(
    client: TestClient, path: str, body: dict, status: int, detail: str
) -> None:
    mid = new_match(client)["id"]
    r = client.post(f"/matches/{mid}/referee/{path}", json=body, headers=AUTH)
    assert r.status_code == status, r.text
    assert detail in r.json()["detail"]


@pytest.mark.parametrize("path", ["fouls", "annul", "restore", "verdict", "end-frame"])
def test_referee_unknown_shot_and_auth(client: TestClient, path: str) -> None:
    mid = _match_with_shots(client, 1)
    body = {"shot": 7, "foul": "foot", "verdict": None, "winner": "A"}
    body = {
        k: v
        for k, v in body.items()
        if k == "shot"
        or k in {"fouls": ["foul"], "verdict": ["verdict"], "end-frame": ["winner"]}.get(path, [])
    }
    r = client.post(f"/matches/{mid}/referee/{path}", json=body, headers=AUTH)
    assert r.status_code == 404 and r.json()["detail"] == f"match {mid} has no shot 7"
    assert client.post(f"/matches/{mid}/referee/{path}", json=body).status_code == 401
    assert client.post(f"/matches/99/referee/{path}", json=body, headers=AUTH).status_code == 404
