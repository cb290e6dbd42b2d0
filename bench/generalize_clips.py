"""Rendered clips with exact truth, for ``tablemon bench generalize``: calibrate each clip as
``tablemon replay`` does, score the calibration against the true CALIB.json over the
table (mm), then replay it (``tablemon replay`` with automatic calibration, in a child
process as a user runs it) and score tracks and events with the scorer (``bench.score``).

A clip's orientation is ``right``, ``turned`` (front and back swapped) or ``refused``
(no calibration: the replay's one error line is kept).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.score import score_all, score_calibration
from contract.calib import Calibration, calibration_from_json, calibration_uncertain
from contract.errors import ContractError
from contract.match import read_json, read_match
from contract.tables import load_table
from contract.tracks import Tracks, read_tracks

ROOT = Path(__file__).resolve().parents[1]
REPLAY_TIMEOUT_S = 900


def truth_calibration(path: Path) -> Calibration:
    """A truth CALIB.json; the foreign generator's ``camera.centre_mm`` (x, y, height) is
    taken as ``camera_position_mm`` so the scorer also measures a ball centre's error."""
    data = dict(read_json(path))
    cam = data.get("camera")
    if isinstance(cam, dict) and "centre_mm" in cam and "camera_position_mm" not in data:
        data["camera_position_mm"] = list(cam["centre_mm"])
    return calibration_from_json(data, str(path))


def calibrate_clip(mp4: Path, truth: Calibration) -> dict:
    """Calibrate ``mp4`` as the replay does and score it against ``truth`` (table mm)."""
    from calibration import calibrate_video

    table = load_table(truth.data.table)
    t0 = time.process_time()
    try:
        pred = calibrate_video(mp4, table)
    except ContractError as e:
        return {"orientation": "refused", "refusal": str(e), "cpu_s": time.process_time() - t0}
    cpu = time.process_time() - t0
    sc = score_calibration(pred, truth, table)
    unc = pred.data.uncertainty.model_dump() if pred.data.uncertainty else None
    cam = pred.data.camera_position_mm
    true_cam = truth.data.camera_position_mm
    return {
        "orientation": "right" if sc.front_right else "turned",
        "mean_mm": sc.error.mean,
        "max_mm": sc.error.max,
        "ball_mean_mm": sc.error_ball.mean if sc.error_ball else None,
        "ball_max_mm": sc.error_ball.max if sc.error_ball else None,
        "front": pred.data.front,
        "rms_mm": pred.data.rms_mm,
        "uncertainty": unc,
        "uncertain": calibration_uncertain(pred),
        "camera_height_mm": cam[2] if cam else None,
        "true_camera_height_mm": true_cam[2] if true_cam else None,
        "cpu_s": cpu,
    }


def truth_tracks(path: Path) -> Tracks:
    """A truth TRACKS.csv; one written without the optional pixel columns (``u,v``, as
    the foreign generator writes it) is read with them empty."""
    lines = path.read_text().splitlines()
    head = lines[0].strip().split(",") if lines else []
    if head[:6] == ["frame", "t", "id", "x", "y", "visible"] and "u" not in head:
        with tempfile.TemporaryDirectory() as tmp:
            fixed = Path(tmp) / path.name
            rows = [head[:6] + ["u", "v"] + head[6:]]
            rows += [(r := ln.split(","))[:6] + ["", ""] + r[6:] for ln in lines[1:] if ln]
            fixed.write_text("".join(",".join(r) + "\n" for r in rows))
            return read_tracks(fixed)
    return read_tracks(path)


