"""A ball at rest nudged by a passing ball (vision.events.contact_nudge): its rest position
shifted along the line of centres, hand-built paths in table mm at 720p rest noise."""

from __future__ import annotations

import numpy as np
import pytest

from vision.events.contact_nudge import nudged, rest_window
from vision.events.series import Series

R = 34.0
SIGMA = 0.2  # mm, rest noise: 6 sigmas of a difference of two medians of 6 is 0.87 mm


def _pass(
    along: float, across: float, third: bool = False, stop: bool = False, n: int = 50
) -> Series:
    """Ball ``a`` rolls along x at 9 mm/frame, passing 2 mm off ball ``b`` at rest (its
    nearest at frame 20, the line of centres along +y); ``b`` shifts by ``along`` (+y, away
    from ``a``) and ``across`` (x) over frames 20-23. ``third``: a ball ``c`` at rest 3 mm
    from ``b`` on its far side; ``stop``: ``a`` stops at its nearest."""
    t = np.arange(n, dtype=float)
    run = np.minimum(t, 20.0) if stop else t
    a = np.c_[1000.0 + 9.0 * (run - 20.0), np.full(n, 500.0 - 2 * R - 2.0)]
    share = np.clip((t - 20.0) / 3.0, 0.0, 1.0)
    rng = np.random.default_rng(3)
    b = np.c_[1000.0 + across * share, 500.0 + along * share] + rng.normal(0, SIGMA, (n, 2))
    paths = {"a": a, "b": b}
    if third:
        paths["c"] = np.tile([1000.0, 500.0 + 2 * R + 3.0], (n, 1))
    ids = tuple(sorted(paths))
    xy = np.stack([paths[i] for i in ids])
    return Series(ids, 0, t / 30.0, xy, np.ones(xy.shape[:2], bool), 30.0)


@pytest.mark.parametrize(
    ("along", "across", "third", "stop", "expect"),
    [
        (1.2, 0.0, False, False, True),  # shifted 1.2 mm away along the line of centres
        (0.0, 0.0, False, False, False),  # stayed where it was
        (0.4, 0.0, False, False, False),  # within the noise of two medians
        (-1.2, 0.0, False, False, False),  # toward the passing ball: no push does that
        (0.6, 1.2, False, False, False),  # mostly across the line: a detection shifting
        (1.2, 0.0, True, False, False),  # a third ball within reach: its pull or push
        (1.2, 0.0, False, True, False),  # the passing ball stays beside it: its pull
    ],
)
def test_a_ball_at_rest_nudged_by_a_passing_ball(along, across, third, stop, expect):
    s = _pass(along, across, third, stop)
    assert nudged(s, s.index("a"), s.index("b"), 20.0, R, SIGMA) == expect


def test_the_rest_windows_lie_where_the_passing_ball_is_out_of_reach():
    s = _pass(1.2, 0.0)
    pre, post = rest_window(s, s.index("a"), s.index("b"), 20.0, R, SIGMA)
    # a is more than 10 mm (gap) from b up to frame 16 and again from frame 24
    assert (pre.start, pre.stop, post.start, post.stop) == (11, 17, 24, 30)
