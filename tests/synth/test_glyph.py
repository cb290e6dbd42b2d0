"""The figures printed on pyramid balls (``synth.render_balls.pyramid_glyph``): every
number as tall as one digit, two digits condensed to fit, 6 and 9 underlined, centred."""

from __future__ import annotations

import numpy as np
import pytest

from synth.render_balls import DIGIT_H, GLYPH, MARK_GAP, MARK_H, NUMBER_W, glyph, pyramid_glyph


def ink_box(g: np.ndarray) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) rows/columns (glyph px, inclusive) holding ink > 0.5."""
    ys, xs = np.nonzero(g > 0.5)
    return int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())


@pytest.mark.parametrize("number", range(1, 16))
def test_every_figure_is_one_digit_tall_and_fits(number: int) -> None:
    g = pyramid_glyph(number)
    assert g.shape == (GLYPH, GLYPH) and g.min() >= 0.0 and g.max() <= 1.0
    top, bottom, left, right = ink_box(g)
    mark = MARK_GAP + MARK_H if number in (6, 9) else 0
    assert abs((bottom - top + 1) - (DIGIT_H + mark)) <= 1  # two digits as tall as one
    assert right - left + 1 <= NUMBER_W
    assert abs((top + bottom) / 2 - (GLYPH - 1) / 2) <= 1  # centred on the pole
    assert abs((left + right) / 2 - (GLYPH - 1) / 2) <= 1


@pytest.mark.parametrize("number", [10, 11, 12, 13, 14, 15])
def test_two_digit_numbers_are_taller_than_the_pool_style(number: int) -> None:
    """The old (pool) glyph drew two digits at 0.72 the height; pyramid balls do not."""
    pool_top, pool_bottom, _, _ = ink_box(glyph(number))
    top, bottom, _, _ = ink_box(pyramid_glyph(number))
    assert bottom - top > 1.2 * (pool_bottom - pool_top)


@pytest.mark.parametrize(
    "number, underlined", [(6, True), (9, True), (8, False), (1, False), (11, False)]
)
def test_underline_marks_6_and_9_only(number: int, underlined: bool) -> None:
    g = pyramid_glyph(number)
    top, bottom, left, right = ink_box(g)
    # the underline: a full-width solid bar at the bottom of the ink
    bar = g[bottom - MARK_H + 1 : bottom + 1, left : right + 1] > 0.5
    assert bar.all() == underlined


def test_6_is_not_9_turned() -> None:
    """Turned half a turn, the 6 carries its mark on top: it is no 9."""
    six_turned = np.rot90(pyramid_glyph(6), 2)
    nine = pyramid_glyph(9)
    assert np.abs(six_turned - nine).sum() > 0.1 * nine.sum()
