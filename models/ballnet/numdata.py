"""The number reader's data recipe, as code: crowd scenes of numbered white pyramid balls.

Each scene is a pyramid table with a random cloth and look, a random camera at 1920x1080
(60 %) or 1280x720 (40 %) and per frame up to 48 white balls with random numbers and 4
yellows, 70 % of the white balls turned so that a pole (where the number is printed) faces
the camera within 40 degrees, 15 % moving (motion blur), players' parts over some. Every
frame is softened and sent through a JPEG round trip (quality 45..92).

Patches are *tight* crops (``vision.numbers.reader.NUM_SPAN`` ball radii either side of the
centre, ``vision.numbers.reader.NUM_PATCH`` px square, cut by ``vision.detect.classify.extract_patches``
exactly as at run time) of every visible ball, centre jittered by ~0.06 r and radius by
-8..+12 %. Label ``number``: 1..15 when the pole faces the camera (|pole . view| > 0.85),
no player covers the ball, the smear is under 0.25 r and the ball radius is at least
``MIN_R_PX``; 0 when the pole is turned away (< 0.6), the ball is smeared over 0.5 r, the
radius is under ``SURE_R_PX`` or the ball has no number (yellow); -1 (ignored) between.
Each patch also records ``tilt`` (degrees from the line of sight to the nearer pole) and
``smear`` (motion smear in ball radii), to break held-out figures down by view.

    python -m models.ballnet.numdata OUT.npz --scenes 40 --frames 10 --seed 1 [--jobs 2]
    python -m models.ballnet.numdata OUT.npz --sheet /tmp/sheet   # contact sheets of OUT.npz
    python -m models.ballnet.numdata DIR --scenes 5000 --seconds 240 --chunk 16 --jobs 16

With ``--seconds`` the scenes are rendered in any order until that wall time has passed,
written every ``--chunk`` finished scenes to ``DIR/chunk_NNN.npz`` (the shipped reader's
data: 16 cores for 240 s, seeds from 1, about 510,000 patches).

``--eval`` prints held-out figures of an existing ``OUT.npz`` (rendered with ``tilt`` and
``smear``) by pole angle and motion (:func:`by_view`), with ``--reader DIR`` and
``--second-look`` (balls at rest read as the tracker reads them):

    python -m models.ballnet.numdata /tmp/nn4/test.npz --eval --second-look

``--sheet PREFIX`` writes ``PREFIX_1080.png`` and ``PREFIX_720.png``: 48 random readable
patches of an existing ``OUT.npz`` each, magnified 4x (nearest), label and radius (px)
under each, to judge by eye whether a person could read the figures.
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from contract.tables import load_table
from models.ballnet.dataset import (
    CLOTHS,
    _actors,
    _positions,
    ball_view,
    crowd_set,
    facing_rot,
    render_all,
)
from synth.camera import random_camera
from synth.render import Renderer, jpeg_round_trip
from synth.render_balls import HOUSE
from synth.render_samples import random_rot
from synth.world import BallPose, WorldFrame
from vision.detect.classify import extract_patches
from vision.numbers.reader import NUM_PATCH, NUM_SPAN

READABLE, UNREADABLE = 0.85, 0.6
MIN_R_PX, SURE_R_PX = 10.0, 8.5
"""Radius (px) from which a facing number is labelled readable, and under which it is 0."""


def tilt_deg(rot, view: np.ndarray) -> float:
    """Angle (degrees) between the line of sight ``view`` (unit, table frame) and the
    nearer of the ball's two poles (body z of ``rot``, where the number is printed)."""
    d = abs(float(np.asarray(rot).reshape(3, 3)[:, 2] @ view))
    return float(np.degrees(np.arccos(min(1.0, d))))


LEGIBLE_PX, SMALL_PX = 5.0, 3.5
"""Figure height (px) from which a facing number is labelled readable in ``varied`` scenes,
and under which it is 0: a digit needs about five pixel rows to be told from the others
(the 5x7 dot-matrix figure), and under three and a half none can be told; between them the
patch is not used."""


