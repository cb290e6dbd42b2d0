"""A frame darker, brighter or tinted against the empty-cloth model (vision.detect.exposure):
red balls on red cloth are still found, and an empty cloth stays empty."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from vision_scene import draw_scene, topdown_calib

import vision.detect.exposure as exposure
from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect.detector import Detector
from vision.detect.exposure import ClothGain

SIZE = (1280, 720)
RED_CLOTH = (82, 51, 178)  # BGR, the red cloth of the hand-held uk8ball clip


def _scene():
    table = replace(load_table("pool-9ft"), cloth_bgr=RED_CLOTH)
    calib = topdown_calib(table, SIZE)
    det = Detector(calib, table, SIZE)
    det.fit_background([draw_scene(calib, table, SIZE, [], seed=1)])
    return table, calib, det


def _balls(table):
    colours = ["red", "red", "yellow", "white", "black", "red", "yellow", "red"]
    return [
        (table.L * (i + 1) / (len(colours) + 1), table.W * (0.3 + 0.4 * (i % 2)), c)
        for i, c in enumerate(colours)
    ]


def _gained(img: np.ndarray, gain) -> np.ndarray:
    return np.clip(img.astype(np.float32) * np.asarray(gain, np.float32), 0, 255).astype(np.uint8)


GAINS = [
    ("darker", (0.75, 0.75, 0.75)),
    ("much darker", (0.6, 0.6, 0.6)),
    ("uk8ball frame 0", (0.78, 0.71, 0.85)),
    ("cool cast, darker", (0.95, 0.7, 0.7)),
    ("warm cast", (0.75, 0.9, 1.1)),
]


@pytest.mark.parametrize("name, gain", GAINS)
def test_balls_on_red_cloth_found_in_a_darker_or_tinted_frame(name, gain):
    table, calib, det = _scene()
    balls = _balls(table)
    img = _gained(draw_scene(calib, table, SIZE, balls, seed=2), gain)
    d = det.detect(Frame(0, 0.0, img))
    assert len(d) == len(balls), name
    err = cdist(d.xy, np.array([(x, y) for x, y, _ in balls])).min(axis=0)
    assert err.max() < 3.0, name  # mm
    assert np.all(det.gain <= 1.0)


def test_balls_on_red_cloth_are_lost_without_the_gain(monkeypatch):
    """The case the gain exists for: at 0.6x exposure the detector without the gain
    loses the balls (the whole darker cloth differs from the model; the tests above are
    not vacuous)."""
    monkeypatch.setattr(exposure, "DEAD_BAND", 99.0)
    table, calib, det = _scene()
    balls = _balls(table)
    img = _gained(draw_scene(calib, table, SIZE, balls, seed=2), (0.6, 0.6, 0.6))
    d = det.detect(Frame(0, 0.0, img))
    assert len(d) < len(balls)


@pytest.mark.parametrize(
    "gain", [(1, 1, 1), (0.6, 0.6, 0.6), (0.8, 0.8, 0.8), (1.3, 1.3, 1.3), (0.8, 0.9, 1.15)]
)
def test_empty_cloth_whose_exposure_changes_stays_empty(gain):
    table, calib, det = _scene()
    empty = draw_scene(calib, table, SIZE, [], seed=3)
    for i, g in enumerate(
        [(1, 1, 1), gain, (1, 1, 1), gain]
    ):  # the exposure changes back and forth
        d = det.detect(Frame(i, i / 30, _gained(empty, g)))
        assert len(d) == 0, (i, g)


@pytest.mark.parametrize(
    "gain, cover, want",
    [
        ((0.75, 0.75, 0.75), 0.0, True),
        ((0.78, 0.71, 0.85), 0.3, True),  # a dark body over 30 % of the samples: outliers
        ((1.2, 1.1, 1.0), 0.1, True),
        ((0.75, 0.75, 0.75), 0.55, False),  # most of the cloth hidden: no measurement
    ],
)
def test_gain_measured_on_the_cloth_samples(gain, cover, want):
    rng = np.random.default_rng(4)
    plate = np.full((60, 90, 3), RED_CLOTH, np.float32) * rng.uniform(0.9, 1.1, (60, 90, 1))
    cg = ClothGain(plate, np.ones((60, 90), bool))
    small = _gained(plate, gain)
    small[:, : int(round(cover * 90))] = (30, 40, 50)  # a dark coat over the left part
    got = cg.measure(small)
    if not want:
        assert got is None
        return
    assert got is not None and np.allclose(got, gain, atol=0.02)


def test_update_rescales_only_beyond_noise_and_never_brightens():
    plate = np.full((40, 40, 3), RED_CLOTH, np.float32)
    cg = ClothGain(plate, np.ones((40, 40), bool))
    assert cg.update(_gained(plate, (0.98, 1.02, 1.0))) is None  # noise: model as fitted
    g = cg.update(_gained(plate, (0.8, 0.8, 0.8)))
    assert g is not None and np.allclose(g, 0.8, atol=0.02)  # uint8 rounding
    assert cg.update(_gained(plate, (0.81, 0.79, 0.8))) is None  # within STEP of applied
    g = cg.update(_gained(plate, (1.2, 1.2, 1.2)))  # brighter than the model: back to 1
    assert g is not None and np.allclose(g, 1.0)
