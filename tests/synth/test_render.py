"""The renderer: balls where the camera puts them, occlusion flags, blur, determinism."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from contract.tables import load_table
from synth.camera import random_camera
from synth.render import Renderer, write_clip
from synth.render_balls import silhouette
from synth.world import Actor, BallInfo, BallPose, SkittlePose, WorldFrame

SIZE = (640, 360)
INFOS = {
    "a": BallInfo("a", "white", 8),
    "b": BallInfo("b", "white"),
    "y": BallInfo("y", "yellow"),
}


@pytest.fixture(scope="module")
def pyr():
    t = load_table("pyramid-12ft")
    cam = random_camera(t, SIZE, np.random.default_rng(4))
    return t, cam, Renderer(t, [cam], INFOS, seed=9)


def _blob(img: np.ndarray, empty: np.ndarray, thresh: float = 60.0) -> np.ndarray:
    """(row, col) pixels that got much brighter than the empty table."""
    diff = img.astype(float).sum(axis=2) - empty.astype(float).sum(axis=2)
    return np.argwhere(diff > thresh)


@pytest.mark.parametrize("xy", [(400.0, 300.0), (1775.0, 887.5), (3300.0, 1600.0), (200.0, 1700.0)])
def test_ball_blob_where_project_says(pyr, xy) -> None:
    t, cam, r = pyr
    R = t.ball_radius
    empty, _ = r.render(WorldFrame(0, 0.0, {}))
    img, vis = r.render(WorldFrame(0, 0.0, {"b": BallPose(*xy, R)}))
    assert vis == {"b": True}
    px = _blob(img, empty)
    centre = cam.project(np.array([[*xy, R]]))[0]
    assert np.abs(px.mean(axis=0)[::-1] - centre).max() < 1.0
    # its area matches the sphere's outline (the exact silhouette's polygon area)
    sil = silhouette(cam, np.array([*xy, R]), R, 64).astype(np.float32)
    assert abs(len(px) - cv2.contourArea(sil)) < 0.3 * cv2.contourArea(sil)
    # and the cloth point below the centre is nearer the camera's foot (parallax)
    below = cam.project(np.array([[*xy, 0.0]]))[0]
    foot = cam.project(np.array([[*cam.foot(), 0.0]]))[0]
    assert np.linalg.norm(centre - foot) > np.linalg.norm(below - foot)


def test_silhouette_rays_are_tangent_to_the_ball(pyr) -> None:
    t, cam, _ = pyr
    R = t.ball_radius
    S = np.array([3400.0, 100.0, R])  # near a corner: the outline is an ellipse there
    sil = silhouette(cam, S, R, 32)
    d = cam.rays(cam.undistort_normalised(sil))
    oc = S - cam.centre
    perp = np.linalg.norm(oc - (d @ oc)[:, None] * d, axis=1)
    assert np.abs(perp - R).max() < 1e-3


def test_same_seed_same_picture_different_seed_differs(pyr) -> None:
    t, cam, r = pyr
    R = t.ball_radius
    f = WorldFrame(5, 0.2, {"a": BallPose(1000.0, 800.0, R, vx=900.0), "y": BallPose(2000, 500, R)})
    again = Renderer(t, [cam], INFOS, seed=9)
    assert np.array_equal(r.render(f)[0], again.render(f)[0])
    other = Renderer(t, [cam], INFOS, seed=10)
    assert not np.array_equal(r.render(f)[0], other.render(f)[0])


@pytest.mark.parametrize(
    ("actor", "expect_a"),
    [
        (Actor("body", (1000.0, 800.0), (1000.0, 1600.0), 700.0, (400.0, 250.0)), False),
        (Actor("arm", (900.0, 800.0), (1200.0, 800.0), 60.0), False),
        (Actor("cue", (1000.0, 500.0), (1000.0, -900.0), 40.0), True),  # passes 300 mm away
        (Actor("hand", (1000.0, 800.0), height=80.0), False),
    ],
)
def test_visible_flag_under_actors(pyr, actor: Actor, expect_a: bool) -> None:
    t, cam, r = pyr
    R = t.ball_radius
    balls = {"a": BallPose(1000.0, 800.0, R), "y": BallPose(3000.0, 300.0, R)}
    _, vis = r.render(WorldFrame(0, 0.0, balls, actors=(actor,)))
    assert vis == {"a": expect_a, "y": True}


def test_cue_over_ball_centre_hides_it_and_draws_over_it(pyr) -> None:
    t, cam, r = pyr
    R = t.ball_radius
    balls = {"a": BallPose(1000.0, 800.0, R)}
    cue = Actor("cue", (1000.0, 700.0), (1000.0, -700.0), 30.0)
    bare, _ = r.render(WorldFrame(0, 0.0, balls))
    img, vis = r.render(WorldFrame(0, 0.0, balls, actors=(cue,)))
    u, v = np.round(cam.project(np.array([[1000.0, 600.0, 30.0]]))[0]).astype(int)
    assert np.abs(img[v, u].astype(int) - bare[v, u].astype(int)).sum() > 30
    assert vis == {"a": True}  # the cue tip stops 100 mm short of the ball


def test_off_picture_and_pocketed_balls(pyr) -> None:
    t, _, r = pyr
    R = t.ball_radius
    balls = {"a": BallPose(-3000.0, 800.0, R), "b": BallPose(30.0, 30.0, -R, on_table=False)}
    _, vis = r.render(WorldFrame(0, 0.0, balls))
    assert vis == {"a": False}


def test_motion_blur_smears_along_the_motion(pyr) -> None:
    t, cam, r = pyr
    R = t.ball_radius
    empty, _ = r.render(WorldFrame(0, 0.0, {}))
    still, _ = r.render(WorldFrame(0, 0.0, {"b": BallPose(1500.0, 900.0, R)}))
    fast, _ = r.render(WorldFrame(0, 0.0, {"b": BallPose(1500.0, 900.0, R, vx=4000.0)}))
    ps, pf = _blob(still, empty, 30), _blob(fast, empty, 30)
    ext_s = np.ptp(ps, axis=0)
    ext_f = np.ptp(pf, axis=0)
    smear = cam.project(np.array([[1500 + 4000 / 120, 900.0, R], [1500 - 4000 / 120, 900.0, R]]))
    along = int(np.argmax(np.abs(smear[0] - smear[1])[::-1]))  # image axis of the motion
    assert ext_f[along] > ext_s[along] + 0.5 * np.abs(smear[0] - smear[1]).max()
    assert abs(ext_f[1 - along] - ext_s[1 - along]) <= 2


def test_numbers_turn_with_the_ball(pyr) -> None:
    t, cam, r = pyr
    R = t.ball_radius
    xy = (1000.0, 300.0)  # away from the lamps (over the centre line): no highlight on top
    up = (1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0)  # a pole towards the camera: number in view
    side = (1.0, 0, 0, 0, 0, -1.0, 0, 1.0, 0)  # poles turned to the sides
    plain = r.render(WorldFrame(0, 0.0, {"b": BallPose(*xy, R, rot=up)}))[0].astype(float)
    centre = cam.project(np.array([[*xy, R]]))[0][::-1]
    inks = []
    for rot in (up, side):
        img = r.render(WorldFrame(0, 0.0, {"a": BallPose(*xy, R, rot=rot)}))[0].astype(float)
        inks.append(np.argwhere((plain - img).sum(axis=2) > 40))
    radius_px = cam.K[0, 0] * R / np.linalg.norm(cam.centre - [*xy, R])
    assert len(inks[0]) >= 3  # the number faces the camera: dark ink near the middle
    assert np.linalg.norm(inks[0].mean(axis=0) - centre) < 0.5 * radius_px
    assert len(inks[1]) < len(inks[0]) / 3  # turned to the rim: (almost) out of sight


def test_skittles_drawn_at_their_spots() -> None:
    t = load_table("carom-match")
    cam = random_camera(t, SIZE, np.random.default_rng(2))
    r = Renderer(t, [cam], {}, seed=1)
    empty, _ = r.render(WorldFrame(0, 0.0, {}))
    sk = {"centre": SkittlePose(*t.skittle_spots["centre"])}
    img, vis = r.render(WorldFrame(0, 0.0, {}, skittles=sk))
    assert vis == {"centre": True}
    px = _blob(img, empty, 150)
    top = cam.project(np.array([[*t.skittle_spots["centre"], t.skittle_height_mm]]))[0]
    assert len(px) > 0 and np.abs(px.mean(axis=0)[::-1] - top).max() < 2.5


def test_bad_frames_are_refused(pyr) -> None:
    t, _, r = pyr
    with pytest.raises(ValueError, match="no BallInfo"):
        r.render(WorldFrame(0, 0.0, {"zz": BallPose(100.0, 100.0, t.ball_radius)}))
    with pytest.raises(ValueError, match="camera 3"):
        r.render(WorldFrame(0, 0.0, {}, camera=3))


def test_write_clip_writes_a_readable_mp4(pyr, tmp_path: Path) -> None:
    t, cam, r = pyr
    R = t.ball_radius
    frames = [
        WorldFrame(i, i / 25, {"y": BallPose(500.0 + 60 * i, 900.0, R, vx=1500.0)})
        for i in range(6)
    ]
    out = tmp_path / "clip.mp4"
    write_clip(out, frames, r, fps=25.0)
    cap = cv2.VideoCapture(str(out))
    n = 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        assert img.shape == (SIZE[1], SIZE[0], 3)
        n += 1
    assert n == 6
    with pytest.raises(ValueError, match="no frames"):
        write_clip(tmp_path / "none.mp4", [], r, fps=25.0)
