"""A live table's worker process (:func:`worker_main`): the camera read into a bounded
buffer at the process's priority, the vision niced below it taking the frames in order,
a status (with the table's health) every half second; see :mod:`service.live` for the
manager in the API process and :mod:`service.live_flow` for what is kept, skipped, lost
and flagged when the vision falls behind.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.live_flow import STILL_STRIDE, Captured, FrameBuffer, Health, Unseen

PROCESSOR = "vision.live:make_processor"
CAMERA_HOLD_S = 0.5  # a file played as live: a frame read later than this is lost, as a
# camera's would be (a camera's driver or an RTSP client holds a few frames, no more)
END_HOLD_S = 1.0  # a file that ended: its last frame is looked at again this long
BUFFER_MB = 512.0  # frames waiting for the vision, per table (1080p: ~85 frames, 2.8 s)


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
    spec: str, calibration: dict | None, name: str | Callable, read_numbers: bool = False
) -> tuple[Callable | None, str | None]:
    """``name``: ``module:function`` (or the factory itself) returning ``process(frame, t)``;
    ``read_numbers`` is passed on (as a keyword) only when set, so factories that cannot
    read numbers still load for every other game."""
    if callable(name):
        make = name
    else:
        mod, _, func = name.partition(":")
        try:
            make = getattr(importlib.import_module(mod), func)
        except (ImportError, AttributeError):
            return None, f"no live vision ({name} not available): frames are read, no shots made"
    try:
        if read_numbers:
            return make(spec, calibration, read_numbers=True), None
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
    buffer_mb: float = BUFFER_MB,
    read_numbers: bool = False,
) -> None:
    """The worker's loop (runs in its own process; callable in-process for tests).

    A file source is played as if live: at its fps (frames it is too late for are lost,
    as a camera's would be), ending at its end (``ended``). ``nice`` > 0 lowers the
    vision's CPU priority (the API's requests come first). Frames the vision has not
    taken wait in a buffer of ``buffer_mb`` MiB (:mod:`service.live_flow`: what is
    skipped, lost and flagged when the vision falls behind). ``read_numbers``: the vision
    reads white balls' numbers (a classic pyramid match)."""
    _Worker(table_id, source, out, stop, status_every_s, retry_s, buffer_mb).run(
        spec, calibration, processor, nice, read_numbers
    )


