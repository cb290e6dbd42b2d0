"""Knowing when the reader cannot read (``vision.numbers.reader``): a figure smaller or
fainter than those the reader learnt is "no number readable", whatever its net says; a
number is known either read off the ball or by elimination, and says which."""

from __future__ import annotations

import numpy as np
import pytest

import tests.vision.test_numbers_unwarp as tnu
from tests.vision.test_numbers import look
from tests.vision.test_numbers_unwarp import ball_patch
from vision.numbers import unwarp
from vision.numbers.reader import (
    INK_SHARE_MIN,
    INK_SPREAD_MIN,
    NumberReader,
    NumberVote,
    assign_numbers_how,
    ink_size,
    legible_size,
    unreadable_where,
)


def figure_patch(cap: float, tilt: float = 0.0) -> np.ndarray:
    """``ball_patch`` with a dark cap of ``cap`` radians about the pole."""
    old, tnu.CAP = tnu.CAP, cap
    try:
        return ball_patch(tilt)
    finally:
        tnu.CAP = old


def test_ink_spread_grows_with_the_figure():
    """A round cap of angular radius a, seen face on, is a disc of radius sin a: its rms
    spread is sin(a) / sqrt(2), its share of the inner disc sin(a)^2 / 0.85^2."""
    for cap in (0.12, 0.2, 0.3):
        share, spread = ink_size(figure_patch(cap))
        assert spread == pytest.approx(np.sin(cap) / np.sqrt(2), abs=0.03)
        assert share == pytest.approx(np.sin(cap) ** 2 / unwarp.INK_DISC**2, abs=0.02)


def test_no_ink_no_size():
    assert ink_size(ball_patch(80)) == (0.0, 0.0)  # the cap on the far side


@pytest.mark.parametrize(
    "cap, legible",
    [
        (0.05, False),  # a speck: 5 % of a radius across (a foreign render's far figure)
        (0.09, False),  # under INK_SPREAD_MIN
        (0.2, True),  # about a printed figure's size (0.45 r tall)
        (0.3, True),
    ],
)
def test_only_figures_the_size_the_reader_learnt_are_legible(cap, legible):
    assert legible_size(figure_patch(cap)) is legible
    share, spread = ink_size(figure_patch(cap))
    assert (share >= INK_SHARE_MIN and spread >= INK_SPREAD_MIN) is legible


def test_unreadable_rows_say_none():
    lp = np.stack([look(7, 0.95), look(3, 0.9)])
    out = unreadable_where(lp, np.array([True, False]))
    assert np.exp(out[0, 0]) == pytest.approx(1.0)
    assert np.allclose(out[1], lp[1])
    assert np.allclose(lp[0], look(7, 0.95))  # the input is left as it was


def test_reader_says_none_for_a_speck():
    """However sure the net is of a speck, the reader reports no number readable."""
    reader = NumberReader.load()
    logp = reader.read_cut(np.stack([figure_patch(0.05), figure_patch(0.05, tilt=20)]))
    assert np.allclose(np.exp(logp[:, 0]), 1.0)


def rest_vote(n: int, p: float) -> NumberVote:
    v = NumberVote()
    for _ in range(6):
        v.add(look(n, p), np.array([100.0, 200.0]), 15.0, still=True)
    return v


def test_a_number_says_how_it_is_known():
    got = assign_numbers_how({1: rest_vote(4, 0.99)}, taken=set())
    assert got == {1: (4, "read")}
    # 14 numbers held elsewhere: the last ball looked at takes the last one by elimination
    last = assign_numbers_how({2: rest_vote(0, 0.99)}, taken=set(range(1, 15)))
    assert last == {2: (15, "elimination")}
    assert assign_numbers_how({2: rest_vote(0, 0.99)}, taken=set(range(1, 14))) == {}
