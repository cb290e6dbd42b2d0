"""The synthetic camera's pictures: a table, its balls, skittles and players as a real
camera over the table records them (lens, parallax, lamps, motion blur, sensor noise,
compression).

``Renderer.render(frame)`` returns the BGR picture and which balls/skittles are visible;
``write_clip`` writes a clip as MP4 (fourcc mp4v) with a JPEG round trip per frame.
Positions table mm (contract §1), heights mm above the cloth, pixels as recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import cv2
import numpy as np

from contract.tables import TableSpec
from synth.camera import Camera
from synth.look import Look, random_look
from synth.render_actors import ActorPainter
from synth.render_balls import BallPainter, silhouette
from synth.render_scene import Background, TableTextures, build_background
from synth.world import BallInfo, WorldFrame

EXPOSURE_S = 1 / 60
NOISE_PAD = 32


class Renderer:
    """Draws ``WorldFrame``s as seen by ``cameras[frame.camera]``.

    The static picture of each camera (cloth, lamps, markings, cushions, rails, pockets) is
    ray-cast once, on first use; per frame only the balls, skittles, players and noise are
    drawn. The same ``seed`` and frame give the same picture, in any order.
    """

    def __init__(
        self,
        table: TableSpec,
        cameras: Sequence[Camera],
        balls: Mapping[str, BallInfo],
        seed: int,
        exposure_s: float = EXPOSURE_S,
    ) -> None:
        if not cameras:
            raise ValueError("renderer needs at least one camera")
        self.table = table
        self.cameras = list(cameras)
        self.balls = dict(balls)
        self.seed = int(seed)
        self.exposure_s = float(exposure_s)
        self.look: Look = random_look(table, np.random.default_rng([self.seed, 1]))
        self._tex: TableTextures | None = None
        self._bg: dict[int, Background] = {}
        self._painters: dict[int, tuple[BallPainter, ActorPainter]] = {}
        self._noise: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    # --------------------------------------------------------------- caches
    def background(self, index: int) -> Background:
        """The static picture and pixel geometry of camera ``index`` (built once)."""
        if not 0 <= index < len(self.cameras):
            raise ValueError(f"frame names camera {index}, the clip has {len(self.cameras)}")
        if index not in self._bg:
            if self._tex is None:
                self._tex = TableTextures(self.table, self.look)
            self._bg[index] = build_background(self._tex, self.cameras[index])
        return self._bg[index]

    def _painters_for(self, index: int) -> tuple[BallPainter, ActorPainter]:
        if index not in self._painters:
            cam, bg = self.cameras[index], self.background(index)
            self._painters[index] = (
                BallPainter(self.table, cam, bg, self.look, self.exposure_s),
                ActorPainter(cam, self.look),
            )
        return self._painters[index]

    def _noise_fields(self, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        if size not in self._noise:
            w, h = size
            rng = np.random.default_rng([self.seed, 2])
            n = rng.normal(0.0, self.look.noise_sigma, (h + NOISE_PAD, w + NOISE_PAD, 1))
            n = n + rng.normal(0.0, self.look.noise_sigma * 0.35, (h + NOISE_PAD, w + NOISE_PAD, 3))
            n = np.round(n)
            self._noise[size] = (
                np.clip(n, 0, 255).astype(np.uint8),
                np.clip(-n, 0, 255).astype(np.uint8),
            )
        return self._noise[size]

    # --------------------------------------------------------------- render
    def render(self, frame: WorldFrame) -> tuple[np.ndarray, dict[str, bool]]:
        """The BGR uint8 picture of ``frame`` and, for every ball and skittle on the table,
        whether it is visible (False when off the picture or its centre is covered or it is
        mostly hidden by a player)."""
        unknown = [k for k in frame.balls if k not in self.balls]
        if unknown:
            raise ValueError(f"frame {frame.index}: ball {unknown[0]!r} has no BallInfo")
        bg = self.background(frame.camera)
        cam = self.cameras[frame.camera]
        balls_p, actors_p = self._painters_for(frame.camera)
        img = bg.image.copy()
        for pose in frame.balls.values():
            balls_p.shadow(img, pose)
        for sk in frame.skittles.values():
            balls_p.skittle(img, sk)
        order = sorted(frame.balls.items(), key=lambda kv: (kv[1].on_table, kv[1].z))
        for bid, pose in order:
            balls_p.ball(img, pose, self.balls[bid])
        mask = None
        if frame.actors:
            actors_p.shadows(img, frame.actors)
            mask = actors_p.draw(img, frame.actors)
        visible = self._visibility(cam, frame, mask)
        pos, neg = self._noise_fields(cam.image_size)
        rng = np.random.default_rng([self.seed, 3, frame.index])
        oy, ox = (int(v) for v in rng.integers(0, NOISE_PAD, 2))
        w, h = cam.image_size
        img = cv2.add(img, pos[oy : oy + h, ox : ox + w])
        img = cv2.subtract(img, neg[oy : oy + h, ox : ox + w])
        return img, visible

    def _visibility(
        self, cam: Camera, frame: WorldFrame, mask: np.ndarray | None
    ) -> dict[str, bool]:
        w, h = cam.image_size
        R = self.table.ball_radius
        out: dict[str, bool] = {}

        def seen(centre: np.ndarray, radius: float) -> bool:
            try:
                c = cam.project(centre[None, :])[0]
                if not (0 <= c[0] < w and 0 <= c[1] < h):
                    return False
                if mask is None:
                    return True
                pts = np.vstack([c[None, :], silhouette(cam, centre, radius, 8)])
            except ValueError:
                return False
            ix = np.clip(np.round(pts[:, 0]).astype(int), 0, w - 1)
            iy = np.clip(np.round(pts[:, 1]).astype(int), 0, h - 1)
            covered = mask[iy, ix] > 127
            return bool(not covered[0] and covered.mean() < 0.5)

        for bid, pose in frame.balls.items():
            if pose.on_table:
                out[bid] = seen(np.array([pose.x, pose.y, pose.z]), R)
        hs = self.table.skittle_height_mm
        for sid, sk in frame.skittles.items():
            if sk.on_table:
                z = self.table.skittle_width_mm / 2 if sk.fallen else hs / 2
                out[sid] = seen(np.array([sk.x, sk.y, z]), self.table.skittle_width_mm / 2)
        return out


def jpeg_round_trip(img: np.ndarray, quality: int) -> np.ndarray:
    """The picture after JPEG compression at ``quality`` (1..100): block artefacts, soft
    chroma, as on the real H.264 footage."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def write_clip(
    path: str | Path,
    frames: Iterable[WorldFrame],
    renderer: Renderer,
    fps: float,
    quality: int = 80,
    soften_px: float = 0.6,
) -> None:
    """Render ``frames`` and write them to ``path`` as MP4 (fourcc mp4v) at ``fps``.

    Each frame is first softened (Gaussian, ``soften_px`` pixels; the real footage's encoder
    smooths away most sensor noise, and it keeps mp4v files about 3x smaller) and sent
    through a JPEG round trip at ``quality`` (block artefacts; 0 skips it)."""
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    writer: cv2.VideoWriter | None = None
    size: tuple[int, int] | None = None
    try:
        for frame in frames:
            img, _ = renderer.render(frame)
            if soften_px > 0:
                img = cv2.GaussianBlur(img, (0, 0), soften_px)
            if quality:
                img = jpeg_round_trip(img, quality)
            if writer is None:
                size = (img.shape[1], img.shape[0])
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
                if not writer.isOpened():
                    raise ValueError(f"{path}: cannot open an mp4v video writer")
            elif (img.shape[1], img.shape[0]) != size:
                raise ValueError(f"frame {frame.index}: picture size changed within the clip")
            writer.write(img)
    finally:
        if writer is not None:
            writer.release()
    if writer is None:
        raise ValueError(f"{path}: no frames to write")
