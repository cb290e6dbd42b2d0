"""Streaming shot cutting for the live worker (``vision.live``): the same cutting as
:func:`vision.events.shots.cut_series`, run on a bounded buffer of the latest frames, so each
shot is handed out as soon as its rest state is confirmed. Positions table mm, times
seconds from the stream's frame numbers and fps.
"""

from __future__ import annotations

import numpy as np

from contract.match import FrameTime, Shot
from contract.tables import TableSpec
from contract.tracks import Tracks
from vision.base.camera_motion import AFTER_FRAMES
from vision.events.lag import is_lag
from vision.events.settings import ShotSettings
from vision.events.shots import cut_tracks

LIVE_BUFFER_S = 60.0  # a live buffer never settled (a jittery picture) is cut at this
NOISE_RING = 2000  # small steps' |dx|, |dy| kept for the noise (about 8 s of two balls)
LIVE_KEEP_S = 20.0  # age (s), handing out the shots over this long ago, keeping the rest


class LiveShotCutter:
    """Streaming shot cutting: feed every frame's positions, get each shot as soon as
    its rest state is confirmed (the settle window after the last ball stopped).

    ``update`` is called every frame, empty or not; it keeps a bounded buffer (the
    current shot plus a pre-roll) and runs the same cutting as :func:`cut_series` on it.
    A camera that moves (``vision.register.DriftWatch``, live) is passed in as a replay
    passes it: its ``moves`` ([first, last] frames: no strike, ``ball_touched`` or pocket
    from them), its ``unsure`` spans (rows there are predictions, ``visible`` 0) and
    ``moving`` while the picture is not yet settled (no rest state is confirmed then, nor
    a shot opened: a shot under way goes on through the move).
    """

    def __init__(
        self,
        table: TableSpec,
        fps: float,
        settings: ShotSettings | None = None,
        lag_sigma_mm: float | None = None,
    ) -> None:
        self.table, self.fps = table, fps
        self.lag_sigma_mm = lag_sigma_mm  # one lag ball's rest uncertainty (mm), calibration
        self.s = settings or ShotSettings()
        self._rows: list[tuple[int, float, str, float, float, int]] = []
        self._frame = -1  # the last frame fed (only it is needed: nothing grows per frame)
        self._last: dict[str, tuple[float, float]] = {}
        self._still_since: int | None = None
        self._calm_since: int | None = None  # the first frame since the camera last moved
        # |dx|, |dy| (mm) of the last small steps: a ring of fixed size, no object per value
        self._noise = np.zeros(NOISE_RING)
        self._noise_n = 0  # values written so far (the ring's next slot is n % NOISE_RING)
        self._sigma = 0.0  # measurement noise (mm, one axis) of the recent steps
        self._active = False
        self._emitted = 0
        self._played = False  # a shot other than a lag was emitted: no lag after it
        self._last_end = -1
        self._preroll = int(self.fps * 1.0)

    def _noise_add(self, ax: float, ay: float) -> None:
        """Write one step's |dx|, |dy| (mm) into the noise ring, over its oldest values."""
        for v in (ax, ay):
            self._noise[self._noise_n % NOISE_RING] = v
            self._noise_n += 1

    @property
    def active(self) -> bool:
        """True while a shot is under way (a ball moved and its rest is not confirmed)."""
        return self._active

    def update(
        self,
        frame: int,
        positions: dict[str, tuple[float, float, bool]],
        moves=(),
        unsure=(),
        moving: bool = False,
    ) -> list[Shot]:
        """Add one frame (id -> (x mm, y mm, visible)); return shots completed now.
        ``moves``, ``unsure``: [first, last] frames of the camera's moves and of frames
        measured unsure, as known now; ``moving``: the camera is moving at ``frame``."""
        t = frame / self.fps
        moved = False
        thr = max(self.s.move_mm / 2, 3.5 * self._sigma)  # a step over the noise
        for ident, (x, y, vis) in positions.items():
            self._rows.append((frame, t, ident, x, y, int(vis)))
            p = self._last.get(ident)
            if p is not None and vis:
                dx, dy = x - p[0], y - p[1]
                step = np.hypot(dx, dy)
                moved = moved or step > thr
                if step < 10.0:
                    self._noise_add(abs(dx), abs(dy))
            if vis:
                self._last[ident] = (x, y)
        filled = min(self._noise_n, NOISE_RING)
        if not frame % 30 and filled >= 20:  # as vision.events.series.noise_mm
            self._sigma = float(1.4826 * np.median(self._noise[:filled]) / np.sqrt(2.0))
        self._frame = frame
        if moving:  # the picture moves: nothing is at rest, no shot opens from it
            self._still_since = self._calm_since = None
        elif moved:
            self._active, self._still_since = True, None
        elif self._still_since is None:
            self._still_since = frame
        if self._calm_since is None and not moving:
            self._calm_since = frame
        n = self.s.settle_s * self.fps
        settled = self._active and (
            (self._still_since is not None and frame - self._still_since >= n)
            or (frame - (self._calm_since or frame) >= n and self._window_still(frame, n))
        )
        full = bool(self._rows) and frame - self._rows[0][0] > LIVE_BUFFER_S * self.fps
        if not settled and not full:
            self._trim()
            return []
        self._active = self._active and not settled
        first = self._rows[0][0] if self._rows else frame
        unsure = [(a, b) for a, b in unsure if b >= first]
        rows = [
            (*r[:5], 0 if any(a <= r[0] <= b for a, b in unsure) else r[5], None, None)
            for r in self._rows
        ]
        moves = [(a, b) for a, b in moves if b >= first]
        lag = not self._played  # the lag comes before a match's first shot
        cut = cut_tracks(
            Tracks.from_rows(rows),
            self.table,
            self.fps,
            self.s,
            moves,
            lag=lag,
            lag_sigma_mm=self.lag_sigma_mm,
        )
        done = frame if settled else frame - LIVE_KEEP_S * self.fps  # full: shots over
        fresh = [
            self._carried(s, moves, rows)
            for s in cut.shots
            if s.start.frame > self._last_end and (settled or s.end.frame < done)
        ]
        shots = [s.model_copy(update={"index": self._emitted + i + 1}) for i, s in enumerate(fresh)]
        if shots:
            self._last_end = shots[-1].end.frame
            self._played = self._played or not all(is_lag(s) for s in shots)
        self._emitted += len(shots)
        keep_from = frame - self._preroll if settled else done
        self._rows = [r for r in self._rows if r[0] >= keep_from]
        return shots

    def _window_still(self, frame: int, n: float) -> bool:
        """True when every ball seen over the last ``n`` frames lay within the noise of
        its median position there (``move_mm``, at least 4.5 noise sigmas) in four of
        five of its frames: the rest state of a jittery picture (a hand-held camera's
        registration), where a frame-to-frame step over the noise now and then does not
        mean that a ball rolls."""
        radius = max(self.s.move_mm, 4.5 * self._sigma)
        seen: dict[str, list[tuple[float, float]]] = {}
        for r in reversed(self._rows):
            if r[0] <= frame - n:
                break
            if r[5]:
                seen.setdefault(r[2], []).append((r[3], r[4]))
        for xy in seen.values():
            a = np.asarray(xy)
            off = np.hypot(*(a - np.median(a, axis=0)).T)
            if np.mean(off > radius) > 0.2:
                return False
        return True

    def _carried(self, shot: Shot, moves, rows) -> Shot:
        """``shot`` carried through a camera move that began before it could settle: it
        ends at the move's last frame (its balls were not seen coming to rest before) and
        its rest positions are the balls' median measured positions over the settle
        window after the move (:data:`AFTER_FRAMES` later); ``rows``: the buffer's."""
        settle = self.s.settle_s * self.fps
        end = shot.end.frame
        span = [b for a, b in moves if a <= end + settle and b > end]
        if not span:
            return shot
        b = max(span)
        lo, hi = b + AFTER_FRAMES + 1, b + AFTER_FRAMES + max(2, int(settle))
        seen: dict[str, list[tuple[float, float]]] = {}
        for r in rows:
            if lo <= r[0] <= hi and r[5]:
                seen.setdefault(r[2], []).append((r[3], r[4]))
        rest = dict(shot.rest)
        for ident, xy in seen.items():
            p = np.median(np.asarray(xy), axis=0)
            rest[ident] = (round(float(p[0]), 1), round(float(p[1]), 1))
        at = FrameTime(frame=b, t=round(b / self.fps, 4))
        return shot.model_copy(update={"end": at, "rest": rest})

    def _trim(self) -> None:
        """Drop rows older than the pre-roll while nothing is moving."""
        if self._active or not self._rows:
            return
        keep_from = self._frame - self._preroll
        if self._rows[0][0] < keep_from - self._preroll:
            self._rows = [r for r in self._rows if r[0] >= keep_from]
