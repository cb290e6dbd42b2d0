"""What limits reading numbers at 720p: the same rendered 1080p frames read as they are,
and shrunk to 1280x720 with and without the frame blur and the JPEG round trip.

Each scene (``numdata``'s crowd scenes, at rest, no players: 48 numbered white balls, 80 %
turned to show a pole within 32 degrees of the camera) is rendered once at 1920x1080. Then
per frame, with the frame's blur (0.4-0.9 px) and JPEG quality (45..92) drawn once:

* ``1080``: blurred and compressed at 1080p, as ``numdata`` does;
* ``720``: shrunk to 720p (``cv2.INTER_AREA``, 2/3), then blurred and compressed (the same
  pixels of blur and the same quality: the 720p picture ``numdata`` makes);
* ``720_noblur``, ``720_nojpeg``, ``720_clean``: the same without the blur, without the
  JPEG, without either;
* ``720_up15``: the 720p picture upsampled 1.5x (Lanczos) before the patch cut.

Readable: pole within 31.8 degrees of the line of sight and a 720p radius of at least
9.5 px. Every ball is cut at the same place in each picture (true centre jittered by
0.06 r, radius by -8..+12 %) and read with four turns; per picture the share read right,
the share sure at p(n | readable) >= 0.9 and 0.8 and how many of those are wrong.

    python -m models.ballnet.numlimits --scenes 40 --frames 3 --seed 990001 [--reader DIR]
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import cv2
import numpy as np

from contract.tables import load_table
from models.ballnet.dataset import CLOTHS, _positions, ball_view, crowd_set, facing_rot
from models.ballnet.numdata import tilt_deg
from synth.camera import random_camera
from synth.render import Renderer, jpeg_round_trip
from synth.render_samples import random_rot
from synth.world import BallPose, WorldFrame
from vision.detect.classify import extract_patches
from vision.numbers.reader import NUM_PATCH, NUM_SPAN

SHRINK = 2 / 3
"""1080p to 720p."""
PICTURES = ("1080", "720", "720_noblur", "720_nojpeg", "720_clean", "720_up15")


def pictures(img: np.ndarray, sigma: float, quality: int) -> dict[str, tuple[np.ndarray, float]]:
    """The picture variants (see the module docstring) of one rendered 1080p frame, each
    with its scale from 1080p pixels."""
    small = cv2.resize(img, None, fx=SHRINK, fy=SHRINK, interpolation=cv2.INTER_AREA)

    def blur(im: np.ndarray) -> np.ndarray:
        return cv2.GaussianBlur(im, (0, 0), sigma)

    out = {
        "1080": (jpeg_round_trip(blur(img), quality), 1.0),
        "720": (jpeg_round_trip(blur(small), quality), SHRINK),
        "720_noblur": (jpeg_round_trip(small, quality), SHRINK),
        "720_nojpeg": (blur(small), SHRINK),
        "720_clean": (small, SHRINK),
    }
    up = cv2.resize(out["720"][0], None, fx=1.5, fy=1.5, interpolation=cv2.INTER_LANCZOS4)
    out["720_up15"] = (up, SHRINK * 1.5)
    return out


def scene(seed: int, frames: int) -> dict[str, np.ndarray]:
    """Patches (per picture variant, (N, P, P, 3)) and ``number`` (N,) of one scene."""
    rng = np.random.default_rng([seed, 95])
    table = replace(load_table("pyramid-12ft"), cloth_bgr=CLOTHS[int(rng.integers(len(CLOTHS)))])
    cam = random_camera(table, (1920, 1080), rng)
    infos = crowd_set(rng)
    rend = Renderer(table, [cam], infos, seed)
    R = table.ball_radius
    C = np.asarray(cam.centre)
    cuts: dict[str, list[np.ndarray]] = {k: [] for k in PICTURES}
    labels: list[int] = []
    for fi in range(frames):
        ids = list(infos)
        pos = _positions(table, list(rng.choice(ids, int(rng.integers(24, 49)), False)), rng)
        balls = {}
        for b, (x, y) in pos.items():
            view = C - [x, y, R]
            view = view / np.linalg.norm(view)
            face = infos[b].number is not None and rng.random() < 0.8
            balls[b] = BallPose(
                x, y, R, rot=facing_rot(view, 32.0, rng) if face else random_rot(rng)
            )
        img, vis = rend.render(WorldFrame(fi, fi / 30, balls, {}, ()))
        pics = pictures(img, rng.uniform(0.4, 0.9), int(rng.integers(45, 93)))
        for b, pose in balls.items():
            if not vis.get(b, False) or infos[b].number is None:
                continue
            S, uv, r, _, _ = ball_view(cam, pose, R, None)
            if tilt_deg(pose.rot, (C - S) / np.linalg.norm(C - S)) >= 31.8 or r * SHRINK < 9.5:
                continue
            at, rr = uv + rng.normal(0, 0.06 * r, 2), r * rng.uniform(0.92, 1.12)
            for k, (im, s) in pics.items():
                cut = extract_patches(im, at[None] * s, np.array([rr * s]), NUM_PATCH, NUM_SPAN)
                cuts[k].append(cut[0])
            labels.append(int(infos[b].number))
    if not labels:
        return {"number": np.zeros(0, np.int8)} | {
            k: np.zeros((0, NUM_PATCH, NUM_PATCH, 3), np.uint8) for k in PICTURES
        }
    return {"number": np.array(labels, np.int8)} | {k: np.stack(v) for k, v in cuts.items()}


def figures(reader, patches: np.ndarray, number: np.ndarray) -> dict:
    """Right, and sure at 0.9 / 0.8 with the share of those wrong, of ``reader``'s four-turn
    reads of ``patches`` labelled ``number``."""
    lp = reader.read_patches(patches)
    p = np.exp(lp)
    pred = lp.argmax(axis=1)
    pc = p[:, 1:].max(axis=1) / np.maximum(1e-9, 1 - p[:, 0])
    out = {"n": int(len(number)), "right": float((pred == number).mean())}
    for t in (0.9, 0.8):
        s = (pred > 0) & (pc >= t)
        out[f"sure_{t}"] = float(s.mean())
        out[f"sure_{t}_wrong"] = float((pred[s] != number[s]).mean()) if s.any() else None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="what limits reading numbers at 720p")
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--seed", type=int, default=990001)
    ap.add_argument("--reader", help="number reader folder (default shipped)")
    a = ap.parse_args()
    from vision.numbers.reader import NumberReader

    cv2.setNumThreads(1)
    parts = [scene(s, a.frames) for s in range(a.seed, a.seed + a.scenes)]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    if not len(data["number"]):
        raise SystemExit("no readable balls rendered: more scenes")
    reader = NumberReader.load(a.reader)
    for k in PICTURES:
        f = figures(reader, data[k], data["number"])
        w9, w8 = (f"{100 * (f[k2] or 0):.1f} %" for k2 in ("sure_0.9_wrong", "sure_0.8_wrong"))
        print(
            f"{k:>11}: {f['n']} balls, right {100 * f['right']:5.1f} %, sure at 0.9"
            f" {100 * f['sure_0.9']:4.1f} % ({w9} wrong), at 0.8 {100 * f['sure_0.8']:4.1f} %"
            f" ({w8} wrong)"
        )


if __name__ == "__main__":
    main()
