"""The overlay JSON (flat, CueScore-like names, rev on every change) and the page."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, new_match, shot, verdict

KEYS = {
    "matchId",
    "playerA",
    "playerB",
    "scoreA",
    "scoreB",
    "raceTo",
    "frame",
    "turn",
    "lastVerdict",
    "rev",
}


def test_scoreboard_follows_changes(client: TestClient) -> None:
    mid = new_match(client, race_to=5)["id"]
    b0 = client.get(f"/scoreboard/matches/{mid}.json").json()
    assert set(b0) >= KEYS
    assert (b0["playerA"], b0["playerB"], b0["scoreA"], b0["scoreB"], b0["raceTo"]) == (
        "Ivanov",
        "Petrov",
        0,
        0,
        5,
    )
    assert b0["lastVerdict"] == "" and b0["status"] == "playing"
    client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
    b1 = client.get(f"/scoreboard/matches/{mid}.json").json()
    assert b1["rev"] > b0["rev"] and b1["shots"] == 1 and b1["lastVerdict"]
    client.post(
        f"/matches/{mid}/referee/verdict",
        json={"verdict": verdict(False, 0, 1, "B", ("foot",))},
        headers=AUTH,
    )
    en = client.get(f"/scoreboard/matches/{mid}.json", params={"lang": "en"}).json()
    ru = client.get(f"/scoreboard/matches/{mid}.json", params={"lang": "ru"}).json()
    assert en["rev"] > b1["rev"] and en["rev"] == ru["rev"]
    assert (en["scoreA"], en["scoreB"], en["turn"], en["turnName"], en["lastFoul"]) == (
        0,
        1,
        "B",
        "Petrov",
        True,
    )
    assert en["lastVerdict"] == "Foul: foot off the floor · Petrov +1"
    assert ru["lastVerdict"] == "Фол: нет касания пола ногой · Petrov +1"
    again = client.get(f"/scoreboard/matches/{mid}.json", params={"lang": "en"}).json()
    assert again == en  # no change, same rev


def test_reason_comes_from_the_adjudicator(client: TestClient) -> None:
    mid = new_match(client)["id"]
    client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
    client.post(f"/matches/{mid}/referee/fouls", json={"foul": "foot"}, headers=AUTH)
    st = client.get(f"/matches/{mid}/state").json()
    b = client.get(f"/scoreboard/matches/{mid}.json", params={"lang": "ru"}).json()
    ru_reasons = [r["ru"] for r in st["last_verdict"]["reasons"]]
    assert ru_reasons and all(r in b["lastVerdictReason"] for r in ru_reasons)


def test_table_scoreboard(client: TestClient, settings) -> None:
    (settings.video_dir / "cam.mp4").write_bytes(b"x")
    t = client.post("/tables", json={"name": "T1", "source": "cam.mp4"}, headers=AUTH).json()
    r = client.get(f"/scoreboard/tables/{t['id']}.json")
    assert r.status_code == 404 and r.json()["detail"] == f"table {t['id']} has no match"
    new_match(client, table_id=t["id"])
    m2 = new_match(client, table_id=t["id"])
    b = client.get(f"/scoreboard/tables/{t['id']}.json").json()
    assert b["matchId"] == m2["id"] and b["tableName"] == "T1"
    assert client.get("/scoreboard/tables/99.json").status_code == 404


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/scoreboard/matches/5.json", 404),
        ("/scoreboard/matches/1.json?lang=de", 422),
        ("/scoreboard/5", 404),
    ],
)
def test_scoreboard_errors(client: TestClient, path: str, status: int) -> None:
    new_match(client)
    assert client.get(path).status_code == status


@pytest.mark.parametrize(("lang", "word"), [("ru", "Партия"), ("en", "Frame")])
def test_page(client: TestClient, lang: str, word: str) -> None:
    mid = new_match(client)["id"]
    r = client.get(f"/scoreboard/{mid}", params={"lang": lang})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert f'data-match="{mid}"' in html and f'<html lang="{lang}">' in html and word in html
    assert "{{" not in html  # every placeholder filled
    assert '"L": 3550,' in html  # the pyramid-12ft table drawn in mm


def test_poll_etag_and_no_database(client: TestClient, settings, monkeypatch) -> None:
    """An unchanged match is answered from memory (the database is not touched), with an
    ETag; If-None-Match gives 304 until the next change, then the new object."""
    mid = new_match(client)["id"]
    url = f"/scoreboard/matches/{mid}.json"
    r0 = client.get(url)
    tag = r0.headers["etag"]
    assert r0.status_code == 200 and tag == f'W/"{mid}-{r0.json()["rev"]}-en"'
    rt = client.app.state.runtimes[settings.db_target]

    def no_db(*a, **k):
        raise AssertionError("a poll of an unchanged match read the database")

    with monkeypatch.context() as m:
        for name in ("match", "shots", "last_event_id", "table", "matches", "events"):
            m.setattr(rt.db, name, no_db)
        assert client.get(url).content == r0.content
        r304 = client.get(url, headers={"If-None-Match": f'"x", {tag}'})
        assert r304.status_code == 304 and r304.content == b"" and r304.headers["etag"] == tag
        ru = client.get(url, params={"lang": "ru"})  # another language: its own tag
        assert ru.status_code == 200 and ru.headers["etag"] == tag.replace("-en", "-ru")
    client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
    with monkeypatch.context() as m:  # the new rev's bytes were built with the change
        m.setattr(rt.service, "memo_rev", no_db)
        r1 = client.get(url, headers={"If-None-Match": tag})
    assert r1.status_code == 200 and r1.headers["etag"] != tag and r1.json()["shots"] == 1
    assert r1.json()["rev"] == client.get(f"/matches/{mid}/state").json()["rev"]


def _route_only(client: TestClient, settings, monkeypatch, url: str, **kw):
    """The same request with the fast path's bytes hidden: answered by the route."""
    rt = client.app.state.runtimes[settings.db_target]
    with monkeypatch.context() as m:
        m.setattr(rt.service, "peek", lambda *a: None)
        return client.get(url, **kw)


