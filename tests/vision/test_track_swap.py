"""A fast ball stopping dead at a contact keeps its id (vision.track.swap, issue 5).

The case of pyr-offtable-0-1080 (table mm, as detected): the yellow, jumped at ~168 mm a
frame, stops dead on the resting 7, which flies off smeared (blurred, read white). The
yellow's own sharp detection lies just outside the near gate of its prediction; before
the fix its track took the 7's smear and the yellow was born again as a white ``w2``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from contract.tables import load_table
from vision.detect.detector import Detections
from vision.track.tracker import Tracker

FPS = 30.0
REST_Y, REST_7 = (3068.3, 1226.4), (3274.2, 1533.2)
YELLOW = [(3077.4, 1239.3), (3170.9, 1379.5), (3237.6, 1478.7), (3241.0, 1483.3)]
SMEAR_7 = [None, None, (3308.6, 1583.8), (3407.4, 1731.3)]  # then off the table
ROLL = (6.3, 9.2)  # mm a frame: the yellow rolls on slowly after the contact


def _frames(flip_x: bool, flip_y: bool, smear_blurred: bool):
    """Per frame (xy mm, classes, blurred): 40 frames at rest, the stroke, 20 rolling."""
    t = load_table("pyramid-12ft")

    def f(p):
        return ((t.L - p[0]) if flip_x else p[0], (t.W - p[1]) if flip_y else p[1])

    out = [([f(REST_Y), f(REST_7)], ["yellow", "white"], [False, False])] * 40
    for k, (y, s) in enumerate(zip(YELLOW, SMEAR_7, strict=True)):
        pts, cls, blur = [f(y)], ["yellow"], [k == 1]
        if s is None:
            pts, cls, blur = pts + [f(REST_7)], cls + ["white"], blur + [False]
        else:
            pts, cls, blur = pts + [f(s)], cls + ["white"], blur + [smear_blurred]
        out.append((pts, cls, blur))
    y = np.array(YELLOW[-1])
    for k in range(1, 21):
        out.append(([f(y + k * np.array(ROLL))], ["yellow"], [False]))
    return t, out


@pytest.mark.parametrize(
    ("flip_x", "flip_y", "smear_blurred"),
    [
        (False, False, True),  # the clip as it was
        (True, False, True),  # mirrored: toward the left end
        (False, True, True),  # mirrored: toward the front cushion
        (False, False, False),  # the 7 seen sharp: its colour is trusted, no swap needed
    ],
)
def test_fast_ball_stopping_at_contact_keeps_its_id(flip_x, flip_y, smear_blurred):
    table, frames = _frames(flip_x, flip_y, smear_blurred)
    tracker = Tracker(table)
    seen: dict[int, dict[str, tuple]] = {}
    for k, (xy, cls, blur) in enumerate(frames):
        det = Detections.from_xy(k, k / FPS, xy, cls)
        det = dataclasses.replace(det, blurred=np.array(blur, bool))
        out = tracker.update(det)
        for i in range(len(out)):
            seen.setdefault(int(out.frame[i]), {})[out.id[i]] = (out.x[i], out.y[i], out.visible[i])
    tracker.finish()
    names = tracker.names()
    assert set(names) == {"yellow", "w1"}  # no ball born again under a new name
    assert names["yellow"] == "active"  # the yellow rolls on, not lost off the table
    for k in range(42, len(frames)):  # from the contact on, the yellow is measured ...
        x, y, vis = seen[k]["yellow"]
        want = frames[k][0][0]
        assert vis == 1 and np.hypot(x - want[0], y - want[1]) < 1.0  # ... on its own ball
    x, y, vis = seen[42]["w1"]  # the 7 takes its own smear at the contact
    assert vis == 1 and np.hypot(x - frames[42][0][1][0], y - frames[42][0][1][1]) < 1.0
