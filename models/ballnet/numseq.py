"""Held-out *sequences* for the number vote: the 15 numbered balls of a pyramid rolling to
rest in front of one camera, frame by frame, so that the vote (views, second look, one-view
and many-view rules, the Hungarian give-out) is measured on hundreds of balls, not only on
the bench's 47 ball-shots.

``numdata`` renders independent frames (every frame a new layout), which measures the
reader patch by patch but not the vote, which pools a ball's frames. Here each scene is a
pyramid table with a random cloth and look, a random camera (1920x1080 or 1280x720, or one
size with ``--height``), 15 white balls numbered 1..15 and the yellow, spread out (at least
4 radii apart, their paths kept 2.2 radii apart): 35 % at rest (80 % of them turned to show
a pole within 40 degrees of the camera), 20 % creeping (40-200 mm/s), 45 % rolling
(200-800 mm/s), each moving ball slowing at 500-900 mm/s^2 and rolling without slipping
(its spin follows its path, so a rolling ball shows its poles in passing). Every frame is
softened (0.4-0.9 px) and sent through a JPEG round trip (quality 45..92, one per scene).

Per ball and frame: the tight patch as the tracker cuts it (``vision.detect.classify.
extract_patches``) at the projected centre off by 0.02 r with the radius scaled by
0.88-1.0, both fixed per ball as the detector's error (its radius runs 2-10 % small on the
bench, and it finds a ball at rest at the same place frame after frame), with a wobble of
0.01 r while the ball moves; that centre and radius (video px); and whether its number is
*visible* by the bench's rule (``bench.bench_ballnet``: pole within 31.8 degrees of the
line of sight, smear under a quarter radius, radius >= 10 px).

:func:`vote` replays the tracker's reading (``vision.track.numbering.NumberReading.
_read_numbers``: the radius floor, the motion limit, new views only, the second look for
slow balls, ``vision.numbers.reader.assign_numbers`` over the undecided balls every frame, a
number kept once given) on the true tracks and scores each ball whose number was visible
in some frame: right, wrong or unread at the last frame.

    python -m models.ballnet.numseq OUT.npz --scenes 16 --frames 36 --seed 600001 [--height 720]
    python -m models.ballnet.numseq OUT.npz --vote [--min-read-radius 9.5] [--reader DIR]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from contract.tables import load_table
from models.ballnet.dataset import CLOTHS, ball_view, facing_rot, render_all
from models.ballnet.numdata import LEGIBLE_PX, SIZES_BY_HEIGHT, tilt_deg
from synth.camera import random_camera
from synth.figures import random_style
from synth.render import Renderer, jpeg_round_trip
from synth.render_balls import HOUSE
from synth.render_samples import random_rot
from synth.world import BallInfo, BallPose, WorldFrame
from vision.detect.classify import extract_patches
from vision.numbers.reader import NUM_PATCH, NUM_SPAN

FPS = 30.0
VISIBLE_DOT, VISIBLE_SMEAR, VISIBLE_R_PX = 0.85, 0.25, 10.0
"""The bench's rule for a visible number (|pole . view|, smear in radii, radius px)."""


def rolled(rot: np.ndarray, step_mm: np.ndarray, R: float) -> np.ndarray:
    """The spin (3, 3) of a ball after rolling ``step_mm`` (2,) on the cloth without
    slipping (about the horizontal axis across its path, by ``|step| / R`` radians)."""
    d = float(np.hypot(*step_mm))
    if d < 1e-9:
        return rot
    k = np.array([-step_mm[1], step_mm[0], 0.0]) / d  # z x direction
    a = d / R
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return (np.cos(a) * np.eye(3) + np.sin(a) * kx + (1 - np.cos(a)) * np.outer(k, k)) @ rot


