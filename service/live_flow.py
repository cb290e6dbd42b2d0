"""A live table that falls behind (issue 29): what its worker keeps, what it skips, what it
says, and the shots it flags instead of losing.

- :class:`FrameBuffer`: the frames the camera delivered and the vision has not taken yet,
  oldest first, bounded in bytes (a camera is never blocked: past the bound the newest
  frame is lost, and counted);
- the worker skips a frame only when it is behind *and* the vision says the table is idle
  (no shot under way, the table's picture unchanged: ``process.idle``), and then processes
  one frame in :data:`STILL_STRIDE` all the same (a rest state is still confirmed, a ball
  put back by hand is still seen);
- :class:`Unseen`: frames lost (never processed, motion or not) as spans of stream frames;
  a shot that overlaps one is flagged (``unseen`` span, ``uncertain`` shot and events), a
  span no shot covers after which the balls lie elsewhere becomes a shot of its own with
  ``unseen`` (contract §11: never dropped);
- :class:`Health`: ok / behind / blind with hysteresis, for the status, the stream and the
  scoreboard's badge.

Frames are numbered ``n`` from the stream's start (``t = n / fps``), as the vision numbers
them (``vision.live``: ``round(t * fps)``).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_LAG_S = 10.0  # frames wait at most this long for the vision (the scoreboard's delay)
STILL_STRIDE = 6  # behind and idle: one frame in this many is processed all the same
LAG_BEHIND_S = 1.0  # the oldest waiting frame older than this: the table is behind
LAG_OK_S = 0.5  # ... and back under this (and nothing lost for BLIND_S): ok again
BLIND_S = 10.0  # frames lost this recently: blind (shots may come flagged unseen)
JOIN_FRAMES = 3  # a span ending this close before a shot's first frame (or starting this
# close after its last) belongs to it: its strike (or its last motion) may lie there
AFTER_S = 0.5  # a shot's events this long after a lost span are flagged too
REST_WAIT_S = 0.5  # a span is settled at rest this long after it (the tracker has found
# the balls again; a shot under way after it takes it: Span.busy)
MOVED_MM = 30.0  # a ball this far from where it lay before a lost span: a shot happened


@dataclass
class Captured:
    """One camera frame: ``n`` its number on the stream, ``t`` seconds (``n / fps``), ``at``
    the monotonic clock when it was read, ``image`` BGR pixels."""

    n: int
    t: float
    at: float
    image: Any


class FrameBuffer:
    """Frames read and not yet taken, oldest first, at most ``max_bytes`` of pixels (past
    it the newest frame is refused: :meth:`put` returns False) and none waiting over
    ``max_s`` seconds (:meth:`take` lets them go). Thread-safe: the capture thread puts,
    the processing loop takes."""

    def __init__(self, max_bytes: int, max_s: float = MAX_LAG_S) -> None:
        self.max_bytes, self.max_s = max_bytes, max_s
        self._q: deque[Captured] = deque()
        self._bytes = 0
        self.cv = threading.Condition()

    def put(self, item: Captured) -> bool:
        size = int(getattr(item.image, "nbytes", 0))
        with self.cv:
            if self._q and self._bytes + size > self.max_bytes:
                return False
            self._q.append(item)
            self._bytes += size
            self.cv.notify()
            return True

    def take(self, now: float) -> tuple[Captured | None, int]:
        """The oldest waiting frame (None when none waits) and how many older frames were
        let go first: those waiting over ``max_s`` (the scoreboard's delay stays bounded
        even when the vision falls far behind; the numbers missing say where)."""
        stale = 0
        with self.cv:
            while len(self._q) > 1 and now - self._q[0].at > self.max_s:
                self._bytes -= int(getattr(self._q.popleft().image, "nbytes", 0))
                stale += 1
            if not self._q:
                return None, stale
            item = self._q.popleft()
            self._bytes -= int(getattr(item.image, "nbytes", 0))
            return item, stale

    def wait(self, timeout: float) -> None:
        """Until a frame waits (or ``timeout`` s)."""
        with self.cv:
            if not self._q:
                self.cv.wait(timeout)

    def wake(self) -> None:
        with self.cv:
            self.cv.notify_all()

    def __len__(self) -> int:
        with self.cv:
            return len(self._q)

    def lag(self, now: float) -> float:
        """Seconds the oldest waiting frame has waited (0 when none waits)."""
        with self.cv:
            return max(0.0, now - self._q[0].at) if self._q else 0.0


@dataclass
class Span:
    """Frames ``a``..``b`` (stream numbers, inclusive) never processed; ``before``: the
    balls' rest positions (table mm) just before, or None when a shot was under way."""

    a: int
    b: int
    before: dict[str, tuple[float, float]] | None
    busy: bool = False  # a shot was under way after it: the next shot handed out takes it


def _why(a: int, b: int, fps: float) -> str:
    return (
        f"frames {a}–{b} ({(b - a + 1) / fps:.1f} s) were not processed: "
        "the table's computer was behind"
    )


