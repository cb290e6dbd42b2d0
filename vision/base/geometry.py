"""Where the table lies in the picture: surface masks and the expected ball radius.

Everything here is derived once from a :class:`contract.calib.Calibration` and a
:class:`contract.tables.TableSpec`; pixels are recorded (distorted) video pixels,
positions table mm (contract §1).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from contract.calib import Calibration
from contract.tables import TableSpec

MAX_BALL_SPEED_MM_S = 12000.0
"""The fastest a ball travels on the cloth (mm/s): a hard break's cue ball leaves its rest at
about 10-12 m/s, every other ball slower. Bounds how far a ball can be from where it was last
seen: the tracker's young tracks, the events' relinks and cushion bounces."""


def surface_outline_mm(table: TableSpec, margin: float = 0.0, step: float = 50.0) -> np.ndarray:
    """The playing-surface rectangle grown by ``margin`` mm, sampled every ``step`` mm
    (so that lens distortion bends it correctly), as an (N,2) closed polygon in mm."""
    x0, y0, x1, y1 = -margin, -margin, table.L + margin, table.W + margin
    nx = max(2, int(np.ceil((x1 - x0) / step)) + 1)
    ny = max(2, int(np.ceil((y1 - y0) / step)) + 1)
    xs, ys = np.linspace(x0, x1, nx), np.linspace(y0, y1, ny)
    return np.concatenate(
        [
            np.c_[xs, np.full(nx, y0)],
            np.c_[np.full(ny, x1), ys][1:],
            np.c_[xs[::-1], np.full(nx, y1)][1:],
            np.c_[np.full(ny, x0), ys[::-1]][1:-1],
        ]
    )


def polygon_mask(
    calib: Calibration,
    table: TableSpec,
    size: tuple[int, int],
    scale: float,
    margin: float,
    height: float = 0.0,
) -> np.ndarray:
    """uint8 mask (255 inside) of the surface grown by ``margin`` mm at ``height`` mm,
    in an image of ``size`` (w, h) pixels that is the video scaled by ``scale``."""
    w, h = size
    px = calib.table_to_pixel(surface_outline_mm(table, margin), height=height) * scale
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return mask


def pocket_shelf_mm(table: TableSpec) -> float:
    """How far (mm) past a pocket's mouth line a ball's centre goes before it drops: the
    shelf between the jaws' nose ends and the hole (a pool pocket's, ``pocket_shelf_mm``
    in the table spec); 0 where the spec gives none (a ball drops at the mouth line)."""
    return float(table.extra.get("pocket_shelf_mm", 0.0))


def mouth_lines(table: TableSpec) -> np.ndarray:
    """(Q, 4) per pocket a point of its mouth line (the middle of the cushion nose ends
    beside it, table mm) and the line's outward unit normal (into the pocket)."""
    out = []
    for p in table.pockets:
        corner = np.array([p.x, p.y], float)
        ends = [
            np.asarray(e, float)
            for s in table.cushion_segments
            for e in (s.a, s.b)
            if np.hypot(*(np.asarray(e, float) - corner)) <= 0.75 * p.mouth_mm + 1e-6
        ]
        if len(ends) < 2:
            continue
        sx = -1.0 if p.x <= 0 else (1.0 if p.x >= table.L else 0.0)
        sy = -1.0 if p.y <= 0 else 1.0
        n = np.array([sx, sy]) / np.hypot(sx, sy)
        out.append((*np.mean(ends, axis=0), *n))
    return np.array(out, float).reshape(-1, 4)


