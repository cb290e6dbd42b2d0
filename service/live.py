"""Live tables: one worker process per table reads the camera and pushes messages to the
API process through a queue; a manager thread there turns them into shots and status.

- a worker that falls behind keeps its shots (:mod:`service.live_flow`): a capture thread
  never waits for the vision; the frames wait in a bounded buffer and are caught up on
  during the rest between shots, skipping frames only while the vision says every ball is
  at rest; frames lost past the buffer flag the shots they touch (``unseen``), and the
  table's ``health`` (ok / behind / blind) is in its status, logged when it changes;
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
import logging
import multiprocessing as mp
import queue
import threading
import time
from pathlib import Path
from typing import Any

from service.live_worker import (  # noqa: F401  (the worker's names, as before)
    BUFFER_MB,
    PROCESSOR,
    truth_processor,
    truth_sidecar,
    worker_main,
)

log = logging.getLogger("tablemon.live")
RANK = {"ok": 0, "behind": 1, "blind": 2}


class _Live:
    def __init__(self, table: Any, match_id: int, read_numbers: bool = False) -> None:
        self.table, self.match_id, self.read_numbers = table, match_id, read_numbers
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

    def start(self, table: Any, match_id: int, read_numbers: bool = False) -> None:
        """Start ``table``'s worker feeding ``match_id``; ``read_numbers``: the vision reads
        white balls' numbers (classic pyramid)."""
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
            lv = _Live(table, match_id, read_numbers)
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
        kw = {
            "nice": int(getattr(self.settings, "live_nice", 0)),
            "buffer_mb": float(getattr(self.settings, "live_buffer_mb", BUFFER_MB)),
            "read_numbers": lv.read_numbers,
        }
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

    def _health(self, lv: _Live, h: dict | None) -> None:
        """Keep the table's health; when its state changes, a warning line in the log and
        a ``table`` event on the stream (the scoreboard's badge follows it)."""
        if h is None:
            return
        old = (lv.status.get("health") or {}).get("state", "ok")
        lv.status["health"] = h
        if h["state"] == old:
            return
        t = lv.table
        worst = lv.status.get("worst", "ok")  # of this episode: a line when it gets worse
        lv.status["worst"] = "ok" if h["state"] == "ok" else max(worst, h["state"], key=RANK.get)
        if h["state"] != "ok" and RANK[h["state"]] <= RANK[worst]:
            self._publish_health(lv, h)
            return
        if h["state"] == "ok":
            log.warning(
                "table %s (%s) recovered: keeping up again (%d of %d frames processed, "
                "%d lost, worst lag %.1f s, %d shots flagged unseen)",
                t.id, t.name, h["processed"], h["frames_in"], h["lost"], h["max_lag_s"],
                lv.status.get("flagged", 0),
            )  # fmt: skip
        else:
            what = (
                "frames lost: shots meanwhile are flagged unseen for the referee"
                if h["state"] == "blind"
                else "shots come late, none lost yet"
            )
            log.warning(
                "table %s (%s) is %s: lag %.1f s, %d of %d frames processed, %d lost; %s",
                t.id, t.name, h["state"], h["lag_s"], h["processed"], h["frames_in"],
                h["lost"], what,
            )  # fmt: skip
        self._publish_health(lv, h)

    def _publish_health(self, lv: _Live, h: dict) -> None:
        with self.service.db.write():
            self.service.db.add_event(
                "table", {"table": lv.table.id, "health": h}, lv.match_id, lv.table.id
            )
        self.service.broker.publish()

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
            self._health(lv, msg.get("health"))
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
            if msg["shot"].get("unseen"):
                lv.status["flagged"] = lv.status.get("flagged", 0) + 1
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
