"""The number vote's views (``vision.numbers.reader.NumberVote``): how far the ball moved between
frames, a new view when a ball comes to rest, and sure views outvoting unsure ones."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_numbers import R_PX, look
from vision.numbers.reader import (
    GEO_LOOKS,
    GEO_MIN_RADIUS_PX,
    P_GEO,
    P_POOL,
    P_REST_GEO,
    P_VIEW,
    P_VIEW_REST,
    READ_STEP_RADII,
    REST_LOOKS,
    STILL_RADII,
    SURE_VIEW_P,
    NumberVote,
    assign_numbers,
)


def test_step_is_the_pixels_moved_since_the_last_call():
    v = NumberVote()
    assert v.step(np.array([100.0, 200.0])) == np.inf  # first sight: not known
    assert v.step(np.array([103.0, 204.0])) == pytest.approx(5.0)
    assert v.step(np.array([103.0, 204.0])) == 0.0


def test_a_ball_that_comes_to_rest_opens_a_new_view():
    """Rolling slowly to a stop inside half a radius turns the ball: its face at rest is
    read as a view of its own, once."""
    v = NumberVote()
    for k in range(3):  # three looks while creeping (0.1 radius a frame)
        v.add(look(4, 0.6), np.array([100.0 + 1.5 * k, 200.0]), R_PX, still=False)
    at = np.array([103.5, 200.0])
    assert not v.wants_look(at, R_PX, still=False)  # the view is read enough
    assert v.wants_look(at, R_PX, still=True)  # at rest now: a new face
    v.add(look(9, 0.95), at, R_PX, still=True)
    assert v.scores()[1] == 2
    for _ in range(REST_LOOKS - 1):
        v.add(look(9, 0.95), at, R_PX, still=True)
    assert not v.wants_look(at, R_PX, still=True)  # the rest view is read enough
    assert v.scores()[1] == 2


def test_a_still_frame_in_a_view_already_at_rest_is_the_same_view():
    v = NumberVote()
    at = np.array([100.0, 200.0])
    for _ in range(3):
        v.add(look(7, 0.8), at, R_PX, still=True)
    assert v.scores()[1] == 1


@pytest.mark.parametrize(
    "reads, want",
    [
        # a rolling ball's unsure views read all sorts; the sure view at rest decides
        ([(15, 0.4), (10, 0.45), (9, 0.4), (14, 0.97)], 14),
        ([(15, 0.4), (10, 0.45), (9, 0.4), (14, 0.6)], None),  # nothing sure
        # sure views that disagree still veto each other
        ([(7, 0.95), (12, 0.92), (7, 0.4), (7, 0.3)], None),
        ([(11, 0.97), (14, 0.96)], None),
        ([(5, 0.96), (5, 0.95), (3, 0.3)], 5),
    ],
)
def test_sure_views_outvote_unsure_ones(reads, want):
    v = NumberVote()
    for k, (n, p) in enumerate(reads):
        v.add(look(n, p), np.array([100.0 + 10 * k, 200.0]), R_PX)
    got = assign_numbers({1: v}, set())
    assert got == ({} if want is None else {1: want})


@pytest.mark.parametrize(
    "p, still, want",
    [
        (0.92, True, 7),  # one view at rest, p(7 | readable) 0.925: sure (P_VIEW_REST)
        (0.92, False, 7),  # the same view while rolling: sure too (P_VIEW, reader v10)
        (0.87, False, None),  # under P_VIEW: not sure by itself
        (0.97, False, 7),
        (0.85, True, None),
    ],
)
def test_one_view_is_sure_from_its_bar(p, still, want):
    """One view decides alone from ``P_VIEW`` rolling, ``P_VIEW_REST`` at rest (both 0.9
    for reader v10: chosen on held-out sequences printed by random makers, 0 wrong)."""
    v = NumberVote()
    for k in range(3):  # one view: at rest, or creeping a tenth of a radius a frame
        v.add(look(7, p), np.array([100.0 + (0.0 if still else 1.5 * k), 200.0]), R_PX, still)
    assert v.scores()[1] == 1
    assert assign_numbers({1: v}, set()) == ({} if want is None else {1: want})


def look2(a: int, pa: float, b: int, pb: float) -> np.ndarray:
    """Log-probabilities (16,) of a look that reads ``a`` with ``pa`` and ``b`` with ``pb``."""
    out = np.full(16, (1 - pa - pb) / 14)
    out[a], out[b] = pa, pb
    return np.log(out)


@pytest.mark.parametrize(
    "third_view, want",
    [
        # two views read 5 at 0.85 and one leans 6: the posterior stays under 0.9 (0.84),
        # no view reaches 0.95, but the six looks average p(5) 0.72: 5 (P_POOL)
        ((6, 0.5, 5, 0.45), 5),
        # on average 0.69, under P_POOL, but the looks' geometric mean of 5 is 0.59 (P_GEO)
        ((6, 0.6, 5, 0.35), 5),
        # a near-sure 6 (under P_VIEW) against two 5s: geometric mean of 5 0.33, unsure
        ((6, 0.88, 5, 0.05), None),
    ],
)
def test_a_rolling_balls_looks_pooled(third_view, want):
    v = NumberVote()
    views = [(5, 0.85, 6, 0.1), (5, 0.85, 6, 0.1), third_view]
    for k, view in enumerate(views):
        for _ in range(2):  # two looks a view; a new view every 10 px (2/3 of a radius)
            v.add(look2(*view), np.array([100.0 + 10 * k, 200.0]), R_PX)
    assert v.scores()[1] == 3 and v.looks == 6
    assert v.posterior()[4] < 0.9 and v.peaks().max() < P_VIEW
    assert assign_numbers({1: v}, set()) == ({} if want is None else {1: want})


@pytest.mark.parametrize(
    "reads, want",
    [
        # every look names 5 (6 second), none sure: geometric mean 0.52, posterior 0.79
        ([(5, 0.6, 6, 0.3)] * GEO_LOOKS, 5),
        ([(5, 0.6, 6, 0.3)] * (GEO_LOOKS - 1), None),  # too few looks
        ([(5, 0.55, 6, 0.35)] * GEO_LOOKS, None),  # 0.48: under P_GEO
        ([(5, 0.65, 6, 0.3)] * (GEO_LOOKS - 1) + [(6, 0.65, 5, 0.3)], None),  # one names 6
        ([(5, 0.5, 6, 0.4)] * 6, None),  # many unsure looks stay unsure: 0.43
    ],
)
def test_a_rolling_balls_looks_by_their_geometric_mean(reads, want):
    """Each look a view of its own (10 px apart, 2/3 of a radius); no view sure, the
    posterior under 0.9 and the looks' mean under P_POOL: only P_GEO can decide."""
    v = NumberVote()
    for k, r in enumerate(reads):
        v.add(look2(*r), np.array([100.0 + 10 * k, 200.0]), R_PX)
    assert v.peaks().max() < P_VIEW and v.posterior().max() < 0.9
    assert v.pooled.max() / v.looks < P_POOL
    assert assign_numbers({1: v}, set()) == ({} if want is None else {1: want})


