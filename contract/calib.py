"""CALIB.json (contract §6) and the mapping between video pixels and table mm.

Pixels are as recorded (distorted) unless a name says ``undistorted``. Table mm
are contract §1. ``camera_position_mm`` (an extension) is the camera's optical
centre in table mm ``(x, y, height above the cloth)``: with it a point at height
``h`` above the cloth (a ball's centre, ``h = R``) maps to its vertical
projection on the cloth, free of parallax. A calibration without it (another tool's)
that gives the lens has its camera centre solved from the homography and the lens
(:mod:`contract.pose`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from contract.errors import ContractError
from contract.match import _first_error, read_json, write_json_atomic
from contract.pose import camera_centre

CALIB_FORMAT = "tablemon-calibration/1"
Mat3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]


class Distortion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")
    model: Literal["opencv"] = "opencv"
    camera_matrix: Mat3
    coeffs: tuple[float, ...] = Field(default=(0.0, 0.0, 0.0, 0.0, 0.0))


class Uncertainty(BaseModel):
    """A calibration's expected error (contract §6): ``rms_mm`` over the playing surface,
    ``max_mm`` the worst anywhere on it (cushions included), and whether the front end
    was read from the table (``sure``) or could not be told from the back."""

    model_config = ConfigDict(frozen=True, extra="allow")
    rms_mm: float = Field(ge=0)
    max_mm: float = Field(ge=0)
    orientation: Literal["sure", "ambiguous"]


class CalibrationFile(BaseModel):
    """The JSON form of a calibration. Extensions: ``camera_position_mm``, ``front``;
    ``uncertainty`` and ``camera`` (contract §6, optional; ``camera`` is free-form beyond
    ``height_mm`` and ``pose``); ``frame``: ``"rough"`` for a table found by its cloth's
    outline alone (:func:`rough_frame`)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    format: Literal["tablemon-calibration/1"] = CALIB_FORMAT
    table: str
    image_size: tuple[int, int]
    image_to_table: Mat3
    distortion: Distortion | None = None
    rms_mm: float | None = None
    markings: dict[str, tuple[float, float]] = Field(default_factory=dict)
    camera_position_mm: tuple[float, float, float] | None = None
    front: str | None = None
    uncertainty: Uncertainty | None = None
    camera: dict[str, Any] | None = None

    @field_validator("image_to_table")
    @classmethod
    def _invertible(cls, v: Mat3) -> Mat3:
        m = np.asarray(v, float)
        if not np.all(np.isfinite(m)) or abs(np.linalg.det(m)) < 1e-300:
            raise ValueError("homography must be finite and invertible")
        return v


