"""The referee's questions (contract §11) through the service: listed with what each option
gives, the score shown as settled, an answer stored as an audited correction that judges
every later shot again, the stream's ``question`` event, and the decisive stills."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, NO_CONTACT, doubtful_break, new_match, plain

from service.live import write_test_video

BOTH = pytest.mark.backends("sqlite", "postgres")  # the stored values, on both databases


def _asked(c: TestClient, **kw: object) -> int:
    mid = new_match(c, **kw)["id"]
    for s in (doubtful_break(), plain()):
        assert c.post(f"/matches/{mid}/shots", json=s, headers=AUTH).status_code == 201
    return mid


def _answer(c: TestClient, mid: int, qid: str, option: str, **headers: str):
    return c.post(
        f"/matches/{mid}/questions/{qid}/answer",
        json={"option": option},
        headers=AUTH | headers,
    )


@BOTH
def test_open_question_is_listed_and_the_score_is_settled(client: TestClient) -> None:
    mid = _asked(client)
    qs = client.get(f"/matches/{mid}/questions").json()
    assert qs["open"] == 1
    (q,) = qs["questions"]
    assert (q["id"], q["ref"], q["shot"], q["about"], q["answer"]) == (
        "q1",
        "1-verdict",
        1,
        "verdict",
        None,
    )
    assert "contact" in q["why"] and q["frames"] == [10] and q["stills"] == []
    why = "the contact was hidden by the player's arm"
    assert q["doubts"] == [{"frame": 10, "event": "contact yellow w2", "why": why}]
    gains = {o["key"]: o["gains"] for o in q["options"]}
    assert gains == {"as_read": {"A": 1, "B": 0}, NO_CONTACT: {"A": 0, "B": 1}}
    fouls = {o["key"]: o["verdict"]["fouls"] for o in q["options"]}
    assert fouls == {"as_read": [], NO_CONTACT: ["no_contact"]}
    assert "Petrov +1" in q["options"][1]["text"]["en"]
    # shot 2 (A's, as read) is settled: only the break's point waits for the referee
    assert qs["score"] == {"A": 1, "B": 0} and qs["score_as_read"] == {"A": 2, "B": 0}
    assert qs["pending"] == {"q1": gains}
    st = client.get(f"/matches/{mid}/state").json()
    assert st["score"] == {"A": 1, "B": 0} and st["score_as_read"] == {"A": 2, "B": 0}
    assert st["questions_open"] == 1 and st["pending"] == qs["pending"]
    assert [x["ref"] for x in st["questions"]] == ["1-verdict"]
    board = client.get(f"/scoreboard/matches/{mid}.json?lang=ru").json()
    assert (board["scoreA"], board["scoreB"], board["pendingA"], board["pendingB"]) == (1, 0, 1, 0)
    assert board["awaitingReferee"] is True and board["openQuestions"] == 1
    assert board["questions"][0]["options"][1]["text"].startswith("Фол: биток не коснулся")
    assert client.get(f"/matches/{mid}/questions/1-verdict").json() == q


@BOTH
def test_answer_judges_every_later_shot_again(client: TestClient) -> None:
    mid = _asked(client)
    r = _answer(client, mid, "q1", NO_CONTACT, **{"X-Tablemon-User": "Judge Orlov"})
    assert r.status_code == 200, r.text
    q, st = r.json()["question"], r.json()["state"]
    assert q["answer"] == NO_CONTACT and q["by"] == "Judge Orlov" and q["at"].endswith("Z")
    # a foul on the break: B plays shot 2 and scores it
    assert st["score"] == {"A": 0, "B": 2} and st["turn"] == "B"
    assert st["questions_open"] == 0 and st["pending"] == {} and st["score_as_read"] is None
    shots = client.get(f"/matches/{mid}/shots").json()["shots"]
    assert shots[0]["verdict"]["fouls"] == ["no_contact"] and "uncertain" not in shots[0]["verdict"]
    assert shots[0]["referee"]["answers"] == {"verdict": NO_CONTACT}
    assert shots[1]["verdict"]["player"] == "B"
    audit = client.get(f"/matches/{mid}/audit").json()[-1]
    assert (audit["action"], audit["shot"], audit["who"]) == ("answer", 1, "Judge Orlov")
    assert audit["before"]["verdict"]["fouls"] == [] and audit["after"]["verdict"]["fouls"] == [
        "no_contact"
    ]
    qs = client.get(f"/matches/{mid}/questions").json()
    assert qs["open"] == 0 and qs["questions"][0]["answer"] == NO_CONTACT
    board = client.get(f"/scoreboard/matches/{mid}.json").json()
    assert board["awaitingReferee"] is False and board["questions"] == []
    assert (board["scoreA"], board["scoreB"], board["pendingA"]) == (0, 2, 0)


@BOTH
def test_answer_changed_repeated_and_withdrawn(client: TestClient) -> None:
    mid = _asked(client)
    assert _answer(client, mid, "1-verdict", NO_CONTACT).status_code == 200
    n = len(client.get(f"/matches/{mid}/audit").json())
    # the same answer again (a double tap) changes nothing and writes nothing
    r = _answer(client, mid, "q1", NO_CONTACT)
    assert r.status_code == 200 and len(client.get(f"/matches/{mid}/audit").json()) == n
    # another answer is a correction like any other
    r = _answer(client, mid, "q1", "as_read")
    assert r.status_code == 200 and r.json()["state"]["score"] == {"A": 2, "B": 0}
    assert client.get(f"/matches/{mid}/audit").json()[-1]["action"] == "answer"
    r = client.delete(f"/matches/{mid}/questions/q1/answer", headers=AUTH)
    assert r.status_code == 200 and r.json()["question"]["answer"] is None
    assert r.json()["state"]["score"] == {"A": 1, "B": 0} and r.json()["state"]["questions_open"]
    assert client.get(f"/matches/{mid}/audit").json()[-1]["action"] == "withdraw_answer"
    r = client.delete(f"/matches/{mid}/questions/q1/answer", headers=AUTH)
    assert r.status_code == 409 and r.json()["detail"] == "question q1 is not answered"


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status", "detail"),
    [
        ("post", "q1/answer", {"option": "as_read"}, {}, 401, "missing bearer token"),
        ("post", "q1/answer", {"option": "as_read"}, {"Authorization": "Bearer x"}, 403, "wrong"),
        ("delete", "q1/answer", None, {}, 401, "missing bearer token"),
        ("post", "q9/answer", {"option": "as_read"}, AUTH, 404, "has no question 'q9'"),
        ("post", "2-verdict/answer", {"option": "as_read"}, AUTH, 404, "no question '2-verdict'"),
        ("post", "q1/answer", {"option": "nope"}, AUTH, 422, "no option 'nope'; options: as_read"),
        ("post", "q1/answer", {}, AUTH, 422, "body.option"),
        ("post", "q1/answer", {"option": "as_read", "x": 1}, AUTH, 422, "body.x"),
        ("post", "bad id/answer", {"option": "as_read"}, AUTH, 422, "question_id"),
        ("get", "q2", None, {}, 404, "has no question 'q2'"),
    ],
)
def test_question_errors(
    client: TestClient,
    method: str,
    path: str,
    body: dict | None,
    headers: dict,
    status: int,
    detail: str,
) -> None:
    mid = _asked(client)
    kw = {"json": body} if body is not None else {}
    r = client.request(method, f"/matches/{mid}/questions/{path}", headers=headers, **kw)
    assert r.status_code == status, r.text
    assert detail in r.json()["detail"] and "\n" not in r.json()["detail"]
    assert client.get(f"/matches/{mid}/questions").json()["open"] == 1  # nothing stored


def test_unknown_match(client: TestClient) -> None:
    r = client.get("/matches/9/questions")
    assert r.status_code == 404 and r.json()["detail"] == "match 9 not found"
    r = client.post("/matches/9/questions/q1/answer", json={"option": "x"}, headers=AUTH)
    assert r.status_code == 404 and r.json()["detail"] == "match 9 not found"


def test_unseen_shot_is_answered_about_unseen(client: TestClient) -> None:
    """A shot whose motion fell in frames not processed is asked ``about: unseen``; the
    answer is stored under that name and settles it."""
    mid = new_match(client)["id"]
    b = plain()
    b["unseen"] = {"from": 95, "to": 130}
    for s in (plain(0), b):
        assert client.post(f"/matches/{mid}/shots", json=s, headers=AUTH).status_code == 201
    (q,) = client.get(f"/matches/{mid}/questions").json()["questions"]
    assert q["ref"] == "2-unseen" and [o["key"] for o in q["options"]] == ["as_read", "missed"]
    r = _answer(client, mid, "2-unseen", "missed")
    assert r.status_code == 200 and r.json()["question"]["answer"] == "missed"
    assert r.json()["state"]["questions_open"] == 0
    shots = client.get(f"/matches/{mid}/shots").json()["shots"]
    assert shots[1]["referee"]["answers"] == {"unseen": "missed"}
    assert shots[1]["verdict"]["player"] == "B"  # a shot was missed: the other player's


def _sse(client: TestClient, mid: int, after: int = 0) -> list[tuple[str, str]]:
    text = client.get(f"/stream?match_id={mid}&once=true&last_event_id={after}").text
    out = []
    for block in text.split("\n\n"):
        lines = dict(x.split(": ", 1) for x in block.splitlines() if ": " in x)
        if "event" in lines:
            out.append((lines["event"], lines["data"]))
    return out


def test_stream_sends_question_events_when_questions_change(client: TestClient) -> None:
    mid = new_match(client)["id"]
    client.post(f"/matches/{mid}/shots", json=doubtful_break(), headers=AUTH)
    client.post(f"/matches/{mid}/shots", json=plain(), headers=AUTH)
    kinds = [k for k, _ in _sse(client, mid)]
    # asked with the first shot; the second leaves the questions as they were
    assert kinds == ["match", "state", "shot", "question", "state", "shot", "state"]
    (data,) = [json.loads(d) for k, d in _sse(client, mid) if k == "question"]
    assert data["open"] == 1 and data["questions"][0]["ref"] == "1-verdict"
    assert data["score"] == {"A": 0, "B": 0} and "q1" in data["pending"]  # as of shot 1
    rev = client.get(f"/matches/{mid}/state").json()["rev"]
    _answer(client, mid, "q1", NO_CONTACT)
    after = _sse(client, mid, rev)
    assert [k for k, _ in after] == ["referee", "question", "state"]
    data = json.loads(after[1][1])
    assert data["open"] == 0 and data["questions"][0]["answer"] == NO_CONTACT


def _video_table(client: TestClient, settings) -> int:
    write_test_video(settings.video_dir / "clip.mp4", frames=30, size=(64, 48))
    t = client.post("/tables", json={"name": "T", "source": "clip.mp4"}, headers=AUTH)
    assert t.status_code == 201, t.text
    return t.json()["id"]


def test_stills_from_the_tables_video(client: TestClient, settings) -> None:
    tid = _video_table(client, settings)
    mid = new_match(client, table_id=tid)["id"]
    client.post(f"/matches/{mid}/shots", json=doubtful_break(), headers=AUTH)
    (q,) = client.get(f"/matches/{mid}/state").json()["questions"]
    assert q["stills"] == [f"/matches/{mid}/questions/1-verdict/stills/10.jpg"]
    overlay = client.get(f"/scoreboard/tables/{tid}.json").json()  # the table's overlay too
    assert (overlay["matchId"], overlay["awaitingReferee"], overlay["pendingA"]) == (mid, True, 1)
    assert overlay["questions"][0]["ref"] == "1-verdict"
    r = client.get(q["stills"][0])
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    img = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert img.shape == (48, 64)
    # the test video's white dot is at x = 5 + 2 * frame: this still is frame 10's
    ys, xs = np.nonzero(img > 200)
    assert len(xs) and abs(xs.mean() - 25) < 1.5 and abs(ys.mean() - 24) < 1.5
    r = client.get(f"/matches/{mid}/questions/q1/stills/11.jpg")
    assert r.status_code == 404 and r.json()["detail"] == (
        "question q1 has no still at frame 11; frames: 10"
    )


def test_stills_past_the_videos_end_and_from_a_camera(client: TestClient, settings) -> None:
    tid = _video_table(client, settings)
    mid = new_match(client, table_id=tid)["id"]
    client.post(f"/matches/{mid}/shots", json=doubtful_break(frame=100), headers=AUTH)
    r = client.get(f"/matches/{mid}/questions/q1/stills/110.jpg")
    assert r.status_code == 404 and r.json()["detail"] == "the video clip.mp4 has no frame 110"
    cam = client.post("/tables", json={"name": "C", "source": "0"}, headers=AUTH).json()["id"]
    mid = new_match(client, table_id=cam)["id"]
    client.post(f"/matches/{mid}/shots", json=doubtful_break(), headers=AUTH)
    assert client.get(f"/matches/{mid}/state").json()["questions"][0]["stills"] == []
    r = client.get(f"/matches/{mid}/questions/q1/stills/10.jpg")
    assert r.status_code == 404
    assert "plays a camera (0), not a video file" in r.json()["detail"]
    mid = _asked(client)
    r = client.get(f"/matches/{mid}/questions/q1/stills/10.jpg")
    assert r.status_code == 404 and "not played on a table" in r.json()["detail"]


def test_stills_of_a_replays_questions(client: TestClient, settings, tmp_path: Path) -> None:
    """A replay's MATCH.json carries its questions: their frames are served from the
    replayed video, no other frame."""
    video = write_test_video(settings.video_dir / "replay.mp4", frames=30, size=(64, 48))
    rt = client.app.state.runtimes[settings.db_target]
    rid = rt.db.add_replay(str(video), "pyramid-free", None).id
    assert client.get(f"/replays/{rid}/stills/12.jpg").status_code == 409  # not done yet
    question = {"id": "q1", "shot": 1, "about": "verdict", "why": "w", "frames": [12]}
    result = tmp_path / "MATCH.json"
    result.write_text(json.dumps({"questions": [question]}), encoding="utf-8")
    rt.db.update_replay(rid, status="done", result=str(result))
    r = client.get(f"/replays/{rid}/stills/12.jpg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    img = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_GRAYSCALE)
    _, xs = np.nonzero(img > 200)
    assert abs(xs.mean() - 29) < 1.5  # the dot of frame 12 (x = 5 + 2 * 12)
    r = client.get(f"/replays/{rid}/stills/13.jpg")
    assert (
        r.status_code == 404 and r.json()["detail"] == f"no question of replay {rid} lists frame 13"
    )
