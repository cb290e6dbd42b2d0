"""Makers' prints (``synth.figures``): the house style is the renderer's pyramid figure,
random makers vary the face and size within the stated ranges, and a ball printed small
shows less ink than the house print."""

from __future__ import annotations

import numpy as np
import pytest

from synth.figures import HEIGHT_R, FigureStyle, figure_glyph, random_style
from synth.render_balls import HOUSE, pyramid_glyph


@pytest.mark.parametrize("number", [1, 6, 9, 10, 15])
def test_house_style_is_the_pyramid_figure(number):
    assert np.array_equal(figure_glyph(number, HOUSE), pyramid_glyph(number))
    assert HOUSE.box_r == pytest.approx(0.34, abs=0.005)  # ink 0.45 r tall


def test_random_makers_vary_within_their_ranges():
    rng = np.random.default_rng(3)
    styles = [random_style(rng) for _ in range(300)]
    heights = np.array([s.height_r for s in styles])
    assert heights.min() >= HEIGHT_R[0] and heights.max() <= HEIGHT_R[1]
    assert (heights < 0.25).any() and (heights > 0.5).any()
    assert len({s.font for s in styles}) >= 5 and any(s.italic for s in styles)
    for s in styles[:40]:
        g = figure_glyph(12, s)
        assert g.shape == (64, 64) and g.min() >= 0.0 and g.max() <= 1.0 and g.sum() > 20


def test_faces_differ():
    a = figure_glyph(5, FigureStyle())
    b = figure_glyph(5, FigureStyle(font=0, italic=True))  # Hershey Simplex, italic
    assert np.abs(a - b).mean() > 0.02


def _ball_ink(style: FigureStyle | None) -> float:
    """Ink (darkening summed over pixels, in full-black pixels) that ball 8's figure adds
    to a white ball rendered pole-on at 1080p, against the same ball unprinted."""
    from contract.tables import load_table
    from synth.camera import random_camera
    from synth.render import Renderer
    from synth.world import BallInfo, BallPose, WorldFrame

    table = load_table("pyramid-12ft")
    cam = random_camera(table, (1920, 1080), np.random.default_rng(0))
    R = table.ball_radius
    x, y = table.length_mm / 2, table.width_mm / 2
    c = np.asarray(cam.centre) - [x, y, R]
    up = c / np.linalg.norm(c)
    e1 = np.cross(up, [1.0, 0.0, 0.0])
    e1 /= np.linalg.norm(e1)
    rot = tuple(np.c_[e1, np.cross(up, e1), up].ravel())
    frame = WorldFrame(0, 0.0, {"b": BallPose(x, y, R, rot=rot)}, {}, ())
    u, v = cam.project(np.array([[x, y, R]]))[0]
    crops = []
    for number in (8, None):
        info = {"b": BallInfo("b", "white", number, figure=style)}
        img, _ = Renderer(table, [cam], info, 0).render(frame)
        crops.append(img[int(v) - 32 : int(v) + 32, int(u) - 32 : int(u) + 32].astype(float))
    return float(np.clip(crops[1] - crops[0], 0, None).mean(axis=2).sum() / 255)


def test_a_small_print_shows_less_ink_than_the_house_print():
    house = _ball_ink(None)
    small = _ball_ink(FigureStyle(height_r=0.2))
    assert house > 10 and small < 0.5 * house
