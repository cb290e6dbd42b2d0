"""Live vision for the service's table worker: frame in, finished shots out.

``make_processor(spec, calibration)`` builds the detector, the tracker and the live
shot cutter for one table and returns ``process(image, t) -> list[shot dict]``: each
call handles one camera frame (BGR pixels, ``t`` seconds on the stream's clock) and
returns the contract §8 shots whose rest state was confirmed on this frame (their
events in table mm, frames numbered ``round(t * fps)``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contract.calib import Calibration, calibration_from_json
from contract.errors import ContractError
from contract.tables import load_table
from vision.capture import Frame
from vision.detect import Detector
from vision.shots import LiveShotCutter
from vision.track import Tracker

Processor = Callable[[np.ndarray, float], list[dict]]


def make_processor(
    spec: str, calibration: dict | Calibration | None, fps: float = 30.0
) -> Processor:
    """One table's live pipeline. ``calibration``: CALIB.json as a dict (required)."""
    if calibration is None:
        raise ContractError(spec, "calibration", "live vision needs the table's calibration")
    calib = (
        calibration
        if isinstance(calibration, Calibration)
        else calibration_from_json(calibration, "calibration")
    )
    table = load_table(spec or calib.data.table)
    size = tuple(int(v) for v in calib.data.image_size)
    detector = Detector(calib, table, size)
    tracker = Tracker(table)
    cutter = LiveShotCutter(table, fps)
    state = {"last": -1, "fitted": False}

    def process(image: np.ndarray, t: float) -> list[dict]:
        if not state["fitted"]:
            detector.fit_background([image])  # the first frame stands for the empty cloth
            state["fitted"] = True
        # frames are numbered by the stream's clock, so frames a busy worker dropped
        # leave gaps instead of shifting every later frame number
        index = max(int(round(t * fps)), state["last"] + 1)
        state["last"] = index
        rows = tracker.update(detector.detect(Frame(index, t, image)), empty=detector.cloth_empty)
        positions = {
            str(rows.id[i]): (float(rows.x[i]), float(rows.y[i]), bool(rows.visible[i]))
            for i in range(len(rows))
            if int(rows.frame[i]) == index
        }
        shots = cutter.update(index, positions)
        return [s.model_dump(mode="json", exclude_none=True) for s in shots]

    return process