def paths(table, frames: int, rng) -> dict[str, np.ndarray]:
    """Per ball id ("1".."15", "yellow") its centre (frames, 2) table mm: spread, some at
    rest, some creeping or rolling to rest on straight paths that stay on the cloth and
    keep 2.2 radii from every other path (a ball whose path cannot is left out)."""
    R, L, W = table.ball_radius, table.length_mm, table.width_mm
    t = np.arange(frames) / FPS
    out: dict[str, np.ndarray] = {}
    for b in [str(n) for n in range(1, 16)] + ["yellow"]:
        for _ in range(40):
            p0 = np.array([rng.uniform(2 * R, L - 2 * R), rng.uniform(2 * R, W - 2 * R)])
            u = rng.random()
            v0 = 0.0 if u < 0.35 else rng.uniform(40, 200) if u < 0.55 else rng.uniform(200, 800)
            acc = rng.uniform(500, 900)
            a = rng.uniform(0, 2 * np.pi)
            d = np.array([np.cos(a), np.sin(a)])
            s = np.where(t < v0 / acc, v0 * t - 0.5 * acc * t * t, v0 * v0 / (2 * acc))
            xy = p0 + s[:, None] * d
            on = (xy > 1.2 * R).all() and (xy[:, 0] < L - 1.2 * R).all()
            if not on or not (xy[:, 1] < W - 1.2 * R).all():
                continue
            apart = all(np.hypot(*(xy - q).T).min() >= 2.2 * R for q in out.values())
            if apart and all(np.hypot(*(xy[0] - q[0])) >= 4 * R for q in out.values()):
                out[b] = xy
                break
    return out


def scene(
    seed: int, frames: int, height: int | None = None, varied: bool = False
) -> dict[str, np.ndarray]:
    """One rendered sequence (see the module docstring): arrays per ball (B,) and per
    ball and frame (B, F): ``x`` patches (B, F, P, P, 3) uint8, ``uv`` (B, F, 2) and ``r``
    (B, F) the cut's centre and radius (video px), ``visible`` (B, F), ``tilt`` degrees,
    ``smear`` radii, ``number`` (B,), ``height``, ``scene`` and ``figure_r`` (the print's
    height in ball radii). ``varied``: the set is printed by one random maker
    (``synth.figures.random_style``; the house style in 30 % of scenes), and a number is
    visible only where its figure is at least ``numdata.LEGIBLE_PX`` tall."""
    rng = np.random.default_rng([seed, 97])
    style = None
    if varied:
        srng = np.random.default_rng([seed, 99])
        style = None if srng.random() < 0.3 else random_style(srng)
    fig_r = (style or HOUSE).height_r
    table = replace(load_table("pyramid-12ft"), cloth_bgr=CLOTHS[int(rng.integers(len(CLOTHS)))])
    size = (1920, 1080) if rng.random() < 0.6 else (1280, 720)
    size = SIZES_BY_HEIGHT[height] if height is not None else size
    cam = random_camera(table, size, rng)
    R = table.ball_radius
    C = np.asarray(cam.centre)
    tracks = paths(table, frames, rng)
    infos = {
        b: BallInfo(b, "yellow") if b == "yellow" else BallInfo(b, "white", int(b), figure=style)
        for b in tracks
    }
    rend = Renderer(table, [cam], infos, seed)
    rots = {}
    for b, xy in tracks.items():
        view = C - [*xy[0], R]
        face = rng.random() < 0.8 and np.hypot(*(xy[-1] - xy[0])) < 1e-6
        rots[b] = np.reshape(
            facing_rot(view / np.linalg.norm(view), 40.0, rng) if face else random_rot(rng), (3, 3)
        )
    sigma, quality = rng.uniform(0.4, 0.9), int(rng.integers(45, 93))
    # the detector's error: a fixed offset and radius scale per ball (the same detection
    # frame after frame while the ball rests, as on the bench), a wobble while it moves
    bias = {b: np.r_[rng.normal(0, 0.02, 2), rng.uniform(0.88, 1.0)] for b in tracks}
    nums = [b for b in tracks if b != "yellow"]
    B = len(nums)
    X = np.zeros((B, frames, NUM_PATCH, NUM_PATCH, 3), np.uint8)
    UV, RR = np.zeros((B, frames, 2)), np.zeros((B, frames))
    VIS, TL, SM = np.zeros((B, frames), bool), np.zeros((B, frames)), np.zeros((B, frames))
    for f in range(frames):
        balls = {}
        for b, xy in tracks.items():
            step = xy[f] - xy[f - 1] if f else np.zeros(2)
            if f:
                rots[b] = rolled(rots[b], step, R)
            v = (
                (xy[min(f + 1, frames - 1)] - xy[max(f - 1, 0)])
                * FPS
                / (2 if 0 < f < frames - 1 else 1)
            )
            rot = tuple(float(c) for c in rots[b].ravel())
            balls[b] = BallPose(float(xy[f, 0]), float(xy[f, 1]), R, float(v[0]), float(v[1]), rot)
        img, vis = rend.render(WorldFrame(f, f / FPS, balls, {}, ()))
        img = jpeg_round_trip(cv2.GaussianBlur(img, (0, 0), sigma), quality)
        for i, b in enumerate(nums):
            S, uv, r, smear, _ = ball_view(cam, balls[b], R, None)
            view = (C - S) / np.linalg.norm(C - S)
            TL[i, f], SM[i, f] = tilt_deg(balls[b].rot, view), smear
            dot = np.cos(np.radians(TL[i, f]))
            VIS[i, f] = bool(vis.get(b, False)) and dot > VISIBLE_DOT and smear < VISIBLE_SMEAR
            VIS[i, f] &= r >= VISIBLE_R_PX if not varied else r * fig_r >= LEGIBLE_PX
            moving = f > 0 and bool((tracks[b][f] != tracks[b][f - 1]).any())
            wobble = rng.normal(0, 0.01, 3) if moving else np.zeros(3)
            UV[i, f] = uv + (bias[b][:2] + wobble[:2]) * r
            RR[i, f] = r * (bias[b][2] + wobble[2])
            X[i, f] = extract_patches(img, UV[i, f][None], RR[i, f : f + 1], NUM_PATCH, NUM_SPAN)[0]
    return {
        "x": X,
        "uv": UV.astype(np.float32),
        "r": RR.astype(np.float32),
        "visible": VIS,
        "tilt": TL.astype(np.float32),
        "smear": SM.astype(np.float32),
        "number": np.array([int(b) for b in nums], np.int8),
        "height": np.full(B, size[1], np.int16),
        "scene": np.full(B, seed, np.int32),
        "figure_r": np.full(B, fig_r, np.float32),
    }


