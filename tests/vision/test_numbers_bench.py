"""The number benchmark's pooling (``bench.bench_ballnet.summary``): ball-shots weighted,
per picture height, right + wrong + unread = 1."""

from __future__ import annotations

import pytest

from bench.bench_ballnet import summary


def clip(size: str, balls: int, right: float, wrong: float) -> dict:
    part = {"balls": balls, "right": right if balls else None, "wrong": wrong if balls else None}
    return {"size": size, "all": part, "in_shot": part, "numbered_balls_visible_ever": balls // 2}


@pytest.mark.parametrize(
    "clips, key, want",
    [
        # 4 balls 50 % right + 6 balls 0 % right, 1 wrong: 2/10 right, 1/10 wrong
        ([clip("1080", 4, 0.5, 0.0), clip("1080", 6, 0.0, 1 / 6)], "1080p_all", (10, 0.2, 0.1)),
        ([clip("720", 0, 0, 0), clip("720", 2, 1.0, 0.0)], "720p_all", (2, 1.0, 0.0)),
        ([clip("720", 0, 0, 0)], "720p_in_shot", (0, None, None)),
    ],
)
def test_summary_pools_ball_shots(clips, key, want):
    got = summary(clips)[key]
    n, right, wrong = want
    assert got["balls"] == n
    assert got["distinct_balls"] == sum(c["numbered_balls_visible_ever"] for c in clips)
    if n:
        assert got["right"] == pytest.approx(right) and got["wrong"] == pytest.approx(wrong)
        assert got["right"] + got["wrong"] + got["unread"] == pytest.approx(1.0)
    else:
        assert got["right"] is None and got["unread"] is None


def test_second_look_timing_balls_are_all_turned():
    """The second look's timing row measures the second read: every inked ball's figure
    lies off its centre, so every one is turned and read again."""
    from bench.bench_ballnet import timing
    from vision.detect.classify import extract_patches
    from vision.numbers.reader import NUM_PATCH, NUM_SPAN, turned_figure

    seen = []

    def count(img, uv, r):
        patches = extract_patches(img, uv, r, NUM_PATCH, NUM_SPAN)
        seen.append(sum(turned_figure(p) is not None for p in patches))

    timing(16, 1, count, inked=True)
    assert seen == [16, 16]  # warm-up and one repeat
    seen.clear()
    timing(16, 1, count)  # noise, no balls: nothing to turn
    assert max(seen) < 4
