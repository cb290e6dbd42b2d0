"""Packing a rack's blob (``vision.detect.packed``): a split of the hole-filled blob is taken only
where it finds balls the plain split misses, never for a tight rack whose every ball shows
whole (the generated break clips: one more centre squeezed between two racked balls cost
contacts)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist
from vision_scene import draw_scene, rack, topdown_calib

from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect import packed as P
from vision.detect import split as S
from vision.detect.detector import Detector

R = 5.0  # ball radius, work px


def _disks(centres, shape, r: float = R, core: float = 0.0) -> np.ndarray:
    """uint8 mask of disks of radius ``r`` at ``centres``, each with a hole of ``core`` r."""
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]]
    m = np.zeros(shape, np.uint8)
    for x, y in centres:
        d2 = (xx - x) ** 2 + (yy - y) ** 2
        m[(d2 <= r * r) & (d2 >= (core * r) ** 2)] = 1
    return m


ROW = [(8.0, 8.0), (18.0, 8.0), (28.0, 8.0)]  # three touching balls


def _ring_row() -> np.ndarray:
    """The row with its middle ball a thin ring (a dark ball on dark cloth), holes filled."""
    m = np.maximum(_disks(ROW[::2], (17, 37)), _disks(ROW[1:2], (17, 37), core=0.8))
    return P.fill_holes(m, np.pi * R * R)


@pytest.mark.parametrize(
    "plain, more, ok",
    [
        (ROW[::2], ROW, True),  # the ring's ball found: a hole the plain disks leave
        (ROW, ROW, False),  # no ball more
        (ROW[::2], [*ROW[::2], (14.0, 8.0)], False),  # 1.2 r from a ball: one ball in two
        (ROW, [*ROW, (18.0, 8.0 + 1.6 * R)], False),  # on cloth and covered foreground only
    ],
)
def test_a_packed_split_is_taken_only_where_it_finds_balls_the_plain_one_misses(plain, more, ok):
    filled = _ring_row()
    assert P.accept(filled, R, np.array(plain), np.array(more)) == ok


def test_accept_needs_each_added_ball_on_uncovered_foreground():
    filled = _ring_row()
    plain = np.array(ROW[::2])
    # a second added ball beside the ring's, on cloth: the ring's alone is not enough
    more = np.array([*ROW, (18.0, 8.0 + 2 * R)])
    assert not P.accept(filled, R, plain, more)


def _tight_rack(r: float) -> tuple[np.ndarray, np.ndarray]:
    c = np.array(
        [
            (4 * r + r * np.sqrt(3) * i, 4 * r + 2 * r * (j - i / 2))
            for i in range(5)
            for j in range(i + 1)
        ]
    )
    shape = (int(np.ceil(c[:, 1].max() + 4 * r)), int(np.ceil(c[:, 0].max() + 4 * r)))
    return _disks(c, shape, r), c


@pytest.mark.parametrize("r", [3.75, 4.0, 4.5, 4.75, 5.0, 5.5, 6.0])
def test_packing_leaves_a_tight_rack_of_whole_balls_as_split_plainly(r, monkeypatch):
    mask, _ = _tight_rack(r)
    fit = S.fit_blob(mask, r)
    monkeypatch.setattr(P, "PACKED", False)
    plain = S.fit_blob(mask, r)
    assert len(fit.centres) == 15  # (where k-means settles with two centres on one ball
    np.testing.assert_array_equal(fit.centres, plain.centres)  # packing does not mend it)


def test_the_filled_rack_split_that_re_tiles_a_tight_rack_is_refused():
    r = 4.5  # here the filled blob's best split has 16 centres (two on one ball)
    mask, _ = _tight_rack(r)
    ys, xs = np.nonzero(mask)
    pts = np.stack((xs, ys), axis=1).astype(np.float32)
    n = len(pts) / (np.pi * r * r)
    lo, hi = int(np.floor(n * 0.75)), int(np.ceil(n * 1.1))
    plain, _ = S._best_split(mask, pts, r, lo, hi, False)
    filled, top = P.packed(mask, r, lo, hi)
    fy, fx = np.nonzero(filled)
    more, _ = S._best_split(filled, np.stack((fx, fy), 1).astype(np.float32), r, lo, top, False)
    assert len(plain) == 15 and len(more) == 16  # the re-tiling this guards against
    assert not P.accept(filled, r, plain, more)


TABLE = load_table("pyramid-12ft")


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
@pytest.mark.parametrize("apex", [(0.75, 0.5), (0.7, 0.4)])
def test_a_full_rack_and_the_cue_ball_are_sixteen_balls(size, apex):
    calib = topdown_calib(TABLE, size)
    det = Detector(calib, TABLE, size)
    det.fit_background([draw_scene(calib, TABLE, size, [], seed=1)])
    pos = rack(TABLE, (apex[0] * TABLE.L, apex[1] * TABLE.W))
    balls = [(x, y, "white") for x, y in pos] + [(TABLE.L / 4, TABLE.W / 2, "yellow")]
    d = det.detect(Frame(0, 0.0, draw_scene(calib, TABLE, size, balls)))
    assert len(d) == 16
    dist = cdist(d.xy, np.array([(x, y) for x, y, _ in balls]))
    i, j = linear_sum_assignment(dist)
    assert dist[i, j].max() < 0.25 * TABLE.ball_radius  # mm: every ball has its centre