@pytest.mark.parametrize("radius_px, want", [(GEO_MIN_RADIUS_PX, 5), (10.0, None)])
def test_small_balls_looks_stay_out_of_the_geometric_means(radius_px, want):
    """720p balls (10 px) are read only below the tracker's default floor; the geometric
    means, measured at 1080p, do not decide for them (rolling nor at rest)."""
    v = NumberVote()
    for k in range(GEO_LOOKS):
        v.add(look2(5, 0.6, 6, 0.3), np.array([100.0 + radius_px * k, 200.0]), radius_px)
    assert assign_numbers({1: v}, set()) == ({} if want is None else {1: want})
    rest = NumberVote()
    for _ in range(REST_LOOKS):
        rest.add(look(7, 0.87), np.array([100.0, 200.0]), radius_px, still=True)
    assert assign_numbers({1: rest}, set()) == ({} if want is None else {1: 7})


@pytest.mark.parametrize(
    "ps, want",
    [
        ([0.87] * REST_LOOKS, 7),  # REST_LOOKS frames at rest, geometric mean 0.88
        ([0.87] * (REST_LOOKS - 1), None),  # too few frames yet
        ([0.83] * REST_LOOKS, None),  # under P_REST_GEO
        ([0.87] * (REST_LOOKS - 1) + [0.3], None),  # one frame far less sure pulls it down
        ([0.92], 7),  # one frame sure enough by itself (P_VIEW_REST)
    ],
)
def test_a_view_at_rest_by_its_frames_geometric_mean(ps, want):
    v = NumberVote()
    at = np.array([100.0, 200.0])
    for p in ps:
        v.add(look(7, p), at, R_PX, still=True)
    assert assign_numbers({1: v}, set()) == ({} if want is None else {1: want})


