"""Live vision: frames in, each shot out as soon as its rest state is confirmed."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from contract.errors import ContractError
from contract.match import read_match
from vision.live import make_processor

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "videos" / "pyramid-respot"


@pytest.mark.skipif(not FIX.with_suffix(".mp4").exists(), reason="fixture clip missing")
def test_live_processor_emits_each_shot_within_half_a_second_of_rest() -> None:
    calib = json.loads(FIX.with_suffix(".calib.json").read_text())
    truth = read_match(f"{FIX}.truth.json")
    proc = make_processor("pyramid-12ft", calib)
    cap = cv2.VideoCapture(str(FIX.with_suffix(".mp4")))
    fps = cap.get(cv2.CAP_PROP_FPS)
    got: list[tuple[int, dict]] = []
    k = 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        got += [(k, s) for s in proc(img, k / fps)]
        k += 1
    # the measure: start and end each within 2 frames of the truth
    assert len(got) == len(truth.shots)
    for (_, shot), t in zip(got, truth.shots, strict=True):
        assert abs(shot["start"]["frame"] - t.start.frame) <= 2
        assert abs(shot["end"]["frame"] - t.end.frame) <= 2
    for (emitted, shot), t in zip(got, truth.shots, strict=True):
        # confirmed after the 0.5 s settle window, handed over on that same frame
        assert (emitted - shot["end"]["frame"]) / fps <= 0.5 + 1 / fps
        kinds = [e["type"] for e in shot["events"]]
        assert kinds[0] == "strike" and kinds.count("pocket") == [e.type for e in t.events].count(
            "pocket"
        )


def test_live_processor_needs_a_calibration() -> None:
    with pytest.raises(ContractError, match="calibration"):
        make_processor("pyramid-12ft", None)
