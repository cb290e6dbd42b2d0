"""A frozen cluster's solve takes in the balls at rest a few mm beyond it
(vision.events.contact_finders): a member set off that meets one within the frames its velocity
is read over is read with it, not as a member that took less. Table mm, 30 fps."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from contract.tables import load_table
from tests.vision.vision_scene import path_tracks
from vision.events.impulse import slide_decel, slide_travel

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius
F0 = 10.4  # the frame the cue ball reaches ``a``
V = 30.0  # mm/frame: the cue ball's speed, handed on along the line c -> a -> b -> x


def _finder(gap: float):
    """Cue ball ``c`` rolls along x into ``a``; ``a`` and ``b`` touch in a line and ``x``
    lies ``gap`` mm beyond ``b``: the impulse runs through ``a`` (which stays put) into
    ``b``, which slides off at ``V`` and, when it reaches ``x``, stops dead and sets
    ``x`` off (Newton's cradle)."""
    from vision.events.finder import EventFinder
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    n = 40
    t = np.arange(n, dtype=float)
    decel = slide_decel(30.0)
    a, b = np.array([1500.0, 700.0]), np.array([1500.0 + 2 * R, 700.0])
    x0 = b + [2 * R + gap, 0.0]
    c = np.c_[np.minimum(a[0] - 2 * R - V * (F0 - t), a[0] - 2 * R), np.full(n, 700.0)]
    run_b = np.minimum(slide_travel(V, np.clip(t - F0, 0.0, None), decel), gap)
    # x sets off when b has covered the gap (b's slowing over it left out: a fifth of a frame)
    hit = F0 + gap / V
    run_x = slide_travel(V, np.clip(t - hit, 0.0, None), decel)
    paths = {
        "c": c,
        "a": np.tile(a, (n, 1)),
        "b": b + np.c_[run_b, np.zeros(n)],
        "x": x0 + np.c_[run_x, np.zeros(n)],
    }
    s = series_from_tracks(path_tracks(paths), 30.0)
    starts = {"c": 0.0, "a": F0, "b": F0, "x": hit}
    return EventFinder(s, TABLE, adapt(ShotSettings(), noise_mm(s))), starts


@pytest.mark.parametrize(
    ("gap", "pairs"),
    [
        # x 6.5 mm beyond b (over the touching tolerance, 4.9 mm here): b meets it a fifth
        # of a frame after the hit and is read at rest;
        # with x in the solve b took V from a and handed it on
        (6.5, {("c", "a"), ("a", "b"), ("b", "x")}),
        # x far beyond: b runs on and is read at V; x takes no part
        (300.0, {("c", "a"), ("a", "b")}),
    ],
)
def test_a_ball_just_beyond_the_cluster_joins_its_solve(gap, pairs):
    fd, starts = _finder(gap)
    got = fd._rack(SimpleNamespace(ball="a", start_f=F0), starts, "c")
    assert got is not None
    comp, found = got
    assert comp == {"a", "b"}
    assert {(k.striker, k.struck) for k in found} == pairs
    ab = next(k for k in found if (k.striker, k.struck) == ("a", "b"))
    assert ab.impulse == pytest.approx(V, rel=0.15)  # not what b kept after meeting x
