"""BallNet speed on one core: per-patch inference time through onnxruntime, by batch size.

    OMP_NUM_THREADS=1 python -m bench.bench_ballnet [--json out/bench_ballnet.json]

Times ``BallClassifier.classify`` (patch cut + net) on a synthetic 1920x1080 picture with
N candidate balls, N = 1, 16, 64; prints a table and writes JSON. Accuracy figures are in
``models/ballnet/metrics.json`` (written by the training script).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classify import MODEL_DIR, BallClassifier


def timing(n: int, repeats: int, clf: BallClassifier) -> dict:
    rng = np.random.default_rng(n)
    img = rng.integers(0, 255, (1080, 1920, 3), np.uint8)
    uv = np.c_[rng.uniform(50, 1870, n), rng.uniform(50, 1030, n)]
    r = np.full(n, 15.0)
    clf.classify(img, uv, r)  # warm-up
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(repeats):
        clf.classify(img, uv, r)
    cpu = (time.process_time() - c0) / repeats
    wall = (time.perf_counter() - t0) / repeats
    return {
        "batch": n,
        "cpu_ms_per_call": cpu * 1e3,
        "cpu_ms_per_patch": cpu * 1e3 / n,
        "wall_ms_per_patch": wall * 1e3 / n,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=Path("out/bench_ballnet.json"))
    ap.add_argument("--repeats", type=int, default=30)
    a = ap.parse_args()
    cv2.setNumThreads(1)
    clf = BallClassifier.load(threads=1)
    rows = [timing(n, a.repeats, clf) for n in (1, 16, 64)]
    print(f"{'batch':>5} {'cpu ms/call':>12} {'cpu ms/patch':>13} {'wall ms/patch':>14}")
    for r in rows:
        print(
            f"{r['batch']:>5} {r['cpu_ms_per_call']:>12.2f} {r['cpu_ms_per_patch']:>13.3f}"
            f" {r['wall_ms_per_patch']:>14.3f}"
        )
    metrics = json.loads((MODEL_DIR / "metrics.json").read_text())
    out = {
        "timing_one_core": rows,
        "model_bytes": (MODEL_DIR / "ballnet.onnx").stat().st_size,
        "metrics": metrics,
    }
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
