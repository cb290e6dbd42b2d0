"""A moving camera as a state: the frames in which the picture of the table moves.

While a hand-held camera swings, zooms or reframes, registration (``vision.register``)
may still follow it, but the balls' positions in table mm wobble with every error of the
registration, and a frame that cannot be registered at all measures nothing. Such frames
are *moving*: no strike, birth, pocket or ``ball_touched`` may come from them, the
tracker carries the balls through, and one ``camera_moved`` event spans them.

A registered frame is moving when its registration (frame px -> reference px) has moved
the picture of the table by more than :data:`MOVE_FRAC` of the frame's width over the
last :data:`MOVE_WINDOW` frames: the registration's own jitter (a few px a frame on
hand-held 720p footage) does not add up over a window, a camera's motion does. The whole
window is marked, since the motion began in it. Only the table points in the picture
count (points out of view are the homography's extrapolation: its error, not the
picture's motion). A few frames that cannot be registered (a blurred frame of a shaking
hand) outside a move are judged by the registration after them: a move when the picture
moved beyond the threshold across them, or when they last longer than the window. Frames
are video frame numbers; spans are ``[first, last]`` inclusive.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from calibration.register import corner_motion

MOVE_WINDOW = 5  # frames over which the registration's displacement is measured
MOVE_FRAC = 0.015  # ... and the displacement (share of the frame's width) that is motion
# (uk8ball, 1280 px: steady stretches move 2-13 px over 5 frames, the swing from 305
# 17-100 px; 19 px here; measured on the table points in view: the nose-refined
# registration's jitter while nearly steady, 150-305, is 1-9 px)
AFTER_FRAMES = 5  # frames after a move in which the tracker re-associates its balls:
# a ball seen moving then is not struck (its positions changed with the registration),
# and none is born (a swing's pause the registration judged steady, uk8ball 314-315)

Span = tuple[int, int]


def merge_spans(spans, gap: int = 1) -> list[list[int]]:
    """``spans`` ([first, last] frames) merged where they overlap or lie within ``gap``
    frames of each other, sorted."""
    out: list[list[int]] = []
    for a, b in sorted((int(a), int(b)) for a, b in spans):
        if out and a <= out[-1][1] + gap:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def in_spans(frame: float, spans, after: int = 0) -> bool:
    """True when ``frame`` lies in a span or within ``after`` frames after its end."""
    return any(a <= frame <= b + after for a, b in spans)


class CameraMotion:
    """Judges, frame by frame, whether the camera is moving, from the registrations of the
    frames (``G``: frame px -> reference px, 3x3, ``None`` for the reference's own pose)
    and the frames that could not be registered; gathers the moving frames into
    :attr:`spans`. ``width``: the frame's width (px); ``corners``: reference px of a few
    table points (how far the picture of the table moves)."""

    def __init__(self, width: int, window: int = MOVE_WINDOW, frac: float = MOVE_FRAC) -> None:
        self.window, self.limit_px = window, frac * width
        self._seen: deque[tuple[int, np.ndarray | None]] = deque()  # (frame, G) registered
        self._key: object = None  # the registrations' reference (a new calibration: new)
        self._gap: int | None = None  # first of the unregistered frames not yet judged
        self._last = -1  # the last frame judged (registered or not)
        self.spans: list[list[int]] = []

    def _mark(self, first: int, last: int) -> None:
        if self.spans and first <= self.spans[-1][1] + 1:
            self.spans[-1][1] = max(self.spans[-1][1], last)
            self.spans[-1][0] = min(self.spans[-1][0], first)
        else:
            self.spans.append([first, last])

    @property
    def open(self) -> bool:
        """True when the last frame judged was in a move."""
        return bool(self.spans) and self.spans[-1][1] >= self._last >= 0

    def registered(
        self,
        index: int,
        G: np.ndarray | None,
        corners: np.ndarray,
        key: object = None,
        size: tuple[int, int] | None = None,
    ) -> bool:
        """Frame ``index`` registered by ``G`` onto the reference ``key`` (registrations of
        different references are not compared); ``size`` (w, h px): only the ``corners``
        in the picture count. True when the camera is moving."""
        if key is not self._key:
            self._key, self._seen, self._gap = key, deque(), None
        gap, self._gap, self._last = self._gap, None, index
        across = gap is not None and bool(self._seen)  # unregistered frames since the last
        if across and corner_motion(self._seen[-1][1], G, corners, size) <= self.limit_px:
            across = False  # ... and the picture stands where it stood before them
        if across:
            self._mark(gap, index)  # the picture moved across them: a move
        self._seen.append((index, G))
        while self._seen and self._seen[0][0] < index - self.window:
            self._seen.popleft()
        first, G0 = self._seen[0]
        if first >= index or corner_motion(G0, G, corners, size) <= self.limit_px:
            return across
        self._mark(first + 1, index)
        return True

    def lost(self, index: int, first: int | None = None, sure: bool = True) -> None:
        """Frame ``index`` could not be registered (or the calibration is being redone):
        it measures nothing, it is part of the move (as are the frames from ``first``,
        where given: a move confirmed late, dated from its first unregistered frame).
        ``sure=False``: a frame that merely could not be registered; outside a move it is
        one only once the frames unregistered in a row outlast the window, or when the
        next registration finds the picture moved across them (:meth:`registered`)."""
        was_open = self.open
        gap = index if self._gap is None else self._gap
        self._gap, self._last = None, index
        if not sure and not was_open and index - gap < self.window:
            self._gap = gap  # judged by the next registration, or once they outlast it
            return
        first = gap if first is None else min(first, gap)  # from the first unregistered
        self._mark(first, index)
        self._seen = deque()


def lose_unseen(
    moved: list[int] | None,
    live: list,
    frame: int,
    unsure: bool,
    reseen: int,
    settle: int = AFTER_FRAMES,
) -> list[int] | None:
    """The tracker's rule after a camera move (``vision.track.tracker``): a ball held through
    unsure frames and not seen from the move's first frame to ``reseen`` settled frames
    after it is lost (a phantom of the old view, or a ball the new view shows elsewhere:
    a newcomer of its colour takes its name when confirmed). ``moved``: [first unsure
    frame of the move, settled frames since] or ``None``; ``live``: the tracker's live
    tracks (``state``, ``last_seen``). Returns the new ``moved``: ``None`` once more than
    ``settle`` settled frames followed the move (the tracker gives no birth before: a
    camera that paused for a few frames in a swing still moves, and the registration
    lags its motion by up to :data:`MOVE_WINDOW` frames)."""
    if unsure:
        return [frame, 0] if moved is None or moved[1] else moved
    if moved is None:
        return None
    settled = moved[1] + 1
    if settled == reseen:
        for tr in live:
            if tr.state == "active" and tr.last_seen < moved[0]:
                tr.state = "lost"
    return [moved[0], settled] if settled <= max(reseen, settle) else None
