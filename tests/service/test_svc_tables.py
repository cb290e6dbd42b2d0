"""Tables: register with a camera source, server paths only inside the video folder,
calibration upload, status."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from svc_helpers import AUTH, client_for, make_settings

CALIB = {
    "format": "tablemon-calibration/1",
    "table": "pyramid-12ft",
    "image_size": [1920, 1080],
    "image_to_table": [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]],
}


@pytest.mark.parametrize(
    "source", ["0", "rtsp://cam.local/stream", "http://10.0.0.5/mjpg", "clip.mp4"]
)
def test_register(client: TestClient, settings, source: str) -> None:
    (settings.video_dir / "clip.mp4").write_bytes(b"x")
    r = client.post("/tables", json={"name": "Table 1", "source": source}, headers=AUTH)
    assert r.status_code == 201, r.text
    t = r.json()
    assert (
        t["spec"] == "pyramid-12ft" and t["calibrated"] is False and t["status"]["running"] is False
    )
    if source == "clip.mp4":
        assert t["source"] == str((settings.video_dir / "clip.mp4").resolve())
    assert client.get(f"/tables/{t['id']}").json() == t
    assert [x["id"] for x in client.get("/tables").json()] == [t["id"]]


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"name": "T", "source": "../outside.mp4"}, 403, "path outside the video folder"),
        ({"name": "T", "source": "/etc/passwd"}, 403, "path outside the video folder"),
        ({"name": "T", "source": "missing.mp4"}, 404, "no such video"),
        ({"name": "T", "source": "0" * 900 + ".mp4"}, 422, "not a usable path"),
        ({"name": "T", "source": "a\x00.mp4"}, 422, "not a usable path"),
        ({"name": "T", "source": "0", "spec": "../../etc/x.json"}, 422, "unknown table spec"),
        ({"name": "", "source": "0"}, 422, "body.name"),
        ({"name": "T", "source": "0", "calibration": {"format": "x"}}, 422, "format"),
        (
            {
                "name": "T",
                "source": "0",
                "calibration": {**CALIB, "image_to_table": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]},
            },
            422,
            "image_to_table",
        ),
    ],
)
def test_register_errors(
    client: TestClient, settings, body: dict, status: int, detail: str
) -> None:
    (settings.video_dir.parent / "outside.mp4").write_bytes(b"x")
    r = client.post("/tables", json=body, headers=AUTH)
    assert r.status_code == status, r.text
    assert detail in r.json()["detail"]


def test_symlink_out_of_video_dir_refused(client: TestClient, settings) -> None:
    secret = settings.video_dir.parent / "secret.mp4"
    secret.write_bytes(b"x")
    (settings.video_dir / "link.mp4").symlink_to(secret)
    r = client.post("/tables", json={"name": "T", "source": "link.mp4"}, headers=AUTH)
    assert r.status_code == 403


def test_video_dir_unset(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path, video_dir=None)) as c:
        r = c.post("/tables", json={"name": "T", "source": "a.mp4"}, headers=AUTH)
        assert r.status_code == 403 and "TABLEMON_VIDEO_DIR is not set" in r.json()["detail"]


def test_calibration_upload(client: TestClient) -> None:
    t = client.post("/tables", json={"name": "T", "source": "0"}, headers=AUTH).json()
    r = client.put(f"/tables/{t['id']}/calibration", json=CALIB, headers=AUTH)
    assert r.status_code == 200 and r.json()["calibrated"] is True
    r = client.put(f"/tables/{t['id']}/calibration", json={"format": "nope"}, headers=AUTH)
    assert r.status_code == 422 and "format" in r.json()["detail"]
    assert client.put("/tables/77/calibration", json=CALIB, headers=AUTH).status_code == 404
    assert client.put(f"/tables/{t['id']}/calibration", json=CALIB).status_code == 401


def test_live_errors(client: TestClient) -> None:
    t = client.post("/tables", json={"name": "T", "source": "0"}, headers=AUTH).json()
    r = client.post(f"/tables/{t['id']}/live", json={"match_id": 5}, headers=AUTH)
    assert r.status_code == 404 and r.json()["detail"] == "match 5 not found"
    assert client.post("/tables/9/live", json={"match_id": 1}, headers=AUTH).status_code == 404
    assert client.get("/tables/9").status_code == 404


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "videos"


def _wait_calibration(c: TestClient, tid: int, timeout: float = 120.0) -> dict:
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        t = c.get(f"/tables/{tid}").json()
        if t["status"]["calibration"].get("state") in ("done", "failed"):
            return t
        time.sleep(0.2)
    raise AssertionError(t)


@pytest.mark.skipif(not (FIXTURES / "pyramid-break.mp4").is_file(), reason="no fixture clip")
def test_automatic_calibration_of_a_fixture(tmp_path: Path) -> None:
    s = make_settings(tmp_path, video_dir=FIXTURES, auto_calibrate=True)
    with client_for(s) as c:
        r = c.post("/tables", json={"name": "T", "source": "pyramid-break.mp4"}, headers=AUTH)
        assert r.status_code == 201 and r.json()["status"]["calibration"]["state"] == "running"
        t = _wait_calibration(c, r.json()["id"])
        assert t["status"]["calibration"]["state"] == "done", t
        assert t["calibrated"] is True and t["status"]["last_calibration_check"] > 0
        assert 0 < t["status"]["calibration"]["rms_mm"] < 5


@pytest.mark.parametrize(("source", "error"), [("0", "camera 0: no frame"), ("junk.mp4", "exit ")])
def test_calibration_failure_is_recorded(
    client: TestClient, settings, source: str, error: str
) -> None:
    (settings.video_dir / "junk.mp4").write_bytes(b"junk")
    t = client.post("/tables", json={"name": "T", "source": source}, headers=AUTH).json()
    assert t["status"]["calibration"] == {}  # auto_calibrate off in these settings
    r = client.post(f"/tables/{t['id']}/calibrate", headers=AUTH)
    assert r.status_code == 202
    t = _wait_calibration(client, t["id"])
    cal = t["status"]["calibration"]
    assert cal["state"] == "failed" and cal["error"].startswith(error) and t["calibrated"] is False
    assert client.post("/tables/99/calibrate", headers=AUTH).status_code == 404
    assert client.post(f"/tables/{t['id']}/calibrate").status_code == 401
