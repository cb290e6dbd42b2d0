"""A ball between a middle pocket's jaws, its centre short of the nose line, is still on
the table (vision.track). pyr-pots-11-720: the 13 ran into the middle-left pocket's
jaws and was measured at (1782.5, 8.0) mm, inside the contract's drop circle (centre
29 mm behind the nose line, radius 41.5 mm: it reaches 12.5 mm onto the bed) but 8 mm
short of the nose line, between the jaws; it was ended there as pocketed, and its
bounces off both jaws (frames 311-313) were lost. A ball whose centre has not passed
the mouth line lies over the bed and cannot have dropped; once past it, moving on in,
it has (as before)."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from vision.detect import Detections
from vision.track import Tracker

FPS = 30.0
# the 13's detections in pyr-pots-11-720, frames 309-313 (table mm)
SEEN = [(1708.4, 66.7), (1732.2, 44.1), (1756.7, 23.7), (1782.5, 8.0), (1770.2, -2.9)]
STEP = np.array([24.5, -21.5])  # mm a frame before the jaws (0.98 m/s)


def _run(path: list[tuple[float, float]], after: int = 3) -> tuple[dict[int, tuple], str]:
    """A white ball rolls in along STEP for 20 frames to ``path[0]``, then is measured
    along ``path``, then ``after`` frames show nothing. Returns its rows {frame: (x, y,
    visible)} and its final state."""
    table = load_table("pyramid-12ft")
    tracker = Tracker(table)
    start = np.array(path[0]) - 20 * STEP
    seq = [start + k * STEP for k in range(20)] + [np.array(p) for p in path]
    rows: dict[int, tuple] = {}
    for k in range(len(seq) + after):
        xy = [seq[k]] if k < len(seq) else []
        out = tracker.update(Detections.from_xy(k, k / FPS, xy, ["white"] * len(xy)))
        rows |= {
            int(f): (float(x), float(y), int(v))
            for f, x, y, v in zip(out.frame, out.x, out.y, out.visible, strict=True)
        }
    return rows, tracker.names()["w1"]


@pytest.mark.parametrize(
    ("path", "after", "last_row", "state"),
    [
        (SEEN[:4], 3, (1782.5, 8.0), "pocketed"),  # between the jaws, then it vanished
        (SEEN[:5], 3, (1782.5, 8.0), "pocketed"),  # then measured past the nose line, going in
        (SEEN[:3], 3, (1756.7, 23.7), "pocketed"),  # vanished before the jaws, heading in
        (SEEN[:4] + [(1780.0, 6.0)] * 4, 0, (1780.0, 6.0), "active"),  # stopped in the jaws
    ],
)
def test_a_ball_short_of_the_nose_line_is_still_on_the_table(path, after, last_row, state):
    table = load_table("pyramid-12ft")
    p = table.pocket("middle-left")
    assert np.hypot(1782.5 - p.centre[0], 8.0 - p.centre[1]) < p.mouth_mm / 2  # in the circle
    rows, got = _run(path, after)
    seen = [f for f, r in rows.items() if r[2] == 1]
    assert rows[max(seen)][:2] == pytest.approx(last_row)
    assert got == state
