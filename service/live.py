"""Live tables: one worker process per table reads the camera and pushes messages to the
API process through a queue; a manager thread there turns them into shots and status.

- backpressure by dropping frames: a capture thread keeps only the newest frame, the
  processing loop takes it when it is free (``dropped`` counts the frames it never saw);
  the queue to the API is bounded and status messages are dropped when it is full;
- a camera that drops is reopened with backoff, the gap (Unix seconds) recorded;
- a worker that crashes is restarted (``restarts`` counts), with backoff.

The vision seam: ``vision.live:make_processor(spec, calibration) -> process(frame, t) ->
list[shot dict]`` (contract §8 shots; an item with a ``type`` is an event outside shots,
``camera_moved``: it goes to the table's status and the match's event log). Until it
exists the worker reads frames and reports ``vision`` as unavailable; no shots are
invented.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import multiprocessing as mp
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROCESSOR = "vision.live:make_processor"


def _open(source: str) -> Any:
    import cv2

    cap = cv2.VideoCapture(int(source) if source.isdigit() else source)
    if not cap.isOpened():
        cap.release()
        return None
    return cap


def _is_file(source: str) -> bool:
    return not source.isdigit() and "://" not in source


def _load_processor(
    spec: str, calibration: dict | None, name: str | Callable
) -> tuple[Callable | None, str | None]:
    """``name``: ``module:function`` (or the factory itself) returning ``process(frame, t)``."""
    if callable(name):
        make = name
    else:
        mod, _, func = name.partition(":")
        try:
            make = getattr(importlib.import_module(mod), func)
        except (ImportError, AttributeError):
            return None, f"no live vision ({name} not available): frames are read, no shots made"
    try:
        return make(spec, calibration), None
    except Exception as e:  # the reason is shown in the table status
        return None, f"live vision failed to start: {type(e).__name__}: {e}".splitlines()[0]


def truth_sidecar(source: str) -> Path | None:
    """``NAME.truth.json`` beside a video file ``NAME.mp4`` (contract §9), if any."""
    if not _is_file(source):
        return None
    p = Path(source)
    side = p.with_name(p.name.rsplit(".", 1)[0] + ".truth.json")
    return side if side.is_file() else None


def truth_processor(path: Path) -> Callable:
    """Feed a fixture's ground-truth shots as the video plays (each when the video time
    passes its end), verdicts dropped so the service judges them. For demos and the
    service benchmark where there is no live vision; the table status says so."""
    shots = [
        {k: v for k, v in s.items() if k != "verdict"}
        for s in json.loads(path.read_text(encoding="utf-8")).get("shots", [])
    ]
    pending = sorted(shots, key=lambda s: s["end"]["t"])

    def process(frame: Any, t: float) -> list[dict]:
        out = []
        while pending and pending[0]["end"]["t"] <= t:
            out.append(pending.pop(0))
        return out

    return process


def _note(process: Any) -> str | None:
    """The vision's own word on why no shot can come now (``process.note()``, where it
    has one: the camera moving or being recalibrated), for the table's status."""
    note = getattr(process, "note", None)
    return note() if callable(note) else None


def _put(out: Any, msg: dict, block: bool = False) -> None:
    """Status messages are dropped when the queue is full; shots wait for room."""
    with contextlib.suppress(queue.Full):
        out.put(msg, block=block, timeout=5 if block else None)