def ball_radius_px(calib: Calibration, table: TableSpec, xy_mm: np.ndarray) -> np.ndarray:
    """Expected image radius (video px) of a ball whose centre projects to ``xy_mm`` (N,2).

    A sphere's outline is not foreshortened by the view: through the pinhole its radius is
    the image of a ball radius across the line of sight, the larger principal scale of the
    table plane at the ball's centre height (the same in every direction for a camera
    looking straight down; a camera looking at an angle shortens the table along its view,
    never the ball). The lens's distortion then squeezes the outline as it squeezes the
    cloth around it: by its mean local scale (the square root of its Jacobian's
    determinant)."""
    xy = np.asarray(xy_mm, float).reshape(-1, 2)
    R = table.ball_radius
    pts = [calib.table_to_pixel(xy + d, height=R) for d in ((0.0, 0.0), (R, 0.0), (0.0, R))]
    lens = _jacobian(*pts)  # (N, 2, 2): recorded px per ball radius along x, y
    pin = _jacobian(*(calib.undistort(p) for p in pts))  # the same through the pinhole
    squeeze = np.sqrt(np.abs(np.linalg.det(lens)) / np.maximum(np.abs(np.linalg.det(pin)), 1e-12))
    return np.linalg.svd(pin, compute_uv=False)[:, 0] * squeeze


def _jacobian(c: np.ndarray, ex: np.ndarray, ey: np.ndarray) -> np.ndarray:
    """(N, 2, 2) columns ``ex - c`` and ``ey - c``: the image of two table steps."""
    return np.stack([ex - c, ey - c], axis=2)


@dataclass(frozen=True)
class TableGeometry:
    """Precomputed masks and the ball-radius map for one video size and work scale.

    ``scale`` maps video pixels to work pixels (``work = video * scale``). ``inner`` is
    the surface at the cloth; ``band`` a ring outside it where a ball's image can still
    lie (parallax, pocket mouths); ``radius_map`` the expected ball radius in *video*
    pixels at each work pixel (coarse, bilinear).
    """

    size: tuple[int, int]
    work_size: tuple[int, int]
    scale: float
    inner: np.ndarray
    band: np.ndarray
    radius_map: np.ndarray

    @classmethod
    def build(
        cls, calib: Calibration, table: TableSpec, size: tuple[int, int], scale: float
    ) -> TableGeometry:
        w, h = size
        ws = (max(1, int(round(w * scale))), max(1, int(round(h * scale))))
        R = table.ball_radius
        inner = polygon_mask(calib, table, ws, scale, 0.0, 0.0)
        outer = cv2.bitwise_or(
            polygon_mask(calib, table, ws, scale, 1.2 * R, R),
            polygon_mask(calib, table, ws, scale, 0.6 * R, 0.0),
        )
        band = cv2.bitwise_and(outer, cv2.bitwise_not(inner))
        step = 16
        gx, gy = np.meshgrid(np.arange(0, ws[0] + step, step), np.arange(0, ws[1] + step, step))
        uv = np.c_[gx.ravel(), gy.ravel()] / scale
        xy = calib.pixel_to_table(uv, height=R)
        xy = np.clip(xy, [0, 0], [table.L, table.W])
        r = ball_radius_px(calib, table, xy).reshape(gx.shape).astype(np.float32)
        rmap = cv2.resize(
            r, (gx.shape[1] * step, gx.shape[0] * step), interpolation=cv2.INTER_LINEAR
        )
        return cls(size, ws, scale, inner, band, rmap[: ws[1], : ws[0]])

    def radius_at(self, u_work: float, v_work: float) -> float:
        """Expected ball radius in video px at a work-image position."""
        h, w = self.radius_map.shape
        return float(
            self.radius_map[min(h - 1, max(0, int(v_work))), min(w - 1, max(0, int(u_work)))]
        )

    def radii_at(self, u_work: np.ndarray, v_work: np.ndarray) -> np.ndarray:
        """Expected ball radii in video px (float64) at work-image positions (arrays of
        equal shape; finite): :meth:`radius_at` for many positions at once."""
        h, w = self.radius_map.shape
        v = np.clip(np.trunc(np.asarray(v_work, float)), 0, h - 1).astype(np.intp)
        u = np.clip(np.trunc(np.asarray(u_work, float)), 0, w - 1).astype(np.intp)
        return self.radius_map[v, u].astype(float)
