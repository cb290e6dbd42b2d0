"""Jaw touches a pocketed ball makes after its last sample (issue: shots and events):
its straight path runs into a cushion's nose end (the end of the table spec's cushion
segment at the pocket) before it can drop. Positions table mm, 30 fps."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import path_tracks

from contract.events import EventType
from contract.tables import load_table
from vision.events.shots import cut_tracks

FPS = 30.0
T = load_table("pyramid-12ft")
L, W, R = T.L, T.W, T.ball_radius


def _into_pocket(last: tuple[float, float], v: tuple[float, float], n_roll: int = 12):
    """At rest 12 frames, rolls at ``v`` mm/frame for ``n_roll`` frames to ``last`` (its
    last row, at frame 23), then gone."""
    last, v = np.asarray(last, float), np.asarray(v, float)
    roll = last - np.outer(np.arange(n_roll - 1, -1, -1), v)
    return np.vstack([np.tile(roll[0] - v, (12, 1)), roll, np.full((30, 2), np.nan)])


@pytest.mark.parametrize(
    ("last", "v", "pocket", "cushions"),
    [
        # along the right rail (centre 36 mm from it) into the back-right pocket, last
        # seen 0.6 mm short of the back cushion line: it meets the back jaw's nose end
        # (3550, 1723.4) next (pyramid-reach 720p, ball 12, frame 515)
        ((3516.6, 1738.5), (29.0, 0.0), "back-right", [("back", 23)]),
        # the same along the front of the table, into the front-right pocket
        ((33.0, 1738.5), (-29.0, 0.0), "front-right", [("front", 23)]),
        # down the pocket's diagonal, between both nose ends: it drops touching nothing
        ((3500.0, 1725.0), (15.0, 15.0), "back-right", []),
        # along the rail, but last seen in the pocket's throat already: it is falling
        ((3540.0, 1745.0), (29.0, 0.0), "back-right", []),
    ],
)
def test_a_jaw_the_path_runs_into_before_the_drop_is_a_cushion(last, v, pocket, cushions):
    paths = {"w1": _into_pocket(last, v), "w2": np.tile((1000.0, 600.0), (54, 1))}
    cut = cut_tracks(path_tracks(paths, FPS), T, FPS)
    ev = [e for s in cut.shots for e in s.events]
    assert [(e.ball, e.pocket) for e in ev if e.type == EventType.POCKET] == [("w1", pocket)]
    found = [(e.cushion, e.frame) for e in ev if e.type == EventType.CUSHION]
    assert found == cushions
