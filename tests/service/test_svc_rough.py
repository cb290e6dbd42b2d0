"""A live table whose CALIB.json is a rough frame (the table found by its cloth's outline
alone, ``"frame": "rough"``): its match asks every verdict about the calibration, the
score stays pending until the referee's one tap, and a table fitted as usual asks
nothing. carom-match, A white, B yellow; positions table mm."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, new_match

CALIB = {
    "format": "tablemon-calibration/1",
    "table": "carom-match",
    "image_size": [1920, 1080],
    "image_to_table": [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]],
    "uncertainty": {"rms_mm": 0.5, "max_mm": 1.5, "orientation": "sure"},
}
SHOT = {  # white onto yellow, the yellow onto the red: 3 points to A
    "player": "A",
    "start": {"frame": 1, "t": 0.03},
    "end": {"frame": 90, "t": 3.0},
    "cue_ball": "white",
    "events": [
        {"frame": 1, "t": 0.03, "type": "strike", "ball": "white"},
        {"frame": 20, "t": 0.67, "type": "contact", "balls": ["white", "yellow"]},
        {"frame": 50, "t": 1.67, "type": "contact", "balls": ["yellow", "red"]},
    ],
    "rest": {"white": [900.0, 500.0], "yellow": [1700.0, 900.0], "red": [2100.0, 700.0]},
}


@pytest.mark.parametrize("rough", [True, False])
def test_a_rough_table_asks_every_verdict(client: TestClient, rough: bool) -> None:
    calib = CALIB | ({"frame": "rough"} if rough else {})
    body = {"name": "T", "source": "0", "spec": "carom-match", "calibration": calib}
    t = client.post("/tables", json=body, headers=AUTH).json()
    m = new_match(client, game="carom-5pin", table_id=t["id"])
    r = client.post(f"/matches/{m['id']}/shots", json=SHOT, headers=AUTH)
    assert r.status_code == 201, r.text
    qs = client.get(f"/matches/{m['id']}/questions").json()["questions"]
    if not rough:
        assert qs == []
        return
    assert [q["about"] for q in qs] == ["calibration"] and qs[0]["shot"] == 1
    st = client.get(f"/matches/{m['id']}/state").json()
    settled = st["score"]
    r = client.post(
        f"/matches/{m['id']}/questions/{qs[0]['id']}/answer",
        json={"option": "as_read"},
        headers=AUTH,
    )
    assert r.status_code == 200, r.text
    after = client.get(f"/matches/{m['id']}/state").json()
    assert settled == {"A": 0, "B": 0}  # pending: the shot's points wait for the answer
    assert st["pending"] == {qs[0]["id"]: {"as_read": {"A": 3, "B": 0}}}
    assert after["score"] == {"A": 3, "B": 0} and after["pending"] == {}
    assert client.get(f"/matches/{m['id']}/questions").json()["questions"][0]["answer"] == "as_read"
