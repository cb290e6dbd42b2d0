"""Registration of a moved picture onto the calibration's reference picture."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.monitor import CalibrationMonitor
from calibration.register import (
    Follower,
    Registrar,
    apply_h,
    corner_motion,
    refine_on_noses,
    registered_to_table,
)
from contract.tables import load_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from vision_scene import draw_scene, topdown_calib  # noqa: E402

SIZE = (960, 540)
BALLS = [(900.0, 600.0, "white"), (2500.0, 1100.0, "yellow")]


def _scene(seed: int = 0):
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=40)
    return table, calib, draw_scene(calib, table, SIZE, BALLS, seed=seed)


def _moved(img: np.ndarray, dx: float, dy: float, turn_deg: float, zoom: float = 1.0):
    """``img`` as a camera moved by a shift, a turn and a zoom shows it; the homography
    (3x3) from the reference's px to the moved picture's px."""
    M = np.r_[cv2.getRotationMatrix2D((SIZE[0] / 2, SIZE[1] / 2), turn_deg, zoom), [[0, 0, 1]]]
    M[:2, 2] += (dx, dy)
    return cv2.warpPerspective(img, M, SIZE, borderMode=cv2.BORDER_REPLICATE), M


@pytest.mark.parametrize(
    "dx, dy, turn_deg, zoom",
    [
        (0.0, 0.0, 0.0, 1.0),  # not moved
        (3.0, -2.0, 0.0, 1.0),  # a small knock
        (12.0, 7.0, 0.4, 1.0),  # a larger one, turned
        (-15.0, 10.0, -0.6, 1.01),  # drifted, turned and a little nearer
    ],
)
def test_nose_fit_recovers_the_move(dx, dy, turn_deg, zoom) -> None:
    table, calib, img = _scene()
    mon = CalibrationMonitor(img, calib.data, table)
    reg = Registrar(img, calib, table)
    moved, M = _moved(_scene(seed=1)[2], dx, dy, turn_deg, zoom)
    fit = refine_on_noses(mon, moved, None)
    assert fit is not None and fit.shift_px < 0.5
    truth = np.linalg.inv(M)  # moved px -> reference px
    assert corner_motion(truth, fit.G, reg.corners) < 0.5  # px, on the table's points
    # composed with the calibration, a ball's pixel in the moved picture maps to its mm
    ball = calib.table_to_pixel(np.array([BALLS[0][:2]]))
    mm = registered_to_table(calib, fit.G, apply_h(M, ball))
    assert np.hypot(*(mm[0] - BALLS[0][:2])) < 2.0


def test_a_picture_of_something_else_is_not_registered() -> None:
    table, calib, img = _scene()
    mon = CalibrationMonitor(img, calib.data, table)
    follower = Follower(mon, Registrar(img, calib, table))
    other = np.full_like(img, 90)
    other[100:300, 200:700] = (20, 160, 40)  # no table there
    assert follower.register(other, start=None) is None


def test_a_knock_is_a_jump_and_a_drift_is_not() -> None:
    table, calib, img = _scene()

    def run(offsets: list[float]) -> list[int]:
        mon = CalibrationMonitor(img, calib.data, table)
        follower = Follower(mon, Registrar(img, calib, table))
        jumps = []
        for k, off in enumerate(offsets):
            frame, _ = _moved(_scene(seed=k)[2], off, 0.0, 0.0)
            st = follower.update(frame, k)
            if st.jump_at is not None:
                jumps.append(st.jump_at)
        return jumps

    still, knock = [0.0] * 10, [6.0] * 10
    assert run(still + knock) == [10]  # a sudden 6 px, then standing: a knock at 10
    assert run([0.6 * k for k in range(20)]) == []  # 0.6 px a frame: a drift
    assert run(still * 2) == []
