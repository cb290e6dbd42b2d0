"""White pyramid balls whose printed figure faces the camera (the synthetic renderer:
``synth.render_balls.pyramid_glyph`` ink, shading, lamps' shadows, the camera's
perspective) are found, once each, with sub-pixel centres: the figure's dark ink must
not punch a hole in the ball's foreground (``vision.detect.foreground``: the relative
test drops pixels under a fraction of the ball's strongest contrast, and the opening
then erodes the ring left around the hole). Alone at 1080p (r 13-16 px) and 720p
(r about 10 px), turned 0-30 degrees off the line of sight, numbers 1..15; touching
another ball; in a full rack. Centres video px (the ball centre's projection).

The figure must not move a centre: each is within ``FIGURE_PX`` of the centre read in
the same picture drawn with plain balls. Plain white balls themselves read up to about
0.9 px off the true projection under some of these cameras (the refinement's own bias,
the same with or without a figure), so the bound to truth is ``TRUTH_PX``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from contract.calib import Calibration
from contract.tables import load_table
from synth.camera import Camera, random_camera
from synth.planner import rack
from synth.render import Renderer
from synth.world import BallInfo, BallPose, WorldFrame
from vision.capture.source import Frame
from vision.detect.detector import Detector

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius
FIGURE_PX = 0.25  # video px: a facing figure moves no centre more than this
TRUTH_PX = 1.0  # video px: from the ball centre's true projection


def _turned(view: np.ndarray, tilt_deg: float, spin: float) -> tuple[float, ...]:
    """A rotation (row-major 3x3) whose number pole (body z) is ``tilt_deg`` degrees off
    ``view`` (table frame), the figure spun by ``spin`` rad about the pole."""
    u = view / np.linalg.norm(view)
    side = np.cross(u, [0.0, 0.0, 1.0] if abs(u[2]) < 0.9 else [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side)
    t = math.radians(tilt_deg)
    z = math.cos(t) * u + math.sin(t) * side
    e1 = np.cross(z, [0.0, 0.0, 1.0] if abs(z[2]) < 0.9 else [1.0, 0.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(z, e1)
    a = math.cos(spin) * e1 + math.sin(spin) * e2
    b = -math.sin(spin) * e1 + math.cos(spin) * e2
    return tuple(float(v) for v in np.c_[a, b, z].ravel())


def _camera(size: tuple[int, int], seed: int, zoom: float) -> Camera:
    """A random camera over the table, its focal length times ``zoom`` (larger balls)."""
    cam = random_camera(TABLE, size, np.random.default_rng(seed))
    K = np.array(cam.K)
    K[:2, :2] *= zoom
    return Camera(K=K, dist=cam.dist, R=cam.R, centre=cam.centre, image_size=cam.image_size)


def _detect(
    cam: Camera,
    balls: dict[str, tuple[float, float]],
    facing: dict[str, float],
    seed: int,
    plain: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(detected centres N,2 video px, true centres M,2 video px, true radii M px) of one
    rendered frame: every ball white and numbered (none when ``plain``), those in
    ``facing`` turned that many degrees off the line of sight, the others in the default
    pose (the pole straight up: the figure faces a camera overhead too)."""
    size = cam.image_size
    infos = {b: BallInfo(b, "white", None if plain else int(b)) for b in balls}
    C = np.asarray(cam.centre)
    poses = {}
    for k, (b, (x, y)) in enumerate(balls.items()):
        rot = _turned(C - [x, y, R], facing[b], 0.9 * k) if b in facing else None
        poses[b] = BallPose(x, y, R, rot=rot) if rot else BallPose(x, y, R)
    ren = Renderer(TABLE, [cam], infos, seed=seed)
    empty, _ = ren.render(WorldFrame(0, 0.0, {}))
    img, vis = ren.render(WorldFrame(1, 1 / 30, poses))
    assert all(vis.values())
    det = Detector(Calibration(cam.to_calibration(TABLE)), TABLE, size)
    det.fit_background([empty])
    d = det.detect(Frame(1, 1 / 30, img))
    S = np.array([[x, y, R] for x, y in balls.values()])
    uv = cam.project(S)
    edge = cam.project(S + [R, 0.0, 0.0])
    return d.uv, uv, np.linalg.norm(edge - uv, axis=1)


