"""Train the number reader (NumNet) on the CPU, export it to ONNX (opset 17), check
onnxruntime against torch, and record it in ``manifest.json`` (key ``number_reader``) and
``numbers_metrics.json`` beside BallNet.

    python -m models.ballnet.numdata /tmp/numnet/test.npz --scenes 16 --frames 8 --seed 500001 --jobs 2
    python -m models.ballnet.numdata /tmp/numnet/train.npz --scenes 160 --frames 10 --seed 1 --jobs 2
    python -m models.ballnet.train_numbers --train /tmp/numnet/train.npz \\
        --test /tmp/numnet/test.npz --epochs 12 --out models/ballnet

Input: a tight patch (``vision.numbers.reader.NUM_PATCH`` px over ``2 * NUM_SPAN`` ball radii),
BGR, ``pixel / 255 - 0.5``, channels first. Output ``number``: 16 logits, 0 = no number
readable, 1..15. Training needs torch (CPU build 2.13.0); the product never imports it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.ballnet.train import block, export_onnx
from vision.detect.classify import file_sha256, to_input
from vision.numbers.reader import NUM_PATCH, NUM_SPAN, frontal

N_NUMBERS = 16


class NumNet(nn.Module):
    """32x32 BGR tight patch -> 16 number logits; three stride-2 stages to 4x4x128
    (about 4 M multiply-adds a patch: a full-resolution first layer for the small figures,
    then the stride-2 stages)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            block(3, 16, 1),
            block(16, 32, 2),  # 16x16
            block(32, 64, 2),  # 8x8
            block(64, 64, 1),
            block(64, 128, 2),  # 4x4
        )
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(0.2),
            nn.Linear(128 * 16, 128),
            nn.ReLU(inplace=True),
            nn.Linear(128, N_NUMBERS),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def from_onnx(path: str | Path, sample: np.ndarray) -> NumNet:
    """A :class:`NumNet` holding the weights of an exported reader (``numbers.onnx``, whose
    batch norms the export folded into the convolutions), its batch norms set so that the
    net computes the same logits in eval mode and, on batches like ``sample`` (patches),
    in training mode: each norm's statistics are the folded convolution's output mean and
    spread over ``sample``, its scale and shift undo them."""
    import onnx
    from onnx import numpy_helper

    inits = {
        i.name: numpy_helper.to_array(i).copy() for i in onnx.load(str(path)).graph.initializer
    }
    model = NumNet().eval()
    convs = [k for k in inits if k.startswith("onnx::Conv_")]
    convs.sort(key=lambda k: int(k.rsplit("_", 1)[1]))
    blocks = list(model.body)
    norms = []
    with torch.no_grad():
        for blk, (kw, kb) in zip(blocks, zip(convs[::2], convs[1::2], strict=True), strict=True):
            conv, bn = blk[0], blk[1]
            conv.weight.copy_(torch.from_numpy(inits[kw]))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(inits[kb]))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            norms.append(bn)
        for name, mod in model.head.named_children():
            if isinstance(mod, nn.Linear):
                mod.weight.copy_(torch.from_numpy(inits[f"head.{name}.weight"]))
                mod.bias.copy_(torch.from_numpy(inits[f"head.{name}.bias"]))
        stats: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        hooks = [
            blk[0].register_forward_hook(
                lambda m, i, o, k=k: stats.__setitem__(k, (o.mean((0, 2, 3)), o.var((0, 2, 3))))
            )
            for k, blk in enumerate(blocks)
        ]
        model(torch.from_numpy(to_input(sample)))
        for h in hooks:
            h.remove()
        for k, bn in enumerate(norms):
            mu, var = stats[k]
            var = var.clamp_min(1e-6)
            bn.bias.add_(mu)
            bn.weight.copy_(var.sqrt())
            bn.running_mean.copy_(mu)
            bn.running_var.copy_(var - bn.eps)
    return model


def turn(x: torch.Tensor, g: torch.Generator, scale: float = 0.06) -> torch.Tensor:
    """Each patch of ``x`` (N, 3, P, P) turned by a random angle (the figure on a ball turns
    at any angle in the picture, not only in quarter turns) and scaled by 1 +- ``scale``
    (radius error of the detector), bilinear, edges repeated."""
    n, dev = len(x), x.device
    a = torch.rand(n, generator=g, device=dev) * (2 * np.pi)
    s = 1 + scale * (torch.rand(n, generator=g, device=dev) * 2 - 1)
    cos, sin = torch.cos(a) * s, torch.sin(a) * s
    zero = torch.zeros(n, device=dev)
    theta = torch.stack([torch.stack([cos, -sin, zero], 1), torch.stack([sin, cos, zero], 1)], 1)
    grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    return nn.functional.grid_sample(x, grid, "bilinear", "border", align_corners=False)


