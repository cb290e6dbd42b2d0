"""The ball-patch data recipe, as code: synthetic renders (and real crops, see real.py).

Each *scene* is a random table (pyramid-12ft: white balls 1..15 and the yellow; carom-match:
white, yellow, red and the five skittles; pool-9ft: coloured, striped and numbered balls and
the cue ball; snooker-small: reds, colours and the cue ball), a random cloth colour, a
random camera (1920x1080 or 1280x720, ``synth.camera.random_camera``) and random lamps;
per scene several frames with balls racked, scattered, touching, frozen to a cushion or in
a pocket mouth, spun to random rotations, some moving (motion blur), and players' cues,
arms, hands and bodies over some of them. Every frame is softened and sent through a JPEG
round trip (quality 45..92) like the real footage.

Patches (``vision.detect.classify.extract_patches``, 32x32 over 2.4 ball radii) with labels:

- ``kind``: 0 ball (visible balls; centre jittered by ~0.06 r, radius by -8..+12 %),
  1 skittle (standing or fallen, at the skittle's middle), 2 other (cloth, markings, spots,
  pocket mouths, diamonds and rails, cue tips, hands, arms, bodies, points 1-1.7 radii off a
  ball's centre such as the gap between two touching balls). Radii of non-balls are the
  ball radius in px at that place.
- ``colour``: index into ``COLOURS`` for balls, -1 (ignored) otherwise. Pool stripes take
  their colour.
- ``number``: 1..15 on a white numbered ball whose printed pole faces the camera
  (|pole . view| > 0.85, no player over the ball, smear < 0.25 r) and whose radius is at
  least 12.5 px (the glyph is then about 17 px tall); 0 for balls whose poles are turned
  away (< 0.6), heavily smeared balls (> 0.5 r), balls under 11.5 px (a blob, as at 720p)
  and balls without numbers (the yellow, carom, snooker and pool cue balls); -1 (ignored)
  in between, on pool numbered balls and on non-balls.

Crowd scenes (``--crowd``) put up to 48 white balls with random numbers and 4 yellows on a
pyramid table, mostly at 1080p, half of the numbered balls turned to show a pole: practice
for the number head. In every scene half of the numbered white balls show a pole (within
40 degrees of the line of sight), so readable numbers are common in the data.

    python -m models.ballnet.dataset OUT.npz --scenes 40 --frames 12 --seed 1 [--jobs 2] [--only T]
    python -m models.ballnet.dataset OUT.npz --crowd ...   # number-reading scenes
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from multiprocessing import Pool
from typing import get_args

import cv2
import numpy as np

from contract.tables import TableSpec, load_table
from synth.camera import random_camera
from synth.render import Renderer, jpeg_round_trip
from synth.render_balls import silhouette
from synth.render_samples import random_rot
from synth.render_scene import rail_height
from synth.world import Actor, BallColour, BallInfo, BallPose, SkittlePose, WorldFrame
from vision.detect.classify import extract_patches

KINDS = ("ball", "skittle", "other")
COLOURS: tuple[str, ...] = get_args(BallColour)  # the model's colour classes, in this order
READABLE, UNREADABLE = 0.85, 0.6
MIN_READ_R_PX, SURE_SMALL_R_PX = 12.5, 11.5
"""A number is readable on a ball at least 12.5 px in radius (the renderer's glyph is then
about 17 px tall); below 11.5 px it is a blob (label 0); in between ignored."""
TABLES = ("pyramid-12ft", "carom-match", "pool-9ft", "snooker-small")
TABLE_WEIGHTS = (0.5, 0.2, 0.15, 0.15)
CLOTHS = ((60, 120, 20), (40, 110, 30), (130, 90, 20), (150, 100, 40), (40, 40, 140), (90, 90, 90))
POOL = ("yellow", "blue", "red", "purple", "orange", "green", "maroon", "black")


def ball_set(table: TableSpec) -> dict[str, BallInfo]:
    """The balls of a table kind, as the renderer draws them."""
    if table.kind == "pyramid":
        out = {str(n): BallInfo(str(n), "white", n) for n in range(1, 16)}
        out["yellow"] = BallInfo("yellow", "yellow")
        return out
    if table.kind == "carom":
        return {k: BallInfo(k, k) for k in ("white", "yellow", "red")}  # type: ignore[arg-type]
    if table.kind == "pool":
        out = {"cue": BallInfo("cue", "white")}
        for n in range(1, 16):
            out[str(n)] = BallInfo(str(n), POOL[(n - 1) % 8], n, stripe=n > 8)  # type: ignore[arg-type]
        return out
    out = {f"r{i}": BallInfo(f"r{i}", "red") for i in range(8)}
    for c in ("yellow", "green", "brown", "blue", "pink", "black", "white"):
        out[c] = BallInfo(c, c)  # type: ignore[arg-type]
    return out


def _positions(table: TableSpec, ids: list[str], rng: np.random.Generator) -> dict[str, tuple]:
    """Random positions: clusters of touching balls, cushion-frozen, pocket-mouth, free."""
    R = table.ball_radius
    placed: dict[str, tuple] = {}
    todo = list(rng.permutation(ids))
    mouths = [(p.x, p.y) for p in table.pockets]

    def free(p: np.ndarray) -> bool:
        return all(math.hypot(p[0] - q[0], p[1] - q[1]) >= 2 * R + 0.01 for q in placed.values())

    while todo:
        b = todo.pop()
        mode = rng.random()
        for _ in range(60):
            if mode < 0.35 and placed:  # touch a placed ball
                q = np.array(list(placed.values())[int(rng.integers(len(placed)))])
                a = rng.uniform(0, 2 * np.pi)
                p = q + (2 * R + rng.uniform(0.001, 3.0)) * np.array([np.cos(a), np.sin(a)])
            elif mode < 0.5:  # frozen to a cushion
                side = int(rng.integers(4))
                t = rng.uniform(0.05, 0.95)
                p = [
                    np.array([t * table.L, R]),
                    np.array([t * table.L, table.W - R]),
                    np.array([R, t * table.W]),
                    np.array([table.L - R, t * table.W]),
                ][side]
            elif mode < 0.6 and mouths:  # in a pocket mouth
                m = np.array(mouths[int(rng.integers(len(mouths)))], float)
                toward = np.array([table.L / 2, table.W / 2]) - m
                p = m + toward / np.linalg.norm(toward) * rng.uniform(1.2 * R, 3 * R)
            else:
                p = np.array([rng.uniform(R, table.L - R), rng.uniform(R, table.W - R)])
            p = np.clip(p, [R, R], [table.L - R, table.W - R])
            if free(p):
                placed[b] = (float(p[0]), float(p[1]))
                break
    return placed


def _actors(table: TableSpec, pos: dict[str, tuple], rng: np.random.Generator) -> tuple:
    """0-3 players' parts near random balls: cue, arm, hand, body (table mm)."""
    out: list[Actor] = []
    keys = list(pos)
    for _ in range(int(rng.integers(0, 4))):
        q = np.array(pos[keys[int(rng.integers(len(keys)))]])
        a = rng.uniform(0, 2 * np.pi)
        d = np.array([np.cos(a), np.sin(a)])
        off = q + d * rng.uniform(-60, 250)
        kind = rng.choice(["cue", "arm", "hand", "body"], p=[0.4, 0.3, 0.15, 0.15])
        col = tuple(int(c) for c in rng.integers(20, 160, 3))
        if kind == "cue":
            tip = q - d * rng.uniform(20, 200)
            out.append(Actor("cue", tuple(tip), tuple(tip - d * 1400), rng.uniform(30, 80)))
        elif kind == "arm":
            out.append(
                Actor("arm", tuple(off), tuple(off - d * 400), rng.uniform(60, 300), colour_bgr=col)
            )
        elif kind == "hand":
            out.append(Actor("hand", tuple(off), height=rng.uniform(50, 200)))
        else:
            c = off - d * rng.uniform(200, 500)
            out.append(Actor("body", tuple(c), tuple(c - d * 400), 700.0, (380.0, 220.0), col))
    return tuple(out)