def _singles(size: tuple[int, int], numbers: range, tilt: float, seed: int, zoom: float):
    """Balls ``numbers`` apart on the bed, each with its figure ``tilt`` degrees off."""
    balls = {}
    for i, n in enumerate(numbers):
        x = TABLE.L * (0.12 + 0.1 * (i % 8))
        y = TABLE.W * (0.3 + 0.4 * (i // 8))
        balls[str(n)] = (x, y)
    return _check(_camera(size, seed, zoom), balls, {b: tilt for b in balls}, seed)


def _matched(found: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Distance (px) from each true centre to its matched detection."""
    i, j = linear_sum_assignment(cdist(truth, found))
    assert len(i) == len(truth)
    return cdist(truth, found)[i, j]


def _check(cam: Camera, balls: dict, facing: dict[str, float], seed: int) -> np.ndarray:
    """Assert every ball found once, its centre within :data:`FIGURE_PX` of the plain
    picture's and :data:`TRUTH_PX` of the truth; the true radii (px)."""
    found, truth, r = _detect(cam, balls, facing, seed)
    assert len(found) == len(truth), f"{len(found)} found of {len(truth)}"
    plain, _, _ = _detect(cam, balls, facing, seed, plain=True)
    assert len(plain) == len(truth)
    moved = _matched(found, plain)
    assert moved.max() < FIGURE_PX, f"a figure moved a centre {moved.max():.2f} px"
    err = _matched(found, truth)
    assert err.max() < TRUTH_PX, f"worst {err.max():.2f} px"
    return r


SINGLES = [
    # size, numbers, tilt (deg), seed, zoom: 1080p r 13-16 px, 720p r about 10 px
    ((1920, 1080), range(1, 16), 0.0, 1, 1.0),
    ((1920, 1080), range(1, 16), 15.0, 2, 1.1),
    ((1920, 1080), range(1, 16), 30.0, 3, 1.15),
    ((1280, 720), range(1, 16), 0.0, 4, 1.1),
    ((1280, 720), range(1, 16), 20.0, 5, 1.1),
]


@pytest.mark.parametrize(("size", "numbers", "tilt", "seed", "zoom"), SINGLES)
def test_single_balls_facing_the_camera_are_found_once(size, numbers, tilt, seed, zoom):
    r = _singles(size, numbers, tilt, seed, zoom)
    lo, hi = (12.5, 16.5) if size[1] == 1080 else (9.0, 11.0)
    assert lo < r.min() and r.max() < hi  # the brief's ball sizes


@pytest.mark.parametrize(
    ("size", "seed", "zoom", "number"), [((1920, 1080), 1, 1.0, "4"), ((1280, 720), 4, 1.1, "6")]
)
def test_a_facing_ball_touching_another_is_one_of_two(size, seed, zoom, number):
    a = np.array([2400.0, 700.0])
    balls = {number: tuple(a), "9": tuple(a + [2 * R, 0.0])}
    _check(_camera(size, seed, zoom), balls, {number: 0.0}, seed)


# in a 1080p rack whose figures face the camera two balls are lost (as before the ink fix):
# holes are filled in blobs of one or two balls only (vision.detect.foreground.INK_BLOB),
# because a rack's mask with its figures filled makes the k-means split read 16 balls for
# test_refine_cluster's rack (the split, vision.detect.split, needs a second look at racks first)
RACK_LOST = pytest.mark.xfail(strict=True, reason="two balls of a facing 1080p rack lost")


@pytest.mark.parametrize(
    ("size", "seed"), [pytest.param((1920, 1080), 8, marks=RACK_LOST), ((1280, 720), 9)]
)
def test_a_rack_of_facing_balls_gives_fifteen(size, seed):
    balls = rack(TABLE, np.random.default_rng(seed))
    facing = {b: 10.0 * (k % 4) for k, b in enumerate(balls)}
    _check(_camera(size, seed, 1.0), balls, facing, seed)
