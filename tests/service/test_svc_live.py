"""The live worker: frame reading paced as live, dropping frames under load, reconnect with
the gap recorded, restart after a crash, shots fed to the match."""

from __future__ import annotations

import json
import os
import queue
import signal
import threading
import time
from pathlib import Path

import pytest
from svc_helpers import AUTH, live_table, new_match, shot

from service.live import LiveManager, worker_main, write_test_video


def run_worker(source: str, processor, stop_after: float | None = None, **kw) -> list[dict]:
    q: queue.Queue = queue.Queue()
    stop = threading.Event()
    if stop_after is not None:
        threading.Timer(stop_after, stop.set).start()
    worker_main(1, source, "pyramid-12ft", None, q, stop, processor, **kw)
    out = []
    while not q.empty():
        out.append(q.get())
    return out


def counting(seen: list):
    def make(spec, calib):
        def process(frame, t):
            seen.append((frame.shape, t))
            return [shot()] if len(seen) == 10 else []

        return process

    return make


def test_reads_a_video_as_live(tmp_path: Path) -> None:
    video = write_test_video(tmp_path / "v.mp4", frames=30, fps=30)
    seen: list = []
    t0 = time.monotonic()
    msgs = run_worker(str(video), counting(seen))
    took = time.monotonic() - t0
    assert 0.8 < took < 5  # paced at the file's 30 fps, not as fast as it decodes
    last = [m for m in msgs if m["type"] == "status"][-1]
    assert last["ended"] is True and last["connected"] is False and last["vision"] is None
    assert last["frames"] + last["dropped"] == 30 and last["frames"] == 30
    assert seen[0][0] == (48, 64, 3) and seen[1][1] == pytest.approx(1 / 30)
    # after the end, the last frame again for a second (as a camera goes on sending)
    assert len(seen) == 60 and seen[59][1] == pytest.approx(59 / 30)
    shots = [m for m in msgs if m["type"] == "shot"]
    assert len(shots) == 1 and shots[0]["table"] == 1


def slow_vision(seconds: float):
    def make(spec, calib):
        return lambda frame, t: time.sleep(seconds) or []

    return make


def statuses(msgs: list[dict]) -> list[dict]:
    return [m for m in msgs if m["type"] == "status"]


def test_a_slow_vision_lags_and_loses_nothing(tmp_path: Path) -> None:
    video = write_test_video(tmp_path / "v.mp4", frames=30, fps=30)
    msgs = run_worker(str(video), slow_vision(0.06))
    last = statuses(msgs)[-1]
    h = last["health"]
    assert last["frames"] == 30 and last["dropped"] == 0  # every frame waited its turn
    assert h["frames_in"] == 30 and h["processed"] == 30 and h["lost"] == 0
    assert h["max_lag_s"] > 0.3 and h["state"] == "ok"  # behind, caught up at the end


def test_a_full_buffer_loses_the_newest_frames_and_says_so(tmp_path: Path) -> None:
    video = write_test_video(tmp_path / "v.mp4", frames=30, fps=30)
    frame_mb = 64 * 48 * 3 / 2**20
    msgs = run_worker(str(video), slow_vision(0.15), buffer_mb=4 * frame_mb)
    last = statuses(msgs)[-1]
    h = last["health"]
    assert h["lost"] > 10 and h["processed"] + h["lost"] == 30 == h["frames_in"]
    assert last["dropped"] == h["lost"] and h["skipped_idle"] == 0  # no idle() to skip by
    assert "blind" in {m["health"]["state"] for m in statuses(msgs)}  # the reader never
    # waited for the slow stage: what did not fit was lost (and said so)


def test_no_vision_is_reported(tmp_path: Path) -> None:
    video = write_test_video(tmp_path / "v.mp4", frames=5, fps=30)
    msgs = run_worker(str(video), "no_such_module:make")
    last = [m for m in msgs if m["type"] == "status"][-1]
    assert "no live vision" in last["vision"] and last["frames"] + last["dropped"] == 5


