"""``tablemon calibrate VIDEO_OR_IMAGE [--table SPEC] --out CALIB.json [--preview PNG]
[--corners x1,y1,...,x4,y4]``: find the table, write CALIB.json (contract §6)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.detect import NoTableError
from calibration.fit import FitResult, fit_plate
from calibration.plate import load_plate
from calibration.preview import draw_model
from contract.calib import Calibration, write_calibration
from contract.errors import ContractError
from contract.tables import TableSpec, load_table

DEFAULT_TABLE = "pyramid-12ft"


def parse_corners(text: str, size: tuple[int, int] | None = None) -> np.ndarray:
    """``x1,y1,...,x4,y4`` (front-left, front-right, back-right, back-left; recorded px)
    -> (4, 2) array. One-line ValueError on bad input."""
    try:
        v = [float(s) for s in text.replace(" ", "").split(",") if s != ""]
    except ValueError:
        raise ValueError(f"--corners: expected 8 numbers x1,y1,...,x4,y4, got {text!r}") from None
    if len(v) != 8 or not np.all(np.isfinite(v)):
        raise ValueError(f"--corners: expected 8 numbers x1,y1,...,x4,y4, got {len(v)}")
    c = np.array(v).reshape(4, 2)
    if size is not None:
        w, h = size
        if np.any(c < -0.5 * w) or np.any(c[:, 0] > 1.5 * w) or np.any(c[:, 1] > 1.5 * h):
            raise ValueError("--corners: points lie far outside the picture")
    if abs(cv2.contourArea(c.astype(np.float32))) < 100:
        raise ValueError("--corners: the four points do not enclose an area")
    return c


def calibrate(
    source: str | Path, table: TableSpec, corners: np.ndarray | None = None
) -> tuple[FitResult, np.ndarray]:
    """Clean plate of ``source`` and the fit on it. Raises NoTableError / ContractError."""
    plate = load_plate(source)
    return fit_plate(plate, table, corners), plate


def run_cli(args: argparse.Namespace) -> int:
    table = load_table(args.table or DEFAULT_TABLE)
    src = Path(args.source)
    if not src.exists():
        raise ContractError(str(src), "", "no such file")
    plate = load_plate(src)
    corners = None
    if args.corners:
        corners = parse_corners(args.corners, (plate.shape[1], plate.shape[0]))
    try:
        fit = fit_plate(plate, table, corners)
    except NoTableError as e:
        print(f"tablemon: error: {src}: {e}", file=sys.stderr)
        return 2
    write_calibration(args.out, fit.calib)
    if args.preview:
        img = draw_model(plate, Calibration(fit.calib), table, fit.edges)
        if not cv2.imwrite(str(args.preview), img):
            raise ContractError(str(args.preview), "", "cannot write the preview image")
    rms = f"{fit.calib.rms_mm:.2f} mm" if fit.calib.rms_mm is not None else "n/a"
    found = sorted(k for k in fit.calib.markings if not k.startswith("corner:"))
    print(
        f"calibrated {src.name} as {table.name}: rms {rms}, front {fit.calib.front}, "
        f"found {', '.join(found) or 'no markings'}"
    )
    for n in fit.notes:
        print(f"  note: {n}")
    return 0
