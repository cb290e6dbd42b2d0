"""The number reader's data recipe (``models.ballnet.numdata``): the hard views' pole tilt
and the labels of one ball (readable, not readable, ignored)."""

from __future__ import annotations

import numpy as np
import pytest

from models.ballnet.numdata import HARD_TILT_DEG, label, tilted_rot


def pole_off_deg(rot: tuple[float, ...], view: np.ndarray) -> float:
    """Degrees between the nearer pole (body z, either sign) and the unit ``view``."""
    z = np.asarray(rot).reshape(3, 3)[:, 2]
    return float(np.degrees(np.arccos(min(1.0, abs(float(z @ view))))))


@pytest.mark.parametrize(
    "view, lo, hi",
    [
        ((0.0, 0.0, 1.0), *HARD_TILT_DEG),  # camera straight above
        ((0.6, 0.0, 0.8), *HARD_TILT_DEG),  # camera 37 degrees off the vertical
        ((-0.3, 0.4, 0.866), 0.0, 5.0),
        ((0.0, -0.5, 0.866), 28.0, 31.0),
    ],
)
def test_tilted_rot_turns_the_pole_within_the_range(view, lo, hi):
    v = np.asarray(view, float)
    v /= np.linalg.norm(v)
    rng = np.random.default_rng(7)
    for _ in range(50):
        rot = tilted_rot(v, lo, hi, rng)
        m = np.asarray(rot).reshape(3, 3)
        assert np.allclose(m.T @ m, np.eye(3), atol=1e-9)  # a rotation, not mirrored
        assert np.linalg.det(m) == pytest.approx(1.0)
        assert lo - 1e-6 <= pole_off_deg(rot, v) <= hi + 1e-6


UP = np.array([0.0, 0.0, 1.0])


def rot_off(deg: float) -> tuple[float, ...]:
    """A rotation whose pole is ``deg`` degrees off straight up."""
    t = np.radians(deg)
    return (1.0, 0.0, 0.0, 0.0, np.cos(t), np.sin(t), 0.0, -np.sin(t), np.cos(t))


@pytest.mark.parametrize(
    "number, off_deg, smear_r, covered, r_px, want",
    [
        (7, 10.0, 0.0, 0.0, 14.0, 7),  # facing, sharp, 1080p size: readable
        (7, 30.0, 0.2, 0.0, 10.2, 7),  # the hard views: 30 degrees, slow roll, 720p size
        (7, 35.0, 0.0, 0.0, 14.0, -1),  # between readable and turned away: ignored
        (7, 60.0, 0.0, 0.0, 14.0, 0),  # turned away
        (7, 10.0, 0.3, 0.0, 14.0, -1),  # smeared a little too much: ignored
        (7, 10.0, 0.6, 0.0, 14.0, 0),  # smeared
        (7, 10.0, 0.0, 0.2, 14.0, -1),  # a player over the ball: ignored
        (7, 10.0, 0.0, 0.0, 9.0, -1),  # 9 px: neither sure nor readable
        (7, 10.0, 0.0, 0.0, 8.0, 0),  # too small
        (None, 0.0, 0.0, 0.0, 14.0, 0),  # a yellow
    ],
)
def test_label_of_one_ball(number, off_deg, smear_r, covered, r_px, want):
    assert label(number, rot_off(off_deg), UP, smear_r, covered, r_px) == want


@pytest.mark.parametrize(
    "figure_px, r_px, smear_r, want",
    [
        (6.0, 14.0, 0.0, 7),  # a figure six pixels tall: readable
        (5.0, 9.0, 0.0, 7),  # a large print on a small ball: the figure decides, not r
        (4.2, 14.0, 0.0, -1),  # between legible and too small: not used
        (4.2, 14.0, 0.6, 0),  # ... unless smeared
        (3.0, 14.0, 0.0, 0),  # a small print on a 1080p ball: none readable
        (3.0, 30.0, 0.0, 0),  # whatever the ball's size
    ],
)
def test_varied_label_is_decided_by_the_figures_size(figure_px, r_px, smear_r, want):
    assert label(7, rot_off(10.0), UP, smear_r, 0.0, r_px, figure_px) == want


class _LabelReader:
    """Reads each patch as the number written in its first pixel (0: none), sure, except
    patches whose second pixel is set: read as 15 with p 0.95."""

    def read_patches(self, x):
        out = np.full((len(x), 16), np.log(0.05 / 15))
        n = np.where(x[:, 0, 1, 0] > 0, 15, x[:, 0, 0, 0]).astype(int)
        out[np.arange(len(x)), n] = np.log(0.95)
        return out


def test_held_out_by_view_counts_right_sure_and_wrong():
    from models.ballnet.numdata import by_view

    k = 10
    x = np.zeros((k, 32, 32, 3), np.uint8)
    number = np.array([3, 3, 7, 7, 9, 9, 0, 0, 12, 5])
    x[:, 0, 0, 0] = number
    x[9, 0, 1, 0] = 1  # ball 5 read as 15
    data = {
        "x": x,
        "number": number,
        "height": np.full(k, 1080),
        "tilt": np.array([5, 15, 22, 28, 28, 15, 60, 70, 5, 30], float),
        "smear": np.array([0, 0, 0, 0, 0.2, 0, 0, 0, 0, 0], float),
    }
    got = by_view(data, _LabelReader())["1080p"]
    assert got["all"]["readable"] == 8
    assert got["all"]["right"] == pytest.approx(7 / 8)
    assert got["all"]["sure"] == 1.0 and got["all"]["sure_wrong"] == pytest.approx(1 / 8)
    assert got["25-32 deg"]["readable"] == 3 and got["25-32 deg at rest"]["readable"] == 2
    assert got["rolling"]["readable"] == 1 and got["rolling"]["right"] == 1.0
    assert got["none when none"] == {"n": 2, "right": 1.0}
    assert by_view(data, _LabelReader())["720p"] == {"none when none": {"n": 0, "right": None}}


@pytest.mark.parametrize("deg", [0.0, 17.0, 32.0, 60.0, 90.0])
def test_tilt_is_the_nearer_pole_off_the_line_of_sight(deg):
    from models.ballnet.numdata import tilt_deg

    t = np.radians(deg)
    view = np.array([0.0, 0.0, 1.0])
    for sign in (1, -1):  # either pole
        pole = sign * np.array([np.sin(t), 0.0, np.cos(t)])
        e1 = np.array([0.0, 1.0, 0.0])
        rot = np.c_[e1, np.cross(pole, e1), pole].ravel()
        assert tilt_deg(rot, view) == pytest.approx(deg, abs=1e-6)
