"""Contacts inside frozen clusters, thin kisses, and the clean-up of tracks before
events are cut (vision.events.impulse, vision.events.series): hand-built paths in table mm."""

from __future__ import annotations

import numpy as np
import pytest

from vision.events.impulse import (
    _striker_dv,
    closest_approaches,
    component,
    rack_contacts,
    rest_positions,
    slide_decel,
    slide_travel,
)
from vision.events.series import Series, despike, unswap

R = 34.0


def _series(paths: dict[str, np.ndarray], fps: float = 30.0) -> Series:
    ids = tuple(sorted(paths))
    xy = np.stack([paths[i] for i in ids]).astype(float)
    n = xy.shape[1]
    vis = ~np.isnan(xy[..., 0])
    return Series(ids, 0, np.arange(n) / fps, xy, vis, fps)


def _still(p: tuple[float, float], n: int) -> np.ndarray:
    return np.tile(np.asarray(p, float), (n, 1))


def _moving(p0, v, f0: float, n: int) -> np.ndarray:
    """At rest at ``p0`` until ``f0``, then straight at ``v`` mm/frame."""
    t = np.clip(np.arange(n) - f0, 0.0, None)
    return np.asarray(p0, float) + np.outer(t, np.asarray(v, float))


def _cradle(n: int = 20, f0: float = 10.4, v: float = 30.0):
    """Cue ball ``c`` rolls along x into ``a``; ``a`` and ``b`` touch in a line: all the
    impulse runs through ``a`` (which stays put) into ``b`` (Newton's cradle)."""
    a, b = (1000.0, 500.0), (1000.0 + 2 * R, 500.0)
    c0 = (1000.0 - 2 * R - v * f0, 500.0)
    t = np.arange(n, dtype=float)
    c = np.c_[np.minimum(c0[0] + v * t, 1000.0 - 2 * R), np.full(n, 500.0)]
    # b sets off without spin: it slides, slowing by mu g (vision.events.impulse.slide_travel)
    run = slide_travel(v, np.clip(t - f0, 0.0, None), slide_decel(30.0))
    return _series({"c": c, "a": _still(a, n), "b": np.c_[b[0] + run, np.full(n, b[1])]}), f0


def test_cradle_contacts_run_through_a_ball_that_never_moves():
    s, f0 = _cradle()
    rest = rest_positions(s, f0, set())
    comp = component("a", {k: v for k, v in rest.items() if k != "c"}, R, 1.5)
    assert sorted(comp) == ["a", "b"]
    found = rack_contacts(s, "c", "a", f0, comp, rest, R, 1.5, 0.5)
    pairs = {(c.striker, c.struck) for c in found}
    assert pairs == {("c", "a"), ("a", "b")}
    # the hit dated from b's start (its next samples, sliding), not the frame of a's start
    assert all(abs(c.f - f0) < 0.02 for c in found)
    assert found[1].impulse == pytest.approx(30.0, rel=0.02)  # all of c's 30 mm/frame


def test_side_ball_that_got_no_impulse_is_no_contact():
    """``d`` touches ``a`` at a right angle to the line of the hit: it gets nothing."""
    s, f0 = _cradle()
    n = s.n_frames
    d = _still((1000.0, 500.0 + 2 * R), n)
    s2 = _series({**{i: s.xy[k] for k, i in enumerate(s.ids)}, "d": d})
    rest = rest_positions(s2, f0, set())
    comp = component("a", {k: v for k, v in rest.items() if k != "c"}, R, 1.5)
    assert sorted(comp) == ["a", "b", "d"]
    found = rack_contacts(s2, "c", "a", f0, comp, rest, R, 1.5, 0.5)
    assert {frozenset((c.striker, c.struck)) for c in found} == {
        frozenset(("c", "a")),
        frozenset(("a", "b")),
    }


@pytest.mark.parametrize(
    ("offset_mm", "touch"),
    [
        (2 * R - 2.0, True),  # a thin kiss: centres pass 2 mm inside one diameter
        (2 * R + 0.2, True),  # grazing within the tolerance
        (2 * R + 6.0, False),  # a clear miss
    ],
)
def test_closest_approach_finds_thin_kisses(offset_mm, touch):
    n = 30
    t = np.arange(n, dtype=float)
    a = np.c_[100.0 + 20.0 * t, np.full(n, 300.0)]
    b = np.c_[400.0 + 0.0 * t, np.full(n, 300.0 + offset_mm)]
    hits = closest_approaches(a, b, R, 1.0, 0.5)
    assert bool(hits) == touch
    if touch:
        # the centres are one diameter apart at the reported time
        f = hits[0][0]
        k = int(np.floor(f))
        pa = a[k] + (a[k + 1] - a[k]) * (f - k)
        assert np.linalg.norm(pa - b[k]) == pytest.approx(
            min(2 * R, offset_mm) if offset_mm > 2 * R else 2 * R, abs=0.3
        )


