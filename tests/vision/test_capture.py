"""Capture: frames in order with timestamps, stills, one-line errors, the live reader."""

from __future__ import annotations

import time

import numpy as np
import pytest
from vision_scene import write_video

from contract.errors import ContractError
from vision.capture.source import LiveReader, LoopedSource, VideoSource, read_frames


def _frames(n: int, w: int = 64, h: int = 48) -> list[np.ndarray]:
    out = []
    for i in range(n):
        f = np.zeros((h, w, 3), np.uint8)
        f[:, : (i * 5) % w] = 200
        out.append(f)
    return out


def test_replay_yields_every_frame_in_order(tmp_path):
    path = write_video(tmp_path / "v.mp4", _frames(12), fps=25.0)
    frames = list(read_frames(path))
    assert [f.index for f in frames] == list(range(12))
    assert np.allclose([f.t for f in frames], np.arange(12) / 25.0, atol=1e-3)
    assert frames[0].size == (64, 48)


def test_still_image_is_one_frame(tmp_path):
    import cv2

    p = tmp_path / "s.png"
    cv2.imwrite(str(p), _frames(1)[0])
    with VideoSource(p) as src:
        frames = list(src)
    assert len(frames) == 1 and frames[0].t == 0.0 and src.frame_count == 1


@pytest.mark.parametrize(
    "name, content",
    [
        ("missing.mp4", None),
        ("corrupt.mp4", b"\x00\x01not a video" * 50),
        ("empty.mp4", b""),
        ("bad.png", b"not an image"),
    ],
)
def test_unreadable_source_is_one_line_error(tmp_path, name, content):
    p = tmp_path / name
    if content is not None:
        p.write_bytes(content)
    with pytest.raises(ContractError) as e:
        VideoSource(p)
    assert "\n" not in str(e.value) and str(p) in str(e.value)


def test_truncated_video_keeps_frames_read(tmp_path):
    path = write_video(tmp_path / "v.avi", _frames(60), fps=30.0)
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    with VideoSource(cut) as src:
        frames = list(src)
    assert 0 < len(frames) < 60
    assert src.truncated


def test_live_reader_drops_frames_when_pipeline_is_slow(tmp_path):
    path = write_video(tmp_path / "v.mp4", _frames(40), fps=30.0)
    got = []
    with LiveReader(path) as live:
        for f in live:
            got.append(f.index)
            time.sleep(0.01)
    assert got == sorted(got) and len(set(got)) == len(got)
    assert live.dropped + live.delivered == 40


@pytest.mark.parametrize("total", [5, 12, 30])
def test_looped_source_plays_the_file_again_until_enough_frames(tmp_path, total):
    frames = _frames(12)
    path = write_video(tmp_path / "v.mp4", frames, fps=25.0)
    got = list(LoopedSource(path, total))
    assert [f.index for f in got] == list(range(total))
    assert np.allclose([f.t for f in got], np.arange(total) / 25.0)
    first = list(read_frames(path))
    for f in got:  # frame k shows the file's frame k mod 12
        assert np.array_equal(f.image, first[f.index % 12].image)


def test_looped_source_refuses_a_still(tmp_path):
    import cv2

    p = tmp_path / "s.png"
    cv2.imwrite(str(p), _frames(1)[0])
    with pytest.raises(ContractError, match="looped"):
        LoopedSource(p, 10)