def vote(
    data: dict[str, np.ndarray],
    reader,
    min_r: float = 11.5,
    reads_per_frame: int = 16,
    second_radii: float | None = None,
) -> dict[int, int | None]:
    """The number each ball (row of ``data``) holds at the last frame, None when unread:
    the tracker's reading (``vision.track.numbering``) replayed on the true tracks with
    ``reader`` (a ``vision.numbers.reader.NumberReader``), balls of at least ``min_r`` px read,
    slow balls (under ``second_radii`` radii a frame, default ``SECOND_LOOK_RADII``)
    given the second look. Scenes are independent tables (numbers unique per scene)."""
    from vision.numbers import reader as vn

    slow_r = vn.SECOND_LOOK_RADII if second_radii is None else second_radii
    limit = float(getattr(reader, "max_step_radii", np.inf))
    x, uv, rad = data["x"], data["uv"], data["r"]
    out: dict[int, int | None] = {}
    for sc in np.unique(data["scene"]):
        idx = [int(i) for i in np.flatnonzero(data["scene"] == sc)]
        votes = {i: vn.NumberVote() for i in idx}
        got: dict[int, int] = {}
        for f in range(x.shape[1]):
            ask: list[tuple[int, bool, bool]] = []  # ball, at rest, slow
            for i in idx:
                if i in got:
                    continue
                r = float(rad[i, f])
                step = votes[i].step(uv[i, f])
                if not r >= min_r or step >= limit * r:
                    continue
                still = step < vn.STILL_RADII * r
                if votes[i].wants_look(uv[i, f], r, still=still):
                    ask.append((i, still, step < slow_r * r))
                if len(ask) >= reads_per_frame:
                    break
            if ask:
                rows = [a[0] for a in ask]
                slow = np.array([a[2] for a in ask])
                more = {"second": slow} if getattr(reader, "second_look", False) else {}
                lp = reader.read_cut(x[rows, f], **more)
                for (i, still, _), lpi in zip(ask, lp, strict=True):
                    votes[i].add(lpi, uv[i, f], float(rad[i, f]), still)
            undecided = {
                i: votes[i] for i in idx if i not in got and votes[i].views + votes[i].looks
            }
            if undecided:
                got.update(vn.assign_numbers(undecided, set(got.values())))
        out.update({i: got.get(i) for i in idx})
    return out