def augment_on(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """``models.ballnet.train.augment`` (a random quarter turn, per-channel gain,
    brightness, contrast and noise; never mirrored) on ``g``'s device, so a GPU run draws
    its random numbers where its batch lies."""
    n, dev = len(x), x.device

    def rand(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=g, device=dev)

    k = int(torch.randint(0, 4, (1,), generator=g, device=dev))
    x = torch.rot90(x, k, (2, 3))
    x = (
        (x + 0.5)
        * (1 + 0.12 * (rand(n, 3, 1, 1) * 2 - 1))
        * (1 + 0.25 * (rand(n, 1, 1, 1) * 2 - 1))
    )
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = mean + (x - mean) * (1 + 0.2 * (rand(n, 1, 1, 1) * 2 - 1))
    x = x + 0.02 * rand(n, 1, 1, 1) * torch.randn(x.shape, generator=g, device=dev)
    return x.clamp(0, 1) - 0.5


def load_many(paths: list[str], turn_frontal: bool = False) -> dict[str, np.ndarray]:
    """The patches of the ``numdata`` files ``paths``, concatenated; with ``turn_frontal``
    each patch as the run-time reader sees it then (``vision.numbers.reader.frontal``)."""
    parts = [dict(np.load(p)) for p in paths]
    keys = ("x", "number", "radius", "height")
    d = {k: np.concatenate([p[k] for p in parts]) for k in keys}
    if turn_frontal:
        d["x"] = np.stack([frontal(p) for p in d["x"]])
    return d


def train(
    d: dict[str, np.ndarray],
    epochs: int,
    seed: int,
    threads: int,
    init: str | None = None,
    rotate: bool = False,
    device: str = "cpu",
    batch: int = 128,
    max_minutes: float | None = None,
    lr: float | None = None,
) -> NumNet:
    """AdamW with a one-cycle schedule (peak 3e-3, or 1.5e-3 when continuing from the
    weights ``init``; ``lr`` overrides the peak), batch ``batch``, quarter-turn/gain/contrast/noise augmentation, and
    with ``rotate`` a random turn by any angle and a small scale change (:func:`turn`).
    Data, augmentation and net all on ``device`` (``cpu`` or ``cuda``); with
    ``max_minutes`` training stops after the epoch that passes that wall time."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    g = torch.Generator(device).manual_seed(seed)
    model = NumNet()
    if init and init.endswith(".onnx"):
        pick = np.random.default_rng(seed).choice(
            len(d["x"]), min(4096, len(d["x"])), replace=False
        )
        model = from_onnx(init, d["x"][pick])
    elif init:
        model.load_state_dict(torch.load(init, map_location="cpu"))
    model = model.to(device)
    peak = lr if lr else (1.5e-3 if init else 3e-3)
    x = torch.from_numpy(to_input(d["x"])).to(device)
    y = torch.from_numpy(d["number"].astype(np.int64)).to(device)
    bs = batch
    start = time.time()
    opt = torch.optim.AdamW(model.parameters(), lr=peak, weight_decay=3e-4)
    steps = epochs * ((len(x) + bs - 1) // bs)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, peak, total_steps=steps, pct_start=0.15)
    ce = nn.CrossEntropyLoss(label_smoothing=0.05)
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(x), generator=g, device=device)
        tot, t0 = 0.0, time.time()
        for k in range(0, len(x), bs):
            idx = perm[k : k + bs]
            xb = turn(x[idx], g) if rotate else x[idx]
            loss = ce(model(augment_on(xb, g)), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot = tot + loss.detach() * len(idx)
        print(
            f"epoch {ep + 1}/{epochs}: loss {float(tot) / len(x):.4f} ({time.time() - t0:.0f} s)",
            flush=True,
        )
        if max_minutes is not None and time.time() - start > 60 * max_minutes:
            print(f"stopped after {ep + 1} epochs: {max_minutes} minutes")
            break
    return model.cpu().eval()


def logits(model: nn.Module, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return np.concatenate(
            [
                model(torch.from_numpy(to_input(x[k : k + 1024]))).numpy()
                for k in range(0, len(x), 1024)
            ]
        )


def scores(lg: np.ndarray, d: dict[str, np.ndarray]) -> dict:
    """Per-patch accuracy on readable patches (label > 0) and on unreadable ones (label 0),
    overall and by picture height."""
    pred = lg.argmax(1)
    out: dict = {}
    for name, m in (
        ("all", np.ones(len(pred), bool)),
        ("1080p", d["height"] == 1080),
        ("720p", d["height"] == 720),
    ):
        r, z = m & (d["number"] > 0), m & (d["number"] == 0)
        out[name] = {
            "readable_n": int(r.sum()),
            "readable_accuracy": float((pred[r] == d["number"][r]).mean()) if r.any() else None,
            "misread_rate": float(((pred[r] != d["number"][r]) & (pred[r] > 0)).mean())
            if r.any()
            else None,
            "none_n": int(z.sum()),
            "none_accuracy": float((pred[z] == 0).mean()) if z.any() else None,
        }
    return out


def export(model: NumNet, path: Path, sample: np.ndarray) -> float:
    """Write the number reader's ONNX file; return the largest |onnxruntime - torch|
    logit difference."""
    return export_onnx(model, path, sample, ("number",))


def main() -> None:
    ap = argparse.ArgumentParser(description="train and export the number reader")
    ap.add_argument("--train", required=True, nargs="+")
    ap.add_argument("--test", required=True)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--out", default="models/ballnet")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--init", help="continue from these weights (a state dict .pt or a .onnx)")
    ap.add_argument("--rotate", action="store_true", help="turn patches by any angle")
    ap.add_argument("--device", default="cpu", help="where the net trains: cpu or cuda")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--max-minutes", type=float, help="stop after the epoch past this time")
    ap.add_argument(
        "--lr", type=float, help="peak learning rate (default 3e-3, 1.5e-3 with --init)"
    )
    ap.add_argument("--save", default="/tmp/numnet_last.pt", help="state dict written here")
    ap.add_argument("--weights", help="export these trained weights (.pt) without training")
    ap.add_argument("--no-export", action="store_true", help="train and save weights only")
    ap.add_argument("--frontal", action="store_true", help="read figures turned to face the camera")
    a = ap.parse_args()
    tr, te = load_many(a.train, a.frontal), load_many([a.test], a.frontal)
    t0 = time.time()
    if a.weights:
        model = NumNet()
        model.load_state_dict(torch.load(a.weights, map_location="cpu"))
        model.eval()
    else:
        model = train(
            tr,
            a.epochs,
            a.seed,
            a.threads,
            a.init,
            a.rotate,
            a.device,
            a.batch,
            a.max_minutes,
            a.lr,
        )
        torch.save(model.state_dict(), a.save)
    minutes = (time.time() - t0) / 60
    if a.no_export:
        print(json.dumps(scores(logits(model, te["x"]), te), indent=2))
        return
    out = Path(a.out)
    onnx_path = out / "numbers.onnx"
    diff = export(model, onnx_path, te["x"][:64])
    metrics = {
        "synthetic_held_out": scores(logits(model, te["x"]), te),
        "train_patches": int(len(tr["x"])),
        "train_readable": int((tr["number"] > 0).sum()),
        "epochs": a.epochs,
        "continued_from": a.init,
        "weights": a.weights,
        "rotate_augmentation": a.rotate,
        "frontal": bool(a.frontal),
        "train_minutes": round(minutes, 1),
        "onnx_vs_torch_max_abs_logit_diff": diff,
        "params": int(sum(p.numel() for p in model.parameters())),
    }
    (out / "numbers_metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    mpath = out / "manifest.json"
    manifest = json.loads(mpath.read_text())
    manifest["number_reader"] = {
        "file": onnx_path.name,
        "sha256": file_sha256(onnx_path),
        "bytes": onnx_path.stat().st_size,
        "opset": 17,
        "input": "patch",
        "input_shape": ["n", 3, NUM_PATCH, NUM_PATCH],
        "input_format": "BGR, (pixel / 255) - 0.5, channels first; patch = 2*span_radii radii",
        "span_radii": NUM_SPAN,
        "frontal": bool(a.frontal),
        "outputs": {"number": "0 = none readable, 1..15"},
        "trained_with": f"torch {torch.__version__}, models/ballnet/train_numbers.py",
    }
    mpath.write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(metrics, indent=2))


if __name__ == "__main__":
    main()
