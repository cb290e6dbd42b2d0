"""The ``tablemon`` command line: dispatch, schemas and one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

from service.cli import main


def test_schema_writes_valid_json_schemas(tmp_path: Path) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0
    match = json.loads((tmp_path / "match.schema.json").read_text())
    calib = json.loads((tmp_path / "calibration.schema.json").read_text())
    assert "shots" in match["properties"] and "image_to_table" in calib["properties"]


def test_bad_input_is_one_line_and_nonzero(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    r = subprocess.run(
        [sys.executable, "-m", "service.cli", "score", str(bad), str(bad)],
        capture_output=True,
        text=True,
    )
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
