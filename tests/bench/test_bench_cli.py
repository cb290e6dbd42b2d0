"""`tablemon bench`: benchmarks found by module name, figures written as JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench.cli import known_benchmarks, plain, run_cli
from service.cli import main

DEMO = """
from pathlib import Path
import numpy as np

def run(out_dir: Path, quick: bool) -> dict:
    print("demo table")
    (out_dir / "side.txt").write_text("x")
    return {"quick": quick, "mean": np.float64(1.5), "n": np.int64(3), "arr": np.arange(3),
            "nan": float("nan"), "t": (1, 2)}
"""


@pytest.fixture
def fake_pkg(tmp_path: Path, monkeypatch) -> str:
    pkg = tmp_path / "fakebench_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bench_demo.py").write_text(DEMO)
    (pkg / "bench_bad.py").write_text("def run(out_dir, quick):\n    return [1, 2]\n")
    (pkg / "helper.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "fakebench_pkg"


def ns(name: str, out: Path, quick: bool = True) -> argparse.Namespace:
    return argparse.Namespace(name=name, out=str(out), quick=quick)


def test_registry_finds_modules_by_name(fake_pkg: str) -> None:
    assert known_benchmarks(fake_pkg) == ["bad", "demo"]


def test_run_writes_figures(fake_pkg: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert run_cli(ns("demo", out), package=fake_pkg) == 0
    text = capsys.readouterr().out
    assert "demo table" in text and "demo.json" in text
    data = json.loads((out / "demo.json").read_text())
    assert data == {"quick": True, "mean": 1.5, "n": 3, "arr": [0, 1, 2], "nan": None, "t": [1, 2]}
    assert (out / "side.txt").is_file()


def test_unknown_name_lists_known(fake_pkg: str, tmp_path: Path, capsys) -> None:
    assert run_cli(ns("nope", tmp_path), package=fake_pkg) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad, demo" in err


def test_list(fake_pkg: str, tmp_path: Path, capsys) -> None:
    assert run_cli(ns("list", tmp_path), package=fake_pkg) == 0
    assert capsys.readouterr().out.split() == ["bad", "demo"]


def test_non_dict_figures_is_an_error(fake_pkg: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a dict"):
        run_cli(ns("bad", tmp_path), package=fake_pkg)


def test_cli_unknown_benchmark_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["bench", "no_such_benchmark", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown benchmark 'no_such_benchmark'" in err
    assert all(n in err for n in known_benchmarks())


@pytest.mark.parametrize(
    ("value", "expected"),
    [(float("inf"), None), ((1, (2, 3)), [1, [2, 3]]), ({1: Path("a")}, {"1": "a"})],
)
def test_plain(value, expected) -> None:
    assert plain(value) == expected


def test_plain_uses_report_to_json(truth) -> None:
    from bench.score import score_match

    data = plain({"report": score_match(truth, truth)})
    assert data["report"]["shots"]["recall"] == 1.0
    assert data["report"]["events"]["first_contact"] == 1.0  # a property: only to_json has it
