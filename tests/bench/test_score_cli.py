"""`tablemon score` on files: prints the table, writes JSON, one line and exit 2 on bad files."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from contract.calib import write_calibration
from contract.match import Match, write_match
from contract.tracks import Tracks, write_tracks
from service.cli import main


@pytest.fixture
def files(tmp_path: Path, truth_dict: dict, truth_tracks: Tracks, truth_calib) -> dict[str, Path]:
    pred = copy.deepcopy(truth_dict)
    del pred["shots"][3]
    paths = {
        k: tmp_path / n
        for k, n in [
            ("truth", "truth.json"),
            ("pred", "pred.json"),
            ("tt", "truth.csv"),
            ("pt", "pred.csv"),
            ("tc", "truth.calib.json"),
            ("pc", "pred.calib.json"),
        ]
    }
    write_match(paths["truth"], Match.model_validate(truth_dict))
    write_match(paths["pred"], Match.model_validate(pred))
    write_tracks(paths["tt"], truth_tracks)
    write_tracks(paths["pt"], truth_tracks.select(truth_tracks.frame % 10 != 0))
    write_calibration(paths["tc"], truth_calib)
    write_calibration(paths["pc"], truth_calib)
    return paths


def test_score_prints_table_and_writes_json(files, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out" / "score.json"
    argv = ["score", str(files["pred"]), str(files["truth"]), "--json", str(out)]
    argv += ["--tracks", str(files["pt"]), str(files["tt"])]
    argv += ["--calibration", str(files["pc"]), str(files["tc"])]
    assert main(argv) == 0
    text = capsys.readouterr().out
    for word in ("shots", "events", "contact", "rest", "verdicts", "tracks", "calibration"):
        assert word in text
    data = json.loads(out.read_text())
    assert data["shots"]["recall"] == 0.75 and data["shots"]["precision"] == 1.0
    assert data["tracks"]["coverage"] == 0.9
    assert data["calibration"]["error"]["max"] < 1e-6
    assert data["truth"] == str(files["truth"])


def test_score_without_options(files, capsys) -> None:
    assert main(["score", str(files["truth"]), str(files["truth"])]) == 0
    text = capsys.readouterr().out
    assert "recall 1.000" in text and "tracks" not in text


@pytest.mark.parametrize(
    ("which", "content", "msg"),
    [
        ("pred", "{", "not valid JSON"),
        ("pred", '{"format": "tablemon-match/1", "game": "pyramid-free"}', "table"),
        ("truth", '{"format": "other"}', "format"),
        ("pt", "frame,t,id\n", "header"),
        ("tt", "frame,t,id,x,y,visible,u,v\n0,0,yellow,abc,1,1,,\n", "line 2"),
        ("pc", '{"format": "tablemon-calibration/1", "table": "pyramid-12ft"}', "image_size"),
    ],
)
def test_bad_file_one_line_exit_2(files, capsys, which: str, content: str, msg: str) -> None:
    files[which].write_text(content)
    argv = ["score", str(files["pred"]), str(files["truth"])]
    argv += ["--tracks", str(files["pt"]), str(files["tt"])]
    argv += ["--calibration", str(files["pc"]), str(files["tc"])]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(files[which]) in err and msg in err


def test_missing_file_exit_2(tmp_path: Path, files, capsys) -> None:
    assert main(["score", str(tmp_path / "nope.json"), str(files["truth"])]) == 2
    assert "no such file" in capsys.readouterr().err
