"""The number reader's vote (``vision.numbers.reader``): views, the Hungarian assignment,
elimination, and the reader's loading errors."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from vision.detect.classify import MODEL_DIR
from vision.numbers.reader import (
    P_VIEW,
    NumberReader,
    NumberVote,
    assign_numbers,
    evidence,
)

R_PX = 15.0  # ball radius, video px


def look(n: int, p: float) -> np.ndarray:
    """Log-probabilities (16,) of one look that reads ``n`` (0: none readable) with ``p``."""
    out = np.full(16, (1 - p) / 15)
    out[n] = p
    return np.log(out / out.sum())


def vote_of(reads: list[tuple[int, float]], step_px: float = 10.0) -> NumberVote:
    """A vote of looks (number, p), the ball moving ``step_px`` px between looks (a new
    view each look when over half a radius)."""
    v = NumberVote()
    for k, (n, p) in enumerate(reads):
        v.add(look(n, p), np.array([100.0 + step_px * k, 200.0]), R_PX)
    return v


def test_evidence_is_none_when_no_number_is_readable():
    assert evidence(look(0, 0.9)) is None
    e = evidence(look(4, 0.9))
    assert e is not None and int(np.argmax(e)) == 3


def test_ball_at_rest_is_one_view_however_many_frames():
    v = vote_of([(7, 0.7)] * 10, step_px=0.0)
    assert v.scores()[1] == 1
    assert not v.wants_look(np.array([100.0, 200.0]), R_PX)  # nothing new at rest
    assert v.wants_look(np.array([100.0 + R_PX, 200.0]), R_PX)  # moved: a new view


@pytest.mark.parametrize(
    "reads, taken, want",
    [
        ([(7, 0.97)], set(), 7),  # one sure view
        ([(7, 0.6)], set(), None),  # one unsure view
        ([(7, 0.8)] * 4, set(), 7),  # several views agree
        ([(7, 0.8), (12, 0.8), (7, 0.8), (12, 0.8)], set(), None),  # views disagree
        ([(7, 0.97)], {7}, None),  # another track holds 7
        ([(6, 0.97)], set(), 6),  # 6 and 9 are told apart (underlined)
        ([(9, 0.97)], {6}, 9),
        ([(9, 0.97)], {9}, None),  # 9 held elsewhere: not turned into a 6
    ],
)
def test_assign_numbers_cases(reads, taken, want):
    got = assign_numbers({1: vote_of(reads)}, taken)
    assert got == ({} if want is None else {1: want})


def test_two_tracks_read_alike_share_no_number():
    votes = {1: vote_of([(5, 0.97)]), 2: vote_of([(5, 0.96)])}
    got = assign_numbers(votes, set())
    assert list(got.values()).count(5) <= 1
    assert got.get(1) == 5  # the surer one takes it


def test_hungarian_gives_the_second_choice_to_the_other_track():
    a = vote_of([(3, 0.98)])
    b = NumberVote()  # reads 3 or 8: mostly 3, then 8
    lp = np.full(16, 1e-4)
    lp[3], lp[8] = 0.5, 0.49
    for k in range(4):
        b.add(np.log(lp / lp.sum()), np.array([400.0 + 10 * k, 200.0]), R_PX)
    got = assign_numbers({1: a, 2: b}, set(), p_sure=0.4)
    assert got[1] == 3 and got.get(2) != 3


def test_last_ball_by_elimination():
    taken = set(range(1, 16)) - {11}
    assert assign_numbers({4: vote_of([(0, 0.9), (2, 0.3)])}, taken) == {4: 11}
    # two undecided tracks for one free number: no elimination
    votes = {4: vote_of([(2, 0.3)]), 5: vote_of([(2, 0.3)])}
    assert assign_numbers(votes, taken) == {}


def test_p_view_is_a_probability():
    assert 0.5 < P_VIEW < 1.0


def test_reader_reads_patches_as_log_probabilities():
    reader = NumberReader.load()
    rng = np.random.default_rng(0)
    patches = rng.integers(0, 255, (3, reader.patch, reader.patch, 3), np.uint8)
    lp = reader.read_patches(patches)
    assert lp.shape == (3, 16)
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0, atol=1e-6)
    with pytest.raises(ValueError, match="number patches must be"):
        reader.read_patches(patches[:, :8])


@pytest.mark.parametrize("damage", ["no_reader", "sha", "missing"])
def test_reader_load_errors_are_one_line(tmp_path, damage):
    shutil.copy(MODEL_DIR / "numbers.onnx", tmp_path / "numbers.onnx")
    manifest = json.loads((MODEL_DIR / "manifest.json").read_text())
    if damage == "no_reader":
        del manifest["number_reader"]
    elif damage == "sha":
        manifest["number_reader"]["sha256"] = "0" * 64
    else:
        (tmp_path / "numbers.onnx").unlink()
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError) as e:
        NumberReader.load(tmp_path)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("readable, rows", [(48, 6), (5, 1)])
def test_contact_sheet_of_readable_patches(readable, rows):
    from models.ballnet.numdata import sheet

    n = readable + 4
    data = {
        "x": np.full((n, 32, 32, 3), 200, np.uint8),
        "number": np.r_[np.arange(readable) % 15 + 1, np.zeros(4, int)],
        "radius": np.full(n, 14.5),
        "height": np.full(n, 1080),
    }
    assert sheet(data, 1080).shape == (rows * 148, 8 * 128, 3)
    with pytest.raises(ValueError, match="no readable 720p"):
        sheet(data, 720)