def label(
    number: int | None,
    rot,
    view: np.ndarray,
    smear_r: float,
    covered: float,
    r: float,
    figure_px: float | None = None,
):
    """The number label of one ball (see the module docstring): 1..15, 0 or -1. With
    ``figure_px`` (the printed figure's height in px, ``varied`` scenes) legibility is
    decided by the figure's size (``LEGIBLE_PX``, ``SMALL_PX``), not the ball's radius."""
    if number is None:
        return 0
    if figure_px is not None:
        if figure_px < SMALL_PX:
            return 0
        if figure_px < LEGIBLE_PX:
            return -1 if smear_r <= 0.5 else 0
        r = max(r, MIN_R_PX)  # the radius rule is replaced by the figure's size
    if smear_r > 0.5 or r < SURE_R_PX:
        return 0
    d = abs(float(np.asarray(rot).reshape(3, 3)[:, 2] @ view))
    if d < UNREADABLE:
        return 0
    if d > READABLE and smear_r < 0.25 and covered == 0 and r >= MIN_R_PX:
        return int(number)
    return -1


SIZES_BY_HEIGHT = {2160: (3840, 2160), 1080: (1920, 1080), 720: (1280, 720)}
"""Picture sizes (px) by height, for scenes rendered at one size (``--height``)."""
HARD_TILT_DEG = (15.0, 32.0)
"""Pole-off-the-line-of-sight range (degrees) of the facing balls in ``hard`` scenes."""
HARD_SPEED_MM_S = (150.0, 550.0)
"""Speeds of the moving balls in ``hard`` scenes: a smear of about 0.1-0.25 r over 1/120 s."""


def tilted_rot(view: np.ndarray, lo_deg: float, hi_deg: float, rng) -> tuple[float, ...]:
    """A rotation whose pole (body z) is ``lo_deg``..``hi_deg`` degrees off ``view`` (unit,
    table frame), either pole, spun at random about it (``dataset.facing_rot`` with a
    lower bound on the tilt)."""
    t = np.radians(rng.uniform(lo_deg, hi_deg))
    a = rng.normal(size=3)
    a -= (a @ view) * view
    a /= np.linalg.norm(a)
    u = (np.cos(t) * view + np.sin(t) * a) * (1 if rng.random() < 0.5 else -1)
    e1 = rng.normal(size=3)
    e1 -= (e1 @ u) * u
    e1 /= np.linalg.norm(e1)
    return tuple(float(v) for v in np.c_[e1, np.cross(u, e1), u].ravel())


def styled(infos: dict, rng: np.random.Generator, house: float = 0.3) -> dict:
    """``infos`` with every numbered ball printed by a random maker (``synth.figures``),
    ``house`` of them in the house style."""
    from dataclasses import replace

    from synth.figures import random_style

    return {
        k: replace(b, figure=None if rng.random() < house else random_style(rng))
        if b.number is not None
        else b
        for k, b in infos.items()
    }


