"""``tablemon bench capacity --quick``: one and two live 1080p tables at once; every shot
recorded or flagged, none invented, the figures written with the machine's cores."""

from __future__ import annotations

import json
from pathlib import Path

from bench.bench_capacity import CLIP, score_table
from bench.cli import run_benchmark
from contract.match import read_match


def test_capacity_quick(tmp_path: Path) -> None:
    data = run_benchmark("capacity", tmp_path, quick=True)
    assert json.loads((tmp_path / "capacity.json").read_text()) == data
    assert data["cores"] >= 1 and data["quick"] is True
    tables = [r["tables"] for r in data["runs"]]
    # 1 and 2 tables, then twice what held (4 on an idle machine that holds 2)
    assert tables[:2] == [1, 2] and tables == sorted(set(tables))
    assert data["twice"]["tables"] in tables
    for r in data["runs"]:
        seen = [(t["seen"], t["health"]) for t in r["per_table"]]  # shown if it fails
        assert r["every_shot_recorded_or_flagged"] and r["invented"] == 0, seen
        for t in r["per_table"]:
            h = t["health"]
            assert h["frames_in"] == h["processed"] + h["dropped"] == 238
            assert t["recorded"] + t["flagged"] + t["wrong"] == 2
            assert t["holds"] == (t["recorded"] == 2 and h["lost"] == 0 and h["max_lag_s"] < 2)
    assert data["holds_tables"] in (0, 1, 2) and data["twice"]["tables"] == 2 * max(
        data["holds_tables"], 1
    )


def test_score_table_counts_each_kind() -> None:
    truth = read_match(CLIP.with_suffix(".truth.json"))
    shots = [s.model_dump(mode="json", exclude_none=True) for s in truth.shots]
    for s in shots:
        s.pop("index")
        s.pop("verdict")
    assert score_table(truth, shots) == {
        "recorded": 2, "flagged": 0, "wrong": 0, "lost": 0, "invented": 0, "shots": 2
    }  # fmt: skip
    first = {**shots[0], "unseen": {"from": 60, "to": 70}}
    whole = {**shots[0], "unseen": {"from": 60, "to": 200}}  # names shot 2's frames too
    assert score_table(truth, [whole])["flagged"] == 2
    far = {**shots[1], "start": {"frame": 1000, "t": 33.3}, "end": {"frame": 1100, "t": 36.7}}
    assert score_table(truth, [first, far]) == {
        "recorded": 0, "flagged": 1, "wrong": 0, "lost": 1, "invented": 1, "shots": 2
    }  # fmt: skip
