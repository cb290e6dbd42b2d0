"""The empty-cloth model and balls that stand still all video long (vision.detect.background):
a ball hanging in a pocket's jaws or frozen to a cushion is in every frame the median is
taken over; it must still be found, and nothing must be invented where there is none."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from vision_scene import COLOURS, draw_scene, topdown_calib

from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect.background import still_balls, still_cloth
from vision.detect.detector import Detector

SIZE = (1280, 720)
TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius
L, W = TABLE.L, TABLE.W
CALIB = topdown_calib(TABLE, SIZE)
# a ball in the jaws: its centre 5 mm past the line of a ball touching both cushions
# (corner) or the cushion (middle pocket), as synth's pyramid-jaws scenario places it
JAWS_CORNER = (R * np.sqrt(2) - 5) / np.sqrt(2)
STILL = {
    "jaws front-left": (JAWS_CORNER, JAWS_CORNER),
    "jaws back-right": (L - JAWS_CORNER, W - JAWS_CORNER),
    "jaws middle-left": (L / 2, R - 5),
    "frozen right cushion": (1000.0, W - R),
    "frozen front cushion": (R, 700.0),
}


def _paint(img: np.ndarray, xy: tuple[float, float], colour: tuple[int, ...], r_mm: float):
    """A shaded disk (a ball; a flat one for anything else) at ``xy`` mm, in place."""
    c = CALIB.table_to_pixel(np.array([xy]))[0]
    r = float(np.linalg.norm(CALIB.table_to_pixel(np.array([[xy[0] + r_mm, xy[1]]]))[0] - c))
    h, w = img.shape[:2]
    x0, y0 = max(0, int(c[0] - r) - 2), max(0, int(c[1] - r) - 2)
    x1, y1 = min(w, int(c[0] + r) + 3), min(h, int(c[1] + r) + 3)
    gy, gx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d = np.hypot(gx - c[0], gy - c[1])
    alpha = np.clip(r - d + 0.5, 0.0, 1.0)[..., None]
    shade = (1.0 - 0.45 * np.clip(d / r, 0, 1) ** 2)[..., None] if r_mm == R else 1.0
    win = img[y0:y1, x0:x1]
    win[:] = np.clip(win * (1 - alpha) + np.asarray(colour, np.float32) * shade * alpha, 0, 255)


def _scene(balls: dict[str, tuple[float, float]], seed: int, extra=None) -> np.ndarray:
    """The table with its six pocket holes (dark disks of the mouth's width), ``extra``
    (a function painting on the float picture) and white balls at ``balls``."""
    img = draw_scene(CALIB, TABLE, SIZE, [], seed=seed).astype(np.float32)
    for p in TABLE.pockets:
        _paint(img, (p.x, p.y), (12, 14, 16), p.mouth_mm / 2)
    if extra is not None:
        extra(img)
    for xy in balls.values():
        _paint(img, xy, COLOURS["white"], R)
    return np.clip(img, 0, 255).astype(np.uint8)


def _video(still: dict[str, tuple[float, float]], extra=None) -> list[np.ndarray]:
    """Seven frames: the ``still`` balls never move, one ball rolls across the cloth."""
    return [
        _scene({**still, "rolling": (500.0 + 400 * k, 500.0 + 100 * k)}, seed=k, extra=extra)
        for k in range(7)
    ]


def _found(det: Detector, img: np.ndarray) -> np.ndarray:
    return det.detect(Frame(0, 0.0, img)).xy


@pytest.mark.parametrize("name", sorted(STILL))
def test_a_ball_standing_all_video_in_the_median_is_found(name):
    det = Detector(CALIB, TABLE, SIZE)
    det.fit_background(_video({name: STILL[name]}))
    xy = _found(det, _scene({name: STILL[name], "rolling": (2500.0, 1200.0)}, seed=9))
    err = cdist([STILL[name], (2500.0, 1200.0)], xy).min(axis=1)
    assert len(xy) == 2 and (err < 3.0).all(), (xy, err)


def test_all_still_balls_at_once_each_with_the_cloth_under_it():
    frames = _video(STILL)
    det = Detector(CALIB, TABLE, SIZE)
    det.fit_background(frames)
    xy = _found(det, frames[0])
    truth = [*STILL.values(), (500.0, 500.0)]
    err = cdist(truth, xy).min(axis=1)
    assert len(xy) == len(truth) and (err < 3.0).all(), (xy, err)
    # the model keeps the cloth (not the median, which holds the ball) under each one
    med = np.median(np.stack(frames), axis=0).astype(np.uint8)
    mask = still_cloth(med, det.plate_full, np.zeros(med.shape[:2], bool), CALIB, TABLE, det.geo)
    for x, y in STILL.values():
        u, v = np.round(CALIB.table_to_pixel(np.array([[x, y]]))[0]).astype(int)
        assert mask[v, u], (x, y)


def _shadow_and_marks(img: np.ndarray) -> None:
    """A player's shadow over a pocket mouth and the cushion beside it, a white spot on
    the cloth by a cushion, white diamonds on the rails."""
    h, w = img.shape[:2]
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    c = CALIB.table_to_pixel(np.array([[L / 2, 40.0]]))[0]
    inside = ((gx - c[0]) / 60) ** 2 + ((gy - c[1]) / 25) ** 2 <= 1
    img[inside] *= 0.6  # (no ball darkens the cloth by less than half: a shadow)
    _paint(img, (900.0, W - 12.0), (235, 240, 240), 9.0)  # a spot mark by the cushion
    for x in np.linspace(L / 8, 7 * L / 8, 7):  # diamonds on the rails
        for y in (-45.0, W + 45.0):
            _paint(img, (float(x), y), (235, 240, 240), 10.0)


def test_no_ball_invented_on_empty_cloth_with_a_shadow_and_markings():
    frames = [_scene({}, seed=k, extra=_shadow_and_marks) for k in range(7)]
    det = Detector(CALIB, TABLE, SIZE)
    det.fit_background(frames)
    med = np.median(np.stack(frames), axis=0).astype(np.uint8)
    mask = still_cloth(med, det.plate_full, np.zeros(med.shape[:2], bool), CALIB, TABLE, det.geo)
    assert not mask.any()
    assert len(_found(det, _scene({}, seed=11, extra=_shadow_and_marks))) == 0


@pytest.mark.parametrize("name", ["jaws front-left", "jaws middle-left", "frozen right cushion"])
def test_no_ball_invented_where_a_still_ball_stood_once_it_is_gone(name):
    """The model was made while the ball stood there all along; when it is potted or
    played the cloth (and the hole beside it) shows: nothing is found there."""
    det = Detector(CALIB, TABLE, SIZE)
    det.fit_background(_video({name: STILL[name]}))
    assert len(_found(det, _scene({}, seed=12))) == 0


def _median_picture(boxes=(), balls=()) -> tuple[np.ndarray, np.ndarray]:
    """(median, cloth) work-size pictures (float32): flat cloth with light ``boxes``
    (x0, y0, x1, y1 px: a static overlay) and white disks ``balls`` (u, v px) of radius 5."""
    cloth = np.full((120, 200, 3), TABLE.cloth_bgr, np.float32)
    med = cloth.copy()
    for x0, y0, x1, y1 in boxes:
        med[y0:y1, x0:x1] = (210, 215, 225)
    gy, gx = np.mgrid[0:120, 0:200]
    for u, v in balls:
        med[(gx - u) ** 2 + (gy - v) ** 2 <= 25] = COLOURS["white"]
    return med, cloth


@pytest.mark.parametrize(
    "boxes, balls, found",
    [
        ((), ((50, 60),), 1),
        ((), ((50, 60), (60, 60), (150, 30)), 3),  # two touching, one alone
        (((20, 20, 80, 70),), (), 0),  # a broadcast logo: a ball's disk fits anywhere in it
        (((20, 20, 80, 70),), ((150, 60),), 1),
    ],
)
def test_still_balls_in_a_median_picture(boxes, balls, found):
    med, cloth = _median_picture(boxes, balls)
    everywhere = np.ones(med.shape[:2], bool)
    pn = np.asarray(TABLE.cloth_bgr, np.float32) / np.linalg.norm(TABLE.cloth_bgr)
    got = still_balls(med, cloth, everywhere, 5.0, pn, "pyramid")
    assert len(got) == found
    if balls:
        assert cdist(got, np.asarray(balls, float)).min(axis=0).max() <= 1.0
