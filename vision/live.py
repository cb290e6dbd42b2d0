"""Live vision for the service's table worker: frame in, finished shots out.

``make_processor(spec, calibration)`` builds the detector, the drift watch, the tracker
and the live shot cutter for one table and returns ``process(image, t) -> list[dict]``:
each call handles one camera frame (BGR pixels, ``t`` seconds on the stream's clock) and
returns the contract §8 shots whose rest state was confirmed on this frame (their
events in table mm, frames numbered ``round(t * fps)``) and the ``camera_moved`` events
(contract Event dicts, told apart from shots by their ``type``) of moves that are over;
``process.note()`` says, while the camera moves or the table is being recalibrated, why no
shot can be confirmed (the worker shows it as the table's ``vision`` status);
``process.idle(image, t)`` whether a frame may be skipped by a worker that fell behind
(nothing on the table moves) and ``process.rest()`` the balls' positions at rest
(``service.live_flow``: the shots of frames never processed).

A camera knocked or drifting during the session is followed as a replay follows it
(``vision.register.DriftWatch`` fed frame by frame, its reference picture the first
frame received, or the calibration's own picture where given): moved frames are warped
onto the reference, a move the registration cannot follow is confirmed and recalibrated
by the monitor, and the frames in which the camera moves are a state
(``vision.base.camera_motion``): no strike, ball touched or pocket comes from them, a shot
under way goes on through them, and one ``camera_moved`` event (``until``: the move's
last frame) is handed out per move, also inside the shot it happened in.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contract.calib import Calibration, calibration_from_json
from contract.errors import ContractError
from contract.events import Event
from contract.match import Shot
from contract.tables import load_table
from contract.tracks import Tracks
from vision.base.camera_motion import AFTER_FRAMES, MOVE_WINDOW, in_spans
from vision.capture.source import Frame
from vision.detect.detector import Detector
from vision.events.lag import lag_sigma_mm
from vision.events.shots_live import LiveShotCutter
from vision.numbers.looks import StillRuns, with_looks
from vision.register import DriftWatch
from vision.stream import renamed_shots
from vision.track.tracker import Tracker

Processor = Callable[[np.ndarray, float], list[dict]]
FINAL_FRAMES = AFTER_FRAMES + MOVE_WINDOW + 1  # frames after a move's last one before it
# is told: a motion seen later than this cannot join it (``DriftWatch.moves`` merges
# moves fewer than AFTER_FRAMES apart; a move is marked up to MOVE_WINDOW frames back)


class LiveWatch:
    """A :class:`DriftWatch` on a live stream: the moves it found, told once each when
    they are over (:meth:`told`), and whether the camera is moving at a frame."""

    def __init__(self, watch: DriftWatch) -> None:
        self.watch = watch
        self._key: tuple = ()
        self._told: set[int] = set()  # first frames of the moves told
        self._open = False  # a move found and not yet told

    @property
    def busy(self) -> bool:
        """True while a move is being confirmed or the table recalibrated."""
        w = self.watch
        return w._lost or w.monitor.recalibrating or w.monitor.suspect

    def moving(self, index: int) -> bool:
        """True when frame ``index`` lies in a move or the few frames after it (the
        tracker re-associates its balls), or cannot be placed on the table well."""
        w = self.watch
        spans = w.motion.spans[-1:]
        return w.frame_unsure or self.busy or in_spans(index, spans, AFTER_FRAMES)

    def recent(self, since: int) -> tuple[list[list[int]], list[list[int]]]:
        """The moves and the unsure spans ([first, last] frames) ending at ``since`` or
        later (a live buffer holds no older rows)."""
        w = self.watch
        return [m for m in w.moves if m[1] >= since], [u for u in w.unsure if u[1] >= since]

    def told(self, index: int) -> list[Event]:
        """The camera_moved events (contract) of moves over by frame ``index`` and not
        told before: each move once, with ``until`` where it spans frames."""
        w = self.watch
        spans = w.motion.spans
        key = (len(spans), spans[-1][1] if spans else -1, len(w.jumps), len(w.monitor.events))
        if key == self._key and not self._open:
            return []
        self._key = key
        out, self._open = [], False
        for e in w.events:
            if e.frame in self._told:
                continue
            end = getattr(e, "until", None) or e.frame
            if self.busy or index < end + FINAL_FRAMES:
                self._open = True
                continue
            self._told.add(e.frame)
            out.append(e)
        return out

    def note(self, index: int) -> str | None:
        """Why no shot can be confirmed at frame ``index`` (the table's status), if the
        camera is the reason: moving, or moved and being recalibrated."""
        if self.busy:
            why = self.watch.monitor.last_error
            return "camera moved: recalibrating" + (f" (last try: {why})" if why else "")
        if self.moving(index):
            return "camera moving: no rest state is confirmed until it holds still"
        return None

    def forget(self, before: int) -> None:
        """Drop the moves told, the unsure spans and the knocks ending before frame
        ``before`` (a worker runs all day: what it keeps stays bounded)."""
        w = self.watch
        if self._open or self.busy:
            return
        w.motion.spans[:] = [m for m in w.motion.spans if m[1] >= before]
        w.unsure[:] = [u for u in w.unsure if u[1] >= before]
        w.jumps[:] = [e for e in w.jumps if e.frame >= before]
        w.monitor.events[:] = [e for e in w.monitor.events if e.frame >= before]
        self._told = {f for f in self._told if f >= before}
        self._key = ()

    def within(self, shot: Shot) -> Shot:
        """``shot`` with the camera_moved events of the moves during it (from its start
        to its end) among its events."""
        evs = [
            e
            for e in self.watch.events
            if e.frame <= shot.end.frame
            and (getattr(e, "until", None) or e.frame) >= shot.start.frame
        ]
        if not evs:
            return shot
        events = tuple(sorted((*shot.events, *evs), key=lambda e: (e.frame, e.t)))
        return shot.model_copy(update={"events": events})


def make_processor(
    spec: str,
    calibration: dict | Calibration | None,
    fps: float = 30.0,
    reference: np.ndarray | None = None,
    follow: bool = True,
    tap: Callable[[Tracks], None] | None = None,
    read_numbers: bool = False,
) -> Processor:
    """One table's live pipeline. ``calibration``: CALIB.json as a dict (required);
    ``reference``: the picture (BGR, recorded px) it was fitted on, where kept (else the
    first frame received is taken to match it); ``follow``: keep the calibration true
    while the camera moves (``False``: the calibration as given throughout); ``tap``:
    called with each frame's tracker rows (contract §7, table mm; benchmarks, overlays);
    ``read_numbers``: read white balls' numbers (classic pyramid scores them): each shot is
    handed out under the numbers read by its end (``wN`` for a ball not read yet, contract
    §3), so a ball may be ``w3`` in one shot and ``3`` in a later one
    (``adjudicator.doubt.between`` takes them as one ball), with ``looks`` for a pocketed
    ball not read (``vision.numbers.looks``)."""
    if calibration is None:
        raise ContractError(spec, "calibration", "live vision needs the table's calibration")
    calib = (
        calibration
        if isinstance(calibration, Calibration)
        else calibration_from_json(calibration, "calibration")
    )
    table = load_table(spec or calib.data.table)
    size = tuple(int(v) for v in calib.data.image_size)
    tracker = Tracker(table)
    still = StillRuns() if read_numbers else None
    cutter = LiveShotCutter(table, fps, lag_sigma_mm=lag_sigma_mm(calib.data))
    state: dict = {"last": -1, "det": None, "live": None, "forgot": 0}

    def start(image: np.ndarray) -> None:
        """The drift watch on the first frame, the empty-cloth model in its pixels."""
        det = Detector(calib, table, size)
        fits = follow and (image.shape[1], image.shape[0]) == size
        if fits:
            watch = DriftWatch(calib, table, None, reference=reference, first=[image], fps=fps)
            state["live"] = LiveWatch(watch)
            det.fit_background(watch.aligned([image]))
        else:
            det.fit_background([image])  # the first frame stands for the empty cloth
        state["det"] = det

    def process(image: np.ndarray, t: float) -> list[dict]:
        if state["det"] is None:
            start(image)
        # frames are numbered by the stream's clock, so frames a busy worker dropped
        # leave gaps instead of shifting every later frame number
        index = max(int(round(t * fps)), state["last"] + 1)
        state["last"] = index
        frame = Frame(index, t, image)
        live: LiveWatch | None = state["live"]
        if live is not None:
            state["det"], seen = live.watch.step(frame, state["det"])
            found = live.watch.unwarp(state["det"].detect(seen))
        else:
            found = state["det"].detect(frame)
        picture = image if read_numbers else None  # detections are in its pixels
        rows = tracker.update(found, picture, state["det"].cloth_empty, state["det"].attached)
        if still is not None:
            still.add(rows)
        if tap is not None:
            tap(rows)
        positions = {
            str(rows.id[i]): (float(rows.x[i]), float(rows.y[i]), bool(rows.visible[i]))
            for i in range(len(rows))
            if int(rows.frame[i]) == index
        }
        state["positions"] = positions
        if live is None:
            shots = named(cutter.update(index, positions))
            return [s.model_dump(mode="json", exclude_none=True) for s in shots]
        minute = int(60 * fps)  # no shot lasts a minute
        if index - state["forgot"] >= minute:
            live.forget(index - minute)
            state["forgot"] = index
        moved, unsure = live.recent(index - minute)
        shots = named(cutter.update(index, positions, moved, unsure, live.moving(index)))
        out = [live.within(s).model_dump(mode="json", exclude_none=True) for s in shots]
        return out + [e.model_dump(mode="json", exclude_none=True) for e in live.told(index)]

    def named(shots: list[Shot]) -> list[Shot]:
        """The shots under the numbers read so far (tracker names are kept by the cutter)."""
        if still is None or not shots:
            return shots
        names = tracker.renames()
        return list(with_looks(renamed_shots(tuple(shots), names), still, names))

    def note() -> str | None:
        """The camera's state for the table's status (``LiveWatch.note``), if any."""
        live = state["live"]
        return None if live is None else live.note(state["last"])

    def idle(image: np.ndarray, t: float) -> bool:
        """True when this frame (BGR, stream time ``t`` s) may be skipped by a worker that
        is behind: no shot under way, the camera not moving, and the table's picture the
        same as the detector's reference (``Detector.still``: every ball where it was)."""
        det, live = state["det"], state["live"]
        if det is None or cutter.active or (live is not None and live.moving(state["last"])):
            return False
        return det.still(Frame(max(int(round(t * fps)), state["last"] + 1), t, image))

    def rest() -> dict[str, tuple[float, float]] | None:
        """The positions (table mm) of the balls seen at the last frame processed, while no
        shot is under way (None while one is)."""
        if cutter.active or "positions" not in state:
            return None
        return {k: (v[0], v[1]) for k, v in state["positions"].items() if v[2]}

    process.note = note  # type: ignore[attr-defined]
    process.idle = idle  # type: ignore[attr-defined]
    process.rest = rest  # type: ignore[attr-defined]
    return process
