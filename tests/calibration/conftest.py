"""Shared synthetic scenes for the calibration tests (drawn by calibration.synthview)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from calibration.fit import nose_height
from calibration.synthview import look_at, random_pinhole, render_table
from contract.calib import Calibration
from contract.tables import TableSpec

FOOTAGE = Path(__file__).resolve().parents[2] / "../shared/footage"


def scene(table: TableSpec, seed: int, size=(960, 540), balls: int = 6):
    rng = np.random.default_rng(seed)
    cam = random_pinhole(table, size, rng)
    img = render_table(table, cam, rng, balls=balls, nose_height_mm=nose_height(table))
    return cam, img


def overhead(table: TableSpec, size=(960, 540), shift=(0.0, 0.0)):
    L, W = table.L, table.W
    return look_at(
        (L / 2 + shift[0], W / 2 + shift[1], 3000.0),
        (L / 2 + shift[0], W / 2 + shift[1]),
        (0.0, 1.0),
        size,
        70.0,
    )


def grid_error(pred: Calibration, truth: Calibration, table: TableSpec) -> np.ndarray:
    """mm errors over a table grid (truth pixels mapped back with the prediction)."""
    gx, gy = np.meshgrid(np.linspace(0, table.L, 12), np.linspace(0, table.W, 7))
    g = np.c_[gx.ravel(), gy.ravel()]
    return np.linalg.norm(pred.pixel_to_table(truth.table_to_pixel(g)) - g, axis=1)
