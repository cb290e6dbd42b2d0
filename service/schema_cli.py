"""``tablemon schema``: write the JSON Schemas of MATCH.json and CALIB.json."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from contract.calib import CalibrationFile
from contract.match import Match


def schemas() -> dict[str, dict]:
    return {
        "match.schema.json": Match.model_json_schema(mode="serialization"),
        "calibration.schema.json": CalibrationFile.model_json_schema(mode="serialization"),
    }


def run_cli(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas().items():
        (out / name).write_text(json.dumps(schema, indent=1) + "\n")
        print(out / name)
    return 0
