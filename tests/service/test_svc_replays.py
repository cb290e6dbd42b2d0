"""Replay jobs: server path or upload, ``tablemon replay`` in a subprocess, progress, the
result or the recorded error."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, client_for, make_settings
from test_svc_tables import CALIB

from service.replays import ReplayRunner


def wait_done(c: TestClient, rid: int, timeout: float = 90.0) -> dict:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r = c.get(f"/replays/{rid}").json()
        if r["status"] in ("done", "failed"):
            return r
        time.sleep(0.2)
    raise AssertionError(f"replay {rid} did not finish: {r}")


def test_broken_video_fails_with_recorded_error(client: TestClient, settings) -> None:
    (settings.video_dir / "broken.mp4").write_bytes(b"not a video at all")
    r = client.post(
        "/replays",
        json={"video": "broken.mp4", "game": "pyramid-free", "calibration": CALIB},
        headers=AUTH,
    )
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["status"] in ("queued", "running")
    done = wait_done(client, job["id"])
    assert done["status"] == "failed" and done["has_result"] is False
    assert (
        done["error"].startswith("exit ")
        and "tablemon" in done["error"]
        and "\n" not in done["error"]
    )
    r = client.get(f"/replays/{job['id']}/match.json")
    assert r.status_code == 409 and "failed" in r.json()["detail"]
    events = client.get("/stream", params={"once": True}).text
    assert '"status":"failed"' in events  # the stream tells overlays too


def test_command_carries_spec_and_calibration(client: TestClient, settings) -> None:
    (settings.video_dir / "a.mp4").write_bytes(b"x")
    t = client.post(
        "/tables",
        json={"name": "T", "source": "0", "spec": "pyramid-10ft", "calibration": CALIB},
        headers=AUTH,
    ).json()
    r = client.post(
        "/replays",
        json={"video": "a.mp4", "game": "pyramid-free", "table_id": t["id"]},
        headers=AUTH,
    ).json()
    assert r["table"] == "pyramid-10ft"
    runner = client.app.state.runtimes[settings.db_target].extras["replays"]
    cmd = runner.command(r["id"])
    assert cmd[cmd.index("--table") + 1] == "pyramid-10ft"
    assert json.loads(Path(cmd[cmd.index("--calibration") + 1]).read_text()) == CALIB
    wait_done(client, r["id"])


FAKE_REPLAY = """
import json, sys, time
out = sys.argv[sys.argv.index('--out') + 1]
for p in (10, 50, 90):
    sys.stderr.write(f'\\rreplay: {p}%|###| {p}/100'); sys.stderr.flush(); time.sleep(0.05)
json.dump({'format': 'tablemon-match/1', 'game': 'pyramid-free', 'table': 'pyramid-12ft', 'shots': []}, open(out, 'w'))
"""


def test_runner_done_path_and_progress(tmp_path: Path) -> None:
    """The runner's own machinery (progress parsing, result), driven by a stand-in command."""

    class Runner(ReplayRunner):
        def command(self, replay_id: int) -> list[str]:
            return [sys.executable, "-c", FAKE_REPLAY, *super().command(replay_id)[3:]]

    from service.broker import Broker
    from service.db import Database

    s = make_settings(tmp_path)
    db = Database(s.db_target)
    runner = Runner(db, s, Broker())
    r = db.add_replay(str(tmp_path / "v.mp4"), "pyramid-free", None)
    runner.submit(r.id)
    end = time.monotonic() + 30
    while db.replay(r.id).status not in ("done", "failed") and time.monotonic() < end:
        time.sleep(0.05)
    done = db.replay(r.id)
    runner.close()
    assert done.status == "done" and done.progress == 1.0 and done.error is None
    assert json.loads(Path(done.result).read_text())["format"] == "tablemon-match/1"
    progress = [e.data["progress"] for e in db.events() if e.kind == "replay"]
    assert 0.5 in progress and 0.9 in progress


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"video": "../x.mp4", "game": "pyramid-free"}, 403, "outside the video folder"),
        ({"video": "none.mp4", "game": "pyramid-free"}, 404, "no such video"),
        ({"video": "a.mp4", "game": "golf"}, 422, "body.game"),
        ({"video": "a.mp4", "game": "pyramid-free", "table": "moon"}, 422, "unknown table spec"),
        ({"video": "a.mp4", "game": "pyramid-free", "table_id": 3}, 404, "table 3 not found"),
        ({"video": "a.mp4", "game": "pyramid-free", "calibration": {"format": "x"}}, 422, "format"),
    ],
)
def test_submit_errors(client: TestClient, settings, body: dict, status: int, detail: str) -> None:
    (settings.video_dir / "a.mp4").write_bytes(b"x")
    r = client.post("/replays", json=body, headers=AUTH)
    assert r.status_code == status, r.text
    assert detail in r.json()["detail"]


