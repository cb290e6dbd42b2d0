"""Real footage for ``tablemon bench generalize``: ``../shared/footage``.

- ``snooker-small-ceiling``: stills of one fixed ceiling camera with every ball's true
  position (mm). Scored twice: each still calibrated on its own, and all stills
  calibrated once together (their median plate: one camera, one calibration). Ball
  recall / precision within 10 mm and the median error; how far the per-still
  calibrations disagree over the table (``spread_mm``: the largest distance of a
  still's mapping of a table pixel from the median of all stills' mappings).
- ``pool-8ball-boxes``: broadcast stills at an angle: calibrated or refused (the line).
- the real clips of ``bench.bench_calibration.REAL``: calibrated or refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration.detect import NoTableError
from calibration.fit import fit_plate
from calibration.plate import load_plate, median_plate
from calibration.rough import rough_fit
from contract.calib import Calibration, calibration_uncertain
from contract.tables import load_table

GATE_MM = 10.0


def _match_errors(
    truth: np.ndarray, found: np.ndarray, gate: float | np.ndarray
) -> tuple[int, int, list]:
    """(true positives, found, errors of the matched) by nearest-first assignment; ``gate``
    the farthest a match may lie, one for all or one per true point."""
    from scipy.optimize import linear_sum_assignment

    if len(truth) == 0 or len(found) == 0:
        return 0, len(found), []
    d = np.linalg.norm(truth[:, None] - found[None], axis=2)
    i, j = linear_sum_assignment(d)
    ok = d[i, j] <= (gate[i] if isinstance(gate, np.ndarray) else gate)
    return int(ok.sum()), len(found), d[i, j][ok].tolist()


def _score_stills(cases, images, cals, table) -> dict:
    from bench.bench_calibration import TRUTH_FRAMES, _ball_positions

    centre = np.array([table.L / 2, table.W / 2])
    found = [_ball_positions(img, cal, table) for img, cal in zip(images, cals, strict=True)]
    best = None
    for name, sign in TRUTH_FRAMES.items():
        tp = nf = nt = 0
        errs: list = []
        for case, xy in zip(cases, found, strict=True):
            tr = np.array([(b["x"], b["y"]) for b in case["balls"]]) * np.array(sign) + centre
            a, b, e = _match_errors(tr, xy, GATE_MM)
            tp, nf, nt, errs = tp + a, nf + b, nt + len(tr), errs + e
        if best is None or tp > best["matched"]:
            best = {"truth_frame": name, **_rates(nt, nf, tp, errs, "median_mm")}
    return best


def _rates(balls: int, found: int, matched: int, errs: list, median_key: str) -> dict:
    """Counts, recall, precision and the median error of the matched (``median_key``)."""
    return {
        "balls": balls,
        "found": found,
        "matched": matched,
        "recall": matched / max(balls, 1),
        "precision": matched / max(found, 1),
        median_key: float(np.median(errs)) if errs else None,
    }


def _spread(cals: list[Calibration], table) -> float:
    """Largest distance (mm) of one calibration's mapping of a table pixel from the
    median of all the calibrations' mappings of it (grid every 100 mm, surface only)."""
    xs, ys = np.arange(0, table.L + 1, 100.0), np.arange(0, table.W + 1, 100.0)
    grid = np.array([(x, y) for x in xs for y in ys])
    px = cals[0].table_to_pixel(grid)
    maps = np.array([c.pixel_to_table(px) for c in cals])
    med = np.median(maps, axis=0)
    return float(np.linalg.norm(maps - med[None], axis=2).max())


def snooker(folder: Path, quick: bool) -> dict | None:
    if not (folder / "testcases.json").is_file():
        return None
    table = load_table("snooker-small")
    cases = json.loads((folder / "testcases.json").read_text())["cases"][: 4 if quick else None]
    images = [cv2.imread(str(folder / Path(c["image"]).name)) for c in cases]
    per_still, refused = [], []
    for case, img in zip(cases, images, strict=True):
        try:
            per_still.append(Calibration(fit_plate(img, table).calib))
        except NoTableError as e:
            refused.append(f"{case['image']}: {e}")
    out: dict = {"stills": len(cases), "refused": refused}
    if per_still and not refused:
        out["each_still"] = _score_stills(cases, images, per_still, table)
        out["each_still"]["spread_mm"] = _spread(per_still, table)
    joint = fit_plate(median_plate(images), table)
    cal = Calibration(joint.calib)
    out["once"] = _score_stills(cases, images, [cal] * len(images), table)
    out["once"]["uncertainty"] = (
        joint.calib.uncertainty.model_dump() if joint.calib.uncertainty else None
    )
    out["once"]["uncertain"] = calibration_uncertain(cal)
    return out


