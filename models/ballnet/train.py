"""Train BallNet on the CPU, export it to ONNX (opset 17), check onnxruntime against torch,
and write ``metrics.json`` and ``manifest.json`` beside the model.

    python -m models.ballnet.dataset /tmp/ballnet/test.npz --scenes 20 --frames 8 --seed 100001 --jobs 2
    python -m models.ballnet.dataset /tmp/ballnet/train.npz --scenes 100 --frames 10 --seed 1 --jobs 2
    python -m models.ballnet.real /tmp/ballnet/real.npz          # optional: needs ../shared/footage
    python -m models.ballnet.dataset /tmp/ballnet/crowd_test.npz --crowd --scenes 4 --frames 6 --seed 200001 --jobs 2
    python -m models.ballnet.dataset /tmp/ballnet/crowd.npz --crowd --scenes 16 --frames 8 --seed 20001 --jobs 2
    python -m models.ballnet.dataset /tmp/ballnet/crowd2.npz --crowd --scenes 12 --frames 10 --seed 30001
    python -m models.ballnet.train --train /tmp/ballnet/train.npz /tmp/ballnet/crowd.npz /tmp/ballnet/crowd2.npz \\
        --test /tmp/ballnet/test.npz --test-numbers /tmp/ballnet/crowd_test.npz \\
        --real /tmp/ballnet/real.npz --epochs 14 --out models/ballnet

Training needs torch (CPU build 2.13.0); the product never imports this module.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.ballnet.dataset import COLOURS, KINDS
from vision.detect.classify import PATCH, SPAN, file_sha256, to_input

N_NUMBERS = 16  # 0 = no number readable, 1..15


def block(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


class BallNet(nn.Module):
    """32x32 BGR patch -> (kind, colour, number) logits. About 183k parameters: three
    stride-2 stages down to 4x4x80, one shared 64-wide layer, three linear heads."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            block(3, 16, 1),
            block(16, 24, 2),  # 16x16
            block(24, 32, 1),
            block(32, 48, 2),  # 8x8
            block(48, 64, 1),
            block(64, 80, 2),  # 4x4
        )
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(80 * 16, 64), nn.ReLU(inplace=True))
        self.kind = nn.Linear(64, len(KINDS))
        self.colour = nn.Linear(64, len(COLOURS))
        self.number = nn.Linear(64, N_NUMBERS)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        f = self.fc(self.body(x))
        return self.kind(f), self.colour(f), self.number(f)


def load(path: str) -> dict[str, np.ndarray]:
    """A patch file; files without per-patch radii (older recipe) get the number rule of
    ``dataset.number_label`` by picture height: at 720p a ball is under 11.5 px (label 0)."""
    d = np.load(path)
    out = {k: d[k] for k in d.files}
    if "height" in out and "radius" not in out:
        num = out["number"].copy()
        num[(out["height"] == 720) & (num > 0)] = 0
        out["number"] = num
    return out


