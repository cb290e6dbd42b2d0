"""The live-memory benchmark's child: it feeds a looped fixture to the live processor and
records RSS samples, the frames it was asked for and the shots handed out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.bench_live_memory import child

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "videos" / "pyramid-respot"


@pytest.mark.parametrize("frames, every", [(45, 10), (20, 100)])
def test_child_runs_the_live_processor_over_a_looped_clip(tmp_path, frames, every):
    out = tmp_path / "live.json"
    child(str(FIXTURE), str(frames), str(out), str(every))
    doc = json.loads(out.read_text())
    assert doc["frames"] == frames
    assert [s[0] for s in doc["samples"]] == list(range(0, frames, every))
    assert all(s[2] > 0 for s in doc["samples"])
    assert doc["peak_rss_mib"] >= max(s[2] for s in doc["samples"])
    assert doc["shots"] >= 0 and doc["cpu_s"] > 0
