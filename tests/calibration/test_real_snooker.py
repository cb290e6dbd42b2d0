"""Automatic calibration on the real snooker-small-ceiling stills: the detector's balls
mapped through it land near the file's truth (skips without ../shared/footage).

Issue 3 asks every ball within 10 mm. Measured on the ten stills (211 balls) with the
centres fitted to each ball's own edge: all found, all within 10 mm, median 2.3 mm,
max 6.8 mm (before: 95.7 %, 3 not found, balls frozen to a cushion 10-15 mm off)."""

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


def test_every_snooker_ball_within_10_mm():
    """All ten stills: the balls frozen to a cushion under the projected halo rings and
    the black balls with glare spots included."""
    r = snooker_check(quick=False)
    assert r["images"] == 10 and r["balls"] == 211
    assert r["matched_30mm"] == r["balls"]  # none missed
    assert r["within_10mm_of_all"] == 1.0 and r["max_mm"] <= 10.0
    assert r["median_mm"] <= 3.5
