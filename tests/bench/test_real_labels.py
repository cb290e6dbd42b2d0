"""Schema and consistency checks of bench/real_labels.json (the by-eye labels of the real footage).

The labels file is read without the footage; one test compares the recorded fps, size
and decoded frame counts with the clips and skips cleanly when ``../shared/footage`` is
absent. Frame numbers are 0-based in cv2 decoding order.
"""

from __future__ import annotations

import copy
import json

import pytest

from bench.label_tools import FOOTAGE, load_labels, validate

LABELS_DOC = load_labels()
CLIPS = sorted(LABELS_DOC["clips"])

EXPECTED_CLIPS = [
    *(f"pool-9ball-overhead/clip{i}.mp4" for i in range(1, 10)),
    "pool-uk8ball-overhead/break.mp4",
    "carom-3cushion-overhead/clip.mp4",
]


def test_every_clip_is_labelled() -> None:
    assert sorted(EXPECTED_CLIPS) == CLIPS


def test_the_labels_file_is_well_formed() -> None:
    assert validate(LABELS_DOC) == []


@pytest.mark.parametrize("clip", CLIPS)
def test_each_clip_has_a_shot_and_a_first_rest_count(clip: str) -> None:
    c = LABELS_DOC["clips"][clip]
    assert c["shots"], "every clip shows at least one strike"
    first = min(r["frame"] for r in c["rest_counts"])
    assert first < c["shots"][0]["strike"], "a rest count before the first strike"


def _broken(path: tuple, value) -> dict:
    doc = copy.deepcopy(LABELS_DOC)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


CLIP6 = ("clips", "pool-9ball-overhead/clip6.mp4")
BROKEN = [
    (("format",), "tablemon-real-labels/0", "format"),
    ((*CLIP6, "front"), "left", "front must be"),
    ((*CLIP6, "shots", 0, "strike"), 245, "strike"),
    ((*CLIP6, "shots", 0, "rest"), 10, "rest must be"),
    ((*CLIP6, "shots", 0, "pockets", 0, "pocket"), "top-right", "unknown pocket"),
    ((*CLIP6, "shots", 0, "pockets", 0, "frame"), 230, "outside the shot"),
    ((*CLIP6, "rest_counts", 1, "balls"), 8, "colours for 8 balls"),
    ((*CLIP6, "occlusions", 0), [100, 50, "arm"], "occlusion"),
    ((*CLIP6, "shots", 0, "pockets"), [], "lost"),
]


@pytest.mark.parametrize(("path", "value", "message"), BROKEN)
def test_the_checker_finds_broken_labels(path: tuple, value, message: str) -> None:
    problems = validate(_broken(path, value))
    assert any(message in p for p in problems), problems


def test_a_pocket_on_a_carom_table_is_rejected() -> None:
    doc = copy.deepcopy(LABELS_DOC)
    shot = doc["clips"]["carom-3cushion-overhead/clip.mp4"]["shots"][0]
    shot["pockets"] = [{"frame": 100, "pocket": "back-left", "ball": "red"}]
    assert any("carom" in p for p in validate(doc))


def test_load_labels_gives_one_line_errors(tmp_path) -> None:
    bad = tmp_path / "labels.json"
    bad.write_text(json.dumps(_broken((*CLIP6, "front"), "left")))
    with pytest.raises(ValueError, match=r"front must be") as info:
        load_labels(bad)
    assert "\n" not in str(info.value)
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read labels"):
        load_labels(bad)


def test_snooker_counts_agree_with_the_source_truth() -> None:
    truth = FOOTAGE / "snooker-small-ceiling" / "testcases.json"
    if not truth.exists():
        pytest.skip("../shared/footage is absent")
    counts = LABELS_DOC["stills"]["snooker-small-ceiling"]["counts"]
    for case in json.loads(truth.read_text())["cases"]:
        name = case["image"].rsplit("/", 1)[-1]
        assert counts[name]["balls"] == len(case["balls"]), name


@pytest.mark.parametrize("clip", CLIPS)
def test_recorded_video_properties_match_the_footage(clip: str) -> None:
    cv2 = pytest.importorskip("cv2")
    path = FOOTAGE / clip
    if not path.exists():
        pytest.skip("../shared/footage is absent")
    c = LABELS_DOC["clips"][clip]
    cap = cv2.VideoCapture(str(path))
    try:
        assert cap.get(cv2.CAP_PROP_FPS) == pytest.approx(c["fps"], abs=1e-3)
        assert [
            int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        ] == c["size"]
        cap.set(cv2.CAP_PROP_POS_FRAMES, c["frames"] - 1)
        assert cap.read()[0], "the last labelled frame decodes"
        assert not cap.read()[0], "no frame after the last labelled one"
    finally:
        cap.release()
