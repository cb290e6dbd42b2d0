"""A ball knocked off the table mid-table: hit hard, gone at once, never seen again
(vision/events/edges_flown.py), from TRACKS rows through :func:`vision.events.shots.cut_tracks`."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import path_tracks

from contract.events import EventType
from contract.tables import load_table
from vision.events.shots import cut_tracks

FPS = 30.0
PYR = load_table("pyramid-12ft")
R = PYR.ball_radius
N = 120


def _scene(at, d, speed, seen_again=False, newcomer=False) -> dict[str, np.ndarray]:
    """``w1`` rests at ``at`` (mm); ``yellow`` starts at frame 10, ``2R + 10 speed`` mm
    back along unit ``d``, rolls at ``speed`` mm/frame and stops where it touches ``w1``
    (frame 20, head on: all its speed passes on); ``w1``'s rows end at frame 20.
    ``seen_again``: ``w1`` is seen at rest 300 mm on at frame 40; ``newcomer``: a ball
    ``w9`` first appears at frame 40."""
    at, d = np.asarray(at, float), np.asarray(d, float) / np.linalg.norm(d)
    t = np.clip(np.arange(N, dtype=float) - 10.0, 0.0, 10.0)
    yellow = at - d * (2 * R + 10 * speed) + np.outer(t, d) * speed
    w1 = np.tile(at, (N, 1))
    w1[21:] = np.nan
    if seen_again:
        w1[40:] = at + 300.0 * d
    out = {"yellow": yellow, "w1": w1, "w2": np.tile([3000.0, 1500.0], (N, 1))}
    if newcomer:
        out["w9"] = np.full((N, 2), np.nan)
        out["w9"][40:] = (2500.0, 1200.0)
    return out


# (rest of w1 mm, direction of the hit, yellow mm/frame, seen again, a newcomer,
#  expected (type, frame) of w1's events after the contact)
CASES = [
    # head on toward the right cushion (y = 0) 400 mm away at 100 mm/frame: 4 frames
    ((1200.0, 400.0), (0.0, -1.0), 100.0, False, False, [("off_table", 24)]),
    # toward (-0.6, -0.8): the edge y = 0 after 500 mm (5 frames), the centre line
    # x = 1775 after 125 mm (1.25 frames)
    ((1850.0, 400.0), (-0.6, -0.8), 100.0, False, False, [("cross", 21), ("off_table", 25)]),
    # 20 mm/frame (600 mm/s): too slow to jump a cushion, so it was hidden, not gone
    ((1200.0, 400.0), (0.0, -1.0), 20.0, False, False, []),
    # seen again 300 mm on: it rolled under something
    ((1200.0, 400.0), (0.0, -1.0), 100.0, True, False, []),
    # another ball appears meanwhile: perhaps this one under a new id
    ((1200.0, 400.0), (0.0, -1.0), 100.0, False, True, []),
    # its path ends in the back-left corner pocket's mouth: a pocket is never guessed
    ((400.0, 400.0), (-1.0, -1.0), 100.0, False, False, []),
]


@pytest.mark.parametrize(("at", "d", "speed", "again", "newcomer", "expected"), CASES)
def test_a_ball_hit_hard_that_vanishes_mid_table_flew_off(
    at, d, speed, again, newcomer, expected
) -> None:
    paths = _scene(at, d, speed, again, newcomer)
    cut = cut_tracks(path_tracks(paths, FPS), PYR, FPS)
    ev = [e for s in cut.shots for e in s.events if e.ball == "w1"]
    assert [(str(e.type), e.frame) for e in ev] == expected
    contacts = [e for s in cut.shots for e in s.ev.of_type(EventType.CONTACT)]
    assert [(e.balls, e.frame) for e in contacts] == [(("yellow", "w1"), 20)]
