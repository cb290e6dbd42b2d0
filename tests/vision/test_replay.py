"""`tablemon replay` on a tiny generated video: TRACKS.csv, MATCH.json, annotated video, errors."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib, write_video

from contract.calib import write_calibration
from contract.match import read_match
from contract.tables import load_table
from contract.tracks import read_tracks
from service.cli import main
from vision.capture.source import VideoSource

SIZE = (640, 360)
N = 24


def _truth(k: int, table):
    moving = (600.0 + 40.0 * k, 500.0)
    return [(*moving, "yellow"), (2600.0, 900.0, "white"), (2700.0, 1300.0, "white")]


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    d = tmp_path_factory.mktemp("replay")
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=20)
    frames = [draw_scene(calib, table, SIZE, _truth(k, table), seed=k) for k in range(N)]
    write_video(d / "clip.avi", frames, fps=30.0)
    write_calibration(d / "calib.json", calib)
    return d, table


def test_replay_writes_tracks_match_and_annotated(clip):
    d, table = clip
    rc = main(
        [
            "replay",
            str(d / "clip.avi"),
            "--game",
            "pyramid-free",
            "--calibration",
            str(d / "calib.json"),
            "--out",
            str(d / "m.json"),
            "--tracks",
            str(d / "t.csv"),
            "--annotated",
            str(d / "a.mp4"),
            "--no-progress",
        ]
    )
    assert rc == 0
    tracks = read_tracks(d / "t.csv")
    assert set(tracks.ids()) == {"yellow", "w1", "w2"}
    assert len(tracks) == 3 * N and tracks.visible.all()
    y = tracks.of("yellow")
    truth = np.array([_truth(k, table)[0][:2] for k in range(N)])
    err = np.hypot(y.x - truth[:, 0], y.y - truth[:, 1])
    assert np.median(err) < 4.0  # 640 px wide: 1 px is about 6 mm
    assert np.all(np.isfinite(y.u))
    m = read_match(d / "m.json")
    assert m.game == "pyramid-free" and m.table == "pyramid-12ft"
    assert m.video.frames == N and abs(m.video.fps - 30.0) < 0.01
    with VideoSource(d / "a.mp4") as a:
        assert a.size == SIZE and sum(1 for _ in a) == N


def test_replay_without_calibration_or_with_wrong_size_is_one_line(clip, tmp_path, capsys):
    d, table = clip
    bad = topdown_calib(table, (1280, 720))
    write_calibration(tmp_path / "c.json", bad)
    rc = main(
        [
            "replay",
            str(d / "clip.avi"),
            "--game",
            "pyramid-free",
            "--calibration",
            str(tmp_path / "c.json"),
            "--out",
            str(tmp_path / "m.json"),
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert rc != 0 and "1280x720" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.json").exists()
    rc = main(
        [
            "replay",
            str(tmp_path / "none.mp4"),
            "--game",
            "pyramid-free",
            "--calibration",
            str(d / "calib.json"),
            "--out",
            str(tmp_path / "m.json"),
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert rc != 0 and "no such video file" in err and len(err.strip().splitlines()) == 1


def test_replay_calibrates_automatically_without_calibration_file(clip, tmp_path, capsys):
    pytest.importorskip("calibration.cli")
    d, table = clip
    args = [
        "replay",
        str(d / "clip.avi"),
        "--game",
        "pyramid-free",
        "--out",
        str(tmp_path / "m.json"),
        "--tracks",
        str(tmp_path / "t.csv"),
        "--no-progress",
    ]
    # the drawn table has no house or spotting line: its ends cannot be read, and a
    # guessed front would turn every position, so the replay refuses with one line
    assert main(args) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "front end cannot be told" in err[0] and "--front" in err[0]
    assert not (tmp_path / "m.json").exists()
    rc = main([*args, "--front", "left"])  # the front cushion is on the picture's left
    assert rc == 0
    tracks = read_tracks(tmp_path / "t.csv")
    assert {"yellow", "w1", "w2"} <= set(tracks.ids())


@pytest.mark.parametrize(
    ("game", "flag", "expect_ids", "images"),
    [
        ("pyramid-classic", "--no-read-numbers", "w1", 0),
        ("pyramid-classic", "--read-numbers", "7", N),
        ("pyramid-classic", None, "7", N),  # classic scores ball numbers: read by default
        ("pyramid-free", None, "w1", 0),
        ("pyramid-free", "--read-numbers", "7", N),
    ],
)
def test_replay_read_numbers_hands_frames_to_the_reader_and_renames(
    clip, monkeypatch, game, flag, expect_ids, images
):
    """``--read-numbers``: the tracker gets every frame's picture and a ball read as 7 is
    written under id ``7`` from its first row (contract §3); without it, ids stay ``wN``.
    Without either flag, only classic pyramid reads."""
    from vision.track.tracker import Tracker

    d, _ = clip
    seen: list[bool] = []
    update = Tracker.update

    def spy(self, det, image=None, empty=None, attached=None):
        seen.append(image is not None)
        return update(self, det, image, empty, attached)

    monkeypatch.setattr(Tracker, "update", spy)
    monkeypatch.setattr(Tracker, "renames", lambda self: {"w1": "7"})
    out = d / f"numbers-{game}-{flag}.csv"
    argv = ["replay", str(d / "clip.avi"), "--game", game]
    argv += ["--calibration", str(d / "calib.json"), "--out", str(d / f"n{game}{flag}.json")]
    argv += ["--tracks", str(out), "--no-progress"] + ([flag] if flag else [])
    assert main(argv) == 0
    ids = set(read_tracks(out).ids())
    assert sum(seen) == images
    assert expect_ids in ids and ({"w1", "7"} - {expect_ids}).isdisjoint(ids)
    assert len(ids) == 3