@pytest.mark.parametrize("query", ["", "?lang=en", "?lang=ru"])
def test_fast_path_answers_like_the_route(
    client: TestClient, settings, monkeypatch, query: str
) -> None:
    mid = new_match(client)["id"]
    client.post(f"/matches/{mid}/shots", json=shot(), headers=AUTH)
    url = f"/scoreboard/matches/{mid}.json{query}"
    fast, slow = client.get(url), _route_only(client, settings, monkeypatch, url)
    assert fast.status_code == slow.status_code == 200 and fast.content == slow.content
    for h in ("etag", "content-type", "content-length", "cache-control"):
        assert fast.headers[h] == slow.headers[h], h
    tag = {"If-None-Match": fast.headers["etag"]}
    assert client.get(url, headers=tag).status_code == 304
    assert _route_only(client, settings, monkeypatch, url, headers=tag).status_code == 304


def test_fast_path_leaves_the_rest_to_the_route(settings) -> None:
    """Token-protected reads, other queries and unknown matches go through the route (its
    auth, validation and 404)."""
    from svc_helpers import client_for

    s = settings.model_copy(update={"reads_require_token": True})
    with client_for(s) as c:
        mid = new_match(c)["id"]
        url = f"/scoreboard/matches/{mid}.json"
        assert c.get(url).status_code == 401
        assert c.get(url, headers=AUTH).status_code == 200
        assert c.get(url, params={"lang": "de"}, headers=AUTH).status_code == 422
        assert c.get("/scoreboard/matches/77.json", headers=AUTH).status_code == 404


def test_fast_path_keeps_cors(settings) -> None:
    from svc_helpers import client_for

    s = settings.model_copy(update={"cors_origins": ["http://overlay.example"]})
    with client_for(s) as c:
        mid = new_match(c)["id"]
        r = c.get(f"/scoreboard/matches/{mid}.json", headers={"Origin": "http://overlay.example"})
        assert r.status_code == 200 and r.json()["matchId"] == mid
        assert r.headers["access-control-allow-origin"] == "http://overlay.example"