def scene(
    seed: int, frames: int, hard: bool = False, height: int | None = None, varied: bool = False
) -> dict[str, np.ndarray]:
    """Tight number patches and labels of one random crowd scene of ``frames`` frames.
    ``hard``: the views the tracker reads unsure (the bench's unread balls): 85 % of the
    numbered balls turned ``HARD_TILT_DEG`` off the line of sight, 35 % rolling slowly
    (``HARD_SPEED_MM_S``), half the scenes at 720p. ``height`` (1080 or 720): every scene
    at that picture size (the rest of the scene drawn as without it)."""
    from dataclasses import replace

    rng = np.random.default_rng([seed, 93 if hard else 91])
    table = replace(load_table("pyramid-12ft"), cloth_bgr=CLOTHS[int(rng.integers(len(CLOTHS)))])
    size = (1920, 1080) if rng.random() < (0.5 if hard else 0.6) else (1280, 720)
    if varied:  # 4K too: the reader's patch is the same 32 px, its figures sharper
        size = [(3840, 2160), (1920, 1080), (1280, 720)][int(rng.choice(3, p=[0.15, 0.55, 0.3]))]
    if height is not None:
        size = SIZES_BY_HEIGHT[height]
    cam = random_camera(table, size, rng)
    infos = crowd_set(rng)
    if varied:
        infos = styled(infos, np.random.default_rng([seed, 97]))
    rend = Renderer(table, [cam], infos, seed)
    R = table.ball_radius
    C = np.asarray(cam.centre)
    w, h = size
    X, N, RP, TL, SM, FP = [], [], [], [], [], []
    for fi in range(frames):
        ids = list(infos)
        n = int(rng.integers(len(ids) // 2, len(ids) + 1))
        pos = _positions(table, list(rng.choice(ids, n, replace=False)), rng)
        balls = {}
        for b, (x, y) in pos.items():
            v = np.zeros(2)
            if rng.random() < (0.35 if hard else 0.15):
                a = rng.uniform(0, 2 * np.pi)
                speed = HARD_SPEED_MM_S if hard else (300, 4000)
                v = rng.uniform(*speed) * np.array([np.cos(a), np.sin(a)])
            rot = random_rot(rng)
            view = C - [x, y, R]
            view = view / np.linalg.norm(view)
            if infos[b].number is not None and hard and rng.random() < 0.85:
                rot = tilted_rot(view, *HARD_TILT_DEG, rng)
            elif infos[b].number is not None and rng.random() < 0.7:
                rot = facing_rot(view, 40.0, rng)
            balls[b] = BallPose(x, y, R, vx=float(v[0]), vy=float(v[1]), rot=rot)
        acts = _actors(table, pos, rng) if rng.random() < 0.4 else ()
        img, vis = rend.render(WorldFrame(fi, fi / 30, balls, {}, acts))
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 0.9))
        img = jpeg_round_trip(img, int(rng.integers(45, 93)))
        mask = rend._painters_for(0)[1].draw(np.zeros_like(img), acts) if acts else None
        for bid, pose in balls.items():
            if not vis.get(bid, False):
                continue
            S, uv, r, smear_r, covered = ball_view(cam, pose, R, mask)
            view = (C - S) / np.linalg.norm(C - S)
            fpx = r * (infos[bid].figure or HOUSE).height_r
            num = label(
                infos[bid].number, pose.rot, view, smear_r, covered, r, fpx if varied else None
            )
            if num < 0:
                continue
            for _ in range(2 if num > 0 else 1):
                j = uv + rng.normal(0, 0.06 * r, 2)
                rr = r * rng.uniform(0.92, 1.12)
                X.append(extract_patches(img, j[None], np.array([rr]), NUM_PATCH, NUM_SPAN)[0])
                N.append(num)
                RP.append(r)
                TL.append(tilt_deg(pose.rot, view))
                SM.append(smear_r)
                FP.append(fpx if infos[bid].number is not None else 0.0)
    return {
        "x": np.stack(X),
        "number": np.array(N, np.int8),
        "radius": np.array(RP, np.float32),
        "height": np.full(len(N), size[1], np.int16),
        "scene": np.full(len(N), seed, np.int32),
        "tilt": np.array(TL, np.float32),
        "smear": np.array(SM, np.float32),
        "figure_px": np.array(FP, np.float32),
    }