def test_upload(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path, max_upload_bytes=1000)) as c:
        url = "/replays/upload"
        h = {**AUTH, "Content-Type": "application/octet-stream"}
        r = c.post(
            url, params={"game": "pyramid-free", "filename": "m.mp4"}, content=b"x" * 500, headers=h
        )
        assert r.status_code == 202, r.text
        job = r.json()
        assert Path(job["video"]).read_bytes() == b"x" * 500
        assert Path(job["video"]).parent == tmp_path / "data" / "uploads"
        r = c.post(url, params={"game": "pyramid-free"}, content=b"x" * 1001, headers=h)
        assert r.status_code == 413 and "larger than 1000 bytes" in r.json()["detail"]
        r = c.post(url, params={"game": "pyramid-free"}, content=b"", headers=h)
        assert r.status_code == 422 and "empty upload" in r.json()["detail"]
        r = c.post(
            url, params={"game": "pyramid-free", "filename": "a.exe"}, content=b"x", headers=h
        )
        assert r.status_code == 422 and "not a video" in r.json()["detail"]
        assert c.post(url, params={"game": "pyramid-free"}, content=b"x").status_code == 401
        wait_done(c, job["id"])
        assert [x["id"] for x in c.get("/replays").json()] == [job["id"]]


def test_unknown_replay(client: TestClient) -> None:
    for path in ("/replays/4", "/replays/4/match.json", "/replays/4/annotated.mp4"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["detail"] == "replay 4 not found"


def test_interrupted_jobs_fail_on_restart(tmp_path: Path) -> None:
    from service.db import Database

    s = make_settings(tmp_path)
    db = Database(s.db_target)
    r = db.add_replay("/v.mp4", "pyramid-free", None)
    db.update_replay(r.id, status="running", progress=0.3)
    db.close()
    with client_for(s) as c:
        j = c.get(f"/replays/{r.id}").json()
    assert j["status"] == "failed" and j["error"] == "interrupted by a service restart"


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "videos"


@pytest.mark.skipif(not (FIXTURES / "pyramid-break.mp4").is_file(), reason="no fixture clip")
def test_replay_a_fixture_end_to_end(tmp_path: Path) -> None:
    """The whole replay path on a synthetic fixture: job, progress, MATCH.json, video."""
    from contract.match import match_from_json

    s = make_settings(tmp_path, video_dir=FIXTURES)
    calib = json.loads((FIXTURES / "pyramid-break.calib.json").read_text())
    with client_for(s) as c:
        body = {"video": "pyramid-break.mp4", "game": "pyramid-free", "calibration": calib}
        job = c.post("/replays", json=body, headers=AUTH).json()
        done = wait_done(c, job["id"], timeout=240)
        assert done["status"] == "done", done
        assert done["progress"] == 1.0 and done["has_annotated"] is True
        m = match_from_json(c.get(f"/replays/{job['id']}/match.json").json())
        assert m.game == "pyramid-free" and m.video is not None and m.video.frames > 0
        r = c.get(f"/replays/{job['id']}/annotated.mp4")
        assert (
            r.status_code == 200
            and r.headers["content-type"] == "video/mp4"
            and len(r.content) > 1000
        )
        progress = [
            e
            for e in c.get("/stream", params={"once": True}).text.split("\n\n")
            if "event: replay" in e
        ]
        assert len(progress) >= 3  # queued/running, some progress, done
