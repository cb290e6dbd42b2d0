"""``tablemon score PRED.json TRUTH.json [--tracks P.csv T.csv] [--calibration P.json T.json]
[--json OUT.json]``: print the scorer's table and optionally write its JSON.

Bad files raise :class:`~contract.errors.ContractError` (one line; the CLI exits 2).
"""

from __future__ import annotations

import argparse

from bench.score import score_all
from contract.calib import read_calibration
from contract.errors import ContractError
from contract.match import read_match, write_json_atomic
from contract.tables import load_table
from contract.tracks import read_tracks


def run_cli(args: argparse.Namespace) -> int:
    pred, truth = read_match(args.pred), read_match(args.truth)
    tracks = calib = None
    if getattr(args, "tracks", None):
        tracks = (read_tracks(args.tracks[0]), read_tracks(args.tracks[1]))
    if getattr(args, "calibration", None):
        calib = (read_calibration(args.calibration[0]), read_calibration(args.calibration[1]))
    table = None
    if calib:
        table = load_table(calib[1].data.table)
    elif tracks:
        try:
            table = load_table(truth.table)
        except ContractError:
            table = None  # the track scores do not need the table
    report = score_all(pred, truth, tracks=tracks, calibration=calib, table=table)
    print(report.table())
    out = getattr(args, "json_out", None)
    if out:
        data = {"pred": str(args.pred), "truth": str(args.truth), **report.to_json()}
        write_json_atomic(out, data)
        print(f"wrote {out}")
    return 0
