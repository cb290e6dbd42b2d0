"""The synthetic camera: projection, its exact calibration, parallax, framing, knocks."""

import cv2
import numpy as np
import pytest

from contract.calib import Calibration, calibration_from_json
from contract.tables import load_table
from synth.camera import Camera, knocked, outline_mm, random_camera

CASES = [
    ("pyramid-12ft", (1920, 1080), 0),
    ("pyramid-12ft", (1280, 720), 1),
    ("pyramid-9ft", (1920, 1080), 2),
    ("carom-match", (1920, 1080), 3),
    ("carom-match", (1280, 720), 4),
    ("pool-9ft", (1920, 1080), 5),
    ("snooker-small", (1280, 720), 6),
]


def _points(table, n: int = 300, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.c_[rng.uniform(0, table.L, n), rng.uniform(0, table.W, n), np.zeros(n)]


@pytest.mark.parametrize(("name", "size", "seed"), CASES)
def test_calibration_round_trip(name: str, size: tuple[int, int], seed: int) -> None:
    t = load_table(name)
    cam = random_camera(t, size, np.random.default_rng(seed))
    cal = Calibration(cam.to_calibration(t))
    P = _points(t)
    for h in (0.0, t.ball_radius):
        P[:, 2] = h
        back = cal.pixel_to_table(cam.project(P), height=h)
        assert np.abs(back - P[:, :2]).max() < 0.01
        # and the other way: table mm -> recorded pixels
        assert np.abs(cal.table_to_pixel(P[:, :2], height=h) - cam.project(P)).max() < 1e-3


def test_calibration_file_fields() -> None:
    t = load_table("pyramid-12ft")
    cam = random_camera(t, (1920, 1080), np.random.default_rng(3))
    cf = cam.to_calibration(t)
    data = cf.model_dump(mode="json", exclude_none=True)
    cal = calibration_from_json(data)  # validates as CALIB.json
    assert data["format"] == "tablemon-calibration/1" and data["rms_mm"] == 0.0
    assert tuple(data["image_size"]) == (1920, 1080)
    assert set(cf.markings) == set(t.markings)
    for name, px in cf.markings.items():
        assert np.allclose(px, cam.project(np.array([[*t.markings[name], 0.0]]))[0])
    np.testing.assert_allclose(cf.camera_position_mm, cam.centre)
    assert cf.distortion is not None and cf.distortion.coeffs[0] < 0  # barrel
    # image_to_table maps undistorted pixels of cloth points exactly
    P = _points(t, 20)
    u = cam.project_undistorted(P)
    q = np.c_[u, np.ones(len(u))] @ cal.H.T
    assert np.abs(q[:, :2] / q[:, 2:] - P[:, :2]).max() < 1e-6


@pytest.mark.parametrize("seed", range(5))
def test_project_matches_opencv(seed: int) -> None:
    t = load_table("pyramid-12ft")
    cam = random_camera(t, (1920, 1080), np.random.default_rng(seed))
    P = _points(t, 50, seed)
    P[:, 2] = np.linspace(0, 300, 50)
    ref, _ = cv2.projectPoints(P * [1, 1, -1], cam.rvec, cam.tvec, cam.K, cam.dist)
    assert np.abs(ref.reshape(-1, 2) - cam.project(P)).max() < 1e-6


@pytest.mark.parametrize(("name", "size", "seed"), CASES)
def test_random_camera_frames_the_table(name: str, size: tuple[int, int], seed: int) -> None:
    t = load_table(name)
    cam = random_camera(t, size, np.random.default_rng(seed))
    w, h = size
    assert 2500 <= cam.height <= 4000
    corners = cam.project(np.c_[outline_mm(t), np.zeros(4)])
    assert (corners[:, 0] > 0).all() and (corners[:, 0] < w).all()
    assert (corners[:, 1] > 0).all() and (corners[:, 1] < h).all()
    # the long side of the table runs along the picture's width
    ends = cam.project(np.array([[0, t.W / 2, 0], [t.L, t.W / 2, 0]]))
    d = ends[1] - ends[0]
    assert abs(d[0]) > 5 * abs(d[1])
    # the rails fill most of the width
    assert corners[:, 0].max() - corners[:, 0].min() > 0.75 * w
    assert -0.1 <= cam.dist[0] <= -0.01


def test_either_end_can_be_at_the_left() -> None:
    t = load_table("pyramid-12ft")
    sides = {
        random_camera(t, (1280, 720), np.random.default_rng(s)).front_side(t) for s in range(12)
    }
    assert sides == {"left", "right"}


@pytest.mark.parametrize("seed", range(4))
def test_parallax_pushes_ball_centres_away_from_the_foot(seed: int) -> None:
    t = load_table("pyramid-12ft")
    cam = random_camera(t, (1920, 1080), np.random.default_rng(seed))
    foot = cam.project(np.array([[*cam.foot(), 0.0]]))[0]
    P = _points(t, 40, seed)
    on_cloth = cam.project(P)
    P[:, 2] = t.ball_radius
    centres = cam.project(P)
    r0 = np.linalg.norm(on_cloth - foot, axis=1)
    r1 = np.linalg.norm(centres - foot, axis=1)
    far = r0 > 50
    assert (r1[far] > r0[far]).all()
    # by the pinhole ratio h / (h - R) (to well within a pixel; the lens bends it slightly)
    expect = r0 * cam.height / (cam.height - t.ball_radius)
    assert np.abs(r1 - expect)[far].max() < 1.5


@pytest.mark.parametrize("seed", range(6))
def test_knocked_moves_the_picture_a_little(seed: int) -> None:
    t = load_table("pyramid-12ft")
    cam = random_camera(t, (1920, 1080), np.random.default_rng(100 + seed))
    k = knocked(cam, np.random.default_rng(seed))
    P = _points(t, 30, seed)
    shift = np.linalg.norm(k.project(P) - cam.project(P), axis=1)
    assert 1.0 < np.median(shift) < 25.0 and shift.max() < 35.0
    assert abs(k.height - cam.height) < 1e-9


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        ({"R": np.diag([1.0, 1.0, -1.0])}, "proper rotation"),
        ({"dist": np.zeros(4)}, "5 OpenCV coeffs"),
        ({"centre": np.array([0.0, 0.0, -5.0])}, "above the cloth"),
    ],
)
def test_bad_camera_is_one_clear_error(kwargs: dict, msg: str) -> None:
    good = {
        "K": np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]]),
        "dist": np.zeros(5),
        "R": np.eye(3),
        "centre": np.array([1000.0, 500.0, 3000.0]),
        "image_size": (1280, 720),
    }
    with pytest.raises(ValueError, match=msg):
        Camera(**(good | kwargs))


def test_portrait_size_is_refused() -> None:
    with pytest.raises(ValueError, match="landscape"):
        random_camera(load_table("carom-match"), (720, 1280), np.random.default_rng(0))
