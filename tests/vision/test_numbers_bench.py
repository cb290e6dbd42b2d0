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
