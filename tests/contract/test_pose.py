"""The camera's centre solved from a CALIB.json that gives the lens but not the camera
(``contract.pose``, another tool's calibration): a ball's centre, a radius above the
cloth, then maps to its place on the cloth, as with tablemon's own calibrations."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from contract.calib import Calibration, CalibrationFile
from contract.pose import camera_centre

K = np.array([[1500.0, 0.0, 960.0], [0.0, 1500.0, 540.0], [0.0, 0.0, 1.0]])


def camera(centre: tuple[float, float, float], tilt_deg: float, turn_deg: float):
    """World (table mm, z up) -> camera rotation and translation of a camera at ``centre``
    looking down, tilted ``tilt_deg`` about the table's x axis and turned ``turn_deg``
    about the vertical."""
    a, b = np.radians(tilt_deg), np.radians(turn_deg)
    down = np.diag([1.0, -1.0, -1.0])  # looking straight down: camera z = -world z
    tilt = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    turn = np.array([[np.cos(b), -np.sin(b), 0], [np.sin(b), np.cos(b), 0], [0, 0, 1]])
    R = tilt @ down @ turn
    t = -R @ np.asarray(centre, float)
    return R, t


def project(R, t, pts: np.ndarray) -> np.ndarray:
    p = (K @ (R @ pts.T + t[:, None])).T
    return p[:, :2] / p[:, 2:3]


@pytest.mark.parametrize(
    "centre, tilt, turn",
    [
        ((1800.0, 900.0, 3700.0), 0.8, 0.0),  # nearly straight down, as a club mounts it
        ((1800.0, 900.0, 3000.0), 20.0, 3.0),  # from the side, at an angle
        ((600.0, 400.0, 2500.0), 35.0, -10.0),  # a broadcast-like view
    ],
)
def test_centre_from_homography_and_lens(centre, tilt, turn):
    R, t = camera(centre, tilt, turn)
    cloth = np.array([[0, 0, 0], [3600, 0, 0], [3600, 1800, 0], [0, 1800, 0]], float)
    H, _ = cv2.findHomography(project(R, t, cloth), cloth[:, :2])
    got = camera_centre(H, K)
    assert got is not None and np.allclose(got, centre, atol=1.0)
    # a CALIB.json with only the homography and the lens: balls map free of parallax
    data = CalibrationFile(
        table="pyramid-12ft",
        image_size=(1920, 1080),
        image_to_table=tuple(map(tuple, H / H[2, 2])),
        distortion={"camera_matrix": K.tolist(), "coeffs": [0, 0, 0, 0, 0]},
    )
    balls = np.array([[300.0, 200.0, 34.0], [1800.0, 900.0, 34.0], [3300.0, 1600.0, 34.0]])
    xy = Calibration(data).pixel_to_table(project(R, t, balls), height=34.0)
    assert np.abs(xy - balls[:, :2]).max() < 0.1
