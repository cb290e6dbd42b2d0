"""The detector on the real snooker-small-ceiling stills (skips without ../shared/footage)."""

from __future__ import annotations

import pytest

from bench.bench_vision_real import SNOOKER, snooker_stills

pytestmark = pytest.mark.skipif(
    not (SNOOKER / "testcases.json").is_file(), reason="../shared/footage not present"
)


def test_snooker_stills_every_ball_found_within_millimetres():
    r = snooker_stills()
    assert r["images"] == 10 and r["balls"] > 200
    assert r["recall"] >= 0.97 and r["precision"] >= 0.97
    assert r["median_error_mm"] <= 5.0
