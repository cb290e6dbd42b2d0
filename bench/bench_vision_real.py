"""Real footage figures for the vision benchmark: the snooker-small-ceiling stills.

``testcases.json`` gives every ball's centre in mm with the origin at the surface
centre, x along the length and y *up* in the picture; tablemon's frame (contract §1)
is ``(x + 940.5, 471.5 - y)`` (the same end; the source's y axis is mirrored).

The stills carry no calibration tablemon can use yet, so each image is scored with a
homography fitted on the *other nine* images (leave-one-out): pixel centres of the
detections matched to truth, seeded by a rough hand-picked outline of the cloth.
The figures therefore measure the detector, not an automatic calibration.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from contract.calib import Calibration, CalibrationFile
from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect.detector import Detector

FOOTAGE = Path(__file__).resolve().parents[2] / "shared" / "footage"
SNOOKER = FOOTAGE / "snooker-small-ceiling"
SIZE = (1280, 720)
# Rough cushion-nose corners picked by eye (front-left, back-left, back-right, front-right).
ROUGH_PX = np.float32([[62, 75], [1205, 75], [1205, 645], [62, 645]])


def _calib(H: np.ndarray) -> Calibration:
    return Calibration(
        CalibrationFile(table="snooker-small", image_size=SIZE, image_to_table=H.tolist())
    )


def _truth(case: dict) -> np.ndarray:
    xy = np.array([[b["x"], b["y"]] for b in case["balls"]], float)
    return np.c_[xy[:, 0] + 940.5, 471.5 - xy[:, 1]]


def _match(a: np.ndarray, b: np.ndarray, gate: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if len(a) == 0 or len(b) == 0:
        return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
    d = np.linalg.norm(a[:, None] - b[None], axis=2)
    i, j = linear_sum_assignment(d)
    ok = d[i, j] <= gate
    return i[ok], j[ok], d[i, j][ok]


def snooker_stills(out_dir: Path | None = None) -> dict | None:
    """Recall, precision and position error on the ten stills; None without the footage."""
    if not (SNOOKER / "testcases.json").is_file():
        return None
    table = load_table("snooker-small")
    cases = json.loads((SNOOKER / "testcases.json").read_text())["cases"]
    rough = _calib(
        cv2.getPerspectiveTransform(
            ROUGH_PX, np.float32([[0, 0], [table.L, 0], [table.L, table.W], [0, table.W]])
        )
    )
    images, dets, truths = [], [], []
    for case in cases:
        img = cv2.imread(str(SNOOKER / Path(case["image"]).name))
        det = Detector(rough, table, SIZE)
        det.fit_background([img])
        images.append(img)
        dets.append(det.detect(Frame(0, 0.0, img)))
        truths.append(_truth(case))
    # pixel <-> mm pairs per image from the rough calibration (generous gate)
    pairs = []
    for d, t in zip(dets, truths, strict=True):
        i, j, _ = _match(d.xy, t, 60.0)
        pairs.append((d.uv[i], t[j]))
    gate = table.ball_mm / 2
    rows, errs = [], []
    tp = fp = fn = 0
    for k, case in enumerate(cases):
        uv = np.concatenate([p[0] for m, p in enumerate(pairs) if m != k])
        mm = np.concatenate([p[1] for m, p in enumerate(pairs) if m != k])
        H, _ = cv2.findHomography(uv, mm, cv2.RANSAC, 8.0)
        cal = _calib(H)
        det = Detector(cal, table, SIZE)
        det.fit_background([images[k]])
        d = det.detect(Frame(0, 0.0, images[k]))
        i, j, e = _match(d.xy, truths[k], gate)
        tp += len(i)
        fp += len(d) - len(i)
        fn += len(truths[k]) - len(j)
        errs += e.tolist()
        rows.append(
            {
                "image": Path(case["image"]).name,
                "balls": len(truths[k]),
                "found": len(d),
                "matched": len(i),
                "median_mm": float(np.median(e)) if len(e) else None,
            }
        )
        if out_dir is not None:
            _draw(
                out_dir / f"snooker-{Path(case['image']).stem}.png", images[k], d.uv, cal, truths[k]
            )
    return {
        "images": len(cases),
        "balls": tp + fn,
        "detections": tp + fp,
        "recall": tp / max(1, tp + fn),
        "precision": tp / max(1, tp + fp),
        "median_error_mm": float(np.median(errs)) if errs else None,
        "p95_error_mm": float(np.percentile(errs, 95)) if errs else None,
        "gate_mm": gate,
        "per_image": rows,
    }


def _draw(path: Path, img: np.ndarray, uv: np.ndarray, cal: Calibration, truth: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    vis = img.copy()
    for p in cal.table_to_pixel(truth):
        cv2.circle(vis, (int(p[0]), int(p[1])), 16, (0, 255, 0), 1, cv2.LINE_AA)
    for p in uv:
        cv2.drawMarker(vis, (int(p[0]), int(p[1])), (0, 255, 255), cv2.MARKER_CROSS, 8)
    cv2.imwrite(str(path), vis)