def test_thresholds_are_sane():
    assert 0.5 < P_POOL < P_VIEW_REST <= P_VIEW < 1
    assert 0.5 < P_REST_GEO < P_VIEW_REST and 0 < P_GEO < 0.78  # 0.78: the floor's cap
    assert GEO_LOOKS >= 2 and REST_LOOKS >= 2
    assert 0 < STILL_RADII < 0.1 and 0 < SURE_VIEW_P < 1


class _Reader:
    """Reads ``numbers`` in turn (one a call) with ``p``; records how many balls it was
    asked for and whether each was given the second look; declares the real reader's
    motion limit."""

    max_step_radii = READ_STEP_RADII
    second_look = True

    def __init__(self, p: float = 0.95, numbers: tuple[int, ...] = (7,)):
        self.p, self.numbers, self.asked, self.second = p, numbers, 0, []

    def read(self, image, centres, radii, second=None):
        n = self.numbers[self.asked % len(self.numbers)]
        self.asked += len(centres)
        self.second += list(np.zeros(len(centres), bool) if second is None else second)
        out = np.full((len(centres), 16), np.log((1 - self.p) / 15))
        out[:, n] = np.log(self.p)
        return out


def _det(frame: int, uv: tuple[float, float], radius: float = 16.0):
    from vision.detect.detector import Detections

    xy = np.array([[uv[0] * 2, uv[1] * 2]])  # table mm: 0.5 px a mm
    return Detections(
        frame,
        frame / 30.0,
        np.array([uv], float),
        xy,
        np.array([radius]),
        np.array(["white"], object),
        np.ones(1),
        np.zeros(1, bool),
        np.zeros((0, 4)),
    )


@pytest.mark.parametrize(
    "px_a_frame, read",
    [
        (0.0, True),  # at rest
        (4.0, True),  # 0.25 radius a frame: smear an eighth of a radius
        (7.5, True),
        (8.5, False),  # over half a radius a frame: smeared past legibility
        (14.0, False),
    ],
)
def test_tracker_reads_only_balls_slow_enough_for_the_reader(px_a_frame, read):
    from contract.tables import load_table
    from vision.track.tracker import Tracker

    tracker = Tracker(load_table("pyramid-12ft"))
    reader = _Reader()
    tracker._reader = reader
    img = np.zeros((8, 8, 3), np.uint8)
    for k in range(30):
        tracker.update(_det(k, (500.0 + px_a_frame * k, 400.0)), img)
    assert (reader.asked > 0) == read
    assert (tracker.renames() != {}) == read


@pytest.mark.parametrize(
    "creep_px, second", [(0.0, True), (1.0, True), (5.0, True), (6.0, False), (7.5, False)]
)
def test_tracker_gives_the_second_look_to_slow_balls_only(creep_px, second):
    """At rest or rolling under 0.35 radius a frame (16 px radius): the second look;
    faster: not."""
    from contract.tables import load_table
    from vision.track.tracker import Tracker

    tracker = Tracker(load_table("pyramid-12ft"))
    reader = _Reader(p=0.6, numbers=(3, 8))  # views disagree: the ball stays undecided
    tracker._reader = reader
    img = np.zeros((8, 8, 3), np.uint8)
    for k in range(20):
        tracker.update(_det(k, (500.0 + creep_px * k, 400.0)), img)
    assert reader.asked > 0 and set(reader.second) == {second}


def test_tracker_gives_the_second_look_once_a_rolling_ball_rests():
    from contract.tables import load_table
    from vision.track.tracker import Tracker

    tracker = Tracker(load_table("pyramid-12ft"))
    reader = _Reader(p=0.6, numbers=(3, 8))  # views disagree: the ball stays undecided
    tracker._reader = reader
    img = np.zeros((8, 8, 3), np.uint8)
    for k in range(40):  # rolls 7 px (0.44 radius) a frame for 20 frames, then rests
        tracker.update(_det(k, (500.0 + 7.0 * min(k, 20), 400.0)), img)
    assert any(reader.second) and not all(reader.second)
    assert reader.second[-1]  # the last reads are at rest
    assert not reader.second[0]  # the first read, while rolling
