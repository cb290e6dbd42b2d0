"""Every calibration carries its expected error and whether its ends were read; a front
end that cannot be read is refused, never guessed (issue 22)."""

from __future__ import annotations

import argparse

import cv2
import numpy as np
import pytest

from calibration.cli import AmbiguousFront, require_sure_front, run_cli
from calibration.fit import fit_plate, nose_height
from calibration.synthview import render_table
from contract.calib import (
    Calibration,
    CalibrationFile,
    Uncertainty,
    calibration_uncertain,
    read_calibration,
    uncertainty_bounds,
)
from contract.tables import load_table
from tests.calibration.conftest import grid_error, overhead, scene

H = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def _file(size, unc: Uncertainty | None) -> CalibrationFile:
    return CalibrationFile(table="pyramid-12ft", image_size=size, image_to_table=H, uncertainty=unc)


@pytest.mark.parametrize(
    ("size", "rms", "worst", "orientation", "says"),
    [
        ((1920, 1080), 0.4, 2.9, "sure", None),
        ((1920, 1080), 1.2, 2.0, "sure", "rms"),
        ((1920, 1080), 0.5, 3.5, "sure", "worst"),
        ((1280, 720), 1.5, 5.5, "sure", None),
        ((1280, 720), 1.5, 6.5, "sure", "worst"),
        ((1280, 720), 0.1, 0.3, "ambiguous", "front end"),
        ((1920, 1080), 3.8, 20.9, "ambiguous", "from the back, expected error 3.8 mm rms"),  # both
    ],
)
def test_calibration_uncertain_against_the_bounds(size, rms, worst, orientation, says):
    line = calibration_uncertain(
        _file(size, Uncertainty(rms_mm=rms, max_mm=worst, orientation=orientation))
    )
    if says is None:
        assert line is None
    else:
        assert line.startswith("calibration uncertain") and says in line
        assert "\n" not in line


def test_a_calibration_without_uncertainty_is_taken_as_it_is():
    assert calibration_uncertain(_file((1920, 1080), None)) is None
    assert uncertainty_bounds((1920, 1080)) == (1.0, 3.0)
    assert uncertainty_bounds((1280, 720)) == (2.0, 6.0)


@pytest.mark.parametrize("seed", [0, 3])
def test_every_fit_carries_its_uncertainty_and_camera(seed):
    t = load_table("pyramid-12ft")
    cam, img = scene(t, seed)
    fit = fit_plate(img, t)
    unc = fit.calib.uncertainty
    assert unc is not None and unc.orientation == "sure"
    err = grid_error(Calibration(fit.calib), Calibration(cam.to_calibration(t)), t)
    assert 0 < unc.rms_mm <= unc.max_mm
    assert unc.max_mm >= err.max(), (unc.max_mm, err.max())  # an honest worst case
    assert fit.calib.camera["height_mm"] > 1000
    assert len(fit.calib.camera["pose"]) == 6


def _carom(balls_on: dict[str, str] | None):
    """A carom table overhead, with balls drawn (discs) on the named spots."""
    t = load_table("carom-match")
    cam = overhead(t)
    img = render_table(t, cam, nose_height_mm=nose_height(t))
    first = img.copy()
    truth = Calibration(cam.to_calibration(t))
    r = np.linalg.norm(
        truth.table_to_pixel(np.array([[t.ball_radius, 0.0]]))
        - truth.table_to_pixel(np.zeros((1, 2)))
    )
    for spot, colour in (balls_on or {}).items():
        c = truth.table_to_pixel(np.array([t.spots[spot]]))[0]
        bgr = {"red": (40, 40, 200), "yellow": (40, 200, 230)}[colour]
        cv2.circle(first, (int(round(c[0])), int(round(c[1]))), int(round(r)), bgr, -1, cv2.LINE_AA)
    return t, img, first, truth


def _front_x(fit, truth, t) -> float:
    return float(
        Calibration(fit.calib).pixel_to_table(truth.table_to_pixel(np.array([[0, t.W / 2]])))[0, 0]
    )


def test_a_bare_carom_table_is_ambiguous_and_reported_not_refused():
    """On a 5-pin table only the break's half and the lag's near cushion read the ends:
    the calibration stands, says ``ambiguous``, and the adjudicator asks where the ends
    decide (tests/adjudicator/test_ends_assumed.py)."""
    t, img, first, _ = _carom(None)
    fit = fit_plate(img, t, first=first)
    assert fit.calib.uncertainty.orientation == "ambiguous"
    assert fit.calib.front == "assumed"
    assert require_sure_front(fit, t) is fit
    assert "front end" in calibration_uncertain(fit.calib)


def test_a_pyramid_table_whose_ends_are_not_read_is_refused():
    t = load_table("pyramid-12ft")
    img = render_table(t, overhead(t), nose_height_mm=nose_height(t))
    fit = fit_plate(img, t, first=img)
    fit = fit.__class__(**{**fit.__dict__, "calib": fit.calib.model_copy(
        update={"uncertainty": fit.calib.uncertainty.model_copy(update={"orientation": "ambiguous"})}
    )})  # fmt: skip
    with pytest.raises(AmbiguousFront, match="--front"):
        require_sure_front(fit, t)


