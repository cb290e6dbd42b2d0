"""Marking search on poses a wrong guess can produce (calibration.markings)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.markings import line_score


@pytest.mark.parametrize(
    ("scale", "searched"),
    [
        (0.5, True),  # 0.5 px/mm: a 1080p camera over a 12 ft table
        (1e6, False),  # a million px/mm (a pose seen edge-on): more than the picture has
        (np.inf, False),  # a point at infinity
    ],
)
def test_a_line_is_searched_only_where_the_pose_fits_the_picture(scale, searched):
    """A grey 1080p picture with a dark line along y = 500 px; a pose of ``scale`` px/mm.
    A pose whose search band is wider than the picture is no evidence (score 0), not an
    allocation of gigabytes."""
    light = np.full((1080, 1920), 120.0, np.float32)
    light[499:502, :] = 40.0

    def to_px(xy: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.asarray(xy, float) * scale + (0.0, 500.0 - 1000.0 * scale)

    score, _ = line_score(light, to_px, (200.0, 1000.0), (3000.0, 1000.0))
    assert (score > 6.0) == searched
