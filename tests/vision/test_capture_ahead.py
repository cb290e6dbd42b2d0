"""VideoSource.first_images: the first frames decoded once, then yielded again in order
with the same pictures and timestamps as a source never read ahead."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import write_video

from vision.capture.source import LoopedSource, VideoSource, read_frames


def _frames(n: int, w: int = 64, h: int = 48) -> list[np.ndarray]:
    out = []
    for i in range(n):
        f = np.zeros((h, w, 3), np.uint8)
        f[:, : (i * 7) % w] = 180
        f[: (i * 3) % h, :, 1] = 90
        out.append(f)
    return out


@pytest.mark.parametrize("n, count", [(12, 9), (12, 1), (5, 9), (12, 12), (1, 9)])
def test_first_images_then_the_same_iteration(tmp_path, n: int, count: int) -> None:
    path = write_video(tmp_path / "v.mp4", _frames(n), fps=25.0)
    plain = list(read_frames(path))
    with VideoSource(path) as src:
        first = src.first_images(count)
        again = src.first_images(count)  # asked twice: nothing decoded twice, same pictures
        got = list(src)
    want = [f.image for f in plain[:count]]  # a second decoder, as the drift watch had
    assert len(first) == len(want) == min(n, count)
    for a, b, c in zip(first, again, want, strict=True):
        assert a is b and np.array_equal(a, c)
    assert [f.index for f in got] == [f.index for f in plain] == list(range(n))
    assert [f.t for f in got] == [f.t for f in plain]
    for f, p in zip(got, plain, strict=True):
        assert np.array_equal(f.image, p.image)


def test_looped_source_replays_the_frames_read_ahead(tmp_path) -> None:
    path = write_video(tmp_path / "v.mp4", _frames(6), fps=25.0)
    plain = list(read_frames(path))
    src = LoopedSource(path, 14)
    src.first_images(4)
    got = list(src)
    assert [f.index for f in got] == list(range(14))
    for f in got:
        assert np.array_equal(f.image, plain[f.index % 6].image)


def test_first_images_refused_once_reading(tmp_path) -> None:
    path = write_video(tmp_path / "v.mp4", _frames(4), fps=25.0)
    with VideoSource(path) as src:
        it = iter(src)
        next(it)
        with pytest.raises(ValueError, match="already being read"):
            src.first_images(3)
