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
from calibration.ends import front_side_of, kept_ends
from calibration.fit import fit_plate
from calibration.geometry import apply_h
from calibration.plate import batch_plate
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


def _side_boxes(xy: np.ndarray, w: int, h: int) -> list[tuple[int, int, int, int]]:
    """Per side, the image box (x0, y0, x1, y1) px holding its sample positions and the
    bilinear neighbours, clipped to a ``w`` x ``h`` image."""
    out = []
    for side in xy:
        p = side.reshape(-1, 2)
        x0, y0 = np.floor(np.nanmin(p, axis=0)).astype(int) - 2
        x1, y1 = np.ceil(np.nanmax(p, axis=0)).astype(int) + 3
        x0, y0 = min(max(0, x0), w - 1), min(max(0, y0), h - 1)
        out.append((x0, y0, max(x0 + 1, min(w, x1)), max(y0 + 1, min(h, y1))))
    return out


class CalibrationMonitor:
    """Watches frames against a calibration; ``check(frame)`` is cheap (a few ms at 1080p).

    Moved: a side's nose profiles shifted by more than ``tol_px`` along its normal, or
    fewer than 60% of the profiles that matched on the plate still match.

    ``update(frame, index, t)`` returns a ``camera_moved`` Event (contract) once the camera
    has been seen moved for ``confirm`` consecutive checks, then collects ``collect``
    frames and recalibrates from their median (or, while the camera still moves, from
    their sharpest frame: :func:`calibration.plate.batch_plate`); ``calibration`` is the
    current one and ``recalibrating`` is True in between (positions measured then belong
    to no calibration: a consumer must not mix them into a shot). When the new view
    cannot be read, ``last_error`` says why and it retries on the next ``collect``
    frames."""

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
        self.plate = plate
        self.xy = self._xy0 = _profiles_xy(Calibration(calib), self.table)
        self._boxes = _side_boxes(self.xy, plate.shape[1], plate.shape[0])
        self.ref = self._profiles(plate)
        m = REACH - MAX_SHIFT
        ref = self.ref[..., MAX_SHIFT : MAX_SHIFT + 2 * m + 1]
        self._ref0 = ref - ref.mean(-1, keepdims=True)  # zero-mean reference windows
        self._rn = np.linalg.norm(self._ref0, axis=-1)
        self.base = 0
        self.base = self.check(plate).matched

    def follow(self, G: np.ndarray | None) -> None:
        """Check the next frames where a frame registered by ``G`` (3x3, frame px ->
        plate px, :mod:`calibration.register`; ``None``: the plate's own pose) shows the
        cushion noses; the reference profiles stay the plate's."""
        xy = self._xy0
        if G is not None:
            flat = apply_h(np.linalg.inv(G), xy.reshape(-1, 2))
            xy = flat.reshape(xy.shape)
        self.xy = xy
        self._boxes = _side_boxes(xy, self.plate.shape[1], self.plate.shape[0])

    def _profiles(self, img: np.ndarray) -> np.ndarray:
        """Grey profiles (4, n, 2*REACH+1) across the noses: each side's strip of ``img``
        alone is converted to grey and sampled (the same values as the whole frame)."""
        out = []
        for side, (x0, y0, x1, y1) in enumerate(self._boxes):
            grey = cv2.cvtColor(img[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
            out.append(_sample(grey, self.xy[side] - [x0, y0]).mean(axis=1))
        return np.stack(out)

    def measure(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per nose profile (4, n): the shift (samples, about px, along the side's normal
        in :attr:`xy`) at which ``frame`` (BGR, recorded px) matches the plate best, and
        whether that match is good (a profile a player covers or outside the picture is
        not)."""
        cur = self._profiles(frame)
        m = REACH - MAX_SHIFT
        ref, rn = self._ref0, self._rn
        win = np.lib.stride_tricks.sliding_window_view(cur, 2 * m + 1, axis=-1)  # (4,n,S,w)
        c = win - win.mean(-1, keepdims=True)
        num = np.einsum("abkw,abw->abk", c, ref)
        sc = num / (np.sqrt(np.einsum("abkw,abkw->abk", c, c)) * rn[..., None] + 1e-6)
        k = sc.argmax(-1)
        best = np.take_along_axis(sc, k[..., None], -1)[..., 0]
        k1 = np.clip(k, 1, sc.shape[-1] - 2)
        y0, y1, y2 = (np.take_along_axis(sc, (k1 + o)[..., None], -1)[..., 0] for o in (-1, 0, 1))
        den = y0 - 2 * y1 + y2
        frac = np.where(den < 0, 0.5 * (y0 - y2) / np.where(den < 0, den, -1), 0.0)
        shift = k1 - MAX_SHIFT + np.clip(frac, -1, 1)
        good = (best > 0.8) & (rn > 1e-3 + 2.0 * np.sqrt(2 * m + 1))
        return shift, good & self._in_view(frame.shape[1], frame.shape[0])

    def _in_view(self, w: int, h: int) -> np.ndarray:
        """(4, n) bool: the matched window of each profile lies inside a ``w`` x ``h`` px
        picture (computed once per sample geometry :attr:`xy` and picture size)."""
        key = getattr(self, "_view_key", None)
        if key is not None and key[0] is self.xy and key[1:] == (w, h):
            return self._view
        m = REACH - MAX_SHIFT
        mid = self.xy[..., MAX_SHIFT : MAX_SHIFT + 2 * m + 1, :]  # the matched window
        lo, hi = mid.min(axis=(2, 3)), mid.max(axis=(2, 3))
        self._view = (lo >= 0).all(-1) & (hi[..., 0] <= w - 1) & (hi[..., 1] <= h - 1)
        self._view_key = (self.xy, w, h)
        return self._view

    def check(self, frame: np.ndarray) -> Check:
        """Compare ``frame`` (BGR, recorded px) with the plate across the cushion noses."""
        shift, good = self.measure(frame)
        worst, matched = 0.0, int(good.sum())
        for side in range(4):
            g = good[side]
            if g.sum() >= 3:
                worst = max(worst, abs(float(np.median(shift[side][g]))))
        return Check(worst, matched, worst > self.tol or matched < 0.6 * self.base)

    @property
    def suspect(self) -> bool:
        """True while a move has been seen but not yet confirmed (checks must go on)."""
        return self._streak > 0

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
                plate = batch_plate(self._pending)  # the median, or the sharpest frame
                try:  # the camera was knocked, not turned round: the ends it had
                    side = front_side_of(Calibration(self.calibration), self.table)
                    fit = fit_plate(plate, self.table, front_side=side)
                    fit.calib = kept_ends(fit.calib, self.calibration)
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
