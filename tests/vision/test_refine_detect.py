"""The detector end to end on a dark ball with glare spots: lone pixels of the work image
that look like the cloth (the lamps' reflections: a pale spot on a black ball) fail the
relative threshold, and the opening must not then erode the whole ball away (the black
balls of the snooker stills 11.png and 14.png were lost so). Top-down test pictures with
exact centres (tests/vision/vision_scene.py); table mm."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib

from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect.detector import Detector

SIZE = (1280, 720)


def _glare(
    img: np.ndarray, centre: np.ndarray, r: float, spots: int, colour: np.ndarray
) -> np.ndarray:
    """``img`` with ``spots`` small glare spots (3x3 px, a work pixel or so each) of
    ``colour`` (BGR) on the ball of radius ``r`` px at ``centre`` (px): the first at its
    centre, the others apart on a circle of half its radius (lone holes in the mask)."""
    out = img.copy()
    for k in range(spots):
        a, d = 2 * np.pi * k / max(1, spots - 1), 0.5 * r * (k > 0)
        u, v = np.round(centre + d * np.array([np.cos(a), np.sin(a)])).astype(int)
        out[v - 1 : v + 2, u - 1 : u + 2] = colour
    return out


@pytest.mark.parametrize("spots", [0, 1, 3, 4])
@pytest.mark.parametrize("where", [(0.6, 0.4), (0.25, 0.7)])
def test_dark_ball_with_glare_spots_is_found(where, spots):
    table = load_table("snooker-small")  # black is one of its balls
    calib = topdown_calib(table, SIZE)
    xy = np.array([table.L * where[0], table.W * where[1]])
    img = draw_scene(calib, table, SIZE, [(*xy, "black")])
    c = calib.table_to_pixel(xy[None], height=table.ball_radius)[0]
    r = float(np.linalg.norm(calib.table_to_pixel((xy + [table.ball_radius, 0])[None])[0] - c))
    pale = np.clip(np.array(table.cloth_bgr, float) * 1.25, 0, 255)  # cloth, brighter
    img = _glare(img, c, r, spots, pale)
    det = Detector(calib, table, SIZE)
    det.fit_background([draw_scene(calib, table, SIZE, [], seed=1)])
    d = det.detect(Frame(0, 0.0, img))
    assert len(d) == 1
    assert np.linalg.norm(d.xy[0] - xy) < 2.0
