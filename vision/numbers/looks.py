"""Where a ball was best seen: the stills a referee asked a ball's number is shown.

A number the reader could not read is asked (contract §11, ``about: "number"``). The referee
decides from the stills; a ball dropping into a pocket is the worst view of its number, a
ball lying still before the shot the best one (no smear; the camera saw it for many frames).
:class:`StillRuns` keeps, per ball, the stretches of frames in which it was seen lying still,
as the rows come (memory: one entry per stretch); :func:`with_looks` gives each shot that
pockets a ball without a number (a ``wN`` id, contract §3) that ball's last still frame
before the shot as ``Shot.looks``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from contract.events import EventType
from contract.match import Shot
from contract.tracks import Tracks

STILL_MM = 1.0
"""Table mm a ball may move between two frames and still count as lying still (the
tracker's rest jitter is a few tenths of a mm)."""
MIN_RUN = 3
"""Frames a still stretch must last to be shown (a ball turning round at a cushion is
still for a frame)."""


class StillRuns:
    """Per ball id, the frame stretches ``[start, end]`` in which it was seen (``visible``)
    and moved under ``STILL_MM`` between frames. :meth:`add` is called with every frame's
    rows, in frame order."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[int, float, float]] = {}
        self._runs: dict[str, list[list[int]]] = defaultdict(list)

    def add(self, rows: Tracks) -> None:
        """Rows of one or more frames (frame order), table mm."""
        for f, i, x, y, vis in zip(rows.frame, rows.id, rows.x, rows.y, rows.visible, strict=True):
            if not vis:
                continue
            key, f = str(i), int(f)
            prev = self._last.get(key)
            self._last[key] = (f, float(x), float(y))
            if prev is None or f != prev[0] + 1 or np.hypot(x - prev[1], y - prev[2]) > STILL_MM:
                continue
            runs = self._runs[key]
            if runs and runs[-1][1] == prev[0]:
                runs[-1][1] = f
            else:
                runs.append([prev[0], f])

    def before(self, ball: str, frame: int) -> int | None:
        """The last frame before ``frame`` of the last still stretch of ``ball`` that began
        before it and lasted ``MIN_RUN`` frames or more; None when there is none."""
        best = None
        for start, end in self._runs.get(ball, ()):
            last = min(end, frame - 1)
            if start < frame and last - start + 1 >= MIN_RUN:
                best = last
        return best


def with_looks(
    shots: tuple[Shot, ...], runs: StillRuns, names: dict[str, str] | None = None
) -> tuple[Shot, ...]:
    """``shots`` with ``looks`` for every pocketed ball without a number (``wN``): its last
    still frame before the shot began. ``names``: tracker name -> the name the shots use
    (read numbers, joined tracks); the runs are kept under tracker names."""
    inverse: dict[str, list[str]] = defaultdict(list)
    for k, v in (names or {}).items():
        inverse[v].append(k)
    out = []
    for s in shots:
        looks = dict(s.looks)
        for e in s.events:
            b = e.ball
            if e.type is not EventType.POCKET or not b or not b.startswith("w") or b in looks:
                continue
            frames = [runs.before(n, s.start.frame) for n in [b, *inverse.get(b, ())]]
            frames = [f for f in frames if f is not None]
            if frames:
                looks[b] = (max(frames),)
        out.append(s.model_copy(update={"looks": looks}) if looks != s.looks else s)
    return tuple(out)