def sheet(data: dict[str, np.ndarray], height: int, count: int = 48, seed: int = 0) -> np.ndarray:
    """A BGR contact sheet of ``count`` random readable patches of pictures ``height`` px
    high, each magnified 4x (nearest) with its label and ball radius (px) written under it."""
    idx = np.flatnonzero((data["height"] == height) & (data["number"] > 0))
    if not len(idx):
        raise ValueError(f"no readable {height}p patches")
    pick = np.random.default_rng(seed).choice(idx, min(count, len(idx)), replace=False)
    tiles = []
    for i in pick:
        t = cv2.resize(data["x"][i], (128, 128), interpolation=cv2.INTER_NEAREST)
        t = cv2.copyMakeBorder(t, 0, 20, 0, 0, cv2.BORDER_CONSTANT, value=(0, 0, 0))
        txt = f"{data['number'][i]} r{data['radius'][i]:.1f}"
        cv2.putText(t, txt, (2, 144), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
        tiles.append(t)
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 8)
    return np.vstack([np.hstack(tiles[k : k + 8]) for k in range(0, len(tiles), 8)])


TILT_BINS = ((0.0, 10.0), (10.0, 20.0), (20.0, 25.0), (25.0, 32.0))
"""Pole-off-the-line-of-sight bins (degrees) of :func:`by_view`; readable stops at 31.8."""


def by_view(data: dict[str, np.ndarray], reader, second_look: bool = False) -> dict:
    """Held-out figures of ``reader`` (a ``vision.numbers.reader.NumberReader``, four turns) on a
    ``numdata`` file with ``tilt`` and ``smear``, by picture height and view: readable
    patches by pole angle (all, and balls at rest), at rest, rolling; per group the share
    read right, the share of sure reads (``p(n | readable)`` at the one-view rule's bar:
    ``P_VIEW_REST`` at rest, ``P_VIEW`` rolling) and how many of those are wrong; and "none" read when none is readable. ``second_look``: slow balls
    read as the tracker reads them, the surer of the patch and its turned figure (slow:
    under ``SECOND_LOOK_RADII`` a frame at 30 fps, a smear over 1/60 s under half that)."""
    from vision.numbers.reader import P_VIEW, P_VIEW_REST, SECOND_LOOK_RADII, surer, turned_figure

    x, num, h = data["x"], data["number"], data["height"]
    tilt, still = data["tilt"], data["smear"] == 0
    lp = np.concatenate([reader.read_patches(x[k : k + 512]) for k in range(0, len(x), 512)])
    if second_look:
        slow = data["smear"] < SECOND_LOOK_RADII / 2
        idx = [i for i in np.flatnonzero(slow) if turned_figure(x[i]) is not None]
        if idx:
            again = reader.read_patches(np.stack([turned_figure(x[i]) for i in idx]))
            lp[idx] = surer(lp[idx], again)
    p = np.exp(lp)
    pred = lp.argmax(axis=1)
    bar = np.where(still, P_VIEW_REST, P_VIEW)
    sure = (pred > 0) & (p[:, 1:].max(axis=1) / np.maximum(1e-9, 1 - p[:, 0]) >= bar)
    out: dict = {}
    for height in (1080, 720):
        groups = {f"{a:.0f}-{b:.0f} deg": (tilt >= a) & (tilt < b) for a, b in TILT_BINS}
        groups |= {f"{k} at rest": m & still for k, m in groups.items()}
        groups |= {"at rest": still, "rolling": ~still, "all": np.ones(len(num), bool)}
        rows = {}
        for name, m in groups.items():
            m = m & (h == height) & (num > 0)
            if m.any():
                s = m & sure
                rows[name] = {
                    "readable": int(m.sum()),
                    "right": float((pred[m] == num[m]).mean()),
                    "sure": float(s.sum() / m.sum()),
                    "sure_wrong": float((pred[s] != num[s]).mean()) if s.any() else None,
                }
        z = (h == height) & (num == 0)
        right = float((pred[z] == 0).mean()) if z.any() else None
        rows["none when none"] = {"n": int(z.sum()), "right": right}
        out[f"{height}p"] = rows
    return out


