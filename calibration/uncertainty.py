"""A calibration's expected error and the bounds it must keep (issue 22).

Every CALIB.json tablemon writes carries ``uncertainty`` (contract §6): ``rms_mm`` the
expected error of a point on the cloth, as an RMS over the playing surface (1 sigma);
``max_mm`` the worst expected error anywhere on it, up to the cushion lines, on the
cloth or at a ball's centre height (3 sigma at the worst point); ``orientation`` ``sure``
when the front end was read from the table's markings (or given by the user),
``ambiguous`` when not.

The error is the camera fit's covariance (:mod:`calibration.camera`) propagated to the
table, plus a floor for what the model leaves out (principal point at the centre, two
radial terms): measured against the exact calibrations of rendered clips.

:func:`contract.calib.calibration_uncertain` (re-exported here) is what the replay,
``tablemon calibrate`` and the service ask: a one-line reason when the calibration is
outside its bounds, else None.
"""

from __future__ import annotations

import numpy as np

from contract.calib import calibration_uncertain, uncertainty_bounds
from contract.tables import TableSpec

__all__ = ["calibration_uncertain", "estimate_uncertainty", "uncertainty_bounds"]
MODEL_FLOOR_MM = 0.25  # 1 sigma the fitted model leaves out (added in quadrature)
WORST_SIGMAS = 3.0  # max_mm: this many sigmas at the worst point
EDGE_STEP_MM = 50.0


def _surface_points(table: TableSpec, step: float = EDGE_STEP_MM) -> np.ndarray:
    xs = np.unique(np.r_[np.arange(0.0, table.L, step), table.L])
    ys = np.unique(np.r_[np.arange(0.0, table.W, step), table.W])
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    return np.c_[gx.ravel(), gy.ravel()]


def estimate_uncertainty(
    cfit,
    f_prior: float | None,
    table: TableSpec,
    rms_fit: float | None,
    orientation: str,
    size: tuple[int, int],
) -> dict:
    """``uncertainty`` for CALIB.json from a :class:`calibration.camera.CameraFit` (None
    for corners used as given: then only the fit residual, doubled, is known)."""
    from calibration.camera import table_sigma

    if cfit is None or cfit.cov is None:
        r = 2 * (rms_fit or 5.0)
        return {"rms_mm": round(r, 3), "max_mm": round(3 * r, 3), "orientation": orientation}
    f0 = f_prior or cfit.f
    grid = _surface_points(table)  # the cushion lines included
    s_cloth = np.hypot(table_sigma(cfit, f0, grid, 0.0), MODEL_FLOOR_MM)
    s_ball = np.hypot(table_sigma(cfit, f0, grid, table.ball_radius), MODEL_FLOOR_MM)
    rms = float(np.sqrt(np.mean(s_cloth**2)))
    worst = WORST_SIGMAS * float(max(s_cloth.max(), s_ball.max()))
    return {"rms_mm": round(rms, 3), "max_mm": round(worst, 3), "orientation": orientation}