class _Worker:
    """One table's worker: a capture thread and a status thread at the process's
    priority, the vision in the calling thread, niced (see :func:`worker_main`)."""

    def __init__(self, table_id, source, out, stop, status_every_s, retry_s, buffer_mb) -> None:
        self.table_id, self.source, self.out, self.stop = table_id, source, out, stop
        self.every, self.retry = status_every_s, retry_s
        self.buf = FrameBuffer(int(buffer_mb * 2**20))
        self.health = Health()
        self.state = {"connected": False, "frames": 0, "dropped": 0, "ended": False, "fps": 0.0}
        self.counts = {"frames_in": 0, "skipped": 0, "lost": 0, "late": 0}
        self.fps = 30.0
        self.process: Any = None
        self.why: str | None = None
        self.unseen: Unseen | None = None
        self.tail: Captured | None = None  # the newest frame lost
        self.tail_late = False
        self.last: Any = None  # the image of the last frame processed
        self.prev_n, self.done_n = -1, -(10**9)  # the last frame taken, and processed
        self.ready = threading.Event()  # the vision is loaded: the camera may be opened
        self.primed = threading.Event()  # the vision has set itself up on a first frame
        self.done = threading.Event()  # the vision has taken its last frame

    def run(
        self,
        spec: str,
        calibration: dict | None,
        processor: Any,
        nice: int,
        read_numbers: bool = False,
    ) -> None:
        cap = threading.Thread(target=self._capture, daemon=True)
        rep = threading.Thread(target=self._report, daemon=True)
        cap.start()
        rep.start()
        if nice > 0:
            with contextlib.suppress(OSError):
                os.nice(nice)  # Linux: this thread (and the ones it starts) only
        self.process, self.why = _load_processor(spec, calibration, processor, read_numbers)
        side = truth_sidecar(self.source) if self.process is None else None
        if side is not None:
            self.process = truth_processor(side)
            self.why = f"{self.why}; shots come from the ground truth {side.name}"
        self.ready.set()
        try:
            self._vision(cap)
        finally:
            self.primed.set()
            self.done.set()
            rep.join(timeout=5)
            _put(self.out, self._status(final=True), block=True)

    # -- the camera -----------------------------------------------------------------------
    def _capture(self) -> None:
        gap_start: float | None = None  # set while the camera is not delivering
        delay = self.retry[0]
        self.ready.wait()
        while not self.stop.is_set():
            cap = _open(self.source)
            if cap is None:
                gap_start = gap_start or time.time()
                self.stop.wait(delay)
                delay = min(delay * 2, self.retry[1])
                continue
            delay = self.retry[0]
            if gap_start is not None:
                msg = {"type": "gap", "table": self.table_id, "start": gap_start}
                _put(self.out, {**msg, "end": time.time()})
            gap_start = None
            self.state["connected"] = True
            self.fps = cap.get(5) or 30.0  # CAP_PROP_FPS
            n = self._read(cap)
            cap.release()
            self.state["connected"] = False
            if _is_file(self.source) and n > 0:
                self.state["ended"] = True
                break
            gap_start = time.time()
        self.buf.wake()

    def _read(self, cap: Any) -> int:
        """Read the opened source into the buffer until it ends; the number of frames."""
        n, fps, t0 = 0, self.fps, time.monotonic()
        while not self.stop.is_set():
            if n == 1:  # the vision sets itself up on the first frame: the clock starts after
                while not self.primed.wait(0.1) and not self.stop.is_set():
                    pass
                t0 = time.monotonic() - 1 / fps
            if _is_file(self.source):  # play as if live
                wait = t0 + n / fps - time.monotonic()
                if wait > 0:
                    self.stop.wait(wait)
            late = _is_file(self.source) and time.monotonic() - (t0 + n / fps) > CAMERA_HOLD_S
            ok, frame = cap.read()
            if not ok:
                break
            item = Captured(n, n / fps, time.monotonic(), frame)
            self.counts["frames_in"] += 1
            if late or not self.buf.put(item):  # too late (a camera's would be gone) or
                self.tail, self.tail_late = item, late  # no room: lost, the newest kept
                self._lose(late)  # for the stream's end
            n += 1
        return n

    def _lose(self, late: bool = False) -> None:
        self.counts["lost"] += 1
        self.counts["late"] += int(late)
        self.health.lost_at = time.monotonic()

    # -- the status -----------------------------------------------------------------------
    def _report(self) -> None:
        """A status message every ``every`` s, from its own thread: a vision stuck on a
        frame still shows as behind."""
        last, t = 0, time.monotonic()
        while not self.done.wait(self.every):
            now = time.monotonic()
            self.state["fps"] = round((self.state["frames"] - last) / max(now - t, 1e-6), 2)
            last, t = self.state["frames"], now
            _put(self.out, self._status())

    def _status(self, final: bool = False) -> dict:
        now = time.monotonic()
        lag = self.buf.lag(now)
        st = self.health.update(now, lag)
        c, u = self.counts, self.unseen
        self.state["dropped"] = c["skipped"] + c["lost"]
        if final:
            self.state["fps"] = 0.0
        h = {
            "state": st,
            "since": round(self.health.since, 3),
            "frames_in": c["frames_in"],
            "processed": self.state["frames"],
            "dropped": self.state["dropped"],
            "skipped_idle": c["skipped"],
            "lost": c["lost"],
            "late": c["late"],
            "lag_s": round(lag, 2),
            "max_lag_s": round(self.health.max_lag_s, 2),
            "buffered": len(self.buf),
            "flagged": u.flagged if u else 0,
            "unseen": [[s.a, s.b] for s in u.spans][-20:] if u else [],
        }
        why = self.why or _note(self.process)
        return {"type": "status", "table": self.table_id, **self.state, "health": h, "vision": why}

    # -- the vision -----------------------------------------------------------------------
    def _vision(self, cap: threading.Thread) -> None:
        """Take the frames in order; skip one only when behind and the vision says nothing
        on the table moves (one in :data:`STILL_STRIDE` all the same); note the frames
        lost (numbers missing) and flag the shots they touch. When the stream ends, the
        newest frame lost is looked at after all (what the lost ones led to)."""
        while not self.stop.is_set():
            item, stale = self.buf.take(time.monotonic())
            for _ in range(stale):
                self._lose()
            if item is not None:
                self._take(item, may_skip=len(self.buf) > 0)
            elif not cap.is_alive():
                break
            else:
                self.buf.wait(0.1)
        tail, u = self.tail, self.unseen
        if self.stop.is_set() or u is None or self.process is None:
            return
        if tail is not None and tail.n > self.prev_n >= 0:
            self.counts["lost"] -= 1  # seen after all
            self.counts["late"] -= int(self.tail_late)
            self._take(tail, may_skip=False)
        if self.state["ended"] and self.last is not None:  # a camera would go on sending
            for k in range(1, int(END_HOLD_S * self.fps) + 1):  # the still table: a shot
                n = self.prev_n + k  # ending within its settle window is confirmed
                self._send(self.process(self.last, n / self.fps) or [])
                self._send(u.due(n, _rest(self.process)))
            self.prev_n = n
        self._send(u.flush(self.prev_n, _rest(self.process)))

    def _take(self, item: Captured, may_skip: bool) -> None:
        if self.unseen is None:
            self.unseen = Unseen(self.fps)
        if item.n <= self.prev_n:  # the camera was reopened: its numbering starts again
            self.prev_n = self.done_n = -1
        if item.n > self.prev_n + 1 and self.prev_n >= 0:
            self.unseen.lost(self.prev_n + 1, item.n - 1, _rest(self.process))
        self.prev_n = item.n
        if may_skip and item.n - self.done_n < STILL_STRIDE and _idle(self.process, item):
            self.counts["skipped"] += 1  # every ball at rest: the frame adds nothing
            return
        if self.process is not None:
            self._send(self.process(item.image, item.t) or [])
            self._send(self.unseen.due(item.n, _rest(self.process)))
        self.state["frames"] += 1
        self.done_n, self.last = item.n, item.image
        self.primed.set()

    def _send(self, items: list[dict]) -> None:
        for item in items:
            if "type" in item:  # an event outside shots (camera_moved)
                msg = {"type": "event", "table": self.table_id, "event": item}
            else:  # numbered by the service: a flagged shot may come between the vision's
                shot = {k: v for k, v in item.items() if k != "index"}
                if self.unseen is not None:
                    shot = self.unseen.on_shot(shot)
                msg = {"type": "shot", "table": self.table_id, "shot": shot}
            _put(self.out, msg, block=True)


def _idle(process: Any, item: Captured) -> bool:
    """The vision's word that nothing on the table moves at this frame (``process.idle``),
    where it has one; without it no frame is skipped."""
    idle = getattr(process, "idle", None)
    return bool(idle(item.image, item.t)) if callable(idle) else False


def _rest(process: Any) -> dict | None:
    """The balls' rest positions (table mm) while no shot is under way (``process.rest``),
    where the vision has them."""
    rest = getattr(process, "rest", None)
    return rest() if callable(rest) else None
