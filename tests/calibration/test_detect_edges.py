"""Finding the cushion nose on lightness profiles and the cloth outline under drifting
light: the cases met on the snooker-small-ceiling stills (a shadow band under a dark
cushion top, projected rings along one cushion, cloth hue drifting across the table)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.detect import _nose_index, _one_reading, find_quad


def _profile(levels: list[tuple[float, float]], s: np.ndarray) -> np.ndarray:
    """Lightness gain going outward (``d``) of a profile with steps: (position px inward
    from the side's line, lightness inside it); index grows inwards, 0.5 px samples."""
    light = np.full(len(s), levels[0][1], np.float32)
    for pos, val in levels[1:]:
        light[s >= pos] = val
    light = cv2.GaussianBlur(light[None], (5, 1), 0.8)[0]
    return -np.gradient(light)


S = np.arange(-10, 60, 0.5)


@pytest.mark.parametrize(
    ("name", "levels", "nose_px", "band_px"),
    [
        # rail 45 | dark cushion top 105 | shadow band 120 | cloth 147 (left end, 15.png)
        ("band under a dark top", [(0, 45), (0.0, 105), (23.0, 120), (34.0, 147)], 34.0, 23.0),
        # rail | lit top 130 | shadow band 80 | cloth 128 (right end): the brightening
        ("band under a lit top", [(0, 55), (0.0, 130), (22.0, 80), (33.0, 128)], 22.0, None),
        # rail | cushion top 0.7 of the cloth | cloth, no band (synthetic plates)
        ("plain darker top", [(0, 40), (0.0, 100), (24.0, 143)], 24.0, None),
    ],
)
def test_nose_index_reads_each_profile(name, levels, nose_px, band_px):
    d = _profile(levels, S)
    hit = _nose_index(d, 0.3, S >= 8.0, band_max=30)
    assert hit is not None, name
    assert abs(S[hit[0]] - nose_px) <= 1.0, name
    if band_px is None:
        assert hit[1] is None, name
    else:
        assert hit[1] is not None and abs(S[hit[1]] - band_px) <= 1.0, name


def test_band_wider_than_allowed_is_not_a_band():
    # the cushion top's outer edge 24 px out is the rail, not a shadow band's step
    d = _profile([(0, 40), (0.0, 100), (24.0, 143)], S)
    hit = _nose_index(d, 0.3, S >= 8.0, band_max=20)
    assert hit is not None and abs(S[hit[0]] - 24.0) <= 1.0 and hit[1] is None


def _side(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.c_[x, y].astype(float)


def test_one_reading_uses_band_steps_of_the_profiles_on_the_line():
    y = np.linspace(100, 600, 40)
    first = _side(np.full(40, 71.0), y)
    first[::5, 0] = 100.0  # balls on the cloth near the cushion
    band = [np.array([60.0, yy]) for yy in y]
    out = _one_reading(first, band)
    # the 8 profiles that met a ball first are not read at all
    assert len(out) == 32 and np.allclose(out[:, 0], 60.0)


def test_one_reading_keeps_first_edges_without_a_band():
    y = np.linspace(100, 600, 40)
    first = _side(np.full(40, 71.0), y)
    band: list[np.ndarray | None] = [None] * 40
    band[3] = np.array([60.0, y[3]])
    out = _one_reading(first, band)
    assert np.array_equal(out, first)


def _cloth_with_drifting_hue(w: int = 960, h: int = 540) -> np.ndarray:
    """A 2:1 cloth on a dark surround whose hue drifts from 88 to 60 (OpenCV units) left
    to right, as under the projector light of the snooker stills."""
    hsv = np.zeros((h, w, 3), np.uint8)
    x0, x1, y0, y1 = 80, 880, 70, 470
    hue = np.linspace(88, 60, x1 - x0).astype(np.uint8)
    hsv[y0:y1, x0:x1, 0] = hue[None, :]
    hsv[y0:y1, x0:x1, 1] = 110
    hsv[y0:y1, x0:x1, 2] = 170
    hsv[..., 2] = np.where(hsv[..., 2] == 0, 30, hsv[..., 2])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def test_find_quad_widens_the_hue_tolerance_for_a_table_shaped_outline():
    img = _cloth_with_drifting_hue()
    narrow = find_quad(img)  # the centre's hue alone covers only the middle
    assert narrow.corners[:, 0].min() > 150 and narrow.corners[:, 0].max() < 800
    quad = find_quad(img, (1.5, 2.6))
    xs, ys = quad.corners[:, 0], quad.corners[:, 1]
    assert xs.min() < 90 and xs.max() > 870 and ys.min() < 80 and ys.max() > 460
