"""The replay's cheaper paths give the answers of the plain ones: the rack split reuses
the plain split's k-means runs where filling holes changed no pixel (each k run once,
the same centres), and the streak watch's all-balls-at-once presence test loses exactly
the balls the ball-by-ball test lost."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from contract.tables import load_table
from vision.capture.source import Detections
from vision.detect import packed as P
from vision.detect import split as S
from vision.detect.streak import RESTED, StreakWatch


def _rack(r: float, hole: bool, gap: float = 1.6) -> np.ndarray:
    """A triangle of 15 disks of radius ``r`` px (uint8), ``gap`` radii apart (under sqrt 3:
    overlapping, no gap between three balls); ``hole``: the middle ball a thin ring (a
    dark ball on dark cloth: an enclosed hole to fill)."""
    c = [
        (4 * r + gap / 2 * r * np.sqrt(3) * i, 4 * r + gap * r * (j - i / 2))
        for i in range(5)
        for j in range(i + 1)
    ]
    h, w = int(12 * r), int(14 * r)
    yy, xx = np.mgrid[0:h, 0:w]
    m = np.zeros((h, w), np.uint8)
    for k, (x, y) in enumerate(c):
        d2 = (xx - x) ** 2 + (yy - y) ** 2
        m[(d2 <= r * r) & ((d2 >= (0.8 * r) ** 2) if hole and k == 4 else True)] = 1
    return m


@pytest.mark.parametrize("r, hole", [(4.5, False), (5.0, False), (4.5, True), (5.0, True)])
def test_the_rack_split_runs_each_k_means_once_where_no_hole_was_filled(r, hole, monkeypatch):
    mask = _rack(r, hole)
    assert (P.fill_holes(mask, np.pi * r * r) is mask) != hole
    runs: list[tuple[bytes, int]] = []
    kmeans, best_split = S._kmeans, S._best_split

    def counted(pts, k, coarse=False, start=None):
        runs.append((pts.tobytes(), k))
        return kmeans(pts, k, coarse, start)

    monkeypatch.setattr(S, "_kmeans", counted)
    got = S.fit_blob(mask, r)
    reused = list(runs)
    runs.clear()  # the plain way: every split runs its own k-means
    monkeypatch.setattr(S, "_best_split", lambda *a: best_split(*a[:6]))
    want = S.fit_blob(mask, r)
    np.testing.assert_array_equal(got.centres, want.centres)
    assert (got.actor, got.residual, got.partial) == (want.actor, want.residual, want.partial)
    assert not got.actor and len(got.centres) >= 10  # split as a cluster of balls
    assert len(reused) == len(set(reused))  # no k-means run twice on the same pixels
    if not hole:  # the packed split ran on the same pixels: the plain runs repeated
        assert len(runs) > len(set(runs)) and set(runs) == set(reused)


TABLE = load_table("pyramid-12ft")
D = TABLE.ball_mm


def _dets(frame: int, xy, cls, blurred=None) -> Detections:
    xy = np.asarray(xy, float).reshape(-1, 2)
    n = len(xy)
    return Detections(
        frame,
        frame / 30.0,
        xy.copy(),  # video px = table mm here (the fake detector's scale 1, bbox at 0)
        xy,
        np.full(n, D / 2),
        np.array(cls, object),
        np.ones(n),
        np.zeros(n, bool) if blurred is None else np.array(blurred, bool),
        np.zeros((0, 4)),
    )


def _fake_detector() -> SimpleNamespace:
    return SimpleNamespace(table=TABLE, scale=1.0, _bbox=(0, 0, 4000, 2000), thr=30.0)


def _lost_by_ball(watch: StreakWatch, det, prev: Detections, prev_d, dets) -> list[int]:
    """The plain rule, ball by ball: the indices of ``prev`` a lost ball is made of."""
    out = []
    pockets = np.array([p.centre for p in TABLE.pockets], float)
    for i in range(len(prev)):
        p, c = prev.xy[i], prev.cls[i]
        if prev.blurred[i] or not np.all(np.isfinite(p)) or not watch._rested(p, c):
            continue
        if len(dets) and np.any((dets.cls == c) & (np.hypot(*(dets.xy - p).T) < D)):
            continue
        if np.hypot(*(pockets - p).T).min() < 2.0 * D:
            continue
        out.append(i)
    return out


BALLS = [(1000.0, 500.0), (1200.0, 900.0), (2000.0, 1200.0), (2500.0, 700.0)]


@pytest.mark.parametrize(
    "now, cls_now, blurred, lost",
    [
        (BALLS, ["w", "w", "w", "yellow"], None, []),  # all still there
        (BALLS[1:], ["w", "w", "yellow"], None, [0]),  # the first gone
        ([], [], None, [0, 1, 2, 3]),  # all gone
        (BALLS, ["w", "w", "w", "w"], None, [3]),  # a white ball where the yellow was
        ([(1000.0 + 0.9 * D, 500.0)], ["w"], None, [1, 2, 3]),  # moved under a diameter
        ([(1000.0 + 1.1 * D, 500.0)], ["w"], None, [0, 1, 2, 3]),  # moved beyond one
        ([], [], [True, False, False, False], [1, 2, 3]),  # a smear is not looked for
        ([(np.nan, np.nan)], ["w"], None, [0, 1, 2, 3]),  # a detection off the picture
    ],
)
def test_the_balls_lost_are_those_the_ball_by_ball_test_loses(now, cls_now, blurred, lost):
    watch, det = StreakWatch(), _fake_detector()
    cls = ["w", "w", "w", "yellow"]
    for f in range(RESTED):
        watch._history.append(_dets(f, BALLS, cls))
    prev = _dets(RESTED, BALLS, cls, blurred)
    dets = _dets(RESTED + 1, now, cls_now)
    prev_d = np.zeros((2000, 4000), np.float32)  # a dark ball: low contrast everywhere
    got = watch._newly_lost(det, prev, prev_d, dets)
    assert _lost_by_ball(watch, det, prev, prev_d, dets) == lost
    assert sorted(tuple(b.at) for b in got) == sorted(tuple(prev.uv[i]) for i in lost)


def _big_blob(r: float) -> np.ndarray:
    """A compact blob of about 20 balls' area (an arm's or a body's: larger than a rack)."""
    m = np.zeros((int(12 * r), int(12 * r)), np.uint8)
    cv2.ellipse(m, (int(6 * r), int(6 * r)), (int(5 * r), int(4 * r)), 20, 0, 360, 1, -1)
    return m


