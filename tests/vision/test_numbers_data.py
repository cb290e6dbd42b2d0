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
