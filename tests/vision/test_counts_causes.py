"""The causes of wrong ball counts on the real footage (counts_real), each reproduced on
small synthetic data:

- a tight rack whose dark ball shows as a ring and whose balls of the cloth's colour are
  thinned holds less foreground than its balls, and the splitter stopped short of it
  (uk8ball frames 150/178: 13 of 15): ``vision.detect.packed``;
- a pale streak of the cloth found as a motion smear frame after frame at the same place
  grew a track of a false ball (uk8ball: 17 instead of 16): ``vision.detect.smears``;
- a ball of a rack cut off the rack's blob by the relative threshold was judged by the
  verifier alone and dropped (uk8ball frame 0: 15 of 16): ``vision.detect.packed.join_crowds``;
- a ball whose colour was read one way and then another (clip1: the pink 4 read orange,
  then red for three frames) made a second track on the same ball (11 instead of 10):
  ``vision.track.rest``.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from contract.tables import load_table
from vision.detect.detector import Detections
from vision.detect.packed import JOIN, PACKED_MAX, fill_holes, join_crowds, packed
from vision.detect.smears import MEMORY, SAME, SmearMemory
from vision.detect.split import fit_blob
from vision.track.rest import AT_REST
from vision.track.tracker import Tracker


def _rack(r: float, rows: int = 5) -> np.ndarray:
    """(N,2) work px centres of a tight triangle of touching balls of radius ``r``."""
    out = []
    for i in range(rows):
        for j in range(i + 1):
            out.append((4 * r + 2 * r * np.sqrt(3) / 2 * i * 1.0, 4 * r + 2 * r * (j - i / 2)))
    return np.array(out)


def _rack_mask(r: float, thin: float, ring_at: int | None) -> tuple[np.ndarray, np.ndarray]:
    """A rack's foreground (uint8) as the detector sees it on uk8ball: every other ball
    thinned to ``thin`` r (balls of the cloth's colour), and the ball ``ring_at`` a core
    with a gap around it inside the rack (the black ball)."""
    c = _rack(r)
    h = int(np.ceil(c[:, 1].max() + 4 * r))
    w = int(np.ceil(c[:, 0].max() + 4 * r))
    yy, xx = np.mgrid[0:h, 0:w]
    m = np.zeros((h, w), np.uint8)
    for k, (x, y) in enumerate(c):
        rr = r * (thin if k % 2 else 1.0)
        m[(xx - x) ** 2 + (yy - y) ** 2 <= rr * rr] = 1
    if ring_at is not None:
        x, y = c[ring_at]
        d2 = (xx - x) ** 2 + (yy - y) ** 2
        m[(d2 <= (0.95 * r) ** 2) & (d2 > (0.45 * r) ** 2)] = 0
    return m, c


# (ball radius work px, thinned balls' radius in r, the ring ball: 4 the middle of the
# third row, None no ring). Not every such rack comes out right: over r 4.3/4.5/5.0,
# thinning 0.75-0.9, with and without the ring, 8 of 24 give 15 with every ball's centre
# (1 with the plain split alone; 14 when any packed split was taken, which re-tiled the
# generated clips' tight racks): vision.detect.packed.accept refuses a packed split whose added
# ball covers under a quarter of a ball the plain disks leave (most ring cases: 0.2), and
# the plain split must explain the blob first (thinned to 0.75: 8 or 9 balls, no packing).
# These are the right ones whose plain counts stop short.
RACK_CASES = [
    (4.3, 0.8, 4),
    (4.3, 0.8, None),
    (4.3, 0.85, None),
    (4.5, 0.8, None),
    (4.5, 0.85, None),
    (5.0, 0.85, None),
]


@pytest.mark.parametrize("r, thin, ring", RACK_CASES)
def test_tight_rack_with_a_ring_ball_and_thinned_balls_is_split_into_fifteen(r, thin, ring):
    mask, truth = _rack_mask(r, thin, ring_at=ring)
    n_est = np.count_nonzero(mask) / (np.pi * r * r)
    assert np.ceil(1.1 * n_est) < 15  # the cause: the counts once tried stop short
    fit = fit_blob(mask, r)
    assert not fit.actor and len(fit.centres) == 15
    d = np.linalg.norm(fit.centres[:, None] - truth[None], axis=2)
    assert np.all(d.min(axis=0) < 0.6 * r)  # every ball has its centre


@pytest.mark.parametrize("n", [1, 2, 3])
def test_lone_balls_and_small_groups_keep_their_count(n):
    r = 5.0
    c = np.array([(10 + 2 * r * k, 10.0) for k in range(n)])
    yy, xx = np.mgrid[0:22, 0 : int(20 + 2 * r * n)]
    m = np.zeros(xx.shape, np.uint8)
    for x, y in c:
        m[(xx - x) ** 2 + (yy - y) ** 2 <= r * r] = 1
    assert len(fit_blob(m, r, isolated=False).centres) == n


def test_fill_holes_fills_enclosed_small_holes_only():
    m = np.zeros((40, 60), np.uint8)
    cv2.rectangle(m, (2, 2), (37, 37), 1, -1)
    m[10:13, 10:13] = 0  # a small enclosed hole: filled
    m[20:34, 20:34] = 0  # a big enclosed hole (196 px): kept
    m[0:40, 45:50] = 1  # a bar touching the crop's border ...
    m[15:20, 38:45] = 1  # ... joined to the square: the gap between is open to the border
    out = fill_holes(m, most=50)
    assert out[11, 11] == 1 and out[25, 25] == 0 and out[5, 41] == 0
    assert np.count_nonzero(out) == np.count_nonzero(m) + 9
    assert fill_holes(np.ones((5, 5), np.uint8), 10).sum() == 25  # no holes: as given


@pytest.mark.parametrize("lo, hi", [(3, 5), (10, 13)])
def test_packed_tries_at_least_the_usual_counts_and_up_to_the_filled_area(lo, hi):
    r = 4.0
    mask, _ = _rack_mask(r, 0.8, ring_at=4)
    filled, top = packed(mask, r, lo, hi)
    n = np.count_nonzero(filled) / (np.pi * r * r)
    assert np.count_nonzero(filled) > np.count_nonzero(mask)  # the ring's gap is filled
    assert top == max(lo, hi, int(np.ceil(n * PACKED_MAX)))


R_MM = 28.6  # a pool ball's radius


@pytest.mark.parametrize(
    "steps, expected",
    [
        ([(0.0, 0.0)] * 4, [False, True, True, True]),  # a streak of the cloth
        ([(2.5 * R_MM * k, 0.0) for k in range(4)], [False] * 4),  # a fast ball
        ([(1.2 * R_MM * k, 0.0) for k in range(4)], [False] * 4),  # a slower smear
        ([(0.3 * SAME * R_MM * k, 0.0) for k in range(4)], [False, True, True, True]),
    ],
)
def test_a_smear_found_again_where_one_was_stands_still(steps, expected):
    mem = SmearMemory(R_MM)
    got = [
        bool(mem.standing(np.array([[500.0 + x, 400.0 + y]]), np.array([True]), f)[0])
        for f, (x, y) in enumerate(steps)
    ]
    assert got == expected


def test_smear_memory_ignores_sharp_balls_and_forgets_old_smears():
    mem = SmearMemory(R_MM)
    at = np.array([[500.0, 400.0]])
    assert not mem.standing(at, np.array([False]), 0)[0]  # a sharp ball: not remembered
    assert not mem.standing(at, np.array([True]), 1)[0]
    assert not mem.standing(at, np.array([False]), 2)[0]  # a sharp ball is never doubted
    assert mem.standing(at, np.array([True]), 3)[0]
    assert not mem.standing(at, np.array([True]), 3 + MEMORY + 1)[0]  # forgotten


def _rows(tracker: Tracker, frames) -> list[set[str]]:
    out = []
    for k, (xy, cls) in enumerate(frames):
        rows = tracker.update(Detections.from_xy(k, k / 30.0, xy, cls))
        out.append({str(i) for i in rows.id})
    return out


BALL = np.array([580.0, 600.0])
OTHER = np.array([1500.0, 300.0])


@pytest.mark.parametrize("offset_r", [0.0, 0.2, 0.4])
def test_a_ball_read_in_another_colour_at_its_place_keeps_one_track(offset_r):
    assert offset_r < AT_REST
    frames = [([BALL, OTHER], ["orange", "white"])] * 20  # its colour is sure
    moved = BALL + [offset_r * R_MM, 0.0]
    frames += [([moved, OTHER], ["red", "white"])] * 8  # read red by turns (clip1)
    frames += [([BALL, OTHER], ["orange", "white"])] * 5
    seen = _rows(Tracker(load_table("pool-9ft")), frames)
    assert all(len(s) == 2 for s in seen[5:]), seen[20:30]


def test_a_ball_stopping_where_a_struck_ball_rested_keeps_its_own_track():
    """clip8: a ball of another colour comes to rest where the ball it struck lay; the
    rule that a detection at a resting ball's place is that ball must not give it the
    struck ball's track."""
    step = 0.6 * R_MM  # mm per frame
    frames = [([BALL, OTHER], ["orange", "white"])] * 20
    for k in range(12):  # the red one rolls in from the left
        frames.append(([BALL, BALL - [(12 - k) * step + 2 * R_MM, 0.0], OTHER], None))
    for k in range(1, 15):  # the orange one leaves, the red one stops at its place
        red = BALL - [max(0.2 * R_MM, 2 * R_MM - k * 0.5 * step), 0.0]
        frames.append(([BALL + [2 * R_MM + k * step, 0.0], red, OTHER], None))
    frames += [frames[-1]] * 10
    tracker = Tracker(load_table("pool-9ft"))
    ids = []
    for k, (xy, cls) in enumerate(frames):
        cls = cls or ["orange", "red", "white"]
        rows = tracker.update(Detections.from_xy(k, k / 30.0, np.array(xy), cls))
        ids.append(
            {str(i): np.array([x, y]) for i, x, y in zip(rows.id, rows.x, rows.y, strict=True)}
        )
    end, (orange, red, _) = ids[-1], frames[-1][0]
    assert len(end) == 3
    at_red = min(end, key=lambda i: np.hypot(*(end[i] - red)))
    at_orange = min(end, key=lambda i: np.hypot(*(end[i] - orange)))
    assert at_red.startswith("red") and at_orange.startswith("orange")
    assert at_red in ids[25]  # the red ball's track from before the contact


def test_a_ball_of_another_colour_beside_a_sure_one_is_a_new_ball():
    frames = [([BALL, OTHER], ["orange", "white"])] * 20
    beside = BALL + [2.05 * R_MM, 0.0]  # touching it: another ball
    frames += [([BALL, beside, OTHER], ["orange", "red", "white"])] * 8
    seen = _rows(Tracker(load_table("pool-9ft")), frames)
    assert len(seen[-1]) == 3


def _crowd_uv(r: float) -> np.ndarray:
    return np.array([[100.0 + 2 * r * k, 100.0] for k in range(4)])  # a row of 4 touching


@pytest.mark.parametrize(
    "lone, joins",
    [
        ((100.0 + 6 * 17 + 2 * 17, 100.0), True),  # touching the row's end
        ((100.0 + 2 * 17, 100.0 + 1.9 * 17), True),  # touching from the side
        ((100.0 + 6 * 17 + (JOIN + 0.3) * 17, 100.0), False),  # a gap: a ball of its own
        ((600.0, 400.0), False),  # far away
    ],
)
def test_a_lone_candidate_touching_a_crowd_is_judged_with_it(lone, joins):
    r = 17.0
    uv = np.vstack([_crowd_uv(r), [lone]])
    group = np.array([0, 0, 0, 0, 1])
    out = join_crowds(uv, np.full(5, r), group)
    assert list(out[:4]) == [0, 0, 0, 0]
    assert (out[4] == 0) == joins


def test_pairs_and_lone_balls_without_a_crowd_keep_their_groups():
    r = 17.0
    uv = np.array([[100.0, 100.0], [134.0, 100.0], [168.0, 100.0], [300.0, 300.0]])
    group = np.array([0, 0, 1, 2])  # a pair touching a lone ball: no crowd of 3
    assert list(join_crowds(uv, np.full(4, r), group)) == [0, 0, 1, 2]
