"""The number vote's held-out sequences (``models.ballnet.numseq``): balls roll without
slipping on paths that stay apart, and the tracker's reading replayed on true tracks gives
numbers, keeps them unique, and leaves a ball unread when the reader is unsure."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from models.ballnet.numseq import FPS, paths, rolled, score, vote
from vision.numbers.reader import NUM_PATCH


@pytest.mark.parametrize(
    "step, turn_deg, axis",
    [
        ((34.0 * np.pi / 2, 0.0), 90.0, (0.0, 1.0, 0.0)),  # a quarter turn along +x
        ((0.0, -34.0 * np.pi), 180.0, (1.0, 0.0, 0.0)),  # half a turn along -y
        ((0.0, 0.0), 0.0, None),
    ],
)
def test_rolling_turns_the_ball_by_the_distance_over_its_radius(step, turn_deg, axis):
    R = 34.0
    rot = rolled(np.eye(3), np.array(step), R)
    assert np.allclose(rot.T @ rot, np.eye(3), atol=1e-9)
    angle = np.degrees(np.arccos(np.clip((np.trace(rot) - 1) / 2, -1, 1)))
    assert angle == pytest.approx(turn_deg, abs=1e-6)
    if axis is not None:  # the axis lies across the path, z x direction
        assert np.allclose(rot @ np.array(axis), axis, atol=1e-9)
        # the ball's top moves the way the ball goes
        top = rot @ np.array([0.0, 0.0, 1.0])
        d = np.array(step) / np.hypot(*step)
        assert float(top[:2] @ d) >= -1e-9


def test_paths_stay_on_the_cloth_apart_and_slow_to_rest():
    table = load_table("pyramid-12ft")
    R = table.ball_radius
    frames = 60
    for seed in range(3):
        tr = paths(table, frames, np.random.default_rng(seed))
        assert len(tr) >= 12  # most of the 16 balls find a path
        for b, xy in tr.items():
            assert xy.shape == (frames, 2)
            assert (xy > R).all() and (xy[:, 0] < table.length_mm - R).all()
            assert (xy[:, 1] < table.width_mm - R).all()
            speed = np.hypot(*np.diff(xy, axis=0).T) * FPS
            assert (np.diff(speed) <= 1e-6).all()  # never speeds up
            for c, q in tr.items():
                if c != b:
                    assert np.hypot(*(xy - q).T).min() >= 2.2 * R - 1e-9


class FakeReader:
    """Reads each patch as the number painted in its first pixel's blue channel (0: none)
    with ``p``; ``max_step_radii`` and no second look, as ``NumberReader``."""

    second_look = False
    max_step_radii = 0.5

    def __init__(self, p: float) -> None:
        self.p = p

    def read_cut(self, patches: np.ndarray, turns: int = 4, second=None) -> np.ndarray:
        out = np.full((len(patches), 16), (1 - self.p) / 15)
        out[np.arange(len(patches)), patches[:, 0, 0, 0].astype(int)] = self.p
        return np.log(out / out.sum(axis=1, keepdims=True))


def sequence(painted: list[list[int]], r_px: float = 15.0, step_px: float = 0.0) -> dict:
    """One scene of balls numbered 1.. whose patches read ``painted[ball][frame]``."""
    B, F = len(painted), len(painted[0])
    x = np.zeros((B, F, NUM_PATCH, NUM_PATCH, 3), np.uint8)
    x[:, :, 0, 0, 0] = np.array(painted)
    uv = np.zeros((B, F, 2), np.float32)
    uv[:, :, 0] = np.arange(B)[:, None] * 100 + np.arange(F)[None] * step_px
    return {
        "x": x,
        "uv": uv,
        "r": np.full((B, F), r_px, np.float32),
        "visible": np.ones((B, F), bool),
        "smear": np.zeros((B, F), np.float32),
        "number": np.arange(1, B + 1).astype(np.int8),
        "height": np.full(B, 1080, np.int16),
        "scene": np.zeros(B, np.int32),
    }


@pytest.mark.parametrize(
    "painted, p, r_px, step_px, want",
    [
        ([[1] * 6, [2] * 6], 0.95, 15.0, 0.0, {0: 1, 1: 2}),  # sure at rest
        ([[1] * 6, [2] * 6], 0.6, 15.0, 0.0, {0: None, 1: None}),  # one unsure view
        ([[1] * 6, [1] * 6], 0.95, 15.0, 0.0, {0: 1, 1: None}),  # a number is held once
        ([[1] * 6, [2] * 6], 0.95, 10.0, 0.0, {0: None, 1: None}),  # under the floor
        ([[1] * 6, [2] * 6], 0.95, 15.0, 9.0, {0: None, 1: None}),  # too fast to read
        ([[0] * 6, [2] * 6], 0.95, 15.0, 0.0, {0: None, 1: 2}),  # no figure seen
    ],
)
def test_vote_replays_the_trackers_reading(painted, p, r_px, step_px, want):
    data = sequence(painted, r_px, step_px)
    held = vote(data, FakeReader(p), min_r=11.5)
    assert held == want
    s = score(data, held)["1080p all"]
    right = sum(held[i] == i + 1 for i in held)
    wrong = sum(held[i] is not None and held[i] != i + 1 for i in held)
    assert s["balls"] == len(painted)
    assert s["right"] == pytest.approx(right / len(painted))
    assert s["wrong"] == pytest.approx(wrong / len(painted))


def test_score_counts_only_balls_whose_number_was_visible():
    data = sequence([[1] * 4, [2] * 4, [3] * 4], 15.0, 0.0)
    data["visible"][2] = False
    s = score(data, {0: 1, 1: 5, 2: None})["1080p all"]
    assert s == {"balls": 2, "right": 0.5, "wrong": 0.5, "unread": 0.0}


def test_score_reports_balls_never_visible_and_every_ball():
    """A reader sure of a figure nobody could see is wrong all the same: those balls are
    counted apart (``never visible``) and with the rest (``every ball``)."""
    data = sequence([[1] * 4, [2] * 4, [3] * 4], 15.0, 0.0)
    data["visible"][1:] = False
    s = score(data, {0: 1, 1: 7, 2: None})
    assert s["1080p never visible"] == {"balls": 2, "right": 0.0, "wrong": 0.5, "unread": 0.5}
    assert s["1080p every ball"]["balls"] == 3 and s["1080p every ball"]["wrong"] == 1 / 3


def test_limit_pictures_shrink_blur_and_compress_one_frame():
    """``models.ballnet.numlimits``: each 720p variant is the 1080p frame shrunk by 2/3
    (the up15 one then grown 1.5x); the clean one only shrunk, the others blurred and/or
    compressed; a disc cut from each at its scale lands on the same ball."""
    import cv2

    from models.ballnet.numlimits import PICTURES, pictures

    img = np.full((1080, 1920, 3), 60, np.uint8)
    cv2.circle(img, (960, 540), 15, (230, 230, 230), -1)
    cv2.putText(img, "8", (954, 547), cv2.FONT_HERSHEY_PLAIN, 1.0, (25, 25, 30), 2)
    pics = pictures(img, 0.7, 50)
    assert set(pics) == set(PICTURES)
    sizes = {k: (im.shape[1], im.shape[0], s) for k, (im, s) in pics.items()}
    assert sizes["1080"] == (1920, 1080, 1.0)
    assert sizes["720"][:2] == (1280, 720) and sizes["720_up15"][:2] == (1920, 1080)
    clean = pics["720_clean"][0]
    assert np.array_equal(clean, cv2.resize(img, (1280, 720), interpolation=cv2.INTER_AREA))
    for k in ("720", "720_noblur", "720_nojpeg"):
        assert not np.array_equal(pics[k][0], clean)
    for im, s in pics.values():  # the ball's centre is white at every scale
        assert im[int(round(530 * s)), int(round(960 * s))].mean() > 150


def test_varied_sequence_is_printed_by_one_maker_and_visible_only_when_legible():
    from models.ballnet.numdata import LEGIBLE_PX
    from models.ballnet.numseq import scene

    for seed in (3, 4, 5):
        d = scene(seed, 2, height=1080, varied=True)
        assert len(set(d["figure_r"].tolist())) == 1  # one maker for the whole set
        fig_px = d["r"] * d["figure_r"][:, None] / 0.94  # the cut's radius runs 0.88-1.0 small
        assert not (d["visible"] & (fig_px < LEGIBLE_PX * 0.9)).any()
