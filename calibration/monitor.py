"""Keep the calibration true: a cheap per-frame check that the picture still shows the
cushion noses where the model puts them, and recalibration when the camera has moved.

The check samples short profiles across each predicted nose line (recorded px) in the
frame and in the clean plate and finds the shift along the line's normal that matches
them best; profiles a player covers match poorly and are ignored. The camera has moved
when a side's median shift exceeds the tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.detect import NoTableError, _sample
from calibration.fit import fit_plate
from calibration.plate import _sharpness, median_plate
from contract.calib import Calibration, CalibrationFile
from contract.events import Event, EventType
from contract.tables import TableSpec

REACH = 32  # px either side of the line
MAX_SHIFT = 20


@dataclass(frozen=True)
class Check:
    """One check: the largest side shift (px, along the side's normal), how many profiles
    matched, and the verdict."""

    shift_px: float
    matched: int
    moved: bool


def _profiles_xy(cal: Calibration, table: TableSpec, n: int = 12) -> np.ndarray:
    """Sample positions (4 sides, n, 5 parallel lines, 2*REACH+1, 2) across the noses."""
    L, W = table.L, table.W
    sides = (((0, 0), (0, W)), ((L, 0), (L, W)), ((0, 0), (L, 0)), ((0, W), (L, W)))
    out = []
    for a, b in sides:
        t = np.linspace(0.12, 0.88, n)[:, None]
        pts = np.asarray(a, float) * (1 - t) + np.asarray(b, float) * t
        px = cal.table_to_pixel(pts)
        d = px[-1] - px[0]
        d /= np.linalg.norm(d)
        nrm = np.array([-d[1], d[0]])
        along = np.arange(-2, 3)[None, :, None, None] * d
        across = np.arange(-REACH, REACH + 1)[None, None, :, None] * nrm
        out.append(px[:, None, None, :] + along + across)
    return np.stack(out)


class CalibrationMonitor:
    """Watches frames against a calibration; ``check(frame)`` is cheap (a few ms at 1080p).

    Moved: a side's nose profiles shifted by more than ``tol_px`` along its normal, or
    fewer than 60% of the profiles that matched on the plate still match.

    ``update(frame, index, t)`` returns a ``camera_moved`` Event (contract) once the camera
    has been seen moved for ``confirm`` consecutive checks, then collects ``collect``
    frames and recalibrates from their median; ``calibration`` is the current one and
    ``recalibrating`` is True in between (positions measured then belong to no
    calibration: a consumer must not mix them into a shot). When the new view cannot be
    read, ``last_error`` says why and it retries on the next ``collect`` frames."""

    def __init__(
        self,
        plate: np.ndarray,
        calib: CalibrationFile,
        table: TableSpec,
        tol_px: float = 1.5,
        confirm: int = 3,
        collect: int = 9,
    ):
        self.table = table
        self.tol = tol_px
        self.confirm = confirm
        self.collect = collect
        self._set(plate, calib)
        self._streak = 0
        self._first_seen: tuple[int, float] = (0, 0.0)
        self._pending: list[np.ndarray] | None = None
        self.events: list[Event] = []
        self.last_error: str | None = None

    def _set(self, plate: np.ndarray, calib: CalibrationFile) -> None:
        self.calibration = calib
        self.xy = _profiles_xy(Calibration(calib), self.table)
        self.ref = self._profiles(plate)
        self.base = 0
        self.base = self.check(plate).matched

    def _profiles(self, img: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
        return _sample(grey, self.xy).mean(axis=2)  # (4, n, 2*REACH+1)

    def check(self, frame: np.ndarray) -> Check:
        """Compare ``frame`` (BGR, recorded px) with the plate across the cushion noses."""
        cur = self._profiles(frame)
        m = REACH - MAX_SHIFT
        ref = self.ref[..., MAX_SHIFT : MAX_SHIFT + 2 * m + 1]
        ref = ref - ref.mean(-1, keepdims=True)
        rn = np.linalg.norm(ref, axis=-1)
        scores = []
        for d in range(-MAX_SHIFT, MAX_SHIFT + 1):
            c = cur[..., MAX_SHIFT + d : MAX_SHIFT + d + 2 * m + 1]
            c = c - c.mean(-1, keepdims=True)
            scores.append((c * ref).sum(-1) / (np.linalg.norm(c, axis=-1) * rn + 1e-6))
        sc = np.stack(scores, -1)  # (4, n, shifts)
        k = sc.argmax(-1)
        best = np.take_along_axis(sc, k[..., None], -1)[..., 0]
        k1 = np.clip(k, 1, sc.shape[-1] - 2)
        y0, y1, y2 = (np.take_along_axis(sc, (k1 + o)[..., None], -1)[..., 0] for o in (-1, 0, 1))
        den = y0 - 2 * y1 + y2
        frac = np.where(den < 0, 0.5 * (y0 - y2) / np.where(den < 0, den, -1), 0.0)
        shift = k1 - MAX_SHIFT + np.clip(frac, -1, 1)
        good = (best > 0.8) & (rn > 1e-3 + 2.0 * np.sqrt(2 * m + 1))
        worst, matched = 0.0, int(good.sum())
        for side in range(4):
            g = good[side]
            if g.sum() >= 3:
                worst = max(worst, abs(float(np.median(shift[side][g]))))
        return Check(worst, matched, worst > self.tol or matched < 0.6 * self.base)

    @property
    def recalibrating(self) -> bool:
        return self._pending is not None

    def update(self, frame: np.ndarray, index: int, t: float) -> Event | None:
        """Feed every frame (or every n-th). Returns the camera_moved event (dated at the
        first check that saw the move) when the move is confirmed; recalibrates once
        ``collect`` frames after it are in."""
        if self._pending is not None:
            self._pending.append(frame)
            if len(self._pending) >= self.collect:
                plate = median_plate(self._pending)
                if _sharpness(plate) < 0.5 * float(
                    np.median([_sharpness(f) for f in self._pending])
                ):
                    plate = self._pending[-1]  # still moving: the latest frame as it is
                try:
                    fit = fit_plate(plate, self.table)
                except NoTableError as e:  # the table is not readable yet: try a new batch
                    self.last_error = str(e)
                    self._pending = []
                    return None
                self._set(plate, fit.calib)
                self._pending = None
            return None
        if not self.check(frame).moved:
            self._streak = 0
            return None
        self._streak += 1
        if self._streak == 1:
            self._first_seen = (index, t)  # the move happened by this frame
        if self._streak < self.confirm:
            return None
        self._streak = 0
        self._pending = [frame]
        ev = Event(frame=self._first_seen[0], t=self._first_seen[1], type=EventType.CAMERA_MOVED)
        self.events.append(ev)
        return ev