def load_many(paths: list[str]) -> dict[str, np.ndarray]:
    parts = [load(p) for p in paths]
    keys = ("x", "kind", "colour", "number", "table", "height")
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def thin_negatives(kind: np.ndarray, seed: int, ratio: float = 1.2) -> np.ndarray:
    """Indices keeping every ball and skittle and at most ``ratio`` times as many others."""
    rng = np.random.default_rng(seed)
    pos, neg = np.nonzero(kind != 2)[0], np.nonzero(kind == 2)[0]
    neg = rng.permutation(neg)[: int(ratio * len(pos))]
    return np.sort(np.r_[pos, neg])


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Random quarter turns, per-channel gain, brightness, contrast and noise (the numbers
    are never mirrored)."""
    n = len(x)
    k = int(torch.randint(0, 4, (1,), generator=g))
    x = torch.rot90(x, k, (2, 3))
    gain = 1 + 0.12 * (torch.rand(n, 3, 1, 1, generator=g) * 2 - 1)
    bright = 1 + 0.25 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1)
    x = (x + 0.5) * gain * bright
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = mean + (x - mean) * (1 + 0.2 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1))
    x = x + 0.02 * torch.rand(n, 1, 1, 1, generator=g) * torch.randn(x.shape, generator=g)
    return x.clamp(0, 1) - 0.5


def predict(model: nn.Module, x: np.ndarray) -> tuple[np.ndarray, ...]:
    model.eval()
    outs: list[list[np.ndarray]] = [[], [], []]
    with torch.no_grad():
        for k in range(0, len(x), 1024):
            res = model(torch.from_numpy(to_input(x[k : k + 1024])))
            for o, r in zip(outs, res, strict=True):
                o.append(r.numpy())
    return tuple(np.concatenate(o) for o in outs)


def scores(logits: tuple[np.ndarray, ...], d: dict[str, np.ndarray]) -> dict:
    """Accuracy per head on a labelled set (labels -1 ignored)."""
    kl, cl, nl = (v.argmax(1) for v in logits)
    kind, col, num = d["kind"], d["colour"], d["number"]
    is_ball, said_ball = kind == 0, kl == 0
    out: dict = {"patches": int(len(kind))}
    out["ball_vs_not_accuracy"] = float((is_ball == said_ball).mean())
    out["ball_recall"] = float(said_ball[is_ball].mean()) if is_ball.any() else None
    out["not_ball_rejected"] = float((~said_ball[~is_ball]).mean()) if (~is_ball).any() else None
    out["kind_accuracy"] = float((kl == kind).mean())
    if (kind == 1).any():
        out["skittle_recall"] = float((kl[kind == 1] == 1).mean())
    m = col >= 0
    out["colour_accuracy"] = float((cl[m] == col[m]).mean()) if m.any() else None
    out["colour_n"] = int(m.sum())
    r = num > 0
    out["number_readable_accuracy"] = float((nl[r] == num[r]).mean()) if r.any() else None
    out["number_readable_n"] = int(r.sum())
    z = num == 0
    out["number_none_accuracy"] = float((nl[z] == 0).mean()) if z.any() else None
    if r.any():
        wrong = r & (nl != num) & (nl > 0)
        out["number_misread_rate"] = float(wrong.sum() / r.sum())
    return out


def train(train_d: dict[str, np.ndarray], epochs: int, seed: int = 0, threads: int = 1) -> BallNet:
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(seed)
    model = BallNet()
    x = torch.from_numpy(to_input(train_d["x"]))
    y = [torch.from_numpy(train_d[k].astype(np.int64)) for k in ("kind", "colour", "number")]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * ((len(x) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps, pct_start=0.15)
    ce = nn.CrossEntropyLoss(ignore_index=-1)
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(x), generator=g)
        tot, t0 = 0.0, time.time()
        for k in range(0, len(x), 128):
            idx = perm[k : k + 128]
            kl, cl, nl = model(augment(x[idx], g))
            loss = ce(kl, y[0][idx])
            for w, out, lab in ((1.0, cl, y[1][idx]), (1.5, nl, y[2][idx])):
                if bool((lab >= 0).any()):  # a batch with no label for a head adds nothing
                    loss = loss + w * ce(out, lab)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
        print(
            f"epoch {ep + 1}/{epochs}: loss {tot / len(x):.4f} ({time.time() - t0:.0f} s)",
            flush=True,
        )
    return model.eval()


def export_onnx(
    model: nn.Module, path: Path, sample: np.ndarray, outputs: tuple[str, ...]
) -> float:
    """Write ``model`` (input ``patch``, the named ``outputs``, batch axis dynamic) as ONNX;
    return the largest |onnxruntime - torch| logit difference over ``sample`` patches."""
    import onnxruntime as ort

    x = torch.from_numpy(to_input(sample))
    torch.onnx.export(
        model,
        (x[:1],),
        str(path),
        opset_version=17,
        input_names=["patch"],
        output_names=list(outputs),
        dynamic_axes={n: {0: "n"} for n in ("patch", *outputs)},
        dynamo=False,
    )
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"patch": x.numpy()})
    with torch.no_grad():
        ref = model(x)
    ref = ref if isinstance(ref, tuple | list) else (ref,)
    return max(float(np.abs(a - b.numpy()).max()) for a, b in zip(got, ref, strict=True))


def export(model: BallNet, path: Path, sample: np.ndarray) -> float:
    """Write BallNet's ONNX file; return the largest |onnxruntime - torch| difference."""
    return export_onnx(model, path, sample, ("kind", "colour", "number"))


