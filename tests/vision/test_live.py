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


@pytest.mark.skipif(not FIX.with_suffix(".mp4").exists(), reason="fixture clip missing")
@pytest.mark.parametrize("read_numbers", [False, True])
def test_live_processor_reads_numbers_for_classic_pyramid(monkeypatch, read_numbers) -> None:
    """With ``read_numbers`` the tracker gets every frame's picture and each shot is handed
    out under the numbers read by then (here every ``w1`` is taken as read 7); without it
    no picture is given and the ids stay the tracker's."""
    from vision.track.tracker import Tracker

    pictures: list[bool] = []
    update = Tracker.update

    def spy(self, det, image=None, empty=None, attached=None):
        pictures.append(image is not None)
        return update(self, det, image, empty, attached)

    monkeypatch.setattr(Tracker, "update", spy)
    monkeypatch.setattr(Tracker, "renames", lambda self: {"w1": "7"})
    calib = json.loads(FIX.with_suffix(".calib.json").read_text())
    proc = make_processor("pyramid-12ft", calib, read_numbers=read_numbers)
    cap = cv2.VideoCapture(str(FIX.with_suffix(".mp4")))
    fps = cap.get(cv2.CAP_PROP_FPS)
    shots, k = [], 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        shots += [s for s in proc(img, k / fps) if "start" in s]
        k += 1
    names = {b for s in shots for b in s["rest"]}
    assert shots and pictures and all(pictures) == read_numbers and any(pictures) == read_numbers
    assert ("7" in names and "w1" not in names) if read_numbers else ("w1" in names)
