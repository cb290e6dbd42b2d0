"""Automatic calibration on the real snooker-small-ceiling stills: the detector's balls
mapped through it land near the file's truth (skips without ../shared/footage)."""

from __future__ import annotations

import pytest

from bench.bench_calibration import FOOTAGE, snooker_check

pytestmark = pytest.mark.skipif(
    not (FOOTAGE / "snooker-small-ceiling" / "testcases.json").is_file(),
    reason="../shared/footage not present",
)


def test_snooker_balls_through_the_automatic_calibration():
    r = snooker_check(quick=True)  # the first three stills, the full rack of 1.png among them
    assert r["images"] == 3 and r["balls"] == 64
    assert r["matched_30mm"] >= r["balls"] - 2
    assert r["within_10mm_of_all"] >= 0.9 and r["median_mm"] <= 6.0