def test_an_ambiguous_pool_table_is_reported_not_refused():
    t = load_table("pool-9ft")
    img = render_table(t, overhead(t), nose_height_mm=nose_height(t))
    fit = fit_plate(img, t, first=img)
    assert fit.calib.uncertainty.orientation == "ambiguous"
    assert require_sure_front(fit, t) is fit  # no rule tablemon judges there reads the ends
    assert "front end" in calibration_uncertain(fit.calib)


@pytest.mark.parametrize("turned", [False, True])
def test_a_carom_break_set_up_names_the_back_end(turned):
    t, img, first, truth = _carom({"red": "red", "top": "yellow"})
    if turned:  # the same table seen from the other end
        img, first = cv2.rotate(img, cv2.ROTATE_180), cv2.rotate(first, cv2.ROTATE_180)
        w, h = img.shape[1], img.shape[0]
        F = np.array([[-1, 0, w - 1], [0, -1, h - 1], [0, 0, 1.0]])
        H2 = np.asarray(truth.data.image_to_table) @ F
        truth = Calibration(
            truth.data.model_copy(update={"image_to_table": H2.tolist(), "distortion": None})
        )
    fit = fit_plate(img, t, first=first)
    assert fit.calib.front == "break-spots"
    assert fit.calib.uncertainty.orientation == "sure"
    assert _front_x(fit, truth, t) < 30  # the true front is the fitted front


@pytest.mark.parametrize(("side", "front_left"), [("left", True), ("right", False)])
def test_front_side_given_by_the_user(side, front_left):
    t, img, first, truth = _carom(None)
    fit = fit_plate(img, t, first=first, front_side=side)
    assert fit.calib.front == "given" and fit.calib.uncertainty.orientation == "sure"
    cal = Calibration(fit.calib)
    front, back = cal.table_to_pixel(np.array([[0, t.W / 2], [t.L, t.W / 2]]))
    assert (front[0] < back[0]) == front_left


def test_tablemon_calibrate_reports_an_ambiguous_end_and_takes_front(tmp_path, capsys):
    t, img, _, _ = _carom(None)
    png = tmp_path / "carom.png"
    cv2.imwrite(str(png), img)
    out = tmp_path / "CALIB.json"
    args = argparse.Namespace(
        source=str(png), table=t.name, out=str(out), preview=None, corners=None, front=None
    )
    assert run_cli(args) == 0
    assert read_calibration(out).data.uncertainty.orientation == "ambiguous"
    capsys.readouterr()
    args.front = "left"
    assert run_cli(args) == 0
    cal = read_calibration(out)
    assert cal.data.uncertainty is not None and cal.data.uncertainty.orientation == "sure"
    assert "expected error" in capsys.readouterr().out


def test_stills_of_one_camera_are_calibrated_once_together(tmp_path, capsys):
    from contract.errors import ContractError

    t = load_table("pyramid-12ft")
    cam = overhead(t)
    paths = []
    for seed in range(3):  # the same camera, balls elsewhere in each still
        img = render_table(
            t, cam, np.random.default_rng(seed), balls=8, nose_height_mm=nose_height(t)
        )
        paths.append(tmp_path / f"s{seed}.png")
        cv2.imwrite(str(paths[-1]), img)
    out = tmp_path / "CALIB.json"
    args = argparse.Namespace(
        source=[str(p) for p in paths],
        table=t.name,
        out=str(out),
        preview=None,
        corners=None,
        front=None,
    )
    assert run_cli(args) == 0
    assert "and 2 more" in capsys.readouterr().out
    err = grid_error(read_calibration(out), Calibration(cam.to_calibration(t)), t)
    assert err.mean() < 2.5 and err.max() < 8.0  # test_fit's bounds for these 540p scenes
    args.source = [str(paths[0]), str(tmp_path / "clip.mp4")]
    (tmp_path / "clip.mp4").write_bytes(b"")
    with pytest.raises(ContractError, match="stills of one camera"):
        run_cli(args)


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_recalibration_keeps_the_ends_it_had(side):
    from calibration.ends import front_side_of, kept_ends

    t, img, first, _ = _carom(None)
    old = fit_plate(img, t, first=first, front_side=side).calib
    old = old.model_copy(
        update={
            "front": "assumed",
            "uncertainty": old.uncertainty.model_copy(update={"orientation": "ambiguous"}),
        }
    )
    assert front_side_of(Calibration(old), t) == side
    new = kept_ends(fit_plate(img, t, front_side=front_side_of(Calibration(old), t)).calib, old)
    assert front_side_of(Calibration(new), t) == side
    assert new.front == "assumed" and new.uncertainty.orientation == "ambiguous"
