"""The hand-held uk8ball break (skips without ../shared/footage): while the camera
reframes (40-62) and swings and zooms (305 to the end) tablemon strikes nothing and
invents no ball; it says the camera moved there, and finds the one strike a person sees
(the break at 179) and the 16 balls at every labelled rest state and just before the
break."""

from __future__ import annotations

import pytest

from bench.bench_counts_real import on_table
from bench.bench_events_real import FOOTAGE, WINDOW, track_real_clip
from bench.label_tools import load_labels
from contract.events import EventType
from contract.match import Match, VideoInfo
from vision.events.shots import shots_from_tracks

NAME = "pool-uk8ball-overhead/break.mp4"


def test_moving_camera_makes_no_strike_and_no_ball():
    if not (FOOTAGE / NAME).is_file():
        pytest.skip("../shared/footage not present")
    label = load_labels()["clips"][NAME]
    table, res = track_real_clip(NAME, label)
    match = Match(game="pyramid-free", table=table.name, video=VideoInfo(fps=res.fps, frames=348))
    match = shots_from_tracks(match, res.tracks, table, moved=res.moved)
    strikes = [s.start.frame for s in match.shots]
    truth = [s["strike"] for s in label["shots"]]
    assert len(strikes) == len(truth) == 1, strikes
    assert abs(strikes[0] - truth[0]) <= WINDOW, strikes
    assert not [e for s in match.shots for e in s.events if e.type == EventType.POCKET]
    # the reframe and the swing are moves, each reported by a camera_moved event
    for first, last in ((45, 58), (315, 340)):
        assert any(a <= first and b >= last for a, b in res.moved), res.moved
        assert any(
            e.type == EventType.CAMERA_MOVED and e.frame <= first and e.until >= last
            for e in res.events
        ), res.events
    # the break is no move: the recalibration after the reframe fits its batch's sharpest
    # frame, not the latest, smeared one (whose cushions matched nothing later)
    assert not any(a <= 190 <= b for a, b in res.moved), res.moved
    for state in label["rest_counts"]:
        assert on_table(res.tracks, state["frame"], table) == state["balls"], state["frame"]
    # the last frame before the break: the player's fingertip on the front cushion (from
    # 140) was not born as a ball
    assert on_table(res.tracks, truth[0] - 1, table) == 16