def score(data: dict[str, np.ndarray], held: dict[int, int | None]) -> dict:
    """Right / wrong / unread of the balls whose number was visible in some frame, by
    picture height, and split by how the ball showed its number: ``at rest`` (visible
    in a frame where it did not move) or only ``rolling``."""
    out: dict = {}
    seen = data["visible"].any(axis=1)
    rest_seen = (data["visible"] & (data["smear"] == 0)).any(axis=1)
    every = np.ones(len(seen), bool)
    for h in (2160, 1080, 720):
        for key, m in (
            ("all", seen),
            ("at rest", rest_seen),
            ("rolling", seen & ~rest_seen),
            ("never visible", ~seen),
            ("every ball", every),
        ):
            rows = np.flatnonzero(m & (data["height"] == h))
            if not len(rows):
                continue
            got = [held[int(i)] for i in rows]
            n = len(rows)
            right = sum(g == int(data["number"][i]) for g, i in zip(got, rows, strict=True))
            unread = sum(g is None for g in got)
            out[f"{h}p {key}"] = {
                "balls": n,
                "right": right / n,
                "wrong": (n - right - unread) / n,
                "unread": unread / n,
            }
    return out


def _job(args: tuple[int, int, int | None, bool]) -> dict[str, np.ndarray]:
    cv2.setNumThreads(1)
    return scene(*args)


def main() -> None:
    ap = argparse.ArgumentParser(description="number-vote held-out sequences")
    ap.add_argument("out")
    ap.add_argument("--scenes", type=int, default=16)
    ap.add_argument("--frames", type=int, default=36)
    ap.add_argument("--seed", type=int, default=600001, help="first scene seed")
    ap.add_argument("--height", type=int, choices=sorted(SIZES_BY_HEIGHT), help="one size")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--varied", action="store_true", help="each scene's set by a random maker")
    ap.add_argument("--vote", action="store_true", help="score the vote on OUT (an .npz)")
    ap.add_argument("--reader", help="number reader folder for --vote (default shipped)")
    ap.add_argument("--min-read-radius", type=float, default=None, help="px (default tracker's)")
    a = ap.parse_args()
    if a.vote:
        from vision.numbers.reader import NumberReader
        from vision.track.state import TrackerConfig

        try:
            data = dict(np.load(a.out))
        except (OSError, ValueError) as e:
            raise SystemExit(f"{a.out}: cannot read ({e})") from None
        min_r = a.min_read_radius or TrackerConfig().min_read_radius_px
        res = score(data, vote(data, NumberReader.load(a.reader), min_r))
        for k, v in res.items():
            print(
                f"{k:>16}: {v['balls']:4d} balls, right {100 * v['right']:5.1f} %, wrong"
                f" {100 * v['wrong']:4.1f} %, unread {100 * v['unread']:5.1f} %"
            )
        print(json.dumps(res))
        return
    work = [(s, a.frames, a.height, a.varied) for s in range(a.seed, a.seed + a.scenes)]
    data = render_all(_job, work, a.jobs)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, **data)
    seen = int(data["visible"].any(axis=1).sum())
    print(f"{a.out}: {len(data['number'])} balls, {seen} with their number visible")


if __name__ == "__main__":
    main()
