"""Detection on drawn pictures: a touching rack, cushions, colours, arms, motion smears."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist
from vision_scene import draw_scene, rack, topdown_calib

from calibration.plate import median_images
from contract.tables import load_table
from vision.base.colour import basic_colour, basic_colours
from vision.capture.source import Frame
from vision.detect.cloth import majority
from vision.detect.detector import AVERAGE_EVERY, SETTLE_FRAMES, Detector
from vision.detect.split import components

SIZE = (1280, 720)


def _detect(table_name: str, balls, size=SIZE, **kw):
    table = load_table(table_name)
    calib = topdown_calib(table, size)
    img = draw_scene(calib, table, size, balls, **kw)
    det = Detector(calib, table, size)
    det.fit_background([draw_scene(calib, table, size, [], seed=1)])
    return det.detect(Frame(0, 0.0, img)), table


def _match(xy, truth):
    d = cdist(xy, np.asarray(truth, float))
    i, j = linear_sum_assignment(d)
    return d[i, j], i, j


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_touching_pyramid_rack_gives_fifteen_subpixel_centres(size):
    t = load_table("pyramid-12ft")
    pos = rack(t, (3 * t.L / 4, t.W / 2))
    balls = [(x, y, "white") for x, y in pos] + [(t.L / 4, t.W / 2, "yellow")]
    d, _ = _detect("pyramid-12ft", balls, size=size)
    assert len(d) == 16
    err, i, j = _match(d.xy, [(x, y) for x, y, _ in balls])
    px_mm = size[0] / t.L
    assert np.max(err) * px_mm < 0.5  # sub-pixel
    assert np.median(err) < 1.0
    assert list(d.cls[i[j == 15]]) == ["yellow"]
    assert (d.cls[i[j < 15]] == "white").all()


@pytest.mark.parametrize(
    "table, colours",
    [
        ("carom-match", ["white", "yellow", "red"]),
        ("pool-9ft", ["white", "black", "red", "yellow"]),
    ],
)
def test_colour_classes(table, colours):
    t = load_table(table)
    balls = [(t.L * (i + 1) / (len(colours) + 1), t.W / 3, c) for i, c in enumerate(colours)]
    d, _ = _detect(table, balls)
    err, i, j = _match(d.xy, [(x, y) for x, y, _ in balls])
    assert len(d) == len(colours) and err.max() < 1.5
    assert [d.cls[k] for k in i[np.argsort(j)]] == colours


def test_ball_frozen_to_cushion_is_found():
    t = load_table("pyramid-12ft")
    R = t.ball_radius
    balls = [(R, t.W / 2, "white"), (t.L / 2, t.W - R, "white"), (t.L - R - 1, R + 1, "yellow")]
    d, _ = _detect("pyramid-12ft", balls)
    err, *_ = _match(d.xy, [(x, y) for x, y, _ in balls])
    assert len(d) == 3 and err.max() < 2.0


def test_arm_is_an_actor_not_balls():
    t = load_table("pyramid-12ft")
    balls = [(t.L / 4, t.W / 2, "yellow")]
    d, _ = _detect("pyramid-12ft", balls, blobs=[(2400, 600, 500, 90)])
    assert len(d) == 1 and d.cls[0] == "yellow"
    assert len(d.actors) == 1
    x0, y0, x1, y1 = d.actors[0]
    assert x0 < 2400 < x1 and y0 < 600 < y1


def test_empty_table_gives_nothing():
    d, _ = _detect("carom-match", [])
    assert len(d) == 0 and len(d.actors) == 0


def test_motion_blurred_ball_is_one_detection_at_the_smear_centre():
    t = load_table("pyramid-12ft")
    calib = topdown_calib(t, SIZE)
    start, end = np.array([1200.0, 600.0]), np.array([1200.0 + 3 * t.ball_mm, 600.0 + t.ball_mm])
    steps = [start + (end - start) * k / 11 for k in range(12)]
    frames = [draw_scene(calib, t, SIZE, [(*p, "white")], noise=0.0) for p in steps]
    img = np.mean(np.stack(frames).astype(np.float32), axis=0).astype(np.uint8)
    det = Detector(calib, t, SIZE)
    det.fit_background([draw_scene(calib, t, SIZE, [], seed=1)])
    d = det.detect(Frame(0, 0.0, img))
    assert len(d) == 1 and d.blurred[0]
    assert np.linalg.norm(d.xy[0] - (start + end) / 2) < 0.25 * t.ball_mm


def test_five_skittles_found_at_their_marks_beside_a_ball():
    t = load_table("carom-match")
    calib = topdown_calib(t, SIZE)
    spots = t.skittle_spots
    ball = (spots["right"][0] + 70.0, spots["right"][1] + 40.0, "red")
    img = draw_scene(calib, t, SIZE, [ball])
    for x, y in spots.values():
        c = calib.table_to_pixel(np.array([[x, y]]))[0]
        px = float(np.linalg.norm(calib.table_to_pixel(np.array([[x + 10.0, y]]))[0] - c)) / 10
        axes = (max(1, int(4.5 * px)), max(1, int(12.5 * px)))
        cv2.ellipse(img, (int(round(c[0])), int(round(c[1]))), axes, 0, 0, 360, (235, 235, 235), -1)
    det = Detector(calib, t, SIZE)
    det.fit_background([draw_scene(calib, t, SIZE, [], seed=1)])
    d = det.detect(Frame(0, 0.0, img))
    sk = d.xy[d.cls == "skittle"]
    assert len(sk) == 5 and list(d.cls).count("red") == 1
    err, *_ = _match(sk, list(spots.values()))
    assert err.max() < 5.0


@pytest.mark.parametrize("density", [0.0, 0.01, 0.2, 0.5, 0.9])
def test_component_statistics_match_opencv(density):
    rng = np.random.default_rng(int(density * 100))
    mask = (rng.random((70, 110)) < density).astype(np.uint8)
    want = cv2.connectedComponentsWithStats(mask, connectivity=8)
    n, labels, stats, cents = components(mask)
    assert n == want[0] and np.array_equal(labels, want[1])
    assert np.array_equal(stats[1:], want[2][1:]) and np.allclose(cents[1:], want[3][1:])


def _scene_detector(size=SIZE):
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, size)
    det = Detector(calib, table, size)
    det.fit_background([draw_scene(calib, table, size, [], seed=1)])
    return det, calib, table


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_still_frames_reuse_detections_and_a_move_is_seen_at_once(size):
    det, calib, table = _scene_detector(size)
    balls = [(900.0, 600.0, "white"), (2500.0, 1100.0, "yellow")]
    frames = [draw_scene(calib, table, size, balls, seed=k) for k in range(SETTLE_FRAMES + 4)]
    out = [det.detect(Frame(k, k / 30, img)) for k, img in enumerate(frames)]
    # the first frame and SETTLE_FRAMES calm ones are detected in full, the rest reused
    assert len(frames) - 1 - SETTLE_FRAMES < AVERAGE_EVERY  # (no still-time measurement)
    assert det.reused == len(frames) - 1 - SETTLE_FRAMES
    assert [d.frame for d in out] == list(range(len(frames)))
    assert all(np.array_equal(d.xy, out[-4].xy) for d in out[-3:])  # the last full one
    assert np.abs(out[-1].xy - out[0].xy).max() < 0.5  # measured again and averaged: mm
    moved = [(900.0 + 20.0, 600.0, "white"), balls[1]]  # 20 mm: a few pixels
    k = len(frames)
    d = det.detect(Frame(k, k / 30, draw_scene(calib, table, size, moved, seed=k)))
    err, i, j = _match(d.xy, [(x, y) for x, y, _ in moved])
    assert len(d) == 2 and err.max() < 1.5 and det.reused == len(frames) - 1 - SETTLE_FRAMES


def test_held_foreground_equals_a_fresh_one_where_balls_moved():
    """The foreground computed again only in changed tiles equals the one of a detector
    that sees the frame first, around the ball that moved."""
    det, calib, table = _scene_detector()
    a = [(900.0, 600.0, "white"), (2500.0, 1100.0, "yellow")]
    b = [(1000.0, 650.0, "white"), (2500.0, 1100.0, "yellow")]
    det.foreground(draw_scene(calib, table, SIZE, a, seed=3))
    img = draw_scene(calib, table, SIZE, b, seed=4)
    _, fg = det.foreground(img)
    fresh, _, _ = _scene_detector()
    _, want = fresh.foreground(img)
    c = calib.table_to_pixel(np.array([[1000.0, 650.0], [900.0, 600.0]])) * det.scale
    x, y = det._bbox[:2]
    for u, v in np.round(c - [x, y]).astype(int):
        win = (slice(v - 12, v + 13), slice(u - 12, u + 13))
        assert np.array_equal(fg[win], want[win])
    assert fg.sum() == pytest.approx(want.sum(), rel=0.02)


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (640, 360), (1000, 562)])
def test_table_crop_equals_the_resized_whole_frame(size):
    det, calib, table = _scene_detector(size)
    img = draw_scene(calib, table, size, [(900.0, 600.0, "white")], seed=5)
    x, y, w, h = det._bbox
    assert np.array_equal(det._crop(img), det._work(img)[y : y + h, x : x + w])


@pytest.mark.parametrize("n", range(1, 10))
def test_median_of_images_equals_numpy_median(n):
    rng = np.random.default_rng(n)
    ims = [rng.integers(0, 256, (23, 31, 3), dtype=np.uint8) for _ in range(n)]
    stack = np.stack(ims)
    assert np.array_equal(median_images(ims), np.median(stack, axis=0))
    # upper: the upper middle value (calibration.plate.median_plate's choice)
    assert np.array_equal(median_images(ims, upper=True), np.sort(stack, axis=0)[n // 2])


@pytest.mark.parametrize(
    ("group", "ok", "among", "want"),
    [
        ([0, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1]),  # 2 of 3 ok: all kept
        ([0, 0, 0], [1, 0, 0], [1, 1, 1], [0, 0, 0]),  # 1 of 3: none
        ([0, 0, 1, 1], [1, 0, 0, 0], [1, 1, 1, 1], [1, 1, 0, 0]),  # half counts as most
        ([0, 0, 1], [0, 0, 0], [0, 0, 1], [1, 1, 0]),  # group 0 not asked: kept
        ([5, 2, 5, 2], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]),  # ids need not be 0..k
        ([], [], [], []),
    ],
)
def test_majority_vote_per_group(group, ok, among, want):
    got = majority(np.array(group, int), np.array(ok, bool), np.array(among, bool))
    assert got.tolist() == [bool(w) for w in want]


def test_vectorised_radii_and_colours_equal_the_single_ones():
    t = load_table("pyramid-12ft")
    det = Detector(topdown_calib(t, SIZE), t, SIZE)
    h, w = det.geo.radius_map.shape
    rng = np.random.default_rng(0)
    u = np.r_[rng.uniform(-5, w + 5, 200), -0.5, 0.0, w - 0.5, w + 3.0]
    v = np.r_[rng.uniform(-5, h + 5, 200), -2.0, h - 1.0, 0.4, -0.9]
    want = [det.geo.radius_at(a, b) for a, b in zip(u, v, strict=True)]
    assert det.geo.radii_at(u, v).tolist() == want
    bgr = rng.uniform(-20, 280, (300, 3))
    assert basic_colours(bgr) == [basic_colour(c) for c in bgr]