@pytest.mark.parametrize("r", [4.0, 4.5, 5.0])
def test_a_blob_larger_than_a_rack_starts_its_k_means_from_last_frames_centres(r, monkeypatch):
    mask = _big_blob(r)
    assert S.KMEANS_BALLS < mask.sum() / (np.pi * r * r) <= S.MAX_BALLS_PER_BLOB
    first = S.fit_blob(mask, r)
    flags: list[int] = []
    kmeans = cv2.kmeans

    def seen(pts, k, labels, crit, attempts, how):
        flags.append(how)
        return kmeans(pts, k, labels, crit, attempts, how)

    monkeypatch.setattr(S.cv2, "kmeans", seen)
    again = S.fit_blob(mask, r, warm=first.splits)
    assert flags and set(flags) == {cv2.KMEANS_USE_INITIAL_LABELS}
    # started at its own centres, each run ends near them (the seeded runs stop at a
    # tolerance, so one more step moves them a little)
    for k, c in first.splits.items():
        d = cdist(again.splits[k], c)
        rows, cols = linear_sum_assignment(d)
        assert d[rows, cols].max() < 0.5 * r
    assert again.actor == first.actor and len(again.centres) == len(first.centres)


def test_a_rack_sized_blob_ignores_the_warm_start():
    r = 4.5
    mask = _rack(r, False)
    plain = S.fit_blob(mask, r)
    far = {k: c + 3.0 for k, c in plain.splits.items()}  # a start a rack would follow
    np.testing.assert_array_equal(S.fit_blob(mask, r, warm=far).centres, plain.centres)


@pytest.mark.parametrize(
    "boxes, at, want",
    [
        ([(10, 10, 20, 20)], (12, 11, 20, 20), (10 - 12, 10 - 11)),  # moved by (2, 1)
        ([(10, 10, 20, 20), (100, 10, 20, 20)], (95, 12, 20, 20), (5, -2)),  # the nearer
        ([(10, 10, 20, 20)], (40, 40, 20, 20), None),  # no overlap: no start
    ],
)
def test_the_warm_start_is_the_most_overlapping_blob_of_last_frame_moved_to_the_crop(
    boxes, at, want
):
    from vision.detect.detector import _warm_start

    last = {
        (*b, 300): S.BlobFit(np.zeros((0, 2)), splits={3: np.full((3, 2), 7.0) + j})
        for j, b in enumerate(boxes)
    }
    got = _warm_start(last, *at)
    if want is None:
        assert got is None
    else:
        j = int(np.argmax([min(at[0] + at[2], b[0] + b[2]) - max(at[0], b[0]) for b in boxes]))
        np.testing.assert_array_equal(got[3], np.full((3, 2), 7.0) + j + np.array(want))
