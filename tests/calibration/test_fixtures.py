"""End to end on the synthetic fixture clips (synth renderer, exact truth), the synth
camera knock, and real footage when ``../shared/footage`` is there."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.score import score_calibration
from calibration.fit import fit_plate
from calibration.monitor import CalibrationMonitor
from calibration.plate import load_plate, median_plate
from contract.calib import Calibration, read_calibration
from contract.tables import load_table
from tests.calibration.conftest import FOOTAGE

VIDEOS = Path(__file__).resolve().parents[2] / "fixtures" / "videos"


@pytest.mark.parametrize("name", ["pyramid-respot", "pyramid-knock-1080"])
def test_fixture_clip_calibrates_within_a_few_mm(name):
    truth_path = VIDEOS / f"{name}.calib.json"
    if not truth_path.exists():
        pytest.skip("fixture not generated")
    truth = read_calibration(truth_path)
    table = load_table(truth.data.table)
    fit = fit_plate(load_plate(VIDEOS / f"{name}.mp4", count=15), table)
    sc = score_calibration(Calibration(fit.calib), truth, table)
    assert sc.front_right == 1 and fit.calib.front == "house-line"
    assert sc.error.mean < 2.0 and sc.error.max < 5.0, (sc.error.mean, sc.error.max)


def test_synth_knock_is_seen_and_a_still_camera_is_not():
    synth_camera = pytest.importorskip("synth.camera")
    render = pytest.importorskip("synth.render")
    world = pytest.importorskip("synth.world")
    table = load_table("carom-match")
    rng = np.random.default_rng(3)
    cam = synth_camera.random_camera(table, (960, 540), rng)
    cams = [cam, synth_camera.knocked(cam, rng)]
    balls = {"white": world.BallInfo("white", "white")}
    pose = {"white": world.BallPose(900.0, 500.0, table.ball_radius)}
    rend = render.Renderer(table, cams, balls, seed=3)
    frames = [
        rend.render(world.WorldFrame(i, i / 25, pose, camera=c))[0] for i, c in enumerate((0, 0, 1))
    ]
    fit = fit_plate(frames[0], table)
    mon = CalibrationMonitor(frames[0], fit.calib, table)
    assert not mon.check(frames[1]).moved
    assert mon.check(frames[2]).moved


@pytest.mark.skipif(not (FOOTAGE / "pool-9ball-overhead").is_dir(), reason="no footage")
def test_real_pool_clip_calibrates_without_corners():
    table = load_table("pool-9ft")
    fit = fit_plate(load_plate(FOOTAGE / "pool-9ball-overhead" / "clip4.mp4", count=15), table)
    assert fit.calib.rms_mm < 3
    assert sum(k.startswith("pocket:") for k in fit.calib.markings) == 6


@pytest.mark.skipif(not (FOOTAGE / "snooker-small-ceiling").is_dir(), reason="no footage")
def test_real_snooker_corners_match_the_spec_size():
    """The fitted surface spans the spec's 1881 x 943 mm: its corners in pixels are where
    the cushion noses meet (checked against the picture's own scale: the table fills
    most of the 1280 px width)."""
    table = load_table("snooker-small")
    img = cv2.imread(str(FOOTAGE / "snooker-small-ceiling" / "2.png"))
    cal = Calibration(fit_plate(img, table).calib)
    c = cal.table_to_pixel(np.array([(0, 0), (table.L, 0), (table.L, table.W), (0, table.W)]))
    width = np.linalg.norm(c[1] - c[0])
    assert 0.8 * 1280 < width < 1280
    cases = json.loads((FOOTAGE / "snooker-small-ceiling" / "testcases.json").read_text())
    assert cases["cases"]


def test_fixture_knock_is_reported_near_its_frame_and_recalibrated():
    name = "pyramid-knock-1080"
    truth_path = VIDEOS / f"{name}.truth.json"
    if not truth_path.exists() or not (VIDEOS / f"{name}.calib.1.json").exists():
        pytest.skip("fixture not generated")
    knock = next(
        e for e in json.loads(truth_path.read_text())["events"] if e["type"] == "camera_moved"
    )["frame"]
    cap = cv2.VideoCapture(str(VIDEOS / f"{name}.mp4"))
    frames = []
    while len(frames) < knock + 30:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f)
    cap.release()
    table = load_table("pyramid-12ft")
    plate = median_plate(frames[: knock - 10 : 8])
    mon = CalibrationMonitor(plate, fit_plate(plate, table).calib, table)
    events = [e for i, f in enumerate(frames) if (e := mon.update(f, i, i / 30)) is not None]
    assert len(events) == 1 and knock <= events[0].frame <= knock + 5
    assert not mon.recalibrating
    after = read_calibration(VIDEOS / f"{name}.calib.1.json")
    sc = score_calibration(Calibration(mon.calibration), after, table)
    assert sc.error.mean < 2.0
