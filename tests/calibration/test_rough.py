"""The rough frame (cloth outline only) and the fit's on-cloth check, on synthetic pictures
of known cameras, some looking at the table at an angle."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.detect import NoTableError
from calibration.fit import nose_height
from calibration.fitchecks import check_on_cloth
from calibration.rough import rough_error_mm, rough_fit
from calibration.synthview import look_at, render_table
from contract.calib import Calibration, calibration_uncertain
from contract.tables import load_table
from vision.base.geometry import ball_radius_px


def _oblique(t, along: bool, tilt_deg: float, size=(960, 540)):
    """A camera looking at the table's centre from ``tilt_deg`` off vertical, from beyond
    the front cushion (``along``: the long cushions run away from it) or the left one."""
    d = 1.6 * t.L
    back, up = d * np.sin(np.radians(tilt_deg)), d * np.cos(np.radians(tilt_deg))
    if along:
        return look_at((t.L / 2 - back, t.W / 2, up), (t.L / 2, t.W / 2), (1.0, 0.0), size, 60.0)
    return look_at((t.L / 2, t.W / 2 - back, up), (t.L / 2, t.W / 2), (0.0, 1.0), size, 60.0)


@pytest.mark.parametrize(
    ("table", "along", "tilt"),
    [
        ("pool-9ft", True, 50.0),  # the long cushions foreshortened below the short ones
        ("pool-9ft", False, 45.0),
        ("pyramid-12ft", True, 40.0),
        ("pool-9ft", False, 0.0),
    ],
)
def test_rough_frame_finds_the_surface_and_the_ball_size(table, along, tilt):
    t = load_table(table)
    cam = _oblique(t, along, tilt)
    img = render_table(t, cam, np.random.default_rng(0), balls=0, nose_height_mm=nose_height(t))
    truth = Calibration(cam.to_calibration(t))
    rough = Calibration(rough_fit(img, t).calib)
    gx, gy = np.meshgrid(np.linspace(0, t.L, 9), np.linspace(0, t.W, 5))
    g = np.c_[gx.ravel(), gy.ravel()]
    got = rough.pixel_to_table(truth.table_to_pixel(g))
    err = np.linalg.norm(got - g, axis=1)
    turned = np.linalg.norm(got - (np.array([t.L, t.W]) - g), axis=1)  # either end
    is_turned = turned.mean() < err.mean()
    err = turned if is_turned else err
    assert err.max() < 3 * rough_error_mm(t), err.max()
    r_true = ball_radius_px(truth, t, np.array([t.L, t.W]) - g if is_turned else g)
    r_rough = ball_radius_px(rough, t, g)
    assert np.all(np.abs(r_rough / r_true - 1) < 0.2), (r_rough / r_true).round(2)


def test_rough_frame_says_it_is_uncertain():
    t = load_table("pool-9ft")
    img = render_table(t, _oblique(t, True, 45.0), nose_height_mm=nose_height(t))
    line = calibration_uncertain(Calibration(rough_fit(img, t).calib))
    assert line is not None and line.startswith("calibration uncertain")


def test_sphere_radius_is_not_foreshortened():
    """A ball seen at 50 degrees: its outline's radius is the focal length times the ball
    radius over its distance, as looking straight down, not shrunk along the view."""
    t = load_table("pool-9ft")
    cam = _oblique(t, True, 50.0)
    cal = Calibration(cam.to_calibration(t))
    xy = np.array([[t.L / 2, t.W / 2]])
    eye = np.array(cal.data.camera_position_mm)
    dist = np.linalg.norm(eye - np.array([xy[0, 0], xy[0, 1], t.ball_radius]))
    f = cal.data.distortion.camera_matrix[0][0]
    expect = f * t.ball_radius / dist
    assert ball_radius_px(cal, t, xy)[0] == pytest.approx(expect, rel=0.03)


SQUARE = [(100, 100), (500, 100), (500, 400), (100, 400)]


@pytest.mark.parametrize(
    ("surface", "ok"),
    [
        ([(110, 110), (490, 110), (490, 390), (110, 390)], True),  # inside the outline
        ([(100, 100), (500, 100), (500, 400), (100, 400)], True),  # on it
        ([(50, 110), (490, 110), (490, 390), (50, 390)], False),  # 13 % off, over a rail
        ([(300, 110), (800, 110), (800, 390), (300, 390)], False),  # half off
    ],
)
def test_a_fitted_surface_off_the_cloth_is_refused(surface, ok):
    if ok:
        check_on_cloth(np.array(surface, float), np.array(SQUARE, float))
    else:
        with pytest.raises(NoTableError, match="off the cloth"):
            check_on_cloth(np.array(surface, float), np.array(SQUARE, float))


@pytest.mark.parametrize(("table", "written"), [("pool-9ft", True), ("pyramid-12ft", False)])
def test_calibrate_rough_writes_the_outline_where_the_fit_refuses(
    tmp_path, monkeypatch, capsys, table, written
):
    """``tablemon calibrate --rough``: the fit refuses (here by hand), the rough frame is
    written and said to be one; on a pyramid table (its ends decide verdicts) not."""
    import cv2

    from calibration import cli as calibration_cli
    from contract.calib import read_calibration, rough_frame
    from service.cli import main

    def refuse(*_a, **_k):
        raise NoTableError("no table found: the cushion lines do not fit (test)")

    monkeypatch.setattr(calibration_cli, "fit_plate", refuse)
    t = load_table(table)
    still = tmp_path / "still.png"
    cv2.imwrite(str(still), render_table(t, _oblique(t, True, 40.0), nose_height_mm=nose_height(t)))
    out = tmp_path / "calib.json"
    rc = main(["calibrate", str(still), "--table", table, "--out", str(out), "--rough"])
    cap = capsys.readouterr()
    assert (rc == 0) is written and out.exists() is written
    if written:
        assert rough_frame(read_calibration(out)) and "rough frame" in cap.err
        assert "calibration uncertain" in cap.out
    else:
        assert "(test)" in cap.err and len(cap.err.strip().splitlines()) == 1


def test_a_refused_search_starts_again_from_the_rough_frame(monkeypatch):
    """Where the search from the cloth outline's own corners refuses (here by hand), the
    cushions are searched again from the rough frame's surface: the fit is as good as a
    fit, names no end it did not read, and says how it was found."""
    import calibration.fit as fit_mod

    first = fit_mod._fit

    def outline_refused(img, table, corners, *a, **k):
        if corners is None:
            raise NoTableError("no table found: the cushion lines do not fit (test)")
        return first(img, table, corners, *a, **k)

    monkeypatch.setattr(fit_mod, "_fit", outline_refused)
    t = load_table("pool-9ft")
    cam = _oblique(t, True, 35.0)
    img = render_table(t, cam, np.random.default_rng(1), balls=4, nose_height_mm=nose_height(t))
    fit = fit_mod.fit_plate(img, t)
    assert any("rough frame" in n for n in fit.notes)
    assert fit.calib.front == "assumed" and fit.calib.rms_mm is not None
    truth = Calibration(cam.to_calibration(t))
    gx, gy = np.meshgrid(np.linspace(0, t.L, 9), np.linspace(0, t.W, 5))
    g = np.c_[gx.ravel(), gy.ravel()]
    got = Calibration(fit.calib).pixel_to_table(truth.table_to_pixel(g))
    err = np.minimum(
        np.linalg.norm(got - g, axis=1), np.linalg.norm(got - (np.array([t.L, t.W]) - g), axis=1)
    )
    assert err.max() < 8.0, err.max()
    with pytest.raises(NoTableError, match=r"\(test\)"):  # nothing to start again from
        fit_mod.fit_plate(np.full_like(img, 90), t)
