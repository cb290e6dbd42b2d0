"""The middle ball of a rack (pool-9ball clip4, frame 0): enclosed by its neighbours, its
Voronoi cell leaves only a few stray pixels of the ring just outside it, and a share of
foreground over those few is no evidence of an arm (the ball was dropped as one)."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib

from contract.tables import load_table
from vision.detect.detector import MAX_RING
from vision.detect.refine import refine_centres

SIZE = (1920, 1080)
TABLE = load_table("pool-9ft")
CALIB = topdown_calib(TABLE, SIZE)
R = TABLE.ball_radius


def _cluster(gap: float, turn: float) -> tuple[np.ndarray, np.ndarray, float]:
    """(picture, centres mm (7,2): the middle ball first, radius px): a ball with six
    neighbours at ``gap`` diameters, on a dark patch (no cloth shows between them:
    a rack's shadow, the triangle's felt)."""
    c = np.array([TABLE.L / 2, TABLE.W / 2])
    ang = np.arange(6) * np.pi / 3 + turn
    xy = np.vstack([c, c + gap * 2 * R * np.c_[np.cos(ang), np.sin(ang)]])
    patch = [(c[0], c[1], 3.4 * R, 3.4 * R)]
    img = draw_scene(CALIB, TABLE, SIZE, [(x, y, "yellow") for x, y in xy], seed=3, blobs=patch)
    r = float(
        CALIB.table_to_pixel(np.array([[R, 0.0]]))[0, 0]
        - CALIB.table_to_pixel(np.zeros((1, 2)))[0, 0]
    )
    return img, xy, r


@pytest.mark.parametrize("gap, turn", [(1.08, 0.0), (1.09, 0.3), (1.1, 0.7), (1.0, 0.2)])
def test_the_enclosed_middle_ball_of_a_cluster_is_not_an_arm(gap, turn):
    img, xy, r = _cluster(gap, turn)
    plate = draw_scene(CALIB, TABLE, SIZE, [], seed=1).astype(np.float32)
    pn = np.median(plate.reshape(-1, 3), axis=0)
    pn = (pn / np.linalg.norm(pn)).astype(np.float32)
    uv = CALIB.table_to_pixel(xy)
    _, score, ring, _ = refine_centres(img, plate, uv, np.full(len(uv), r), 30.0, pn)
    assert score[0] > 0.9
    assert ring[0] < MAX_RING


def test_a_ball_beside_an_arm_still_shows_its_ring():
    """The same picture with the neighbours not measured (an arm-like dark patch around a
    lone ball): the ring share stands, as before."""
    img, xy, r = _cluster(1.1, 0.0)
    plate = draw_scene(CALIB, TABLE, SIZE, [], seed=1).astype(np.float32)
    pn = np.median(plate.reshape(-1, 3), axis=0)
    pn = (pn / np.linalg.norm(pn)).astype(np.float32)
    uv = CALIB.table_to_pixel(xy[:1])
    _, _, ring, _ = refine_centres(img, plate, uv, np.full(1, r), 30.0, pn)
    assert ring[0] >= MAX_RING
