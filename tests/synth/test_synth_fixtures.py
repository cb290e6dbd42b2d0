"""The committed fixtures (fixtures/videos) and the ``tablemon synth`` command."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import synth.cli as synth_cli
from contract.calib import read_calibration
from contract.match import read_match
from contract.tracks import read_tracks
from service.cli import main
from synth.cli import FIXTURES, SIZES, make

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "videos"


@pytest.mark.parametrize("name,scen,seed,size,strokes", FIXTURES)
def test_fixture_files_are_valid_and_agree(name, scen, seed, size, strokes):
    m = read_match(FIX / f"{name}.truth.json")
    tr = read_tracks(FIX / f"{name}.truth.csv")
    cal = read_calibration(FIX / f"{name}.calib.json")
    assert cal.data.image_size == SIZES[size]
    assert m.shots and m.video is not None
    assert tr.frame.max() == m.video.frames - 1
    # a ball's tracked pixel lies where the truth calibration puts its centre (R above cloth)
    first_cam = tr.frame < (m.events[0].frame if m.events else m.video.frames)
    pins = np.isin(tr.id, ["centre", "front", "back", "left", "right"])
    seen = first_cam & tr.visible & ~pins
    R = {"pyramid-12ft": 34.0, "carom-match": 30.75}[m.table]
    uv = cal.table_to_pixel(np.c_[tr.x[seen], tr.y[seen]], height=R)
    assert np.abs(uv - np.c_[tr.u[seen], tr.v[seen]]).max() < 0.5
    video = FIX / f"{name}.mp4"
    cap = cv2.VideoCapture(str(video))
    try:
        assert cap.isOpened(), video
        n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    finally:
        cap.release()
    assert abs(n - m.video.frames) <= 1 and (w, h) == SIZES[size]


def _strip_verdicts(path: Path) -> dict:
    """The truth without the adjudicator's part (verdicts, score), which its own tests own,
    and without the contacts' optional ``impulse`` (the fixtures' truth predates it)."""
    data = json.loads(path.read_text())
    for s in data["shots"]:
        s.pop("verdict", None)
        for e in s["events"]:
            e.pop("impulse", None)
    data.pop("score", None)
    data.pop("game", None)
    return data


@pytest.mark.parametrize("name,scen,seed,size,strokes", FIXTURES)
def test_fixture_truth_regenerates_from_its_seed(tmp_path, name, scen, seed, size, strokes):
    make(scen, seed, size, tmp_path, name, render=False, strokes=strokes)
    regen = json.loads((tmp_path / f"{name}.truth.json").read_text())
    contacts = [e for s in regen["shots"] for e in s["events"] if e["type"] == "contact"]
    assert all(e.get("impulse", -1.0) >= 0.0 for e in contacts)  # each new contact has one
    assert _strip_verdicts(tmp_path / f"{name}.truth.json") == _strip_verdicts(
        FIX / f"{name}.truth.json"
    )
    for calib in sorted(FIX.glob(f"{name}.calib*.json")):
        assert (tmp_path / calib.name).read_bytes() == calib.read_bytes()
    new, old = read_tracks(tmp_path / f"{name}.truth.csv"), read_tracks(FIX / f"{name}.truth.csv")
    assert (new.frame == old.frame).all() and (new.id == old.id).all()
    assert np.array_equal(new.x, old.x) and np.array_equal(new.y, old.y)


def test_truth_files_are_the_same_bytes_every_run(tmp_path):
    for run in ("a", "b"):
        make("pyramid-knock", 5, "720", tmp_path / run, "clip", render=False)
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert "clip.truth.json" in names and "clip.calib.1.json" in names
    for n in names:
        assert (tmp_path / "a" / n).read_bytes() == (tmp_path / "b" / n).read_bytes(), n


def test_cli_writes_truth_and_rejects_bad_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(synth_cli, "can_render", lambda: False)
    rc = main(["synth", "pyramid-knock", "--seed", "5", "--out", str(tmp_path), "--name", "k"])
    assert rc == 0
    assert {p.name for p in tmp_path.iterdir()} >= {"k.truth.json", "k.truth.csv", "k.calib.json"}
    assert main(["synth", "no-such-scenario", "--out", str(tmp_path)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) >= 1 and "unknown scenario 'no-such-scenario'" in err[-1]
    assert main(["synth", "list"]) == 0
    assert "carom-5pin-break" in capsys.readouterr().out