def test_reconnect_records_the_gap(tmp_path: Path) -> None:
    late = tmp_path / "late.mp4"
    threading.Timer(
        0.6, lambda: write_test_video(tmp_path / "tmp.mp4", frames=5).rename(late)
    ).start()
    t0 = time.time()
    msgs = run_worker(str(late), "no_such_module:make", retry_s=(0.1, 0.2))
    gaps = [m for m in msgs if m["type"] == "gap"]
    assert len(gaps) == 1
    assert t0 <= gaps[0]["start"] < gaps[0]["end"] and gaps[0]["end"] - gaps[0]["start"] >= 0.4
    assert [m for m in msgs if m["type"] == "status"][-1]["ended"] is True


def test_shot_messages_feed_the_match(client, settings) -> None:
    live, tid, mid, _ = live_table(client, settings)
    live._handle({"type": "shot", "table": tid, "shot": shot()})
    live._handle({"type": "shot", "table": tid, "shot": {"bad": 1}})
    live._handle({"type": "gap", "table": tid, "start": 1.0, "end": 2.0})
    st = client.get(f"/tables/{tid}").json()["status"]
    assert "shot refused" in st["last_error"] and st["gaps"] == [{"start": 1.0, "end": 2.0}]
    shots = client.get(f"/matches/{mid}/shots").json()["shots"]
    assert len(shots) == 1 and shots[0]["verdict"]
    assert client.get(f"/matches/{mid}/audit").json()  # create_match at least


