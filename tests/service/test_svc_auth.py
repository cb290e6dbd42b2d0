"""Bearer token for writes (401 missing, 403 wrong or unset), reads optionally protected,
body size limits, CORS."""

from __future__ import annotations

from pathlib import Path

import pytest
from svc_helpers import AUTH, TOKEN, client_for, make_settings

BODY = {"game": "pyramid-free", "players": {"A": "a", "B": "b"}}


@pytest.mark.parametrize(
    ("headers", "status", "detail"),
    [
        ({}, 401, "missing bearer token"),
        ({"Authorization": "Bearer nope"}, 403, "wrong bearer token"),
        ({"Authorization": "Basic abc"}, 401, "missing bearer token"),
        (AUTH, 201, None),
    ],
)
def test_write_needs_token(tmp_path: Path, headers: dict, status: int, detail: str | None) -> None:
    with client_for(make_settings(tmp_path)) as c:
        r = c.post("/matches", json=BODY, headers=headers)
        assert r.status_code == status, r.text
        if detail:
            assert detail in r.json()["detail"]
        if status == 401:
            assert r.headers["www-authenticate"] == "Bearer"


def test_unset_token_refuses_writes(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path, token=None)) as c:
        r = c.post("/matches", json=BODY, headers=AUTH)
        assert r.status_code == 403
        assert "TABLEMON_TOKEN is not set" in r.json()["detail"]
        assert c.get("/matches").status_code == 200  # reads stay open


@pytest.mark.parametrize(
    ("kw", "status"),
    [
        ({}, 401),
        ({"headers": AUTH}, 200),
        ({"params": {"token": TOKEN}}, 200),
        ({"params": {"token": "x"}}, 403),
    ],
)
def test_reads_protected_by_setting(tmp_path: Path, kw: dict, status: int) -> None:
    with client_for(make_settings(tmp_path, reads_require_token=True)) as c:
        assert c.get("/matches", **kw).status_code == status


def test_body_limit(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path, max_body_bytes=2000)) as c:
        big = {**BODY, "players": {"A": "a", "B": "b"}, "pad": "x" * 5000}
        r = c.post("/matches", json=big, headers=AUTH)
        assert r.status_code == 413
        assert "larger than 2000 bytes" in r.json()["detail"]
        assert c.post("/matches", json=BODY, headers=AUTH).status_code == 201


def test_cors(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path, cors_origins=["http://overlay.example"])) as c:
        r = c.get("/matches", headers={"Origin": "http://overlay.example"})
        assert r.headers["access-control-allow-origin"] == "http://overlay.example"
        r = c.get("/matches", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in r.headers
    with client_for(make_settings(tmp_path)) as c:  # off by default
        r = c.get("/matches", headers={"Origin": "http://overlay.example"})
        assert "access-control-allow-origin" not in r.headers


def test_openapi_describes_routes(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path)) as c:
        paths = c.get("/openapi.json").json()["paths"]
    for p in (
        "/matches",
        "/matches/{match_id}/state",
        "/matches/{match_id}/referee/fouls",
        "/stream",
        "/scoreboard/matches/{match_id}.json",
        "/replays",
        "/tables",
    ):
        assert p in paths