class Calibration:
    """Maps pixels to table mm and back (read-only after construction)."""

    def __init__(self, data: CalibrationFile) -> None:
        self.data = data
        self.H = np.asarray(data.image_to_table, float)
        self.H_inv = np.linalg.inv(self.H)
        d = data.distortion
        self.K = np.asarray(d.camera_matrix, float) if d else None
        self.dist = np.asarray(d.coeffs, float) if d else None
        if self.dist is not None and not np.any(self.dist):
            self.K = self.dist = None
        self.cam = np.asarray(data.camera_position_mm, float) if data.camera_position_mm else None
        if self.cam is None and d is not None and not rough_frame(data):
            # not stated (another tool's file): the homography and the lens fix it; a rough
            # frame's lens is a guess made to fit its outline, so none is solved there
            self.cam = camera_centre(self.H, np.asarray(d.camera_matrix, float))

    # ---------------------------------------------------------------- pixels
    def undistort(self, uv: np.ndarray) -> np.ndarray:
        """Distorted (recorded) pixels (N,2) -> undistorted pixels (N,2)."""
        uv = np.asarray(uv, float).reshape(-1, 2)
        if self.K is None:
            return uv
        out = cv2.undistortPoints(uv.reshape(-1, 1, 2), self.K, self.dist, P=self.K)
        return out.reshape(-1, 2)

    def distort(self, uv: np.ndarray) -> np.ndarray:
        """Undistorted pixels (N,2) -> distorted (recorded) pixels (N,2)."""
        uv = np.asarray(uv, float).reshape(-1, 2)
        if self.K is None:
            return uv
        n = np.linalg.solve(self.K, np.c_[uv, np.ones(len(uv))].T).T
        pts = np.c_[n[:, :2], np.ones(len(n))].reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(pts, np.zeros(3), np.zeros(3), self.K, self.dist)
        return out.reshape(-1, 2)

    # ---------------------------------------------------------------- mapping
    def _parallax(self, xy: np.ndarray, height: float, to_cloth: bool) -> np.ndarray:
        if height == 0 or self.cam is None:
            return xy
        c, hc = self.cam[:2], self.cam[2]
        f = (hc - height) / hc if to_cloth else hc / (hc - height)
        return c + (xy - c) * f

    def pixel_to_table(self, uv: np.ndarray, height: float = 0.0) -> np.ndarray:
        """Recorded pixels (N,2) -> table mm (N,2) of a point ``height`` mm above the cloth,
        projected vertically onto the cloth."""
        u = self.undistort(uv)
        p = np.c_[u, np.ones(len(u))] @ self.H.T
        xy = p[:, :2] / p[:, 2:3]
        return self._parallax(xy, height, to_cloth=True)

    def table_to_pixel(self, xy: np.ndarray, height: float = 0.0) -> np.ndarray:
        """Table mm (N,2) of a point ``height`` mm above the cloth -> recorded pixels (N,2)."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        q = self._parallax(xy, height, to_cloth=False)
        p = np.c_[q, np.ones(len(q))] @ self.H_inv.T
        return self.distort(p[:, :2] / p[:, 2:3])


# bounds (rms, worst) in mm: pictures at least 1000 px high, and smaller ones
UNCERTAINTY_BOUNDS_MM = {"hd": (1.0, 3.0), "sd": (2.0, 6.0)}


def uncertainty_bounds(size: tuple[int, int]) -> tuple[float, float]:
    """(rms, max) bounds in mm for a picture ``size`` (w, h): 1 / 3 mm at 1080p (from
    1000 px high), 2 / 6 mm below (720p)."""
    return UNCERTAINTY_BOUNDS_MM["hd" if min(size) >= 1000 else "sd"]


def front_assumed(calib: Calibration | CalibrationFile) -> bool:
    """Whether ``calib``'s front end was assumed, not read from the table's markings
    (``uncertainty.orientation == "ambiguous"``): a MATCH.json from it says
    ``video.ends: "assumed"`` and the adjudicator asks what the ends decide."""
    data = calib.data if isinstance(calib, Calibration) else calib
    return data.uncertainty is not None and data.uncertainty.orientation == "ambiguous"


def rough_frame(calib: Calibration | CalibrationFile) -> bool:
    """Whether ``calib`` is a rough frame: the table found by its cloth's outline alone
    (extension key ``"frame": "rough"``, written by ``calibration.rough``), good for
    finding balls in px, its table mm within a cushion's width."""
    data = calib.data if isinstance(calib, Calibration) else calib
    return (data.model_extra or {}).get("frame") == "rough"


def calibration_uncertain(calib: Calibration | CalibrationFile) -> str | None:
    """One line saying why ``calib`` must not be trusted as it is (its front end not read
    from the table, or its expected error above :func:`uncertainty_bounds`), or None when
    it is within them. A calibration without ``uncertainty`` (made by hand or by another
    tool) is taken as it is: None."""
    data = calib.data if isinstance(calib, Calibration) else calib
    unc = data.uncertainty
    if unc is None:
        return None
    if rough_frame(data):
        return "calibration uncertain: a rough frame from the cloth's outline only"
    b_rms, b_max = uncertainty_bounds(tuple(data.image_size))
    over = ["the front end could not be told from the back"] if front_assumed(data) else []
    if unc.rms_mm > b_rms:
        over.append(f"expected error {unc.rms_mm:.1f} mm rms (bound {b_rms:g})")
    if unc.max_mm > b_max:
        over.append(f"up to {unc.max_mm:.1f} mm at worst (bound {b_max:g})")
    return f"calibration uncertain: {', '.join(over)}" if over else None


def calibration_from_json(data: object, source: str = "<json>") -> Calibration:
    if not isinstance(data, dict):
        raise ContractError(source, "", "CALIB.json must be a JSON object")
    if data.get("format") != CALIB_FORMAT:
        raise ContractError(
            source, "format", f"expected {CALIB_FORMAT!r}, got {data.get('format')!r}"
        )
    try:
        return Calibration(CalibrationFile.model_validate(data))
    except ValidationError as e:
        loc, msg = _first_error(e)
        raise ContractError(source, loc, msg) from None


def read_calibration(path: str | Path) -> Calibration:
    return calibration_from_json(read_json(path), str(path))


def write_calibration(path: str | Path, calib: Calibration | CalibrationFile) -> None:
    data = calib.data if isinstance(calib, Calibration) else calib
    write_json_atomic(path, data.model_dump(mode="json", exclude_none=True))
