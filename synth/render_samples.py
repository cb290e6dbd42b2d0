"""Sample pictures of the renderer (docs/look/) and its speed.

    python -m synth.render_samples docs/look          # write the three sample JPGs
    python -m synth.render_samples --time             # ms per frame at 1080p and 720p

Positions table mm (contract §1).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import cv2
import numpy as np

from contract.tables import TableSpec, load_table
from synth.camera import Camera, random_camera
from synth.render import Renderer, jpeg_round_trip
from synth.world import Actor, BallInfo, BallPose, SkittlePose, WorldFrame


def random_rot(rng: np.random.Generator) -> tuple[float, ...]:
    """A uniformly random rotation matrix, row-major (for BallPose.rot)."""
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    m = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    return tuple(float(v) for v in m.ravel())


def pyramid_rack(table: TableSpec, rng: np.random.Generator) -> dict[str, BallPose]:
    """15 numbered white balls racked with the apex on the back spot, the yellow in the house."""
    R, gap = table.ball_radius, 0.01
    d = 2 * R + gap
    nums = list(rng.permutation(np.arange(1, 16)))
    out: dict[str, BallPose] = {}
    for k in range(5):
        for j in range(k + 1):
            x = 0.75 * table.L + k * d * math.sqrt(3) / 2
            y = table.W / 2 + (j - k / 2) * d
            out[str(nums.pop())] = BallPose(x, y, R, rot=random_rot(rng))
    out["yellow"] = BallPose(0.2 * table.L, table.W * 0.4, R, rot=random_rot(rng))
    return out


def pyramid_infos() -> dict[str, BallInfo]:
    infos = {str(i): BallInfo(str(i), "white", i) for i in range(1, 16)}
    infos["yellow"] = BallInfo("yellow", "yellow")
    return infos


def sample_frames(size: tuple[int, int] = (1920, 1080)):
    """The three sample scenes: (name, renderer, frame)."""
    out = []
    t = load_table("pyramid-12ft")
    rng = np.random.default_rng(7)
    cam = random_camera(t, size, rng)
    out.append(
        (
            "pyramid-rack",
            Renderer(t, [cam], pyramid_infos(), 7),
            WorldFrame(0, 0.0, pyramid_rack(t, rng)),
        )
    )

    c = load_table("carom-match")
    rng = np.random.default_rng(11)
    cam = random_camera(c, size, rng)
    R = c.ball_radius
    balls = {
        "white": BallPose(900.0, 500.0, R, vx=1800.0, vy=700.0, rot=random_rot(rng)),
        "yellow": BallPose(2300.0, 1000.0, R, rot=random_rot(rng)),
        "red": BallPose(2130.0, 300.0, R, rot=random_rot(rng)),
    }
    sk = {k: SkittlePose(x, y) for k, (x, y) in c.skittle_spots.items()}
    sk["left"] = SkittlePose(*c.skittle_spots["left"], fallen=True, angle=2.3)
    infos = {k: BallInfo(k, k) for k in ("white", "yellow", "red")}  # type: ignore[arg-type]
    out.append(("carom-5pin", Renderer(c, [cam], infos, 11), WorldFrame(0, 0.0, balls, sk)))

    rng = np.random.default_rng(5)
    cam = random_camera(t, size, rng)
    balls = pyramid_rack(t, rng)
    yel = balls["yellow"]
    aim = np.array([0.75 * t.L, t.W / 2]) - [yel.x, yel.y]
    aim /= np.linalg.norm(aim)
    tip = np.array([yel.x, yel.y]) - aim * 60
    butt = tip - aim * 1450
    hand = tip - aim * 220
    actors = (
        Actor("cue", tuple(tip), tuple(butt), height=40.0),
        Actor(
            "arm",
            tuple(hand + [0, -30]),
            tuple(hand - aim * 330 + [0, -260]),
            80.0,
            colour_bgr=(60, 50, 40),
        ),
        Actor(
            "arm",
            tuple(butt + aim * 150),
            tuple(butt + aim * 150 + [-250, 80]),
            350.0,
            colour_bgr=(60, 50, 40),
        ),
        Actor(
            "body",
            tuple(tip - aim * 900 + [0, -250]),
            tuple(tip - aim * 1400),
            800.0,
            (420.0, 230.0),
            (55, 45, 40),
        ),
    )
    out.append(
        (
            "pyramid-arm-cue",
            Renderer(t, [cam], pyramid_infos(), 5),
            WorldFrame(0, 0.0, balls, actors=actors),
        )
    )
    return out


def timing(size: tuple[int, int], n: int = 30) -> tuple[float, float]:
    """(CPU ms, wall ms) per frame (render only, OpenCV on one thread) of a 16-ball pyramid
    frame with a fast ball. CPU time is the fair figure on a shared machine."""
    cv2.setNumThreads(1)
    t = load_table("pyramid-12ft")
    rng = np.random.default_rng(1)
    cam: Camera = random_camera(t, size, rng)
    r = Renderer(t, [cam], pyramid_infos(), 1)
    balls = pyramid_rack(t, rng)
    balls["yellow"] = BallPose(900.0, 700.0, t.ball_radius, vx=3000.0, vy=400.0)
    r.render(WorldFrame(0, 0.0, balls))  # builds the background
    c0, t0 = time.process_time(), time.perf_counter()
    for i in range(n):
        r.render(WorldFrame(i, i / 30, balls))
    return (time.process_time() - c0) / n * 1000, (time.perf_counter() - t0) / n * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", help="folder for the sample JPGs")
    ap.add_argument("--time", action="store_true", help="print ms per frame")
    ap.add_argument("--width", type=int, default=960, help="width of the saved JPGs")
    a = ap.parse_args()
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        for name, r, f in sample_frames():
            img = jpeg_round_trip(r.render(f)[0], 80)
            full = Path(a.out) / f"{name}.jpg"
            small = cv2.resize(
                img, (a.width, a.width * img.shape[0] // img.shape[1]), interpolation=cv2.INTER_AREA
            )
            cv2.imwrite(str(full), small, [cv2.IMWRITE_JPEG_QUALITY, 85])
            print(full)
    if a.time:
        for size in ((1920, 1080), (1280, 720)):
            cpu, wall = timing(size)
            print(f"{size[0]}x{size[1]}: {cpu:.1f} ms/frame CPU ({wall:.1f} ms wall)")


if __name__ == "__main__":
    main()