def worker_main(
    table_id: int,
    source: str,
    spec: str,
    calibration: dict | None,
    out: Any,
    stop: Any,
    processor: str | Callable = PROCESSOR,
    status_every_s: float = 0.5,
    retry_s: tuple[float, float] = (0.2, 5.0),
    nice: int = 0,
) -> None:
    """The worker's loop (runs in its own process; callable in-process for tests).

    A file source is played as if live: at its fps, ending at its end (``ended``).
    ``nice`` > 0 lowers the process's CPU priority (the API's requests come first; frames
    the vision cannot keep up with are dropped, never queued)."""
    if nice > 0:
        with contextlib.suppress(OSError):
            os.nice(nice)
    process, why = _load_processor(spec, calibration, processor)
    side = truth_sidecar(source) if process is None else None
    if side is not None:
        process = truth_processor(side)
        why = f"{why}; shots come from the ground truth {side.name}"
    latest: list[Any] = [None]  # (seq, t, frame) of the newest captured frame
    cv = threading.Condition()
    state = {"connected": False, "frames": 0, "dropped": 0, "ended": False, "fps": 0.0}
    gap_start: float | None = None  # set while the camera is not delivering

    def capture() -> None:
        nonlocal gap_start
        delay = retry_s[0]
        seq = 0
        while not stop.is_set():
            cap = _open(source)
            if cap is None:
                gap_start = gap_start or time.time()
                stop.wait(delay)
                delay = min(delay * 2, retry_s[1])
                continue
            delay = retry_s[0]
            if gap_start is not None:
                _put(
                    out, {"type": "gap", "table": table_id, "start": gap_start, "end": time.time()}
                )
            gap_start = None
            state["connected"] = True
            fps = cap.get(5) or 30.0  # CAP_PROP_FPS
            t0 = time.monotonic()
            n = 0
            while not stop.is_set():
                ok, frame = cap.read()
                if not ok:
                    break
                if _is_file(source):  # play as if live
                    wait = t0 + n / fps - time.monotonic()
                    if wait > 0:
                        stop.wait(wait)
                with cv:
                    if latest[0] is not None:
                        state["dropped"] += 1
                    seq += 1
                    latest[0] = (seq, n / fps, frame)
                    cv.notify()
                n += 1
            cap.release()
            state["connected"] = False
            if _is_file(source) and n > 0:
                state["ended"] = True
                break
            gap_start = time.time()
        with cv:
            cv.notify()

    cap_thread = threading.Thread(target=capture, daemon=True)
    cap_thread.start()
    last_status, counted, t_rate = 0.0, 0, time.monotonic()
    while True:
        with cv:
            while latest[0] is None and cap_thread.is_alive() and not stop.is_set():
                cv.wait(0.1)
                if time.monotonic() - last_status > status_every_s:
                    break
            item, latest[0] = latest[0], None
        if item is not None:
            _, t, frame = item
            state["frames"] += 1
            counted += 1
            if process is not None:
                for item in process(frame, t) or ():
                    if "type" in item:  # an event outside shots (camera_moved)
                        msg = {"type": "event", "table": table_id, "event": item}
                    else:
                        msg = {"type": "shot", "table": table_id, "shot": item}
                    _put(out, msg, block=True)
        now = time.monotonic()
        if now - last_status > status_every_s:
            state["fps"] = round(counted / max(now - t_rate, 1e-6), 2)
            counted, t_rate, last_status = 0, now, now
            _put(
                out, {"type": "status", "table": table_id, **state, "vision": why or _note(process)}
            )
        if stop.is_set() or (not cap_thread.is_alive() and latest[0] is None):
            break
    state["fps"] = 0.0
    msg = {"type": "status", "table": table_id, **state, "vision": why or _note(process)}
    _put(out, msg, block=True)


class _Live:
    def __init__(self, table: Any, match_id: int) -> None:
        self.table, self.match_id = table, match_id
        self.proc: Any = None
        self.stop = None
        self.status: dict[str, Any] = {"running": True, "gaps": [], "restarts": 0}
        self.stopped = False


