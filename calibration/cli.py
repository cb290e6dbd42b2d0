"""``tablemon calibrate VIDEO_OR_IMAGE [IMAGE ...] [--table SPEC] --out CALIB.json
[--preview PNG] [--corners x1,y1,...,x4,y4] [--front SIDE]``: find the table, write
CALIB.json (contract §6). Several stills of one fixed camera are calibrated once, together
(their median plate), so that they share one calibration."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.detect import NoTableError
from calibration.ends import ends_matter
from calibration.fit import FitResult, fit_plate
from calibration.plate import load_source, load_sources
from calibration.preview import draw_model
from contract.calib import Calibration, calibration_uncertain, write_calibration
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


class AmbiguousFront(NoTableError):
    """The calibration could not tell the table's front end from its back (one line)."""


def calibrate(
    source: str | Path,
    table: TableSpec,
    corners: np.ndarray | None = None,
    front_side: str | None = None,
    rough: bool = False,
) -> tuple[FitResult, np.ndarray]:
    """Clean plate of ``source`` (a video: the median of frames spread over it; an
    image) and the one fit on it. Raises NoTableError / ContractError. The orientation
    may be ambiguous: :func:`require_sure_front` refuses it. ``rough``: where the fit
    refuses, the rough frame instead where there is one (:func:`rough_instead`)."""
    plate, first = load_source(source)
    try:
        return fit_plate(plate, table, corners, first=first, front_side=front_side), plate
    except NoTableError as e:
        fit = rough_instead(plate, table, e) if rough else None
        if fit is None:
            raise
        return fit, plate


def require_sure_front(fit: FitResult, table: TableSpec) -> FitResult:
    """``fit`` when its front end is known or does not matter to the games judged on
    ``table`` (:func:`calibration.ends.ends_matter`; the calibration still says
    ``ambiguous``); else AmbiguousFront with one line that says how to settle it (never a
    guess passed off as the table's front)."""
    unc = fit.calib.uncertainty
    if unc is not None and unc.orientation == "ambiguous" and ends_matter(table):
        raise AmbiguousFront(
            f"the front end cannot be told from the back ({table.name} "
            "markings show no end); pass --front left|right|top|bottom (the picture side of "
            "the front cushion) or --calibration CALIB.json"
        )
    return fit


def rough_instead(plate: np.ndarray, table: TableSpec, refused: NoTableError) -> FitResult | None:
    """The rough frame of the cloth's outline (:mod:`calibration.rough`) where the fit
    refused, on a table whose ends decide no verdict, the refusal its first note; None where
    even that fails or the table is a pyramid (its ends decide every verdict: the refusal
    stands)."""
    from calibration.rough import rough_fit

    if ends_matter(table) or isinstance(refused, AmbiguousFront):
        return None
    try:
        fit = rough_fit(plate, table)
    except NoTableError:
        return None
    return replace(fit, notes=[str(refused), *fit.notes])


def run_cli(args: argparse.Namespace) -> int:
    table = load_table(args.table or DEFAULT_TABLE)
    sources = [Path(s) for s in (args.source if isinstance(args.source, list) else [args.source])]
    for s in sources:
        if not s.exists():
            raise ContractError(str(s), "", "no such file")
    src = sources[0]
    plate, first = load_sources(sources)
    corners = None
    if args.corners:
        corners = parse_corners(args.corners, (plate.shape[1], plate.shape[0]))
    try:
        fit = fit_plate(plate, table, corners, first=first, front_side=getattr(args, "front", None))
        require_sure_front(fit, table)
    except NoTableError as e:
        fit = rough_instead(plate, table, e) if getattr(args, "rough", False) else None
        if fit is None:
            print(f"tablemon: error: {src}: {e}", file=sys.stderr)
            return 2
        print(f"tablemon: warning: {src}: {e}; wrote a rough frame instead", file=sys.stderr)
    write_calibration(args.out, fit.calib)
    if args.preview:
        img = draw_model(plate, Calibration(fit.calib), table, fit.edges)
        if not cv2.imwrite(str(args.preview), img):
            raise ContractError(str(args.preview), "", "cannot write the preview image")
    rms = f"{fit.calib.rms_mm:.2f} mm" if fit.calib.rms_mm is not None else "n/a"
    found = sorted(k for k in fit.calib.markings if not k.startswith("corner:"))
    print(
        f"calibrated {src.name}{f' and {len(sources) - 1} more' if len(sources) > 1 else ''} "
        f"as {table.name}: rms {rms}, front {fit.calib.front}, "
        f"found {', '.join(found) or 'no markings'}"
    )
    unc = fit.calib.uncertainty
    if unc is not None:
        print(f"  expected error: {unc.rms_mm:.2f} mm rms, up to {unc.max_mm:.2f} mm at worst")
    doubt = calibration_uncertain(fit.calib)
    if doubt:
        print(f"  {doubt}")
    for n in fit.notes:
        print(f"  note: {n}")
    return 0
