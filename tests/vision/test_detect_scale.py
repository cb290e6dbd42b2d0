"""The detector proposes balls on a reduced picture (a ball about 4-6 work px across
its radius, at an integer reduction of the video) and measures each centre at full
resolution: at every video size a tight rack, a ball frozen to a cushion and a fast
smeared ball are found with sub-pixel centres."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist
from vision_scene import draw_scene, rack, topdown_calib

from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect.detector import Detector

# reductions 1/2, 1/4, 1/5 (1280x720 at 1/2 is covered by test_detect.py)
SIZES = [(960, 540), (1920, 1080), (2560, 1440)]
TABLE = load_table("pyramid-12ft")


def _detector(size):
    calib = topdown_calib(TABLE, size)
    det = Detector(calib, TABLE, size)
    det.fit_background([draw_scene(calib, TABLE, size, [], seed=1)])
    return det, calib


def _errors_px(det, calib, size, balls, **kw) -> tuple[int, np.ndarray]:
    """(detections, per truth ball the distance in video px to its matched detection)."""
    d = det.detect(Frame(0, 0.0, draw_scene(calib, TABLE, size, balls, **kw)))
    dist = cdist(d.xy, np.array([(x, y) for x, y, _ in balls]))
    i, j = linear_sum_assignment(dist)
    return len(d), dist[i, j] * size[0] / TABLE.L  # top-down: px per mm is uniform


@pytest.mark.parametrize("size", [*SIZES, (1280, 720), (1600, 900), (3840, 2160)])
def test_proposals_are_made_on_a_reduced_picture(size):
    det = Detector(topdown_calib(TABLE, size), TABLE, size)
    k = 1 / det.scale
    assert k == round(k) and k >= 2  # an integer reduction
    r_work = det.geo.radius_at(size[0] / 2, size[1] / 2) * det.scale
    assert 3.5 <= r_work <= 6.5


# k-means (two k-means++ starts) settles with two centres in one ball and one across two
# on this rack at the 1/2 and 1/5 reductions and keeps 16 balls; a second look from more
# starts fixed it but added a ball on the real UK 8-ball break (counts_real), so not yet
STUCK = pytest.mark.xfail(strict=True, reason="k-means keeps 16 balls for a tight rack")
RACKS = [
    pytest.param(SIZES[0], (0.75, 0.5), marks=STUCK),
    pytest.param(SIZES[1], (0.75, 0.5)),
    pytest.param(SIZES[2], (0.75, 0.5), marks=STUCK),
    pytest.param(SIZES[2], (0.7, 0.4)),
]


@pytest.mark.parametrize("size, where", RACKS)
def test_tight_rack_of_one_colour_gives_fifteen_subpixel_centres(size, where):
    det, calib = _detector(size)
    pos = rack(TABLE, (where[0] * TABLE.L, where[1] * TABLE.W))
    n, err = _errors_px(det, calib, size, [(x, y, "white") for x, y in pos])
    assert n == 15
    assert err.max() < 0.5, f"worst {err.max():.2f} px"


@pytest.mark.parametrize("size", SIZES)
def test_balls_frozen_to_cushions_have_subpixel_centres(size):
    det, calib = _detector(size)
    R = TABLE.ball_radius
    balls = [
        (R, TABLE.W / 2, "white"),
        (TABLE.L / 2, TABLE.W - R, "white"),
        (TABLE.L - R - 1, R + 1, "yellow"),
    ]
    n, err = _errors_px(det, calib, size, balls)
    assert n == 3 and err.max() < 0.25, f"worst {err.max():.2f} px"


@pytest.mark.parametrize("size", SIZES)
def test_fast_smeared_ball_is_one_detection_near_the_smear_centre(size):
    det, calib = _detector(size)
    start = np.array([1200.0, 600.0])
    end = start + [3 * TABLE.ball_mm, TABLE.ball_mm]
    frames = [
        draw_scene(calib, TABLE, size, [(*(start + (end - start) * k / 11), "white")], noise=0.0)
        for k in range(12)
    ]
    img = np.mean(np.stack(frames).astype(np.float32), axis=0).astype(np.uint8)
    d = det.detect(Frame(0, 0.0, img))
    assert len(d) == 1 and d.blurred[0]
    assert np.linalg.norm(d.xy[0] - (start + end) / 2) < 0.25 * TABLE.ball_mm
