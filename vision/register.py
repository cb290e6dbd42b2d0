"""Keeping a replay's positions true while the camera moves: the hook between
``vision.replay`` and ``calibration.monitor`` / ``calibration.register``.

A drifting camera (hand-held, a swaying mount) is followed by registration: each frame
whose picture moved is warped onto the reference picture of the one calibration, so the
detector, its empty-cloth model and the tracker all work in that calibration's pixels
and every position of a shot comes from it (contract: the frame's pixel -> table mm
mapping is the calibration composed with the frame's homography onto the reference,
``calibration.register.registered_to_table``; TRACKS.csv ``u``, ``v`` stay the video
frame's own recorded px). A sudden jump of the picture (a knock) is recorded as a
``camera_moved`` event; a frame that cannot be registered goes the monitor's way
(``camera_moved``, recalibration from the next frames, a new detector). Frames in which
the picture moves (``vision.base.camera_motion``: the registration moving beyond its jitter,
or no registration at all) are a state: they are unsure (no ball is born, pocketed or
lost there, their rows are predictions), the shots stage takes no strike from them
(:attr:`DriftWatch.moves`) and one ``camera_moved`` event spans each move (``until``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import cv2
import numpy as np

from calibration.geometry import apply_h
from calibration.plate import median_images
from contract.calib import Calibration
from contract.events import Event, EventType
from contract.tables import TableSpec
from vision.base.camera_motion import AFTER_FRAMES, CameraMotion, merge_spans
from vision.capture.source import Detections, Frame, VideoSource
from vision.detect.background import median_frames
from vision.detect.detector import Detector

RAIL_LEVEL = 30  # a rail sample changed: one colour channel moved more than this (8-bit)
RAIL_CHANGED = 3  # the rails changed since the last check: more changed samples than this
UNSURE_PX = 3.0  # a registered frame whose cushion noses fall farther than this (recorded
# px, along their normals) from where the registration puts them is unsure ...
UNSURE_MATCHED = 0.5  # ... as is one where fewer than this share of the plate's noses match


def _plate(first: list[np.ndarray]) -> np.ndarray:
    """The upper per-pixel median of ``first`` (``median_images(first, upper=True)``,
    by a median network for an odd count: :func:`vision.detect.background.median_frames`)."""
    return median_frames(first) if len(first) % 2 else median_images(first, upper=True)


class DriftWatch:
    """Keeps the calibration true during a replay (``calibration.monitor``,
    ``calibration.register``): checks every ``every``-th frame, only every
    ``every_still``-th while the detector finds the picture unchanged since frames already
    checked (:meth:`Detector.still`) or the cushion noses look as at the last check (balls
    moving on a still camera: :meth:`_rails_still`), and no move is being followed or
    confirmed. A camera
    that drifts is followed by registration: each moved frame is warped onto the
    reference picture of the one calibration (:meth:`step` returns the frame the detector
    sees), so a shot's positions all come from that calibration; a sudden jump (a knock)
    is recorded as ``camera_moved``. Only when a frame cannot be registered does the
    monitor confirm the move, record ``camera_moved`` and recalibrate; the detector is
    then rebuilt on the new calibration from the latest frames, so positions after the
    move come from the new model only. ``reference``: the picture the calibration was
    fitted on (else the first frames are taken to match it). ``src``: the file, whose
    first frames are read ahead; a live stream (``vision.live``) has none and gives the
    ``first`` frames it received (BGR, recorded px) and its ``fps``. Checks fall due by
    the count of frames stepped (a live worker's frame numbers skip dropped frames)."""

    def __init__(
        self,
        calib: Calibration,
        table: TableSpec,
        src: VideoSource | None,
        every: int = 3,
        every_still: int = 15,
        reference: np.ndarray | None = None,
        first: list[np.ndarray] | None = None,
        fps: float = 30.0,
    ):
        from calibration.monitor import CalibrationMonitor
        from calibration.register import Follower, Registrar, anchor_for

        if first is None:  # a file: its first frames, read ahead (decoded once: kept for
            first = src.first_images(9)  # the replay's own reading)
        plate = _plate(first) if first else src._peek.image  # as calibration.plate
        anchor, G = anchor_for(plate, first[0] if first else plate, calib, table, reference)
        self.monitor = CalibrationMonitor(anchor, calib.data, table)
        self.follower = Follower(self.monitor, Registrar(anchor, calib, table), G)
        size = src.size if src is not None else (plate.shape[1], plate.shape[0])
        self.table, self.size, self.every, self.every_still = table, size, every, every_still
        self.fps = src.fps if src is not None else fps
        self._steps = 0  # frames stepped: checks are due by count (a live stream skips)
        self.recent: deque[np.ndarray] = deque(maxlen=9)
        self.current = calib.data
        self.unsure: list[list[int]] = []  # [first, last] frames measured with a stale model
        self.frame_unsure = False  # the last frame stepped could not be placed well
        self._drifting = False  # the camera was seen to move: every frame's fit is judged
        self.jumps: list = []  # camera_moved events of knocks followed by registration
        self._checked = -1  # the last frame checked
        self._same = -1  # the last frame seen unchanged since the last check (not checked)
        self._failing: int | None = None  # the first frame of registrations failing
        self._lost = False  # registration failed: the monitor confirms and recalibrates
        self._fill: tuple | None = None  # (detector, its empty-cloth picture, uint8)
        self._seen: tuple | None = None  # ((image, G, detector), the warped Frame)
        self._rail_ix: tuple | None = None  # (monitor.xy, rows, columns) of the rail samples
        self._rail_ref: np.ndarray | None = None  # the rail samples at the last check
        self.motion = CameraMotion(size[0])  # the frames in which the camera moves

    @property
    def moves(self) -> list[list[int]]:
        """[first, last] frames in which the camera moved (:mod:`vision.base.camera_motion`):
        the registered picture moving, or frames that could not be registered; moves
        fewer than :data:`AFTER_FRAMES` frames apart are one (a hand-held camera's
        swing is not cut into many by the frames where it pauses)."""
        return merge_spans(self.motion.spans, AFTER_FRAMES)

    @property
    def events(self) -> tuple:
        """camera_moved events (contract Event values), by frame: one for every move
        (:attr:`moves`), dated at its first frame, with its last frame as ``until`` (an
        optional extra field), and the knocks' and the monitor's outside any move."""
        spans = self.moves
        out = []
        for e in [*self.monitor.events, *self.jumps]:
            if not any(a - 1 <= e.frame <= b + 1 for a, b in spans):
                out.append(e)
        for a, b in spans:
            t = a / self.fps if self.fps else 0.0
            out.append(Event(frame=a, t=round(t, 4), type=EventType.CAMERA_MOVED, until=b))
        return tuple(sorted(out, key=lambda e: e.frame))

    def aligned(self, images: list[np.ndarray]) -> list[np.ndarray]:
        """``images`` (BGR, recorded px) warped onto the reference where the camera had
        moved (those that cannot be registered are left out; none left: as given)."""
        from calibration.register import register_still

        out = [register_still(self.follower, im) for im in images]
        return [im for im in out if im is not None] or images

    def step(self, frame, det: Detector) -> tuple[Detector, object]:
        """The detector to use for ``frame`` and the frame it should see (``frame`` itself,
        or its picture warped onto the calibration's reference)."""
        self.recent.append(frame.image)
        n, self._steps = self._steps, self._steps + 1  # = frame.index in a replay
        due = not n % self.every and not (
            n % self.every_still
            and self._unchanged(frame, det)
            and not self.monitor.suspect
            and not self.follower.moving
            and self.follower.G is None  # once moved, a drift is checked every few frames
            and self.follower.shift_px < 0.5 * self.monitor.tol  # ... or seen beginning
        )
        if not self._lost and not self.monitor.recalibrating and (due or self.follower.moving):
            st = self.follower.update(frame.image, frame.index)
            stale = st.fresh and st.motion_px >= self.follower.jump_px  # the old pose used
            if stale and frame.index - max(self._checked, self._same) > 1:
                self.unsure.append([max(self._checked, self._same) + 1, frame.index - 1])
            if st.jump_at is not None:
                t = st.jump_at / self.fps if self.fps else frame.t
                self.jumps.append(Event(frame=st.jump_at, t=t, type=EventType.CAMERA_MOVED))
            if st.registered or self.follower.fails == 0:
                self._failing = None
            elif self._failing is None:  # the first failure: the move came after
                self._failing = max(self._checked, self._same) + 1  # the last good frame
            self._checked = frame.index
            self._lost = st.failed
            self._rail_ref = self._rails(frame.image)
            moving = self._judge_motion(frame.index, st)
        else:
            moving = False
        if self._lost or self.monitor.recalibrating:
            det = self._monitor(frame, det)
            self.motion.lost(frame.index)
        self.frame_unsure = self._judge_fit(frame) or moving
        return det, self._warped(frame, det)

    def _unchanged(self, frame, det: Detector) -> bool:
        """True when ``frame`` shows the picture of the last check (the cushion noses, or
        the detector's own test): the camera had not moved by this frame, so a move found
        at a later check dates from after it."""
        same = self._rails_still(frame.image) or det.still(self._warped(frame, det))
        if same:
            self._same = frame.index
        return same

    def _judge_motion(self, index: int, st) -> bool:
        """True when the camera moves at frame ``index`` (:mod:`vision.base.camera_motion`),
        given the follower's step ``st``: its registration moved the picture beyond the
        registration's jitter over the last few frames, or it could not be registered
        during a move or for longer than a few frames (a frame or two of a shaking hand's
        blur are judged by the registration after them). The moving frames, and the
        unregistered ones, are :attr:`unsure`."""
        if st.registered:
            reg = self.follower.registrar
            if not self.motion.registered(index, st.G, reg.corners, self.current, reg.size):
                return False
        elif not (self.follower.fails and (self._drifting or self.follower.G is not None)):
            return False
        else:  # a move only in one or beyond a few frames (vision.base.camera_motion)
            self.motion.lost(index, sure=False)
            if not self.motion.open:  # unregistered, not (yet) a move: unsure all the same
                self.unsure[:] = merge_spans([*self.unsure, [index, index]])
                return True
        a = self.motion.spans[-1][0]
        self.unsure[:] = merge_spans([*self.unsure, [a, index]])
        return True

    def _judge_fit(self, frame) -> bool:
        """True when ``frame`` cannot be placed on the table well: the monitor is
        confirming a move or recalibrating, or the camera was seen to move (a frame was
        registered) and the registration in force (this frame's, or the last one kept
        where this frame's failed) misfits the frame's cushion noses (by more than
        :data:`UNSURE_PX`, or fewer than :data:`UNSURE_MATCHED` of the plate's match). Such a frame is added to
        :attr:`unsure`: its rows are predictions, not measurements."""
        if self._lost or self.monitor.recalibrating:
            return True  # the monitor's own spans cover these frames
        self._drifting = self._drifting or self.follower.G is not None
        if not self._drifting:
            return False  # a camera never seen to move: the monitor's checks guard it
        chk = self.monitor.check(frame.image)  # the noses under the registration in force
        bad = chk.shift_px > UNSURE_PX or chk.matched < UNSURE_MATCHED * self.monitor.base
        if bad:
            if self.unsure and self.unsure[-1][1] >= frame.index - 1:
                self.unsure[-1][1] = max(self.unsure[-1][1], frame.index)
            else:
                self.unsure.append([frame.index, frame.index])
        return bad

    def _rails(self, image: np.ndarray) -> np.ndarray:
        """(M,3) uint8 BGR of ``image`` (recorded px) at the monitor's nose profiles (the
        middle line of each, every other sample): the pixels a camera move changes."""
        xy = self.monitor.xy
        if self._rail_ix is None or self._rail_ix[0] is not xy:
            p = np.rint(xy[:, :, xy.shape[2] // 2, ::2].reshape(-1, 2))
            h, w = image.shape[:2]
            ok = np.isfinite(p).all(axis=1)
            ok[ok] &= (p[ok] >= 0).all(axis=1) & (p[ok, 0] < w) & (p[ok, 1] < h)
            ij = p[ok].astype(int)
            self._rail_ix = (xy, ij[:, 1], ij[:, 0])
        return image[self._rail_ix[1], self._rail_ix[2]]

    def _rails_still(self, image: np.ndarray) -> bool:
        """True when the picture across the cushion noses is the one of the last check
        (at most :data:`RAIL_CHANGED` samples moved by more than :data:`RAIL_LEVEL`,
        compression noise): the camera has not moved since, whatever the balls do."""
        if self._rail_ref is None or image.shape[:2] != (self.size[1], self.size[0]):
            return False
        now = self._rails(image)
        if now.shape != self._rail_ref.shape:
            return False
        moved = cv2.absdiff(now, self._rail_ref).max(axis=1) > RAIL_LEVEL
        return int(np.count_nonzero(moved)) <= RAIL_CHANGED

    def _monitor(self, frame, det: Detector) -> Detector:
        """The monitor's own path: confirm the move, record it, recalibrate."""
        ev = self.monitor.update(frame.image, frame.index, frame.t)
        if ev is not None:  # the move began where the registrations began to fail
            first = min(ev.frame, frame.index if self._failing is None else self._failing)
            self.unsure.append([first, frame.index])
            self.motion.lost(frame.index, first)
        if self.monitor.recalibrating and self.unsure:
            self.unsure[-1][1] = frame.index
        if not self.monitor.recalibrating and not self.monitor.suspect:
            self._lost = False
        if self.monitor.calibration is self.current or self.monitor.recalibrating:
            return det
        from calibration.register import Registrar

        self.current = self.monitor.calibration
        cal = Calibration(self.current)
        self.follower.registrar = Registrar(self.monitor.plate, cal, self.table)
        self.follower._set(None)
        fresh = Detector(cal, self.table, self.size)
        fresh.fit_background(list(self.recent))
        return fresh

    def _warped(self, frame, det: Detector):
        """``frame`` as the detector should see it: warped onto the reference by the
        current registration (parts out of view show the detector's empty cloth)."""
        G = self.follower.G
        if G is None:
            return frame
        if self._fill is None or self._fill[0] is not det or det.plate_full is None:
            base = det.plate_full if det.plate_full is not None else frame.image
            self._fill = (det, np.clip(base, 0, 255).astype(np.uint8))
        key = (frame.image, G, det)
        if (
            self._seen is not None
            and all(a is b for a, b in zip(self._seen[0], key, strict=True))
            and self._seen[1].index == frame.index  # a feed may hand one image twice
        ):
            return self._seen[1]
        out = self._fill[1].copy()
        cv2.warpPerspective(
            frame.image, G, self.size, out, cv2.INTER_LINEAR, cv2.BORDER_TRANSPARENT
        )
        self._seen = (key, Frame(frame.index, frame.t, out))
        return self._seen[1]

    def unwarp(self, dets: Detections) -> Detections:
        """Detections measured on a warped frame with their pixels back in the video
        frame's own (recorded) px, flagged ``unsure`` where the frame could not be placed
        well (:meth:`_judge_fit`)."""
        G = self.follower.G
        if self.frame_unsure:
            dets = replace(dets, unsure=True)
        if G is None or not len(dets):
            return dets
        return replace(dets, uv=apply_h(np.linalg.inv(G), dets.uv))
