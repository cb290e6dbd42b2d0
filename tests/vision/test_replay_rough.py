"""``tablemon replay`` where the table fit refuses the picture: on a table whose ends decide
no verdict, the balls are still found in px on the rough frame of the cloth's outline,
said on stderr and in MATCH.json; on a pyramid table the refusal stands."""

from __future__ import annotations

import json

import cv2
import numpy as np
from vision_scene import draw_scene, topdown_calib

from calibration import cli as calibration_cli
from calibration.detect import NoTableError
from contract.tables import load_table
from service.cli import main

SIZE = (960, 540)
BALLS = [(600.0, 400.0, "white"), (1900.0, 900.0, "yellow"), (1300.0, 700.0, "red")]


def _refuse(*_a, **_k):
    raise NoTableError("no table found: the cushion lines do not fit (test)")


def _still(tmp_path, spec: str):
    table = load_table(spec)
    calib = topdown_calib(table, SIZE, margin_px=60)
    img = draw_scene(calib, table, SIZE, BALLS, seed=0)
    path = tmp_path / "still.png"
    cv2.imwrite(str(path), img)
    return path, calib


def test_a_refused_fit_still_finds_the_balls_in_px(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(calibration_cli, "fit_plate", _refuse)
    path, calib = _still(tmp_path, "pool-9ft")
    out, tracks = tmp_path / "m.json", tmp_path / "t.csv"
    rc = main(["replay", str(path), "--game", "carom-5pin", "--table", "pool-9ft",
               "--out", str(out), "--tracks", str(tracks), "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 0 and "rough frame" in err and "(test)" in err
    assert json.loads(out.read_text())["video"]["calibration"] == "rough"
    rows = np.genfromtxt(tracks, delimiter=",", names=True, dtype=None, encoding=None)
    uv = np.c_[rows["u"], rows["v"]].astype(float)
    truth = calib.table_to_pixel(np.array([(x, y) for x, y, _ in BALLS]))
    d = np.linalg.norm(truth[:, None] - uv[None], axis=2).min(axis=1)
    assert (d < 2.0).all(), d  # every ball found where it is, in px


def test_on_a_pyramid_table_the_refusal_stands(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(calibration_cli, "fit_plate", _refuse)
    path, _ = _still(tmp_path, "pyramid-12ft")
    rc = main(["replay", str(path), "--game", "pyramid-free", "--out", str(tmp_path / "m.json"),
               "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and "cushion lines do not fit" in err[0]
    assert not (tmp_path / "m.json").exists()
