"""The picture a batch of frames is calibrated on (``calibration.plate.batch_plate``) and
the monitor's recalibration after a move (``calibration.monitor``) that uses it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.fit import fit_plate, nose_height
from calibration.monitor import CalibrationMonitor
from calibration.plate import _sharpness, batch_plate, median_plate
from calibration.synthview import look_at, render_table
from contract.calib import Calibration
from contract.tables import load_table
from tests.calibration.conftest import grid_error, overhead

TABLE = load_table("carom-match")


def _lines(shift: int, smear: int) -> np.ndarray:
    """A 960x540 px picture of thin bright lines every 96 px, moved ``shift`` px to the
    right (a panning camera) and smeared over ``smear`` px along x (1: sharp)."""
    img = np.full((540, 960, 3), 40, np.uint8)
    for x in range(shift % 96, 960, 96):
        cv2.line(img, (x, 0), (x + 60, 539), (220, 220, 220), 3)
    return cv2.blur(img, (smear, 1)) if smear > 1 else img


@pytest.mark.parametrize(
    "smears, sharpest",
    [
        ([1, 9, 9, 9, 9], 0),  # the first frame sharp, the camera swinging after it
        ([9, 9, 1, 9, 9], 2),  # the middle one
        ([9, 9, 9, 9, 1], 4),  # the latest one
        ([9, 3, 9, 5, 9], 1),  # none sharp: the least smeared
    ],
)
def test_a_panning_batch_gives_its_sharpest_frame(smears, sharpest):
    frames = [_lines(37 * k, s) for k, s in enumerate(smears)]
    assert batch_plate(frames) is frames[sharpest]


def test_a_steady_batch_gives_its_median():
    rng = np.random.default_rng(1)
    img = _lines(0, 1).astype(float)
    frames = [np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8) for _ in range(5)]
    out = batch_plate(frames)
    assert np.array_equal(out, median_plate(frames))
    assert not any(out is f for f in frames)


def _view(dx: float, dy: float, up: float, seed: int) -> np.ndarray:
    """The table seen by a camera shifted ``dx``, ``dy`` mm and turned by ``up`` (the
    picture's up direction's x part) from the overhead one."""
    t = TABLE
    c = (t.L / 2 + dx, t.W / 2 + dy)
    cam = look_at((*c, 3000.0), c, (up, 1.0), (960, 540), 70.0)
    return render_table(t, cam, np.random.default_rng(seed), nose_height_mm=nose_height(t))


def test_monitor_recalibrates_on_the_batch_sharpest_frame_not_its_latest():
    """After a knock the camera goes on moving: the batch's views differ (their median is
    blurred) and the latest is smeared; the new calibration is fitted on the batch's
    sharpest frame, not on its latest."""
    t = TABLE
    plate = render_table(t, overhead(t), nose_height_mm=nose_height(t))
    mon = CalibrationMonitor(plate, fit_plate(plate, t).calib, t, confirm=2, collect=5)
    views = [(50, 25, 0.0), (150, -40, 0.05), (250, 40, -0.05), (350, -40, 0.07), (450, 40, -0.07)]
    batch = [_view(*v, k) for k, v in enumerate(views)]
    batch[-1] = cv2.blur(batch[-1], (5, 1))  # the latest frame smeared by the swing
    sharpest = int(np.argmax([_sharpness(f) for f in batch]))
    assert sharpest != len(batch) - 1
    got = [mon.update(f, 10 + k, (10 + k) / 25) for k, f in enumerate([batch[0], *batch])]
    assert sum(e is not None for e in got) == 1 and not mon.recalibrating
    assert mon.plate is batch[sharpest]
    truth = Calibration(fit_plate(batch[sharpest], t).calib)
    latest = Calibration(fit_plate(batch[-1], t).calib)
    now = Calibration(mon.calibration)
    assert np.max(grid_error(now, truth, t)) < 1.0  # mm over the table: the same fit
    assert np.max(grid_error(now, latest, t)) > 50.0
