"""Keep the calibration true: a cheap per-frame check that the picture still shows the
table where the model puts it, and recalibration when the camera has moved.

The check compares small patches on the cushion noses (recorded px) with the clean
plate by phase correlation: the median shift over the patches (robust to players
covering a few) says whether the camera moved.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.fit import fit_plate
from calibration.plate import median_plate
from contract.calib import Calibration, CalibrationFile
from contract.events import Event, EventType
from contract.tables import TableSpec


@dataclass(frozen=True)
class Check:
    """One check: median patch shift (px), share of patches that moved, and the verdict."""

    shift_px: float
    moved_share: float
    moved: bool


def _patch_centres(
    cal: Calibration, table: TableSpec, n_long: int = 8, n_short: int = 4
) -> np.ndarray:
    L, W = table.L, table.W
    pts = [(L * (i + 0.5) / n_long, y) for i in range(n_long) for y in (0.0, W)]
    pts += [(x, W * (j + 0.5) / n_short) for j in range(n_short) for x in (0.0, L)]
    pts += [(0.0, 0.0), (0.0, W), (L, 0.0), (L, W)]
    return cal.table_to_pixel(np.array(pts))


class CalibrationMonitor:
    """Watches frames against a calibration; ``check(frame)`` is cheap (a few ms at 1080p).

    ``update(frame, index, t)`` returns a ``camera_moved`` Event (contract) once the camera
    has been seen moved for ``confirm`` consecutive checks, then collects ``collect``
    frames and recalibrates from their median; ``calibration`` is the current one."""

    def __init__(
        self,
        plate: np.ndarray,
        calib: CalibrationFile,
        table: TableSpec,
        patch: int = 48,
        tol_px: float = 2.0,
        confirm: int = 3,
        collect: int = 9,
    ):
        self.table = table
        self.patch = patch
        self.tol = tol_px
        self.confirm = confirm
        self.collect = collect
        self._set(plate, calib)
        self._streak = 0
        self._pending: list[np.ndarray] | None = None
        self.events: list[Event] = []

    def _set(self, plate: np.ndarray, calib: CalibrationFile) -> None:
        self.calibration = calib
        self.plate_grey = cv2.cvtColor(plate, cv2.COLOR_BGR2GRAY).astype(np.float32)
        h, w = self.plate_grey.shape
        c = _patch_centres(Calibration(calib), self.table)
        r = self.patch // 2
        ok = (c[:, 0] > r) & (c[:, 0] < w - r) & (c[:, 1] > r) & (c[:, 1] < h - r)
        self.centres = np.round(c[ok]).astype(int)
        self.win = cv2.createHanningWindow((self.patch, self.patch), cv2.CV_32F)

    def check(self, frame: np.ndarray) -> Check:
        """Compare ``frame`` (BGR, recorded px) with the plate on the cushion patches."""
        g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
        r = self.patch // 2
        shifts = []
        for x, y in self.centres:
            # copies: phaseCorrelate may work in place on its inputs
            a = self.plate_grey[y - r : y + r, x - r : x + r].copy()
            b = g[y - r : y + r, x - r : x + r].copy()
            (dx, dy), _ = cv2.phaseCorrelate(a, b, self.win)
            shifts.append(np.hypot(dx, dy))
        s = np.array(shifts)
        share = float(np.mean(s > self.tol)) if len(s) else 1.0
        med = float(np.median(s)) if len(s) else float("inf")
        return Check(med, share, med > self.tol and share > 0.5)

    def update(self, frame: np.ndarray, index: int, t: float) -> Event | None:
        """Feed every frame (or every n-th). Returns the camera_moved event when a move is
        confirmed; recalibrates once ``collect`` frames after it are in."""
        if self._pending is not None:
            self._pending.append(frame)
            if len(self._pending) >= self.collect:
                plate = median_plate(self._pending)
                fit = fit_plate(plate, self.table)
                self._set(plate, fit.calib)
                self._pending = None
            return None
        if not self.check(frame).moved:
            self._streak = 0
            return None
        self._streak += 1
        if self._streak < self.confirm:
            return None
        self._streak = 0
        self._pending = [frame]
        ev = Event(frame=index, t=t, type=EventType.CAMERA_MOVED)
        self.events.append(ev)
        return ev
