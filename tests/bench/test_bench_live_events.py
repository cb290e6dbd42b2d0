"""The live-events benchmark: a fixture fed frame by frame through the live processor
hands out its shot once the rest state is confirmed, with the replay's events."""

from __future__ import annotations

import json

from bench.bench_live_events import FIXTURES, GOAL_S, live_clip, run
from contract.match import read_match


def test_live_clip_hands_out_each_shot_after_its_rest_state():
    mp4 = FIXTURES / "pyramid-respot.mp4"
    truth = read_match(mp4.with_suffix(".truth.json"))
    got = live_clip(mp4)
    assert len(got["shots"]) == len(truth.shots)
    for row, shot in zip(got["rows"], truth.shots, strict=True):
        assert abs(row["end"] - shot.end.frame) <= 2
        assert row["emitted"] > row["end"]  # never before the balls stopped
        assert 0 < row["latency_s"] < GOAL_S
    assert got["frames"] > truth.video.frames  # the last frame held after the clip


def test_run_quick_writes_figures_for_the_first_clip(tmp_path, capsys):
    figures = run(tmp_path, quick=True)
    assert list(figures["clips"]) == ["carom-5pin-break"]
    clip = figures["clips"]["carom-5pin-break"]
    assert clip["live_events_f1"] == clip["replay_events_f1"]
    assert figures["shots"] == clip["truth_shots"] == 1
    assert "worst latency" in capsys.readouterr().out
    json.dumps(figures)  # plain JSON figures
