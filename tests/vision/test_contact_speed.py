"""Contacts at speed (vision.events.contact_checks, vision.events.contact_finders): the approach of a
ball that bounced off a cushion just before it hit another is unread, not negative
(the carom breaks' first contacts: a ball off the cushion into a ball at rest within
the same frame or two); a resting ball that wobbles as a fast ball passes beside it,
and stays where it was, took no impulse. Hand-built paths on the carom table, table mm,
frames at 30 fps."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from vision.events.contact_checks import bent, stayed_short
from vision.events.finder import EventFinder
from vision.events.impulse import slide_decel
from vision.events.series import Series
from vision.events.settings import ShotSettings

TABLE = load_table("carom-match")
R = TABLE.ball_radius
FPS = 30.0
N = 14


def _series(paths: dict[str, np.ndarray]) -> Series:
    ids = tuple(sorted(paths))
    xy = np.stack([paths[i] for i in ids]).astype(float)
    return Series(ids, 0, np.arange(xy.shape[1]) / FPS, xy, ~np.isnan(xy[..., 0]), FPS)


def _bounce(p0, v, wall_y: float | None, n: int = N) -> np.ndarray:
    """A ball from ``p0`` at ``v`` mm/frame, mirrored off the line ``y = wall_y`` (the
    cushion nose less one radius) where it reaches it; straight when ``wall_y`` is None."""
    xy = np.asarray(p0, float) + np.outer(np.arange(n, dtype=float), np.asarray(v, float))
    if wall_y is not None:
        y = xy[:, 1]
        xy[:, 1] = np.where(y < wall_y, 2 * wall_y - y, y)
    return xy


def _still(p, n: int = N) -> np.ndarray:
    return np.tile(np.asarray(p, float), (n, 1))


# (striker path, struck ball's rest position, contact frame, approach unread or closing)
CLOSING = [
    # straight at a ball at rest: closing
    pytest.param(
        _bounce((1000.0, 700.0), (40.0, 0.0), None),
        (1000 + 6.3 * 40 + 2 * R, 700),
        6.3,
        True,
        id="straight in",
    ),
    # moving away from it, no cushion anywhere: neither unread nor closing
    pytest.param(
        _bounce((1000.0, 700.0), (-40.0, 0.0), None),
        (1000 + 2 * R + 60, 700),
        6.3,
        False,
        id="moving away",
    ),
    # off the near cushion between the fit's samples, then into a ball (carom-break-0):
    # the straight fit across the bounce reads it not closing in
    pytest.param(
        _bounce((1000.0, 404.0), (40.0, -70.0), R),
        (1294.5, 172.9),
        6.6,
        True,
        id="bounce inside fit",
    ),
    # running into the cushion and back onto a ball it had passed after its last sample
    # before the hit (carom-break-2): the motion before reads it leaving
    pytest.param(
        _bounce((1000.0, 500.0), (0.0, -60.0), R),
        (1000 - 2 * R + 5, 20 + 2 * R + 40),
        7.9,
        True,
        id="bounce after last sample",
    ),
]


@pytest.mark.parametrize(("striker", "rest", "f", "closing"), CLOSING)
def test_an_approach_across_a_cushion_bounce_is_unread(striker, rest, f, closing):
    s = _series({"a": striker, "b": _still(rest)})
    finder = EventFinder(s, TABLE, ShotSettings())
    assert finder.closing(s.index("a"), s.index("b"), f) is closing


@pytest.mark.parametrize(
    ("wall_y", "friction_only", "want"),
    [
        (None, False, False),  # straight, rolling
        (None, True, False),  # sliding to a roll: friction, not an impulse
        (R, False, True),  # off a cushion
    ],
)
def test_bent_path_is_over_friction_and_noise(wall_y, friction_only, want):
    xy = _bounce((1000.0, 330.0), (40.0, -70.0), wall_y)
    if friction_only:  # slowing by the cloth's sliding friction each frame
        d = slide_decel(FPS)
        t = np.arange(N, dtype=float)
        xy = np.asarray((1000.0, 700.0)) + np.outer(40.0 * t - 0.5 * d * t * t, (1.0, 0.0))
    s = _series({"a": xy})
    assert bent(s, 0, 2, 9, 0.15, slide_decel(FPS)) is want


def _wobble(shift: float, push: float, drift: float = 0.0) -> np.ndarray:
    """A ball resting at (1500, 700), read ``shift`` mm off for frames 7 and 8 (a fast
    ball passing beside it at about frame 6.5) and back, set rolling along x at ``push``
    mm/frame from 6.5 (slowing 0.18 mm/frame^2 to a stop), creeping ``drift`` mm/frame
    before."""
    t = np.arange(N, dtype=float)
    xy = _still((1500.0, 700.0))
    xy[:7, 0] += drift * (t[:7] - 6.5)
    xy[7:9, 1] += shift
    tau = np.clip(t - 6.5, 0.0, None)
    stop = push / 0.18 if push else 0.0
    tau = np.minimum(tau, stop)
    xy[:, 0] += push * tau - 0.09 * tau * tau
    return xy


@pytest.mark.parametrize(
    ("shift", "push", "drift", "want"),
    [
        (0.7, 0.0, 0.0, True),  # wobbles as a ball passes and stays: no impulse
        (0.0, 0.0, 0.0, True),  # never moved at all
        (0.7, 1.5, 0.0, False),  # wobbles and rolls off: it was hit
        (0.0, 0.8, 0.0, False),  # a thin hit it rolls ~1.8 mm from
        (0.7, 0.0, 1.0, False),  # moving before: its travel says nothing
    ],
)
def test_a_resting_ball_that_went_nowhere_took_no_impulse(shift, push, drift, want):
    s = _series(
        {"a": _bounce((1300.0, 760.0), (40.0, 0.0), None), "b": _wobble(shift, push, drift)}
    )
    travel = 1.0  # mm: what the least impulse a contact carries gives it by frame 10.5
    got = stayed_short(s, s.index("b"), s.index("a"), 6.5, R, 0.08, travel)
    assert got is want


@pytest.mark.parametrize(
    ("shift", "push", "ahead_goes", "want"),
    [
        # read 1.6 mm off for frames 5-6 (a sub-pixel shift, pyr-break-9-720 ball 1),
        # staying put: far short of the 15 mm the impulse read sends it
        (1.6, 0.0, None, True),
        (1.6, 6.0, None, False),  # shifted, then rolled off: it was hit
        # a ball 8 mm ahead along the push (within the travel) set off: it ran into it
        # (pyr-break-h-13-720 10 into 11, 0.6 frames on)
        (0.0, 0.0, True, False),
        (0.0, 0.0, False, True),  # the ball ahead stayed put too: no push went through
    ],
)
def test_a_resting_ball_short_of_the_impulse_read(shift, push, ahead_goes, want):
    t = np.arange(N, dtype=float)
    b = _still((1500.0, 700.0))
    b[5:7, 0] += shift
    b[:, 0] += push * np.clip(t - 6.5, 0.0, None)
    paths = {"a": _bounce((1300.0, 700.0 - 2 * R - 40.0), (40.0, 0.0), None), "b": b}
    if ahead_goes is not None:
        c = _still((1500.0 + 2 * R + 8.0, 700.0))
        if ahead_goes:
            c[:, 0] += 5.0 * np.clip(t - 7.2, 0.0, None)
        paths["c"] = c
        paths["a"] = _still((1500.0 - 2 * R - 0.5, 700.0))  # the striker, behind b
    s = _series(paths)
    got = stayed_short(s, s.index("b"), s.index("a"), 6.5, R, 0.08, 15.0)
    assert got is want