class LiveManager:
    """Starts, watches and restarts the workers; feeds their shots to the match service."""

    def __init__(self, service: Any, settings: Any, processor: str = PROCESSOR) -> None:
        self.service, self.settings, self.processor = service, settings, processor
        self._ctx = mp.get_context("spawn")
        self._q: Any = None  # made on the first start (no process machinery until then)
        self._live: dict[int, _Live] = {}
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._threads: list[threading.Thread] = []

    def status(self, table_id: int) -> dict:
        with self._lock:
            lv = self._live.get(table_id)
            if lv is None:
                return {"running": False}
            st = dict(lv.status)
            st["running"] = lv.proc is not None and lv.proc.is_alive()
            return st

    def start(self, table: Any, match_id: int) -> None:
        with self._lock:
            if not self._threads:
                self._q = self._ctx.Queue(maxsize=1000)
                for target in (self._drain, self._watch):
                    t = threading.Thread(target=target, daemon=True)
                    t.start()
                    self._threads.append(t)
            old = self._live.get(table.id)
            if old is not None:
                self._stop(old)
            lv = _Live(table, match_id)
            self._live[table.id] = lv
            self._spawn(lv)

    def stop(self, table_id: int) -> None:
        with self._lock:
            lv = self._live.get(table_id)
            if lv is not None:
                self._stop(lv)

    def pid(self, table_id: int) -> int | None:
        with self._lock:
            lv = self._live.get(table_id)
            return lv.proc.pid if lv and lv.proc else None

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            for lv in self._live.values():
                self._stop(lv)
        for t in self._threads:
            t.join(timeout=2)

    # -- internals ------------------------------------------------------------------------
    def _spawn(self, lv: _Live) -> None:
        lv.stop = self._ctx.Event()
        t = lv.table
        args = (t.id, t.source, t.spec, t.calibration, self._q, lv.stop, self.processor)
        kw = {"nice": int(getattr(self.settings, "live_nice", 0))}
        lv.proc = self._ctx.Process(target=worker_main, args=args, kwargs=kw, daemon=True)
        lv.proc.start()

    def _stop(self, lv: _Live) -> None:
        lv.stopped = True
        if lv.stop is not None:
            lv.stop.set()
        if lv.proc is not None:
            lv.proc.join(timeout=3)
            if lv.proc.is_alive():
                lv.proc.kill()
                lv.proc.join(timeout=2)

    def _watch(self) -> None:
        """Restart a worker that died without being asked to (exit code != 0)."""
        backoff: dict[int, float] = {}
        while not self._closing.wait(0.2):
            with self._lock:
                for tid, lv in self._live.items():
                    p = lv.proc
                    if lv.stopped or p is None or p.is_alive() or p.exitcode == 0:
                        continue
                    due = backoff.get(tid, 0.0)
                    if time.monotonic() < due:
                        continue
                    lv.status["restarts"] += 1
                    lv.status["last_error"] = f"worker died (exit {p.exitcode}); restarted"
                    backoff[tid] = time.monotonic() + min(2.0 ** lv.status["restarts"] / 4, 30.0)
                    self._spawn(lv)

    def _drain(self) -> None:
        while not self._closing.is_set():
            try:
                msg = self._q.get(timeout=0.2)
            except (queue.Empty, OSError, EOFError):
                continue
            with contextlib.suppress(Exception):
                self._handle(msg)

    def _handle(self, msg: dict) -> None:
        with self._lock:
            lv = self._live.get(msg.get("table", -1))
        if lv is None:
            return
        kind = msg["type"]
        if kind == "status":
            lv.status.update(
                {k: msg[k] for k in ("connected", "fps", "frames", "dropped", "vision")}
            )
            lv.status["ended"] = msg.get("ended", False)
        elif kind == "gap":
            lv.status["gaps"] = [*lv.status["gaps"], {"start": msg["start"], "end": msg["end"]}][
                -100:
            ]
            with self.service.db.write():
                self.service.db.add_event(
                    "table", {"table": lv.table.id, "gap": msg}, None, lv.table.id
                )
            self.service.broker.publish()
        elif kind == "event":  # camera_moved: on the table's status and in the event log
            ev = msg["event"]
            lv.status["camera_moved"] = [*lv.status.get("camera_moved", []), ev][-100:]
            with self.service.db.write():
                self.service.db.add_event(
                    "table", {"table": lv.table.id, "event": ev}, lv.match_id, lv.table.id
                )
            self.service.broker.publish()
        elif kind == "shot":
            try:
                self.service.add_shot(lv.match_id, msg["shot"], f"live:table {lv.table.id}")
            except Exception as e:  # a refused shot is shown, the worker goes on
                lv.status["last_error"] = f"shot refused: {e}".splitlines()[0]


def write_test_video(
    path: Path, frames: int = 30, fps: float = 30.0, size: tuple[int, int] = (64, 48)
) -> Path:
    """A small synthetic MP4 (a moving white dot on green) for the worker's tests and demo."""
    import cv2
    import numpy as np

    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    for i in range(frames):
        img = np.zeros((size[1], size[0], 3), np.uint8)
        img[:] = (40, 120, 30)
        cv2.circle(img, (5 + (i * 2) % (size[0] - 10), size[1] // 2), 4, (255, 255, 255), -1)
        w.write(img)
    w.release()
    return path
