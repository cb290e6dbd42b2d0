"""Births refused to blobs whose thresholded colour runs on over the cloth (a fingertip
with its hand, a cue): ``vision.detect.reach`` and ``vision.track.birth``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from vision_scene import draw_scene, rack, topdown_calib

from contract.tables import load_table
from vision.capture.source import Detections, Frame
from vision.detect.detector import Detector
from vision.detect.reach import RUN_AREA, RUN_FAR, attached, runs_on
from vision.track.birth import births
from vision.track.tracker import Tracker

CLOTH = (60, 30, 150)  # BGR, a red cloth
SKIN = (190, 200, 230)
R = 4.5  # work px


def _disk(img: np.ndarray, c: tuple[float, float], colour, r: float = R) -> None:
    yy, xx = np.mgrid[0 : img.shape[0], 0 : img.shape[1]]
    img[(xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r] = colour


def _scene(kind: str) -> tuple[np.ndarray, np.ndarray, list]:
    """(image, plate, other balls' centres) of 64x64 work px with a ball at (32, 32)."""
    img = np.zeros((64, 64, 3), np.uint8)
    img[:] = CLOTH
    others: list = []
    if kind == "fingertip":  # the hand's fingers run off to the left, over the cushion
        img[29:35, 0:30] = SKIN
        _disk(img, (32, 32), SKIN)
    elif kind == "cue at the ball":  # a pale cue touching a white ball
        img[31:34, 36:64] = (150, 190, 220)
        _disk(img, (32, 32), (235, 235, 235))
    elif kind == "alone":
        _disk(img, (32, 32), (235, 235, 235))
    elif kind == "by a pocket":  # a red ball beside a pocket's black mouth
        _disk(img, (32, 18), (20, 20, 20), r=10)
        _disk(img, (32, 32), (40, 40, 230))
    elif kind == "in a rack":  # touching balls of its own colour, all detected
        others = [(32 + 9 * np.cos(a), 32 + 9 * np.sin(a)) for a in np.arange(6) * np.pi / 3]
        for c in others:
            _disk(img, c, (40, 40, 230))
        _disk(img, (32, 32), (40, 40, 230))
    elif kind == "by a skin-coloured ball":  # a touching ball of the hand's colour, seen
        others = [(41, 32)]
        _disk(img, others[0], SKIN)
        _disk(img, (32, 32), SKIN)
    plate = np.zeros(img.shape, np.float32)
    plate[:] = CLOTH
    return img, plate, others


@pytest.mark.parametrize(
    "kind, expect",
    [
        ("fingertip", True),
        ("cue at the ball", True),
        ("alone", False),
        ("by a pocket", False),
        ("in a rack", False),
        ("by a skin-coloured ball", False),
    ],
)
def test_a_blob_whose_colour_runs_on_is_attached(kind, expect):
    img, plate, others = _scene(kind)
    over = np.linalg.norm(img.astype(np.float32) - plate, axis=2) > 30
    o = np.array(others, float).reshape(-1, 2)
    got = attached(img, plate, over, np.array([[32.0, 32.0]]), np.array([R]), o, np.full(len(o), R))
    assert got.tolist() == [expect]


def test_run_on_is_measured_beyond_the_ball_and_the_other_balls_cores():
    over = np.zeros((64, 64), bool)
    yy, xx = np.mgrid[0:64, 0:64]
    over[(xx - 32) ** 2 + (yy - 32) ** 2 <= R * R] = True
    assert runs_on(over, np.array([32.0, 32.0]), R, np.zeros((0, 2)), np.zeros(0)) == (0.0, 0.0)
    over[30:34, 14:32] = True  # a finger 18 px (4 radii) long
    far, area = runs_on(over, np.array([32.0, 32.0]), R, np.zeros((0, 2)), np.zeros(0))
    assert far >= RUN_FAR and area >= RUN_AREA
    # the same pixels as another detected ball's core (a neighbour) do not run on
    far, area = runs_on(over, np.array([32.0, 32.0]), R, np.array([[20.0, 32.0]]), np.array([8.0]))
    assert far < RUN_FAR


def _det(xy, cls, frame: int = 0, unsure: bool = False, score=None) -> Detections:
    """Detections at ``xy`` (table mm) of classes ``cls``, ``unsure`` as given."""
    d = Detections.from_xy(frame, frame / 30, np.asarray(xy, float).reshape(-1, 2), cls)
    return replace(d, unsure=unsure, score=d.score if score is None else np.asarray(score, float))


TABLE = load_table("pool-9ft")
XY = [(500.0, 500.0), (900.0, 600.0), (-40.0, 600.0), (1200.0, 700.0)]


@pytest.mark.parametrize(
    "claimed, in_pocket, free, score, born, asked",
    [
        # every unclaimed detection on the surface, none in a pocket: all asked, all born
        (set(), [0, 0, 0, 0], True, [1, 1, 1, 1], [0, 1, 3], [0, 1, 3]),
        # claimed by tracks, or in a pocket's drop circle: neither asked nor born
        ({0}, [0, 1, 0, 0], True, [1, 1, 1, 1], [3], [3]),
        # a faint streak only extends a track
        (set(), [0, 0, 0, 0], True, [1, 0.0, 1, 1], [0, 3], [0, 3]),
        # a frame that gives no birth (a camera move) asks nothing
        (set(), [0, 0, 0, 0], False, [1, 1, 1, 1], [], []),
        # nothing to be born: nothing asked
        ({0, 1, 3}, [0, 0, 0, 0], True, [1, 1, 1, 1], [], []),
    ],
)
def test_births_ask_only_the_detections_about_to_be_born(
    claimed, in_pocket, free, score, born, asked
):
    det = _det(XY, ["red"] * 4, score=score)
    seen: list = []

    def hand(xy):
        seen.extend(map(tuple, xy))
        return np.zeros(len(xy), bool)

    got = births(det, claimed, np.array(in_pocket, bool), TABLE, free, hand)
    assert got == born
    assert seen == [XY[j] for j in asked]


def test_births_refused_where_attached():
    det = _det(XY, ["red"] * 4)
    got = births(det, set(), np.zeros(4, bool), TABLE, True, lambda xy: xy[:, 0] > 800)
    assert got == [0]


@pytest.mark.parametrize("rule, expect", [(True, {"red1"}), (False, {"red1", "cue"})])
def test_tracker_gives_no_birth_to_a_fingertip(rule, expect):
    """A fingertip (a ``white`` blob at the cushion) seen every frame beside a real ball
    is never born where the rule says it is attached; without the rule it is."""
    tr = Tracker(TABLE)
    tip = np.array([30.0, 600.0])

    def hand(xy):
        return np.linalg.norm(xy - tip, axis=1) < 10.0

    names = set()
    for k in range(12):
        det = _det([(900.0, 600.0), tuple(tip)], ["red", "white"], frame=k)
        rows = tr.update(det, attached=hand if rule else None)
        names |= {str(i) for i in rows.id}
    assert names == expect


SIZE = (1280, 720)


@pytest.fixture(scope="module")
def detector_after_a_frame():
    """A detector over a pool table's picture with: a ball alone, a ball frozen to the
    side cushion, a rack of three, and a fingertip at the front cushion with the hand
    behind it running off over the cushion and the rail (the front is the image's left)."""
    t = TABLE
    calib = topdown_calib(t, SIZE)
    R_mm = t.ball_radius
    balls = [(1500.0, 300.0, "white"), (900.0, t.W - R_mm - 1.0, "red")]
    balls += [(x, y, "red") for x, y in rack(t, (1900.0, t.W / 2), rows=2)]
    tip = (R_mm + 6.0, t.W / 2)
    img = draw_scene(calib, t, SIZE, [*balls, (*tip, "white")])
    a = calib.table_to_pixel(np.array([[-200.0, t.W / 2 - 45.0]]))[0]  # a hand 90 mm wide
    b = calib.table_to_pixel(np.array([[tip[0] - R_mm / 2, t.W / 2 + 45.0]]))[0]
    img[int(a[1]) : int(b[1]), max(0, int(a[0])) : int(b[0])] = (200, 215, 235)
    det = Detector(calib, t, SIZE)
    det.fit_background([draw_scene(calib, t, SIZE, [], seed=1)])
    det.detect(Frame(0, 0.0, img))
    return det, balls, tip


def test_detector_refuses_the_fingertip_and_not_the_balls(detector_after_a_frame):
    det, balls, tip = detector_after_a_frame
    probe = np.array([[x, y] for x, y, _ in balls] + [list(tip)], float)
    assert det.attached(probe).tolist() == [False] * len(balls) + [True]
