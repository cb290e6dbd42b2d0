"""Score a calibration against the truth calibration, in table mm over the playing surface.

Each grid point of the table (every 50 mm, edges included) is mapped to recorded
pixels with the TRUTH calibration and back to table mm with the PREDICTED one; the
distance is the error. At height 0 (a point on the cloth) always, and at ball height R
(a ball's centre, parallax) when both calibrations know the camera position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.score_util import Stats
from contract.calib import Calibration
from contract.tables import TableSpec, load_table

GRID_MM = 50.0
LOST_MM = 1e9  # the error of a point the prediction maps to infinity, NaN or beyond 1000 km


@dataclass(frozen=True)
class CalibScores:
    """Errors in table mm. ``points``: grid points inside the image. ``error_ball`` is None
    when either side lacks ``camera_position_mm``. ``front_x_mm``: where the prediction puts
    the truth's front-cushion midpoint ``(0, W/2)`` (None when videos are combined);
    ``front_right`` counts videos where that is nearer the front than the back (the ends
    are not swapped); ``front_ok`` when it holds in every video. ``lost``: grid points the
    prediction maps to no finite position (each counted as a ``LOST_MM`` error)."""

    table: str
    points: int
    error: Stats
    error_ball: Stats | None
    front_x_mm: float | None
    front_right: int
    videos: int = 1
    lost: int = 0

    @property
    def front_ok(self) -> bool:
        return self.front_right == self.videos


def table_grid(table: TableSpec, step: float = GRID_MM) -> np.ndarray:
    """Points (N, 2) in mm every ``step`` over [0, L] x [0, W], the far edges included."""
    xs = np.unique(np.r_[np.arange(0.0, table.L, step), table.L])
    ys = np.unique(np.r_[np.arange(0.0, table.W, step), table.W])
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    return np.c_[gx.ravel(), gy.ravel()]


def _errors(pred: Calibration, truth: Calibration, xy: np.ndarray, h: float) -> np.ndarray:
    uv = truth.table_to_pixel(xy, h)
    with np.errstate(all="ignore"):
        back = pred.pixel_to_table(uv, h)
        e = np.hypot(*(back - xy).T)
    return np.where(np.isfinite(e) & (e < LOST_MM), e, LOST_MM)


def score_calibration(
    pred: Calibration, truth: Calibration, table: TableSpec | None = None, step: float = GRID_MM
) -> CalibScores:
    """Compare two calibrations of the same video (same image size) over the table."""
    if tuple(pred.data.image_size) != tuple(truth.data.image_size):
        raise ValueError(
            f"calibrations are for different image sizes: {list(pred.data.image_size)} "
            f"vs truth {list(truth.data.image_size)}"
        )
    table = table or load_table(truth.data.table)
    xy = table_grid(table, step)
    w, h = truth.data.image_size
    uv = truth.table_to_pixel(xy)
    inside = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
    xy = xy[inside]
    ball = None
    if pred.cam is not None and truth.cam is not None:
        ball = Stats.of(_errors(pred, truth, xy, table.ball_radius))
    with np.errstate(all="ignore"):
        front = pred.pixel_to_table(truth.table_to_pixel(np.array([[0.0, table.W / 2]])))[0]
    err = _errors(pred, truth, xy, 0.0)
    return CalibScores(
        table=table.name,
        points=int(inside.sum()),
        error=Stats.of(err),
        lost=int(np.sum(err >= LOST_MM)),
        error_ball=ball,
        front_x_mm=float(front[0]) + 0.0 if np.isfinite(front[0]) else None,
        front_right=int(bool(front[0] < table.L / 2)),
    )