def test_worker_process_restarts_after_kill(client, settings) -> None:
    video = write_test_video(settings.video_dir / "long.mp4", frames=600, fps=30)
    t = client.post("/tables", json={"name": "T", "source": video.name}, headers=AUTH).json()
    mid = new_match(client, table_id=t["id"])["id"]
    r = client.post(f"/tables/{t['id']}/live", json={"match_id": mid}, headers=AUTH)
    assert r.status_code == 200 and r.json()["status"]["running"] is True
    rt = client.app.state.runtimes[settings.db_target]
    live: LiveManager = rt.extras["live"]

    def wait(cond, timeout=30.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            st = client.get(f"/tables/{t['id']}").json()["status"]
            if cond(st):
                return st
            time.sleep(0.1)
        raise AssertionError(st)

    st = wait(lambda s: s.get("frames", 0) > 5 and s.get("connected"))
    assert st["fps"] > 0
    pid = live.pid(t["id"])
    mine = os.getpriority(os.PRIO_PROCESS, 0)  # the worker runs niced below the API
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(mine + settings.live_nice, 19)
    os.kill(pid, signal.SIGKILL)
    st = wait(lambda s: s["restarts"] == 1 and s["running"])
    assert live.pid(t["id"]) != pid and "exit -9" in st["last_error"]
    r = client.delete(f"/tables/{t['id']}/live", headers=AUTH)
    assert r.json()["status"]["running"] is False
    time.sleep(0.5)
    assert client.get(f"/tables/{t['id']}").json()["status"]["restarts"] == 1  # a stop is no crash


def test_truth_sidecar_feeds_shots_as_the_video_plays(tmp_path: Path) -> None:
    video = write_test_video(tmp_path / "clip.mp4", frames=30, fps=30)
    shots = [
        {
            **shot(frame=0),
            "index": 1,
            "end": {"frame": 9, "t": 0.3},
            "verdict": {"legal": True, "next": "A"},
        },
        {**shot(frame=10), "index": 2, "end": {"frame": 24, "t": 0.8}},
        {**shot(frame=40), "index": 3, "end": {"frame": 90, "t": 3.0}},  # after the video's end
    ]
    (tmp_path / "clip.truth.json").write_text(
        json.dumps({"format": "tablemon-match/1", "shots": shots})
    )
    msgs = run_worker(str(video), "no_such_module:make")
    fed = [m["shot"] for m in msgs if m["type"] == "shot"]
    # in order, numbered by the service (a flagged shot may come between the vision's)
    assert [s["start"] for s in fed] == [shots[0]["start"], shots[1]["start"]]
    assert all("verdict" not in s and "index" not in s for s in fed)
    last = [m for m in msgs if m["type"] == "status"][-1]
    assert "ground truth clip.truth.json" in last["vision"]


def health_msg(tid: int, state: str, lost: int = 0, lag: float = 0.0) -> dict:
    h = {"state": state, "since": 1.0, "frames_in": 300, "processed": 200, "dropped": 100,
         "skipped_idle": 100 - lost, "lost": lost, "late": 0, "lag_s": lag, "max_lag_s": 4.0,
         "buffered": 30, "flagged": 0, "unseen": []}  # fmt: skip
    return {"type": "status", "table": tid, "connected": True, "fps": 12.0, "frames": 200,
            "dropped": 100, "vision": None, "health": h}  # fmt: skip


def test_health_reaches_the_status_the_stream_and_the_log(client, settings, caplog) -> None:
    live, tid, mid, rt = live_table(client, settings)
    flagged = {**shot(), "unseen": {"from": 40, "to": 60}, "uncertain": "frames 40–60 ..."}
    caplog.set_level("WARNING", logger="tablemon.live")
    for state, lost, lag in [("ok", 0, 0.1), ("behind", 0, 3.2), ("blind", 5, 6.0),
                             ("behind", 5, 4.0), ("ok", 5, 0.2), ("ok", 5, 0.1)]:  # fmt: skip
        live._handle(health_msg(tid, state, lost, lag))
        if state == "blind":
            live._handle({"type": "shot", "table": tid, "shot": flagged})
    st = client.get(f"/tables/{tid}").json()["status"]
    assert st["health"]["state"] == "ok" and st["health"]["lost"] == 5 and st["flagged"] == 1
    events = [e for e in rt.db.events(0, table_id=tid) if "health" in e.data]
    assert [e.data["health"]["state"] for e in events] == ["behind", "blind", "behind", "ok"]
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3  # fell behind, got worse, recovered: not blind -> behind
    assert lines[0].startswith(f"table {tid} (T) is behind: lag 3.2 s, 200 of 300 frames")
    assert "is blind" in lines[1] and "flagged unseen for the referee" in lines[1]
    assert "recovered" in lines[2] and "1 shots flagged unseen" in lines[2]
    stored = client.get(f"/matches/{mid}/shots").json()["shots"][0]
    assert stored["unseen"] == {"from": 40, "to": 60} and stored["uncertain"] == "frames 40–60 ..."


@pytest.mark.parametrize(("game", "numbers"), [("pyramid-classic", True), ("pyramid-free", False)])
def test_a_classic_match_has_its_live_vision_read_numbers(client, settings, monkeypatch, game,
                                                          numbers) -> None:  # fmt: skip
    """Classic pyramid scores the ball numbers: its table's live worker reads them."""
    rt = client.app.state.runtimes[settings.db_target]
    calls: list[tuple] = []
    monkeypatch.setattr(
        rt.extras["live"],
        "start",
        lambda t, mid, read_numbers=False: calls.append((mid, read_numbers)),
    )
    t = client.post("/tables", json={"name": "T", "source": "0"}, headers=AUTH).json()
    mid = new_match(client, table_id=t["id"], game=game)["id"]
    assert (
        client.post(f"/tables/{t['id']}/live", json={"match_id": mid}, headers=AUTH).status_code
        == 200
    )
    assert calls == [(mid, numbers)]


@pytest.mark.parametrize("read_numbers", [False, True])
def test_the_worker_asks_its_vision_for_numbers_only_when_told(read_numbers) -> None:
    """A vision factory that reads no numbers (``make(spec, calib)``) still loads for every
    game; one that does is told when the match needs them."""
    from service.live_worker import _load_processor

    told: list[bool] = []

    def reader(spec, calib, read_numbers=False):
        told.append(read_numbers)
        return lambda frame, t: []

    def plain(spec, calib):
        return lambda frame, t: []

    proc, why = _load_processor("pyramid-12ft", None, reader, read_numbers)
    assert proc is not None and why is None and told == [read_numbers]
    proc, why = _load_processor("pyramid-12ft", None, plain, False)
    assert proc is not None and why is None
