"""A camera knocked mid-video: the replay says so, recalibrates, and invents no shot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "videos" / "pyramid-knock-1080"


@pytest.mark.skipif(not FIX.with_suffix(".mp4").exists(), reason="fixture clip missing")
def test_knocked_camera_is_reported_and_shots_stay_right(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    rc = main(
        [
            "replay",
            str(FIX.with_suffix(".mp4")),
            "--game",
            "pyramid-free",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert rc == 0
    pred = json.loads(out.read_text())
    truth = json.loads(Path(f"{FIX}.truth.json").read_text())
    knocks = [e["frame"] for e in pred["events"] if e["type"] == "camera_moved"]
    assert len(knocks) == 1
    assert abs(knocks[0] - truth["events"][0]["frame"]) <= 3
    assert [(s["start"]["frame"], s["cue_ball"]) for s in pred["shots"]] == [
        (s["start"]["frame"], s["cue_ball"]) for s in truth["shots"]
    ]
    kinds = {e["type"] for s in pred["shots"] for e in s["events"]}
    assert "ball_touched" not in kinds