def _job(args: tuple[int, int, bool, int | None, bool]) -> dict[str, np.ndarray]:
    cv2.setNumThreads(1)
    return scene(*args)


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def timed(
    out: str,
    seeds: range,
    frames: int,
    seconds: float,
    chunk: int,
    jobs: int,
    hard: bool = False,
    height: int | None = None,
    varied: bool = False,
) -> None:
    """Render scenes ``seeds`` on ``jobs`` processes until ``seconds`` of wall time have
    passed; every ``chunk`` finished scenes go to ``out/chunk_NNN.npz``."""
    t0 = time.time()
    Path(out).mkdir(parents=True, exist_ok=True)
    parts: list[dict[str, np.ndarray]] = []
    n = total = 0
    with Pool(jobs) as pool:
        for d in pool.imap_unordered(_job, [(s, frames, hard, height, varied) for s in seeds]):
            parts.append(d)
            if len(parts) == chunk or time.time() - t0 > seconds:
                np.savez(f"{out}/chunk_{n:03d}.npz", **_concat(parts))
                total += sum(len(p["number"]) for p in parts)
                print(f"chunk {n}: {total} patches, {time.time() - t0:.0f} s", flush=True)
                parts, n = [], n + 1
            if time.time() - t0 > seconds:
                break
        pool.terminate()


def main() -> None:
    ap = argparse.ArgumentParser(description="render tight number patches")
    ap.add_argument("out")
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1, help="first scene seed")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--sheet", help="write contact sheets of OUT (an existing .npz) instead")
    ap.add_argument("--seconds", type=float, help="render until this wall time, in chunks")
    ap.add_argument("--chunk", type=int, default=16, help="scenes a chunk (with --seconds)")
    ap.add_argument("--hard", action="store_true", help="the hard views (see scene())")
    ap.add_argument("--height", type=int, choices=sorted(SIZES_BY_HEIGHT), help="one size")
    ap.add_argument("--varied", action="store_true", help="balls printed by random makers")
    ap.add_argument("--eval", action="store_true", help="held-out figures of OUT by view")
    ap.add_argument("--reader", help="number reader folder for --eval (default shipped)")
    ap.add_argument("--second-look", action="store_true", help="--eval as the tracker reads")
    a = ap.parse_args()
    if a.eval:
        import json

        from vision.numbers.reader import NumberReader

        data = dict(np.load(a.out))
        if "tilt" not in data:
            raise SystemExit(f"{a.out}: no tilt/smear columns (render it with this numdata)")
        res = by_view(data, NumberReader.load(a.reader), a.second_look)
        for height, rows in res.items():
            for name, r in rows.items():
                if "n" in r:
                    if r["n"]:
                        print(f"{height} {name}: {100 * r['right']:.1f} % of {r['n']}")
                    continue
                sw = "-" if r["sure_wrong"] is None else f"{100 * r['sure_wrong']:.1f} %"
                print(
                    f"{height} {name:>20}: {r['readable']:5d} readable, right"
                    f" {100 * r['right']:5.1f} %, sure {100 * r['sure']:3.0f} % (wrong {sw})"
                )
        print(json.dumps(res))
        return
    if a.seconds:
        seeds = range(a.seed, a.seed + a.scenes)
        timed(a.out, seeds, a.frames, a.seconds, a.chunk, a.jobs, a.hard, a.height, a.varied)
        return
    if a.sheet:
        data = dict(np.load(a.out))
        for h in (1080, 720):
            cv2.imwrite(f"{a.sheet}_{h}.png", sheet(data, h))
            print(f"{a.sheet}_{h}.png")
        return
    work = [(s, a.frames, a.hard, a.height, a.varied) for s in range(a.seed, a.seed + a.scenes)]
    data = render_all(_job, work, a.jobs)
    np.savez_compressed(a.out, **data)
    num = data["number"]
    print(f"{a.out}: {len(num)} patches, readable {int((num > 0).sum())}")


if __name__ == "__main__":
    main()
