"""The fit on synthetic pictures with known truth: homography, orientation, front end,
refusals, manual corners."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.cli import parse_corners
from calibration.detect import NoTableError
from calibration.fit import fit_plate, nose_height
from calibration.fitchecks import check_in_view
from calibration.synthview import render_table
from contract.calib import Calibration
from contract.tables import load_table
from tests.calibration.conftest import grid_error, overhead, scene


@pytest.mark.parametrize(
    ("table", "seed", "front"),
    [
        ("pyramid-12ft", 0, "house-line"),
        ("pyramid-12ft", 3, "house-line"),
        ("pyramid-9ft", 1, "house-line"),
        ("carom-match", 2, "assumed"),
        ("pool-9ft", 4, "assumed"),
    ],
)
def test_fit_recovers_the_homography(table, seed, front):
    t = load_table(table)
    cam, img = scene(t, seed)
    fit = fit_plate(img, t)
    truth = Calibration(cam.to_calibration(t))
    err = grid_error(Calibration(fit.calib), truth, t)
    if front == "assumed":  # symmetric tables: either end is a correct reading
        gx, gy = np.meshgrid(np.linspace(0, t.L, 12), np.linspace(0, t.W, 7))
        pts = np.c_[gx.ravel(), gy.ravel()]
        back = Calibration(fit.calib).pixel_to_table(truth.table_to_pixel(pts))
        err = np.minimum(err, np.linalg.norm(back - (np.array([t.L, t.W]) - pts), axis=1))
    assert err.mean() < 2.5 and err.max() < 8.0, (err.mean(), err.max())
    assert fit.calib.front == front
    assert fit.calib.camera_position_mm[2] > 1000
    assert fit.calib.rms_mm is not None and fit.calib.rms_mm < 3.0


def test_pyramid_front_is_the_house_end_whichever_way_the_camera_looks():
    t = load_table("pyramid-12ft")
    for seed in (5, 6):
        cam, img = scene(t, seed)
        fit = fit_plate(img, t)
        truth = Calibration(cam.to_calibration(t))
        fr = Calibration(fit.calib).pixel_to_table(truth.table_to_pixel(np.array([[0, t.W / 2]])))
        assert fr[0][0] < 20  # the true front cushion is the fitted front cushion
        assert "line:house" in fit.calib.markings


def test_frame_is_not_mirrored():
    t = load_table("carom-match")
    cam = overhead(t)
    img = render_table(t, cam, nose_height_mm=nose_height(t))
    fit = fit_plate(img, t)
    cal = Calibration(fit.calib)
    fl, fr, bl = cal.table_to_pixel(np.array([[0, 0], [0, t.W], [t.L, 0]]))
    # seen from above: front->back and left->right turn clockwise on screen (y down)
    a, b = bl - fl, fr - fl
    assert a[0] * b[1] - a[1] * b[0] > 0


@pytest.mark.parametrize(
    "picture",
    [
        np.full((540, 960, 3), 128, np.uint8),
        np.random.default_rng(0).integers(0, 255, (540, 960, 3), dtype=np.uint8),
        np.dstack([np.tile(np.linspace(0, 255, 960, dtype=np.uint8), (540, 1))] * 3),
    ],
    ids=["grey", "noise", "ramp"],
)
def test_no_table_is_a_clear_error(picture):
    with pytest.raises(NoTableError) as e:
        fit_plate(picture, load_table("pyramid-12ft"))
    assert "\n" not in str(e.value) and str(e.value).startswith("no table found")


def test_half_a_table_is_refused():
    """The picture cut through the middle: a square of cloth is not a 2:1 table."""
    t = load_table("pyramid-12ft")
    cam, img = scene(t, 0)
    with pytest.raises(NoTableError):
        fit_plate(img[:, : img.shape[1] // 2 - 40].copy(), t)


def test_manual_corners_give_the_same_table():
    t = load_table("pyramid-12ft")
    cam, img = scene(t, 1)
    truth = Calibration(cam.to_calibration(t))
    c = truth.table_to_pixel(np.array([[0, 0], [0, t.W], [t.L, t.W], [t.L, 0]]))
    c = c + np.random.default_rng(1).normal(0, 2.0, c.shape)
    fit = fit_plate(img, t, corners=c)
    err = grid_error(Calibration(fit.calib), truth, t)
    assert err.mean() < 3.0


@pytest.mark.parametrize(
    ("text", "msg"),
    [("1,2,3", "8 numbers"), ("a,b,c,d,e,f,g,h", "8 numbers"), ("0,0,0,0,0,0,0,0", "area")],
)
def test_bad_corners_are_one_line(text, msg):
    with pytest.raises(ValueError, match=msg) as e:
        parse_corners(text, (960, 540))
    assert "\n" not in str(e.value)


def test_corners_read_a_picture_the_automatic_search_cannot():
    """Something grey over the middle of the table: no cloth colour to start from, so the
    automatic search refuses; the four corners by hand seed the nose search instead."""
    t = load_table("pyramid-12ft")
    cam, img = scene(t, 1)
    h, w = img.shape[:2]
    img = img.copy()
    img[int(h * 0.25) : int(h * 0.75), int(w * 0.3) : int(w * 0.7)] = 128
    with pytest.raises(NoTableError):
        fit_plate(img, t)
    truth = Calibration(cam.to_calibration(t))
    c = truth.table_to_pixel(np.array([[0, 0], [0, t.W], [t.L, t.W], [t.L, 0]]))
    fit = fit_plate(img, t, corners=c)
    err = grid_error(Calibration(fit.calib), truth, t)
    assert err.mean() < 2.0 and err.max() < 5.0


def test_mirrored_corners_are_refused():
    """Corners given clockwise on screen (front-left and front-right swapped) describe a
    table seen from below: refused, not fitted upside down."""
    t = load_table("pyramid-12ft")
    cam, img = scene(t, 0)
    truth = Calibration(cam.to_calibration(t))
    c = truth.table_to_pixel(np.array([[0, t.W], [0, 0], [t.L, 0], [t.L, t.W]]))
    img = img.copy()
    img[:] = 128  # nothing to measure: the corners are all there is
    with pytest.raises(NoTableError, match="from below"):
        fit_plate(img, t, corners=c)


@pytest.mark.parametrize(
    ("corners", "ok"),
    [
        ([(100, 100), (1800, 90), (1850, 1000), (60, 1010)], True),  # a table in view
        ([(-300, -50), (2200, -40), (2250, 1150), (-350, 1140)], True),  # filling the frame
        ([(100, 100), (1800, 90), (np.nan, np.nan), (60, 1010)], False),  # beyond the horizon
        ([(100, 100), (1800, 90), (9000, 40000), (60, 1010)], False),  # far outside
    ],
)
def test_a_fit_whose_corners_lie_far_outside_the_picture_is_refused(corners, ok):
    """A 1920 x 1080 picture: the corners of the fitted table (px) must be finite points
    within one picture size of it, else the fit is refused with one line."""
    if ok:
        check_in_view(np.array(corners, float), (1920, 1080))
    else:
        with pytest.raises(NoTableError, match="corners lie outside the picture"):
            check_in_view(np.array(corners, float), (1920, 1080))
