"""A struck ball's faint streak, looked for where a ball of nearly the cloth's colour
was just lost in the open.

A dark ball struck fast over cloth of nearly its own colour (the blue 2 on blue cloth in
the 9-ball footage) smears into a streak whose colour distance from the cloth model
(about 13-14 as a ball-sized mean) stays under the detector's threshold (22 and more),
though far above what empty cloth shows (a ball-sized mean of 1-3): the ball is never
seen between the contact and the pocket, and its pocket is missed.

:class:`StreakWatch` remembers the last frames' balls. A ball seen resting at its place
in the last :data:`RESTED` detections that is gone now (no ball of its class within a
diameter), away from every actor (arm, cue, body: hidden there)
and from the pockets (dropped there), and whose own contrast against the cloth was low
(under :data:`LOW_CONTRAST` thresholds: a bright ball's smear stays above the
threshold and is found by the detector) is *lost*. For :data:`FRAMES` frames it is
looked for: the colour distance of the work picture is averaged over ball-sized patches
within reach of where it was (:data:`REACH_BALLS` diameters a frame; once a streak was
found, around where its velocity carries it), away from every foreground pixel (the
balls found, the cue, an arm); the best patch is the ball, as a smeared detection of
its class, where it reaches :data:`LEVEL` of the threshold and the picture there changed
since the last frame (a streak moves; a cloth mark does not). A streak's detection has
score :data:`SCORE` (no foreground): a tracker extends the lost ball's track with it and
starts none from it. Work px for pictures, video px for the detections' ``uv``, table mm
for their ``xy``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

from contract.calib import Calibration
from contract.tables import TableSpec
from vision.base.colour import plate_distance
from vision.capture.source import Detections
from vision.detect.split import _ellipse

FRAMES = 3  # frames after the last sight (a detection or a streak) a lost ball is looked for
REACH_BALLS = 6.0  # diameters a struck ball can travel in one frame
FOLLOW_BALLS = 1.5  # diameters of search around a streak's predicted next centre
LEVEL = 0.5  # share of the detector's threshold a ball-sized patch must reach
LOW_CONTRAST = 3.0  # thresholds: only a ball darker against the cloth than this is looked for
CLEAR_BALLS = 0.5  # diameters kept clear around every foreground pixel (balls, cue, arm)
CHANGE = 3.0  # mean change (8-bit levels) of the patch since the last frame: it moved
POCKET_BALLS = 2.0  # diameters from a pocket centre within which a vanished ball dropped
RESTED = 5  # full detections in a row a ball must have been seen at its place to be looked for
SCORE = 0.0  # a streak's score: no foreground coverage (a tracker only extends a track with it)


class DetectorView(Protocol):
    """What the watch reads of its :class:`~vision.detect.detector.Detector` (work px unless
    said); it writes one thing, ``_d_undo`` (the undo record of the colour distance)."""

    calib: Calibration
    table: TableSpec
    scale: float  # work px per recorded px
    thr: float  # the foreground threshold of the colour distance
    pn: np.ndarray  # the cloth's colour as a unit vector (BGR)
    _bbox: tuple[int, int, int, int]  # x, y, w, h of the examined part of the work image
    _held: tuple[np.ndarray, np.ndarray, np.ndarray] | None  # basis, distance, fg (see detector)
    _d_undo: tuple[np.ndarray, list] | None
    _plate_box: np.ndarray  # the empty-cloth model inside the bbox
    _region_box: np.ndarray  # the surface inside the bbox (bool)


@dataclass
class Lost:
    """A ball not found again: its last centre (work px of the detector's bbox), its
    velocity there (work px a frame; ``None`` until a streak was found), class, the frame
    it was last seen (as a ball or a streak), its radius (work px) and the streaks found
    (the first starts at the contact: a velocity is trusted from the second on)."""

    at: np.ndarray
    v: np.ndarray | None
    cls: str
    frame: int
    r: float
    hits: int = 0  # streaks found so far


class StreakWatch:
    """Finds the streaks of dark balls lost in the open (see the module's text); one per
    :class:`~vision.detect.detector.Detector` and cloth model."""

    def __init__(self) -> None:
        self._prev: Detections | None = None  # the last frame's balls
        self._history: deque[Detections] = deque(maxlen=RESTED)  # the last frames' balls
        self._prev_small: np.ndarray | None = None  # the last frame's work bbox picture
        self._prev_d: _Before | None = None  # ... and its colour distance
        self._lost: list[Lost] = []
        self.found = 0  # streaks added (diagnostics)

    def look(
        self, det: DetectorView, small: np.ndarray, fg: np.ndarray, dets: Detections
    ) -> Detections:
        """``dets`` (this frame's balls) with the streaks of lost balls added.
        ``small``: the frame's work picture of the detector's bbox (BGR uint8); ``fg``: its
        foreground mask (work px, the bbox's)."""
        prev, prev_small, prev_d = self._prev, self._prev_small, self._prev_d
        d_now = det._held[1] if det._held is not None else None
        self._prev_small = small
        # the last frame's distance: this array as it was then (its regions written since
        # undone, only where a lost ball's patch is read: most frames copy nothing)
        self._prev_d = None if d_now is None else _Before(d_now)
        det._d_undo = None if d_now is None else (d_now, self._prev_d.undo)
        if prev is not None and prev_d is not None:
            self._lost += self._newly_lost(det, prev, prev_d, dets)
        self._history.append(dets)
        self._lost = [b for b in self._lost if dets.frame - b.frame <= FRAMES]
        if not self._lost or prev_small is None or prev_small.shape != small.shape:
            self._prev = dets
            return dets
        found: list[tuple[np.ndarray, float, str]] = []
        s = det.scale
        ox, oy = det._bbox[:2]
        taken = (np.asarray(dets.uv, float).reshape(-1, 2) + 0.5) * s - 0.5 - [ox, oy]
        clear = cv2.dilate(fg, _disk(max(1, int(round(CLEAR_BALLS * 2 * _median_r(self._lost))))))
        usable = det._region_box & (clear == 0)
        for b in self._lost:
            age = dets.frame - b.frame
            if b.v is None or b.hits < 2:  # the first streak starts at the contact
                centre, reach = b.at, REACH_BALLS * 2 * b.r * age
            else:
                centre, reach = b.at + b.v * age, FOLLOW_BALLS * 2 * b.r * age
            hit = self._best(det, small, prev_small, usable, centre, reach, b.r, taken)
            if hit is None:
                continue
            b.v = (hit - b.at) / age
            b.at, b.frame, b.hits = hit, dets.frame, b.hits + 1
            found.append((hit, b.r, b.cls))
            taken = np.r_[taken, hit[None]]
        out = dets if not found else self._added(det, dets, found)
        self._prev = out
        return out

    def _newly_lost(
        self, det: DetectorView, prev: Detections, prev_d: _Before | np.ndarray, dets: Detections
    ) -> list[Lost]:
        """The last frame's low-contrast balls gone now in the open (work px)."""
        D = det.table.ball_mm
        out: list[Lost] = []
        if not len(prev):
            return out
        s = det.scale
        ox, oy = det._bbox[:2]
        pockets = np.array([p.centre for p in det.table.pockets], float).reshape(-1, 2)
        actors = np.asarray(dets.actors, float).reshape(-1, 4)
        xy_now = np.asarray(dets.xy, float).reshape(-1, 2)
        cls_now = np.asarray(dets.cls, object)
        # all balls at once: the sharp ones with no ball of their class within a diameter
        # now (most frames: none; the per-ball tests below only for those)
        xy_prev = np.asarray(prev.xy, float).reshape(-1, 2)
        gone = ~np.asarray(prev.blurred, bool) & np.isfinite(xy_prev).all(axis=1)
        if len(xy_now):
            near = np.hypot(*(xy_now[None] - xy_prev[:, None]).transpose(2, 0, 1)) < D
            gone &= ~((np.asarray(prev.cls, object)[:, None] == cls_now[None]) & near).any(1)
        for i in np.nonzero(gone)[0]:
            p, c = prev.xy[i], prev.cls[i]
            if not self._rested(p, c):
                continue  # only a ball seen resting before it vanished (no passing junk)
            if any(a[0] - D <= p[0] <= a[2] + D and a[1] - D <= p[1] <= a[3] + D for a in actors):
                continue
            if len(pockets) and np.hypot(*(pockets - p).T).min() < POCKET_BALLS * D:
                continue
            if any(b.cls == c and b.v is not None for b in self._lost):
                continue  # a streak of that class is being followed
            w = (prev.uv[i] + 0.5) * s - 0.5 - [ox, oy]
            r = float(prev.radius[i]) * s
            then = prev_d.array() if isinstance(prev_d, _Before) else prev_d
            if _patch_mean(then, w, r) >= LOW_CONTRAST * det.thr:
                continue  # a bright ball: its smear stays above the threshold
            out.append(Lost(w, None, str(c), prev.frame, r))
        return out

    def _rested(self, p: np.ndarray, c: str) -> bool:
        """True when a ball of class ``c`` was seen within 10 mm of ``p`` (table mm) in
        each of the last :data:`RESTED` full detections before this one."""
        if len(self._history) < RESTED:
            return False
        for d in self._history:
            xy = np.asarray(d.xy, float).reshape(-1, 2)
            near = (np.asarray(d.cls, object) == c) & (np.hypot(*(xy - p).T) < 10.0)
            if not near.any():
                return False
        return True

    def _best(
        self,
        det: DetectorView,
        small: np.ndarray,
        before: np.ndarray,
        usable: np.ndarray,
        centre: np.ndarray,
        reach: float,
        r: float,
        taken: np.ndarray,
    ) -> np.ndarray | None:
        """The centre (work px, bbox) of the strongest ball-sized patch of colour distance
        within ``reach`` of ``centre`` over ``usable`` pixels, at least :data:`LEVEL` of
        the threshold and changed since ``before``; ``None`` if none."""
        h, w = usable.shape
        x0, y0 = max(0, int(centre[0] - reach)), max(0, int(centre[1] - reach))
        x1, y1 = min(w, int(centre[0] + reach) + 2), min(h, int(centre[1] + reach) + 2)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        roi = small[y0:y1, x0:x1].astype(np.float32)
        dist = plate_distance(roi, det._plate_box[y0:y1, x0:x1], det.pn)
        k = max(3, 2 * int(round(r)) + 1)
        mean = cv2.blur(np.where(usable[y0:y1, x0:x1], dist, 0.0).astype(np.float32), (k, k))
        gy, gx = np.mgrid[y0:y1, x0:x1]
        ok = np.hypot(gx - centre[0], gy - centre[1]) <= reach
        for t in taken:
            ok &= np.hypot(gx - t[0], gy - t[1]) > 4 * r
        score = np.where(ok, mean, 0.0)
        j = int(np.argmax(score))
        if score.flat[j] < LEVEL * det.thr:
            return None
        cy, cx = divmod(j, x1 - x0)
        at = np.array([cx + x0, cy + y0], float)
        a0, b0 = max(0, int(at[0] - r)), max(0, int(at[1] - r))
        a1, b1 = min(w, int(at[0] + r) + 1), min(h, int(at[1] + r) + 1)
        diff = cv2.absdiff(small[b0:b1, a0:a1], before[b0:b1, a0:a1])
        if float(diff.mean()) <= CHANGE:
            return None  # the same picture as the last frame: a mark, not a moving streak
        return at

    def _added(
        self, det: DetectorView, dets: Detections, found: list[tuple[np.ndarray, float, str]]
    ) -> Detections:
        """``dets`` with the streaks ``found`` (work px, radius, class) as smeared balls."""
        s = det.scale
        ox, oy = det._bbox[:2]
        R = det.table.ball_radius
        uv = np.array([(f[0] + [ox, oy] + 0.5) / s - 0.5 for f in found])
        xy = det.calib.pixel_to_table(uv, height=R)
        self.found += len(found)
        return replace(
            dets,
            uv=np.r_[np.asarray(dets.uv, float).reshape(-1, 2), uv],
            xy=np.r_[np.asarray(dets.xy, float).reshape(-1, 2), xy],
            radius=np.r_[dets.radius, [f[1] / s for f in found]],
            cls=np.r_[np.asarray(dets.cls, object), np.array([f[2] for f in found], object)],
            score=np.r_[dets.score, np.full(len(found), SCORE)],
            blurred=np.r_[np.asarray(dets.blurred, bool), np.ones(len(found), bool)],
        )


def _disk(r: int) -> np.ndarray:
    """The elliptic structuring element of radius ``r`` px (``vision.detect.split``'s cache)."""
    return _ellipse(2 * r + 1)


def _median_r(lost: list[Lost]) -> float:
    return float(np.median([b.r for b in lost]))


class _Before:
    """An array (work px) as it was when this was made: the writes made to it since are
    logged in :attr:`undo` (y0, y1, x0, x1, old values) by the detector's foreground
    (:attr:`vision.detect.foreground.TileForeground._d_undo`) and undone on a copy."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr, self.undo = arr, []
        self._then: np.ndarray | None = None

    def array(self) -> np.ndarray:
        """The array's values when this was made (itself where nothing was written)."""
        if not self.undo:
            return self.arr
        if self._then is None:
            then = self.arr.copy()
            for y0, y1, x0, x1, old in reversed(self.undo):
                then[y0:y1, x0:x1] = old
            self._then = then
        return self._then


def _patch_mean(d: np.ndarray, at: np.ndarray, r: float) -> float:
    """The mean of ``d`` (work px) over the disk of radius ``r`` around ``at``."""
    h, w = d.shape
    x0, y0 = max(0, int(at[0] - r)), max(0, int(at[1] - r))
    x1, y1 = min(w, int(at[0] + r) + 2), min(h, int(at[1] + r) + 2)
    if x1 <= x0 or y1 <= y0:
        return float("inf")
    gy, gx = np.mgrid[y0:y1, x0:x1]
    inside = np.hypot(gx - at[0], gy - at[1]) <= r
    return float(d[y0:y1, x0:x1][inside].mean()) if inside.any() else float("inf")
