"""A ``breaker: "lag"`` match judged from its lag shot (issue 32): the state, REST and the
overlay JSON carry the lag (distances, who won and why, why a ball lost), and the winner's
choice (break or concede) is one referee tap (``POST /referee/choice``)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, lag_shot, new_match


def test_the_lag_decides_the_break_with_one_tap(client: TestClient) -> None:
    mid = new_match(client, breaker="lag")["id"]
    assert client.get(f"/matches/{mid}/state").json()["lag"]["status"] == "waiting"
    r = client.post(f"/matches/{mid}/shots", json=lag_shot(300.0, 520.0), headers=AUTH)
    assert r.status_code == 201, r.text
    st = client.get(f"/matches/{mid}/state").json()
    lag = st["lag"]
    assert (lag["status"], lag["winner"], lag["breaker"], lag["shot"]) == ("choose", "A", "A", 1)
    assert lag["balls"]["A"]["distance_mm"] == 300.0 and lag["balls"]["B"]["distance_mm"] == 520.0
    assert lag["balls"]["A"]["uncertainty_mm"] > 0 and lag["difference_mm"] == 220.0
    assert "front cushion" in lag["reasons"][0]["en"]
    assert st["turn"] == "A" and st["score"] == {"A": 0, "B": 0}
    board = client.get(f"/scoreboard/matches/{mid}.json?lang=en").json()
    assert board["lag"]["winner"] == "A" and "300.0" in board["lagText"]
    # the one tap: A gives the break away
    r = client.post(f"/matches/{mid}/referee/choice", json={"choice": "concede"}, headers=AUTH)
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["turn"] == "B" and st["breaker"] == "B" and st["lag"]["status"] == "decided"
    audit = client.get(f"/matches/{mid}/audit").json()[-1]
    assert audit["action"] == "choice" and audit["after"]["referee"] == {"choice": "concede"}


@pytest.mark.parametrize(
    ("extra", "winner", "lost"),
    [
        pytest.param(({"frame": 40, "t": 1.3, "type": "cushion", "ball": "yellow", "cushion": "left"},),
                     "B", "touched a long cushion", id="pyramid:8.1 A touched a long cushion"),
        pytest.param(({"frame": 90, "t": 3.0, "type": "cushion", "ball": "1", "cushion": "back"},),
                     "A", "touched the back cushion twice", id="pyramid:8.1 B touched the back twice"),
    ],
)  # fmt: skip
def test_a_lost_lag_says_why(client: TestClient, extra, winner, lost) -> None:
    mid = new_match(client, breaker="lag")["id"]
    r = client.post(f"/matches/{mid}/shots", json=lag_shot(200.0, 500.0, extra), headers=AUTH)
    assert r.status_code == 201, r.text
    lag = client.get(f"/matches/{mid}/state").json()["lag"]
    loser = "B" if winner == "A" else "A"
    assert lag["winner"] == winner and lag["losers"] == [loser]
    assert lost in lag["balls"][loser]["lost"]["en"]
    board = client.get(f"/scoreboard/matches/{mid}.json?lang=ru").json()
    assert "Разбег" in board["lagText"]


def test_too_close_is_asked_not_called(client: TestClient) -> None:
    mid = new_match(client, breaker="lag")["id"]
    client.post(f"/matches/{mid}/shots", json=lag_shot(300.0, 301.0), headers=AUTH)
    lag = client.get(f"/matches/{mid}/state").json()["lag"]
    assert lag["status"] == "asked" and lag["question"] and lag["uncertain"]
    assert lag["difference_mm"] == 1.0
    board = client.get(f"/scoreboard/matches/{mid}.json?lang=en").json()
    assert "too close to call" in board["lagText"]


@pytest.mark.parametrize(("orientation", "asked"), [("ambiguous", True), ("sure", False)])
def test_a_table_whose_ends_were_not_read_asks_the_lag(client: TestClient, orientation, asked):
    """A live 5-pin table whose CALIB.json could not tell its front end from its back
    (contract §6 ``uncertainty.orientation``; a carom table's markings are symmetric): its
    match says its ends were assumed, and a lag the ends decide (white 300 mm from the
    front cushion as assumed, yellow 2500 mm) is asked about the calibration (contract
    §11), not called."""
    calib = {
        "format": "tablemon-calibration/1",
        "table": "carom-match",
        "image_size": [1920, 1080],
        "image_to_table": [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]],
        "uncertainty": {"rms_mm": 0.5, "max_mm": 1.5, "orientation": orientation},
    }
    body = {"name": "T", "source": "0", "spec": "carom-match", "calibration": calib}
    t = client.post("/tables", json=body, headers=AUTH).json()
    m = new_match(client, game="carom-5pin", breaker="lag", table_id=t["id"])
    r = client.post(
        f"/matches/{m['id']}/shots", json=lag_shot(300.0, 2500.0, kind="carom"), headers=AUTH
    )
    assert r.status_code == 201, r.text
    qs = client.get(f"/matches/{m['id']}/questions").json()["questions"]
    assert ("calibration" in [q["about"] for q in qs]) == asked