@dataclass
class Unseen:
    """The spans of frames lost on one stream and the shots they touch (see the module)."""

    fps: float
    spans: list[Span] = field(default_factory=list)
    quiet: list[tuple[int, int]] = field(default_factory=list)  # lost, no ball moved
    flagged: int = 0  # shots flagged or made unseen

    def lost(self, a: int, b: int, before: dict | None) -> None:
        """Frames ``a``..``b`` were never processed."""
        last = self.spans[-1] if self.spans else None
        if last is not None and a - last.b <= STILL_STRIDE + 1:
            last.b = max(last.b, b)
        else:
            self.spans.append(Span(a, b, before))

    def on_shot(self, shot: dict) -> dict:
        """``shot`` (contract §8, JSON) with the spans it touches marked (lost from
        :data:`JOIN_FRAMES` before its start to as many after its end, or ``busy`` ones
        before its end: followed by the motion it is): ``unseen`` (the first to last lost frame), ``uncertain`` naming
        them, and ``uncertain`` on its events within the spans or just after them. The
        spans marked are consumed."""
        start, end = shot["start"]["frame"], shot["end"]["frame"]
        j = JOIN_FRAMES
        hit = [
            s
            for s in self.spans
            if (s.b >= start - j and s.a <= end + j) or (s.busy and end >= s.b)
        ]
        if not hit:
            return shot
        self.spans = [s for s in self.spans if s not in hit]
        a, b = min(s.a for s in hit), max(s.b for s in hit)
        after = int(AFTER_S * self.fps)
        events = []
        for e in shot.get("events", []):
            near = any(s.a - 3 <= e["frame"] <= s.b + after for s in hit)
            if near and not e.get("uncertain"):
                e = {**e, "uncertain": f"seen just after {_why(a, b, self.fps)}"}
            events.append(e)
        self.flagged += 1
        why = _why(a, b, self.fps) + ": events there may be missing"
        return {**shot, "events": events, "unseen": {"from": a, "to": b}, "uncertain": why}

    def due(self, n: int, rest: dict | None) -> list[dict]:
        """At processed frame ``n``, the balls at rest at ``rest`` (None while a shot is
        under way: the spans before ``n`` are marked ``busy``, for the shot to take them):
        the spans over :data:`REST_WAIT_S` before ``n`` that no shot took,
        settled now that the table is at rest again (a shot the vision cut is handed out, and takes its spans,
        on the frame its rest is confirmed: before this). If a ball lies elsewhere than
        before the span (or is gone, or new), the span is a shot of its own, ``unseen``,
        from the span's first frame to ``n``; if not, nothing happened that counts (a
        player's arm), and the span is kept in :attr:`quiet`."""
        if rest is None:
            for s in self.spans:
                s.busy = s.busy or s.b < n
            return []
        wait = int(REST_WAIT_S * self.fps)
        return self._settle([s for s in self.spans if s.b + wait < n], n, rest)

    def flush(self, n: int, rest: dict | None) -> list[dict]:
        """The stream ended at frame ``n`` (``rest`` as in :meth:`due`): every span left
        that may hide play (a shot under way, or balls moved) is a shot ``unseen``."""
        return self._settle(list(self.spans), n, rest, ended=True)

    def _settle(self, spans: list[Span], n: int, rest: dict | None, ended: bool = False):
        out = []
        for s in spans:
            self.spans.remove(s)
            doubt = rest is None or s.before is None
            moved = "" if doubt else _moved(s.before, rest)
            if (doubt and not ended) or not (doubt or moved):
                self.quiet = [*self.quiet, (s.a, s.b)][-100:]
                continue
            self.flagged += 1
            shot = {
                "start": {"frame": s.a, "t": round(s.a / self.fps, 4)},
                "end": {"frame": n, "t": round(n / self.fps, 4)},
                "events": [],
                "unseen": {"from": s.a, "to": s.b},
                "uncertain": _why(s.a, s.b, self.fps)
                + (": play was under way when the video ended" if ended and doubt else "")
                + (f": balls moved meanwhile ({moved}), no shot could be cut" if moved else ""),
            }
            if rest:
                shot["rest"] = {k: [round(v[0], 1), round(v[1], 1)] for k, v in rest.items()}
            out.append(shot)
        return out


def _moved(before: dict, after: dict) -> str:
    """What changed between two rest states (table mm): the balls gone and those now over
    :data:`MOVED_MM` from where they lay ("" when none: a ball that appears is one put back
    by hand, not a shot)."""
    gone = sorted(set(before) - set(after))
    far = [
        f"{k} {d:.0f} mm"
        for k, p in sorted(before.items())
        if k in after and (d := float(np.hypot(after[k][0] - p[0], after[k][1] - p[1]))) > MOVED_MM
    ]
    return ", ".join([*(f"{k} gone" for k in gone), *far])


class Health:
    """The table's state for the status: ``ok`` (keeping up), ``behind`` (frames wait over
    :data:`LAG_BEHIND_S`; shots come late, none lost) or ``blind`` (frames lost within
    :data:`BLIND_S`: the shots they touch come flagged). Back to ok under :data:`LAG_OK_S`
    with nothing lost meanwhile."""

    def __init__(self) -> None:
        self.state = "ok"
        self.since = time.time()
        self.lost_at = -1e9  # monotonic clock of the last lost frame
        self.max_lag_s = 0.0

    def update(self, now: float, lag: float) -> str:
        self.max_lag_s = max(self.max_lag_s, lag)
        if now - self.lost_at < BLIND_S:
            state = "blind"
        elif lag > LAG_BEHIND_S or (self.state != "ok" and lag > LAG_OK_S):
            state = "behind"
        else:
            state = "ok"
        if state != self.state:
            self.state, self.since = state, time.time()
        return state