def main() -> None:
    ap = argparse.ArgumentParser(description="train and export BallNet")
    ap.add_argument("--train", required=True, nargs="+")
    ap.add_argument("--test", required=True, help="held-out patches (the natural mix)")
    ap.add_argument("--test-numbers", help="held-out number-reading (crowd) patches")
    ap.add_argument("--real", help="real crops (models.ballnet.real); even images train, odd test")
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--out", default="models/ballnet")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--neg-ratio", type=float, default=0.8, help="others per ball/skittle")
    a = ap.parse_args()
    tr, te = load_many(a.train), load(a.test)
    keep = thin_negatives(tr["kind"], a.seed, a.neg_ratio)
    tr = {k: v[keep] for k, v in tr.items()}
    real_te = pool = None
    if a.real:
        real = load(a.real)
        pool = {k[5:]: v for k, v in real.items() if k.startswith("pool_")}
        real = {k: v for k, v in real.items() if not k.startswith("pool_")}
        odd = real["image"] % 2 == 1
        real_tr = {k: real[k][~odd] for k in ("x", "kind", "colour", "number")}
        real_te = {k: real[k][odd] for k in real}
        reps = max(1, len(tr["x"]) // (20 * max(1, len(real_tr["x"]))))  # ~5 % of the data
        tr = {
            k: np.concatenate([tr[k]] + [real_tr[k]] * reps)
            for k in ("x", "kind", "colour", "number")
        }
    t0 = time.time()
    model = train(tr, a.epochs, a.seed, a.threads)
    minutes = (time.time() - t0) / 60
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    onnx_path = out / "ballnet.onnx"
    torch.save(model.state_dict(), Path("/tmp") / "ballnet_last.pt")
    diff = export(model, onnx_path, te["x"][:64])
    metrics = {
        "synthetic_held_out": scores(predict(model, te["x"]), te),
        "synthetic_held_out_by_table": {},
        "train_patches": int(len(tr["x"])),
        "epochs": a.epochs,
        "train_minutes": round(minutes, 1),
        "onnx_vs_torch_max_abs_logit_diff": diff,
        "params": int(sum(p.numel() for p in model.parameters())),
    }
    from models.ballnet.dataset import TABLES

    for i, name in enumerate(TABLES):
        m = te["table"] == i
        if m.any():
            sub = {k: v[m] for k, v in te.items()}
            metrics["synthetic_held_out_by_table"][name] = scores(predict(model, sub["x"]), sub)
    if real_te is not None and len(real_te["x"]):
        metrics["real_held_out"] = scores(predict(model, real_te["x"]), real_te)
        metrics["real_held_out"]["source"] = "snooker-small-ceiling odd-numbered stills"
    if a.test_numbers:
        tn = load(a.test_numbers)
        metrics["synthetic_numbers_held_out"] = scores(predict(model, tn["x"]), tn)
    if pool:
        metrics["real_pool"] = scores(predict(model, pool["x"]), pool)
        metrics["real_pool"]["source"] = "pool-9ball clip1 and clip4 frame 0, never trained on"
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    manifest = {
        "name": "ballnet",
        "file": onnx_path.name,
        "sha256": file_sha256(onnx_path),
        "bytes": onnx_path.stat().st_size,
        "opset": 17,
        "input": "patch",
        "input_shape": ["n", 3, PATCH, PATCH],
        "input_format": "BGR, (pixel / 255) - 0.5, channels first; patch = 2*span_radii ball radii",
        "span_radii": SPAN,
        "outputs": {"kind": list(KINDS), "colour": list(COLOURS), "number": "0 = none, 1..15"},
        "kinds": list(KINDS),
        "colours": list(COLOURS),
        "numbers": N_NUMBERS,
        "trained_with": f"torch {torch.__version__}, models/ballnet/train.py",
    }
    old = out / "manifest.json"
    if old.is_file():  # the number reader (train_numbers.py) is recorded in the same file
        reader = json.loads(old.read_text()).get("number_reader")
        if reader:
            manifest["number_reader"] = reader
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(metrics["synthetic_held_out"], indent=2))
    for key in ("synthetic_numbers_held_out", "real_held_out", "real_pool"):
        if key in metrics:
            print(key, json.dumps(metrics[key], indent=2))
    print(f"onnx vs torch max |diff| {diff:.2e}; {onnx_path} {manifest['bytes']} bytes")


if __name__ == "__main__":
    main()
