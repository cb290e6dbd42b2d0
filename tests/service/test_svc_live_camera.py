"""The live worker tells the service that the camera moved: an item the vision hands out
with a ``type`` (a contract event outside shots, ``camera_moved``) goes to the table's
status and the match's event log, beside the shots, which still feed the match."""

from __future__ import annotations

import queue
import threading
from pathlib import Path

from svc_helpers import live_table, shot

from service.live import worker_main, write_test_video

MOVED = {"frame": 12, "t": 0.4, "type": "camera_moved", "until": 20}


def test_worker_sends_camera_moved_apart_from_shots(tmp_path: Path) -> None:
    video = write_test_video(tmp_path / "v.mp4", frames=12, fps=30)
    seen: list[float] = []

    def make(spec, calib):
        def process(frame, t):
            seen.append(t)
            return [shot(), dict(MOVED)] if len(seen) == 3 else []

        return process

    q: queue.Queue = queue.Queue()
    worker_main(1, str(video), "pyramid-12ft", None, q, threading.Event(), make)
    msgs = []
    while not q.empty():
        msgs.append(q.get())
    kinds = [m["type"] for m in msgs if m["type"] != "status"]
    assert kinds == ["shot", "event"]
    ev = next(m for m in msgs if m["type"] == "event")
    assert ev["event"] == MOVED and ev["table"] == 1
    assert "type" not in next(m for m in msgs if m["type"] == "shot")["shot"]


def test_camera_moved_reaches_status_and_event_log(client, settings) -> None:
    live, tid, mid, rt = live_table(client, settings)
    live._handle({"type": "event", "table": tid, "event": MOVED})
    live._handle({"type": "shot", "table": tid, "shot": shot()})
    assert live.status(tid)["camera_moved"] == [MOVED]
    table = client.get(f"/tables/{tid}").json()
    assert table["status"]["camera_moved"] == [MOVED]  # what a scoreboard polling REST sees
    logged = [e.data for e in rt.db.events(match_id=mid) if e.kind == "table"]
    assert logged == [{"table": tid, "event": MOVED}]
    shots = client.get(f"/matches/{mid}/shots").json()["shots"]
    assert len(shots) == 1  # the shot is judged as before


def test_status_says_why_while_the_camera_moves(tmp_path: Path) -> None:
    """The vision's ``note`` (the camera moving, or being recalibrated) is the table's
    ``vision`` status while it lasts, and clears once the camera holds still."""
    video = write_test_video(tmp_path / "v.mp4", frames=24, fps=30)
    seen: list[float] = []

    def make(spec, calib):
        def process(frame, t):
            seen.append(t)
            return []

        process.note = lambda: "camera moved: recalibrating" if len(seen) < 12 else None
        return process

    q: queue.Queue = queue.Queue()
    worker_main(
        1, str(video), "pyramid-12ft", None, q, threading.Event(), make, status_every_s=0.05
    )
    msgs = []
    while not q.empty():
        msgs.append(q.get())
    said = [m["vision"] for m in msgs if m["type"] == "status"]
    assert said[0] == "camera moved: recalibrating" and said[-1] is None