def replay_clip(mp4: Path, truth_json: Path, truth_csv: Path) -> dict:
    """``tablemon replay`` (automatic calibration) on ``mp4``, scored against the truth:
    rest-position error of the tracks (median, mm), coverage, F1 per event type."""
    truth = read_match(truth_json)
    table = load_table(truth.table)
    with tempfile.TemporaryDirectory() as tmp:
        out, tracks = Path(tmp) / "match.json", Path(tmp) / "tracks.csv"
        cmd = [sys.executable, "-m", "service.cli", "replay", str(mp4), "--game", truth.game]
        cmd += ["--out", str(out), "--tracks", str(tracks), "--no-progress"]
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        t0 = time.monotonic()
        try:
            p = subprocess.run(
                cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=REPLAY_TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            return {"ok": False, "error": f"replay ran past {REPLAY_TIMEOUT_S} s"}
        wall = time.monotonic() - t0
        if p.returncode != 0 or not out.is_file():
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            return {"ok": False, "error": lines[-1] if lines else f"exit {p.returncode}"}
        rep = score_all(
            read_match(out),
            truth,
            tracks=(read_tracks(tracks), truth_tracks(truth_csv)),
            table=table,
        )
    tr = rep.tracks
    types = {t.type: t.f1 for t in rep.events.types}
    return {
        "ok": True,
        "wall_s": wall,
        "rest_median_mm": tr.error_rest.median if tr else None,
        "rest_p95_mm": tr.error_rest.p95 if tr else None,
        "coverage": tr.coverage if tr else None,
        "shots_recall": rep.shots.recall,
        "shots_precision": rep.shots.precision,
        "events_f1": rep.events.overall.f1,
        "f1_by_type": types,
    }


def score_folder(folder: Path, names: list[str], replay: bool, split: dict[str, str]) -> list[dict]:
    """Every clip ``NAME`` of ``folder`` (``NAME.mp4`` with ``NAME.calib.json``,
    ``NAME.truth.json``, ``NAME.truth.csv``): calibration and, with ``replay``, the replay."""
    rows = []
    for name in names:
        mp4 = folder / f"{name}.mp4"
        truth = truth_calibration(folder / f"{name}.calib.json")
        row = {
            "clip": name,
            "split": split.get(name, "own"),
            "size": list(truth.data.image_size),
            "table": truth.data.table,
            **calibrate_clip(mp4, truth),
        }
        if replay:
            row["replay"] = replay_clip(
                mp4, folder / f"{name}.truth.json", folder / f"{name}.truth.csv"
            )
        rows.append(row)
        print(clip_line(row), flush=True)
    return rows


def _f(v: float | None, spec: str = "6.2f") -> str:
    return format(v, spec) if isinstance(v, int | float) and np.isfinite(v) else "-".rjust(6)


def clip_line(r: dict) -> str:
    """One printed row: clip, split, size, orientation, calibration mean/max mm, replay."""
    size = f"{r['size'][0]}x{r['size'][1]}"
    head = f"{r['clip']:22} {r['split']:8} {size:9} {r['orientation']:8}"
    if r["orientation"] == "refused":
        return f"{head} {r['refusal']}"
    cal = f"{_f(r['mean_mm'])} {_f(r['max_mm'])} {_f(r.get('ball_max_mm'))}"
    unc = r.get("uncertainty") or {}
    cal += f" {_f(unc.get('max_mm'))} {'UNCERTAIN' if r.get('uncertain') else 'ok':9}"
    rp = r.get("replay")
    if not rp:
        return f"{head} {cal}"
    if not rp["ok"]:
        return f"{head} {cal}  replay: {rp['error']}"
    f1 = rp["f1_by_type"]
    ev = " ".join(
        f"{k[:4]} {_f(f1.get(k), '.2f')}" for k in ("pocket", "cushion", "cross", "contact")
    )
    return f"{head} {cal}  rest {_f(rp['rest_median_mm'])} cov {_f(rp['coverage'], '.3f')} {ev}"


HEADER = (
    f"{'clip':22} {'split':8} {'size':9} {'orient':8} {'mean':>6} {'max':>6} {'ballmx':>6} "
    f"{'u.max':>6} {'bounds':9}  replay: rest median mm, coverage, F1 per type"
)
