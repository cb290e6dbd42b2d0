"""Score a BallNet ONNX model (through onnxruntime, as the product runs it) on a patch file.

    python -m models.ballnet.evaluate /tmp/ballnet/test.npz [--model models/ballnet]
    python -m models.ballnet.evaluate /tmp/ballnet/real.npz --prefix pool_

Prints the per-head accuracies, the number head's confusions (true -> read, count) and
the colour confusions. No torch.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np

from models.ballnet.dataset import COLOURS
from vision.detect.classify import BallClassifier, to_input


def evaluate(clf: BallClassifier, d: dict[str, np.ndarray]) -> dict:
    """Accuracies and confusions of ``clf`` on patches ``d`` (labels -1 ignored)."""
    kl, cl, nl = (v.argmax(1) for v in clf.logits(to_input(d["x"])))
    kind, col, num = d["kind"], d["colour"], d["number"]
    ball = kind == 0
    out: dict = {
        "patches": int(len(kind)),
        "ball_vs_not_accuracy": float(((kl == 0) == ball).mean()),
        "ball_recall": float((kl[ball] == 0).mean()) if ball.any() else None,
        "not_ball_rejected": float((kl[~ball] != 0).mean()) if (~ball).any() else None,
    }
    m = col >= 0
    if m.any():
        out["colour_accuracy"] = float((cl[m] == col[m]).mean())
        wrong = Counter(
            (COLOURS[t], COLOURS[p]) for t, p in zip(col[m], cl[m], strict=True) if t != p
        )
        out["colour_confusions"] = {f"{t}->{p}": n for (t, p), n in wrong.most_common(10)}
    r = num > 0
    if r.any():
        out["number_readable_accuracy"] = float((nl[r] == num[r]).mean())
        out["number_readable_n"] = int(r.sum())
        per = {}
        for n in range(1, 16):
            s = num == n
            if s.any():
                per[n] = round(float((nl[s] == n).mean()), 3)
        out["number_accuracy_by_number"] = per
        wrong = Counter((int(t), int(p)) for t, p in zip(num[r], nl[r], strict=True) if t != p)
        out["number_confusions"] = {f"{t}->{p}": n for (t, p), n in wrong.most_common(10)}
    z = num == 0
    if z.any():
        out["number_none_accuracy"] = float((nl[z] == 0).mean())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="score BallNet on a patch file")
    ap.add_argument("patches")
    ap.add_argument("--model", default=None)
    ap.add_argument("--prefix", default="", help="key prefix in the file (pool_ for pool crops)")
    a = ap.parse_args()
    f = np.load(a.patches)
    d = {k[len(a.prefix) :]: f[k] for k in f.files if k.startswith(a.prefix)}
    if a.prefix == "":
        d = {k: v for k, v in d.items() if not k.startswith("pool_")}
    clf = BallClassifier.load(a.model)
    print(json.dumps(evaluate(clf, d), indent=2))


if __name__ == "__main__":
    main()