def _boxes(path: Path) -> np.ndarray:
    """Box centres and half sizes (px) of a ``*_bbox.txt`` (``x y w h class`` a line)."""
    rows = [ln.split() for ln in path.read_text().splitlines() if ln.strip()]
    b = np.array([[float(v) for v in r[:4]] for r in rows]).reshape(-1, 4)
    return np.column_stack([b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2, b[:, 2:].max(1) / 2])


def _found_px(img: np.ndarray, cal: Calibration, table) -> np.ndarray:
    """Ball centres the vision's detector finds in a still (video px)."""
    from vision.capture.source import Frame
    from vision.detect.detector import Detector

    det = Detector(cal, table, (img.shape[1], img.shape[0]))
    det.fit_background([img])
    return det.detect(Frame(0, 0.0, img)).uv


def eightball(folder: Path) -> list[dict] | None:
    """Each broadcast still: calibrated or refused, and where calibrated its balls found
    against the hand-drawn boxes (a box matched by a detection within its half size, px;
    a refused still finds none)."""
    if not folder.is_dir():
        return None
    table = load_table("pool-9ft")
    rows = []
    for clip in sorted(p for p in folder.iterdir() if p.is_dir()):
        for still in sorted((clip / "frames").glob("*.png")):
            row: dict = {"still": f"{clip.name}/{still.name}"}
            box_file = clip / "bounding_boxes" / f"{still.stem}_bbox.txt"
            boxes = _boxes(box_file) if box_file.is_file() else np.zeros((0, 3))
            img = cv2.imread(str(still))
            found = np.zeros((0, 2))
            try:
                fit = fit_plate(img, table)
                row.update(ok=True, frame="fitted", uncertain=calibration_uncertain(fit.calib))
            except NoTableError as e:
                row.update(ok=False, error=str(e))
                try:  # detection does not wait for calibration: the cloth's outline
                    fit = rough_fit(img, table)
                    row.update(frame="rough")
                except NoTableError:
                    fit = None
            if fit is not None:
                found = _found_px(img, Calibration(fit.calib), table)
            tp, nf, errs = _match_errors(boxes[:, :2], found, boxes[:, 2])  # within a box
            row.update(balls=len(boxes), found=nf, matched=tp, errors_px=errs)
            rows.append(row)
    return rows


def box_summary(rows: list[dict]) -> dict:
    """Recall, precision and median error (px) over every still of :func:`eightball`."""
    errs = [e for r in rows for e in r["errors_px"]]
    n, f, m = (sum(r[k] for r in rows) for k in ("balls", "found", "matched"))
    return _rates(n, f, m, errs, "median_px")


def real_clips(footage: Path) -> list[dict]:
    from bench.bench_calibration import REAL

    rows = []
    for folder, name, spec in REAL:
        path = footage / folder / name
        if not path.is_file():
            continue
        row = {"clip": f"{folder}/{name}"}
        try:
            fit = fit_plate(load_plate(path), load_table(spec))
            row.update(ok=True, front=fit.calib.front, uncertain=calibration_uncertain(fit.calib))
        except NoTableError as e:
            row.update(ok=False, error=str(e))
        rows.append(row)
    return rows


def real_figures(footage: Path, quick: bool) -> dict | None:
    """Every real figure above; None (with a line) without ``footage``."""
    if not footage.is_dir():
        print(f"real footage: {footage} not found, skipped")
        return None
    out = {"snooker_stills": snooker(footage / "snooker-small-ceiling", quick)}
    s = out["snooker_stills"]
    if s:
        for k in ("each_still", "once"):
            if k in s:
                print(f"snooker stills, calibrated {k.replace('_', ' ')}: {s[k]}")
        if s["refused"]:
            print(f"snooker stills refused: {s['refused']}")
    if not quick:
        out["eightball_stills"] = eightball(footage / "pool-8ball-boxes")
        eb = out["eightball_stills"] or []
        ok = [r for r in eb if r["ok"]]
        print(f"8-ball broadcast stills calibrated: {len(ok)}/{len(eb)}")
        if eb:
            out["eightball_boxes"] = box_summary(eb)
            print(f"8-ball broadcast stills, balls against the boxes: {out['eightball_boxes']}")
        out["clips"] = real_clips(footage)
        bad = [r for r in out["clips"] if not r["ok"]]
        print(f"real clips calibrated: {len(out['clips']) - len(bad)}/{len(out['clips'])}")
        for r in bad:
            print(f"  refused {r['clip']}: {r['error']}")
    return out
