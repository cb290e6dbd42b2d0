"""The CLI (errors, corners, CALIB.json) and the camera-moved monitor."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.fit import fit_plate, nose_height
from calibration.monitor import CalibrationMonitor
from calibration.synthview import look_at, render_table
from contract.calib import read_calibration
from contract.events import EventType
from contract.tables import load_table
from service.cli import main
from tests.calibration.conftest import FOOTAGE, overhead, scene


def test_cli_missing_file_is_one_line(tmp_path, capsys):
    rc = main(["calibrate", str(tmp_path / "nope.mp4"), "--out", str(tmp_path / "c.json")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "no such file" in err


def test_cli_no_table_exit_2(tmp_path, capsys):
    p = tmp_path / "grey.png"
    cv2.imwrite(str(p), np.full((360, 640, 3), 90, np.uint8))
    rc = main(["calibrate", str(p), "--out", str(tmp_path / "c.json")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "no table found" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "c.json").exists()


def test_cli_writes_calib_and_preview(tmp_path):
    t = load_table("pyramid-12ft")
    cam, img = scene(t, 0)
    p = tmp_path / "table.png"
    cv2.imwrite(str(p), img)
    out, prev = tmp_path / "c.json", tmp_path / "p.png"
    assert (
        main(["calibrate", str(p), "--table", t.name, "--out", str(out), "--preview", str(prev)])
        == 0
    )
    cal = read_calibration(out)
    data = json.loads(out.read_text())
    assert data["front"] == "house-line" and "spot:centre" in data["markings"]
    assert cal.data.rms_mm < 3 and cv2.imread(str(prev)).shape == img.shape


def test_cli_corners(tmp_path):
    t = load_table("carom-match")
    cam = overhead(t)
    p = tmp_path / "t.png"
    cv2.imwrite(str(p), render_table(t, cam, nose_height_mm=nose_height(t)))
    c = cam.project(np.array([[0, 0, 0], [0, t.W, 0], [t.L, t.W, 0], [t.L, 0, 0]]))
    arg = ",".join(f"{v:.1f}" for v in c.ravel())
    out = tmp_path / "c.json"
    assert main(["calibrate", str(p), "--table", t.name, "--out", str(out), "--corners", arg]) == 0
    fl = read_calibration(out).pixel_to_table(c[:1])[0]
    assert np.hypot(*fl) < 10


def test_monitor_detects_a_knock_and_recalibrates():
    t = load_table("carom-match")
    cam = overhead(t)
    plate = render_table(t, cam, nose_height_mm=nose_height(t))
    fit = fit_plate(plate, t)
    mon = CalibrationMonitor(plate, fit.calib, t, confirm=2, collect=3)
    assert not mon.check(plate).moved
    moved_cam = look_at(
        (t.L / 2 + 60, t.W / 2 + 30, 3000.0), (t.L / 2 + 90, t.W / 2), (0.02, 1.0), cam.size, 70.0
    )
    knocked = render_table(t, moved_cam, nose_height_mm=nose_height(t))
    assert mon.check(knocked).moved
    events = [mon.update(knocked, i, i / 25) for i in range(10, 16)]
    ev = [e for e in events if e is not None]
    # confirmed on the second check (frame 11), dated at the first frame that showed it
    assert len(ev) == 1 and ev[0].type == EventType.CAMERA_MOVED and ev[0].frame == 10
    assert not mon.check(knocked).moved  # recalibrated on the new view
    new = np.asarray(mon.calibration.image_to_table)
    assert not np.allclose(new, np.asarray(fit.calib.image_to_table))


@pytest.mark.skipif(not (FOOTAGE / "snooker-small-ceiling").is_dir(), reason="no footage")
def test_real_snooker_still_calibrates():
    t = load_table("snooker-small")
    img = cv2.imread(str(FOOTAGE / "snooker-small-ceiling" / "1.png"))
    fit = fit_plate(img, t)
    assert fit.calib.rms_mm < 4 and sum(k.startswith("pocket:") for k in fit.calib.markings) >= 4