def facing_rot(view: np.ndarray, tilt_deg: float, rng: np.random.Generator) -> tuple[float, ...]:
    """A rotation whose pole (body z, where the number is printed) points within
    ``tilt_deg`` of ``view`` (unit, table frame), either pole, spun at random about it."""
    t = math.radians(rng.uniform(0, tilt_deg))
    a = rng.normal(size=3)
    a -= (a @ view) * view
    a /= np.linalg.norm(a)
    u = math.cos(t) * view + math.sin(t) * a
    u *= 1 if rng.random() < 0.5 else -1
    e1 = rng.normal(size=3)
    e1 -= (e1 @ u) * u
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    return tuple(float(v) for v in np.c_[e1, e2, u].ravel())


def _frame(
    table: TableSpec, infos: dict[str, BallInfo], index: int, rng, cam_centre: np.ndarray
) -> WorldFrame:
    """A random frame; half of the numbered white balls turn a pole toward the camera."""
    R = table.ball_radius
    ids = list(infos)
    n = int(rng.integers(max(2, len(ids) // 3), len(ids) + 1))
    pos = _positions(table, list(rng.choice(ids, n, replace=False)), rng)
    balls = {}
    for b, (x, y) in pos.items():
        v = np.zeros(2)
        if rng.random() < 0.2:
            a = rng.uniform(0, 2 * np.pi)
            v = rng.uniform(300, 5000) * np.array([np.cos(a), np.sin(a)])
        rot = random_rot(rng)
        if infos[b].number is not None and infos[b].colour == "white" and rng.random() < 0.5:
            view = np.asarray(cam_centre) - [x, y, R]
            rot = facing_rot(view / np.linalg.norm(view), 40.0, rng)
        balls[b] = BallPose(x, y, R, vx=float(v[0]), vy=float(v[1]), rot=rot)
    sk = {}
    for k, (x, y) in table.skittle_spots.items():
        if rng.random() < 0.8:
            fallen = rng.random() < 0.3
            sk[k] = SkittlePose(
                x + rng.normal(0, 3), y + rng.normal(0, 3), fallen, rng.uniform(0, 6.3)
            )
    acts = _actors(table, pos, rng) if rng.random() < 0.5 else ()
    return WorldFrame(index, index / 30, balls, sk, acts)


def ball_view(
    cam, pose: BallPose, R: float, mask: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """How ``cam`` sees a ball: its centre S (table mm, z up), centre uv and radius r
    (recorded px), its motion smear over 1/120 s in radii, and the share of its
    silhouette covered by ``mask`` (the players' layer, 255 where an actor is; None:
    nothing covers it)."""
    S = np.array([pose.x, pose.y, pose.z])
    uv = cam.project(S[None])[0]
    r = _radius_px(cam, S, R)
    v = np.array([pose.vx, pose.vy, 0.0]) / 120
    sm = cam.project(np.array([S - v, S + v]))
    smear_r = float(np.linalg.norm(sm[1] - sm[0])) / r
    covered = 0.0
    if mask is not None:
        h, w = mask.shape[:2]
        ring = silhouette(cam, S, R, 12)
        pts = np.vstack([uv, ring, 0.5 * (ring + uv)])
        ix = np.clip(np.round(pts[:, 0]).astype(int), 0, w - 1)
        iy = np.clip(np.round(pts[:, 1]).astype(int), 0, h - 1)
        covered = float((mask[iy, ix] > 127).mean())
    return S, uv, r, smear_r, covered


def _radius_px(cam, xyz: np.ndarray, R: float) -> float:
    c = cam.project(xyz[None])[0]
    return float(np.linalg.norm(silhouette(cam, xyz, R, 8) - c, axis=1).mean())


def number_label(
    info: BallInfo,
    pose: BallPose,
    cam_centre: np.ndarray,
    smear_r: float,
    covered: float,
    r_px: float = 99.0,
) -> int:
    """The number head's label (see the module docstring): 1..15, 0 or -1 (ignore)."""
    if info.number is None:
        return 0
    if info.colour != "white":
        return -1
    if smear_r > 0.5 or r_px < SURE_SMALL_R_PX:
        return 0
    if r_px < MIN_READ_R_PX:
        return -1
    v = np.asarray(cam_centre, float) - [pose.x, pose.y, pose.z]
    v /= np.linalg.norm(v)
    d = abs(float(np.asarray(pose.rot).reshape(3, 3)[:, 2] @ v))
    if d < UNREADABLE:
        return 0
    if d > READABLE and smear_r < 0.25 and covered == 0:
        return int(info.number)
    return -1


def crowd_set(rng: np.random.Generator) -> dict[str, BallInfo]:
    """48 white balls with random numbers and 4 yellows: number-reading practice."""
    out = {f"c{i}": BallInfo(f"c{i}", "white", int(rng.integers(1, 16))) for i in range(48)}
    out.update({f"y{i}": BallInfo(f"y{i}", "yellow") for i in range(4)})
    return out


def scene_patches(
    seed: int, frames: int, only: str | None = None, crowd: bool = False
) -> dict[str, np.ndarray]:
    """Patches and labels of one random scene (table, look, camera) of ``frames`` frames;
    ``only`` forces the table (one of ``TABLES``); ``crowd`` draws 52 pyramid balls with
    random numbers per frame, mostly at 1080p (number reading)."""
    rng = np.random.default_rng([seed, 77])
    name = TABLES[int(rng.choice(len(TABLES), p=TABLE_WEIGHTS))]
    name = "pyramid-12ft" if crowd else (only or name)
    table = replace(load_table(name), cloth_bgr=CLOTHS[int(rng.integers(len(CLOTHS)))])
    if name == "pyramid-12ft" and rng.random() < 0.3:
        table = replace(load_table("pyramid-12ft"))
    size = (1920, 1080) if rng.random() < (0.85 if crowd else 0.5) else (1280, 720)
    cam = random_camera(table, size, rng)
    infos = crowd_set(rng) if crowd else ball_set(table)
    rend = Renderer(table, [cam], infos, seed)
    R = table.ball_radius
    C = np.asarray(cam.centre)
    w, h = size
    P, K, CO, NU, RP = [], [], [], [], []

    def add(img, uv, r, k, col, num):
        P.append(extract_patches(img, np.array([uv]), np.array([r]))[0])
        RP.append(r)
        K.append(k)
        CO.append(col)
        NU.append(num)

    for fi in range(frames):
        fr = _frame(table, infos, fi, rng, C)
        img, vis = rend.render(fr)
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 0.9))
        img = jpeg_round_trip(img, int(rng.integers(45, 93)))
        mask = None
        if fr.actors:
            mask = rend._painters_for(0)[1].draw(np.zeros_like(img), fr.actors)
        centres = []
        for bid, pose in fr.balls.items():
            if not vis.get(bid, False):
                continue
            S, uv, r, smear_r, covered = ball_view(cam, pose, R, mask)
            centres.append((uv, r))
            info = infos[bid]
            num = number_label(info, pose, C, smear_r, covered, r)
            col = COLOURS.index(info.colour)
            for _ in range(2 if num > 0 else 1):
                j = uv + rng.normal(0, 0.06 * r, 2)
                add(img, j, r * rng.uniform(0.92, 1.12), 0, col, num)
            # a point off the ball's centre: part of a ball, between touching balls
            a = rng.uniform(0, 2 * np.pi)
            off = uv + rng.uniform(1.0, 1.7) * r * np.array([np.cos(a), np.sin(a)])
            add(img, off, r, 2, -1, -1)
        for sk in fr.skittles.values():
            if sk.fallen:
                d = np.array([np.cos(sk.angle), np.sin(sk.angle), 0.0])
                xyz = (
                    np.array([sk.x, sk.y, table.skittle_width_mm / 2])
                    + d * table.skittle_height_mm / 2
                )
            else:
                xyz = np.array([sk.x, sk.y, table.skittle_height_mm / 2])
            uv = cam.project(xyz[None])[0]
            r = _radius_px(cam, np.array([sk.x, sk.y, R]), R)
            if 0 <= uv[0] < w and 0 <= uv[1] < h:
                for _ in range(2):
                    add(img, uv + rng.normal(0, 0.1 * r, 2), r * rng.uniform(0.9, 1.1), 1, -1, -1)
        # negatives: cloth, spots, pockets, diamonds, rails, players
        negs: list[np.ndarray] = []
        for _ in range(6):
            negs.append(
                np.array([rng.uniform(-20, table.L + 20), rng.uniform(-20, table.W + 20), R])
            )
        for p in table.pockets:
            if rng.random() < 0.4:
                negs.append(np.array([p.x + rng.normal(0, R), p.y + rng.normal(0, R), R]))
        for x, y in list(table.spots.values()) + table.diamond_points():
            if rng.random() < 0.15:
                z = R if (x, y) in table.spots.values() else rail_height(table)
                off = (
                    0.0
                    if z == R
                    else float(np.sign(y - table.W / 2 + 1e-9)) * (table.cushion_mm + 20)
                )
                negs.append(np.array([x, y + (off if x not in (0.0, table.L) else 0.0), z]))
        for act in fr.actors:
            for q in (act.a, act.b):
                negs.append(np.array([q[0] + rng.normal(0, 20), q[1] + rng.normal(0, 20), R]))
        for xyz in negs:
            try:
                uv = cam.project(xyz[None])[0]
                r = _radius_px(cam, np.array([xyz[0], xyz[1], R]), R)
            except ValueError:
                continue
            if not (0 <= uv[0] < w and 0 <= uv[1] < h):
                continue
            if any(np.hypot(*(uv - c)) < 0.9 * cr for c, cr in centres):
                continue
            add(img, uv, r, 2, -1, -1)
    return {
        "x": np.stack(P),
        "kind": np.array(K, np.int8),
        "colour": np.array(CO, np.int8),
        "number": np.array(NU, np.int8),
        "scene": np.full(len(K), seed, np.int32),
        "table": np.full(len(K), TABLES.index(name), np.int8),
        "height": np.full(len(K), size[1], np.int16),
        "radius": np.array(RP, np.float32),
    }


def _job(args: tuple[int, int, str | None, bool]) -> dict[str, np.ndarray]:
    cv2.setNumThreads(1)
    return scene_patches(*args)


def render_all(job, work: list[tuple], jobs: int = 1) -> dict[str, np.ndarray]:
    """``job`` (a module-level function: one scene's arrays by name) run on every item of
    ``work``, on ``jobs`` processes, and its arrays concatenated in ``work``'s order."""
    if jobs > 1:
        with Pool(jobs) as pool:
            parts = pool.map(job, work, chunksize=1)
    else:
        parts = [job(a) for a in work]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def build(
    seeds: list[int], frames: int, jobs: int = 1, only: str | None = None, crowd: bool = False
) -> dict[str, np.ndarray]:
    """Concatenated patches of the scenes ``seeds``."""
    return render_all(_job, [(s, frames, only, crowd) for s in seeds], jobs)


def main() -> None:
    ap = argparse.ArgumentParser(description="render synthetic ball patches")
    ap.add_argument("out")
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1, help="first scene seed")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", choices=TABLES, help="one table for every scene")
    ap.add_argument("--crowd", action="store_true", help="52 numbered pyramid balls a frame")
    a = ap.parse_args()
    data = build(list(range(a.seed, a.seed + a.scenes)), a.frames, a.jobs, a.only, a.crowd)
    np.savez_compressed(a.out, **data)
    k = data["kind"]
    print(
        f"{a.out}: {len(k)} patches, balls {int((k == 0).sum())}, skittles {int((k == 1).sum())},"
        f" other {int((k == 2).sum())}, readable numbers {int((data['number'] > 0).sum())}"
    )


if __name__ == "__main__":
    main()