@pytest.mark.parametrize("flat", [0.0, 2 * 0.2])
def test_balls_resting_together_are_no_touch(flat):
    n = 20
    a = _still((100.0, 100.0), n) + np.random.default_rng(1).normal(0, 0.2, (n, 2))
    b = _still((100.0 + 2 * R, 100.0), n)
    assert closest_approaches(a, b, R, 1.0, 0.5 + 4 * 0.2, flat) == []


_PUSH = [6.0, 4.8, 3.6, 2.4, 1.2, 0.0, -0.001, 0.3, 0.8, 1.5, 2.4, 3.5]
_SLOWING = [6.0, 4.8, 3.6, 2.4, 1.2, 0.6, 0.0, 0.3, 0.8, 1.5, 2.4, 3.5]


@pytest.mark.parametrize(
    ("gaps", "flat", "touch"),
    [
        (_PUSH, 0.4, True),  # nearest for two samples: the rise is read to the first
        (_PUSH, 0.0, False),  # read to the second: 1.2 mm over two frames, under 1.3
        (_SLOWING, 0.4, False),  # closed in by 0.6 mm in the last frame: no plateau
    ],
)
def test_a_slow_approach_that_stays_nearest_for_two_samples(gaps, flat, touch):
    # gaps (mm) of a ball closing in at 1.2 mm/frame on one at rest (pushing it along
    # once they touch); the rise asked for is 1.3 mm over two frames
    n = len(gaps)
    a = np.c_[100.0 - 2 * R - np.asarray(gaps), np.full(n, 100.0)]
    b = _still((100.0, 100.0), n)
    assert bool(closest_approaches(a, b, R, 1.0, 0.5 + 4 * 0.2, flat)) == touch


def test_unswap_gives_traded_labels_back():
    n = 12
    p, q = (500.0, 500.0), (500.0 + 2 * R, 500.0)
    a, b = _still(p, n), _still(q, n)
    a[6:], b[6:] = q, p  # the tracker trades the two labels at frame 6
    s = unswap(_series({"a": a, "b": b}), R)
    assert np.allclose(s.xy[s.index("a")], p)
    assert np.allclose(s.xy[s.index("b")], q)


def test_unswap_leaves_a_struck_ball_alone():
    n = 12
    a = _moving((500.0, 500.0), (80.0, 0.0), 5.0, n)
    b = _still((1500.0, 500.0), n)
    s = unswap(_series({"a": a, "b": b}), R)
    assert np.allclose(s.xy[s.index("a")], a)


@pytest.mark.parametrize("width", [1, 2])
def test_despike_removes_short_jumps_of_a_ball_at_rest(width):
    n = 12
    a = _still((700.0, 300.0), n)
    a[5 : 5 + width] += (9.0, -6.0)
    s = despike(_series({"a": a}), 3.0)
    assert np.allclose(s.xy[0], _still((700.0, 300.0), n))
    assert not s.visible[0, 5 : 5 + width].any()


def test_despike_keeps_a_start():
    n = 12
    a = _moving((700.0, 300.0), (10.0, 0.0), 5.0, n)
    s = despike(_series({"a": a}), 3.0)
    assert np.allclose(s.xy[0], a)


@pytest.mark.parametrize(("impulse", "pushed"), [(6.0, True), (0.0, False), (-6.0, False)])
def test_pushed_apart_needs_both_paths_to_turn_along_the_line_of_centres(impulse, pushed):
    """Ball ``a`` (20 mm/frame along x) meets ``b`` (at rest) at frame 5.5 with their
    line of centres at 45 degrees: a contact gives ``b`` ``impulse`` along it and takes
    as much from ``a``."""
    from contract.tables import load_table
    from vision.events.finder import EventFinder
    from vision.events.settings import ShotSettings

    n = np.array([1.0, 1.0]) / np.sqrt(2.0)
    t = np.arange(12, dtype=float)
    after = np.clip(t - 5.5, 0.0, None)[:, None]
    a = np.c_[100.0 + 20.0 * t, np.full(12, 500.0)] - after * impulse * n
    b = np.tile(a[0] + [20.0 * 5.5, 0.0] + 2 * R * n, (12, 1)) + after * impulse * n
    s = _series({"a": a, "b": b})
    finder = EventFinder(s, load_table("pyramid-12ft"), ShotSettings())
    assert finder._pushed_apart(s.index("a"), s.index("b"), 5.5) == pushed


@pytest.mark.parametrize(
    ("rows", "f0", "expect"),
    [
        # the striker unseen at the contact frame and before it: nearest measured sample
        ([[np.nan, np.nan], [np.nan, np.nan], [5.0, 6.0], [7.0, 8.0]], 1.0, [5.0, 6.0]),
        ([[1.0, 2.0], [np.nan, np.nan], [np.nan, np.nan]], 2.0, [1.0, 2.0]),
    ],
)
def test_striker_dv_without_samples_gives_a_measured_position(rows, f0, expect):
    """A striker too rarely seen before the hit gives no velocity change and the nearest
    measured position (mm), never NaN (NaN made the impulse fit raise)."""
    dv, pos = _striker_dv(np.array(rows), f0)
    assert np.array_equal(dv, [0.0, 0.0])
    assert np.allclose(pos, expect)
