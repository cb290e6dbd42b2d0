"""The static picture of a table as one camera sees it: cloth, light, markings, cushions,
rails, pockets and floor, ray-cast through the real camera (parallax and lens included).

Textures are drawn once per table in table mm (``TEX_MM`` mm per texel) for three
horizontal layers (cloth at z = 0, cushion tops, rail tops) and a floor; each camera
pixel's ray is intersected with those planes and the texture sampled there.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from contract.tables import TableSpec
from synth.camera import Camera
from synth.look import Look

TEX_MM = 2.0
FLOOR_Z = -760.0
SURF_FLOOR, SURF_CLOTH, SURF_CUSHION, SURF_RAIL, SURF_HOLE = 0, 1, 2, 3, 4


def cushion_height(table: TableSpec) -> float:
    """Height of the cushion nose above the cloth, mm (0.63 of the ball diameter)."""
    return 0.63 * table.ball_mm


def rail_height(table: TableSpec) -> float:
    return cushion_height(table) + 4.0


def pocket_holes(table: TableSpec) -> list[tuple[float, float, float]]:
    """Pocket holes in the cushion and rail layers: (x, y, radius) mm."""
    cw = table.cushion_mm
    out = []
    for p in table.pockets:
        dx = -1.0 if p.x <= 0 else (1.0 if p.x >= table.L else 0.0)
        dy = -1.0 if p.y <= 0 else 1.0
        if p.corner:
            r = 0.45 * p.mouth_mm + 0.3 * cw + 5.0
            out.append((p.x + dx * 0.75 * cw, p.y + dy * 0.75 * cw, r))
        else:
            out.append((p.x, p.y + dy * 0.6 * cw, 0.62 * p.mouth_mm))
    return out


@dataclass(frozen=True)
class Grid:
    """Texture grid: texel (i, j) is table mm (x0 + j * TEX_MM, y0 + i * TEX_MM)."""

    x0: float
    y0: float
    w: int
    h: int

    def xy(self) -> tuple[np.ndarray, np.ndarray]:
        xs = self.x0 + np.arange(self.w, dtype=np.float32) * TEX_MM
        ys = self.y0 + np.arange(self.h, dtype=np.float32) * TEX_MM
        return np.meshgrid(xs, ys)

    def to_px(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.x0) / TEX_MM, (y - self.y0) / TEX_MM


def _noise(shape: tuple[int, int], rng: np.random.Generator, sigma_px: float) -> np.ndarray:
    """Smooth unit-variance noise field."""
    n = rng.standard_normal(shape).astype(np.float32)
    if sigma_px > 0:
        n = cv2.GaussianBlur(n, (0, 0), sigma_px)
    s = float(n.std())
    return n / s if s > 0 else n


def _lowfreq(shape: tuple[int, int], rng: np.random.Generator, cells: int) -> np.ndarray:
    small = rng.standard_normal((max(2, shape[0] * cells // shape[1]), cells)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


class TableTextures:
    """The table's textures in table mm, shared by all cameras (float32 BGR)."""

    def __init__(self, table: TableSpec, look: Look) -> None:
        self.table, self.look = table, look
        rng = np.random.default_rng(look.seed)
        m = table.cushion_mm + table.rail_mm + 20.0
        self.grid = g = Grid(
            -m, -m, int((table.L + 2 * m) / TEX_MM), int((table.W + 2 * m) / TEX_MM)
        )
        X, Y = g.xy()
        light = look.light(X, Y)
        self.cloth = self._cloth(X, Y, light, rng)
        self.cushion = self._cushion(X, Y, light, rng)
        self.rail = self._rail(X, Y, light, rng)
        fm = 3000.0
        self.floor_grid = Grid(-fm, -fm, int((table.L + 2 * fm) / 10), int((table.W + 2 * fm) / 10))
        fl = _noise((self.floor_grid.h, self.floor_grid.w), rng, 1.5) * 0.08 + 1.0
        self.floor = np.dstack([fl * c * 0.85 for c in look.floor_bgr]).astype(np.float32)

    # ---------------------------------------------------------------- cloth
    def _cloth(self, X: np.ndarray, Y: np.ndarray, light: np.ndarray, rng) -> np.ndarray:
        t, lk, g = self.table, self.look, self.grid
        shape = X.shape
        grain = _noise(shape, rng, 0.7) * lk.cloth_grain + _lowfreq(shape, rng, 12) * 0.015
        shade = light * (1.0 + grain)
        # The shadow under the cushion noses (they overhang the cloth).
        d = np.minimum.reduce([X, t.L - X, Y, t.W - Y])
        shade *= (
            1.0 - 0.45 * np.exp(-np.maximum(d, 0) / 9.0) - 0.12 * np.exp(-np.maximum(d, 0) / 40.0)
        )
        img = np.dstack([shade * c for c in lk.cloth_bgr]).astype(np.float32)
        self._markings(img, g, rng)
        inside = (X >= 0) & (X <= t.L) & (Y >= 0) & (Y <= t.W)
        cw = t.cushion_mm
        # Seen under the noses: the cushion rubber's face, cloth-covered and in shadow.
        face = (-cw <= X) & (t.L + cw >= X) & (-cw <= Y) & (t.W + cw >= Y) & ~inside
        for hx, hy, r in pocket_holes(t):
            face &= (X - hx) ** 2 + (Y - hy) ** 2 > r**2
        dark = np.float32(12.0) + _noise(shape, rng, 3.0) * 2.0
        img[~inside] = dark[~inside, None]
        face_shade = (light * 0.38)[..., None] * np.asarray(lk.cloth_bgr, np.float32)
        img[face] = face_shade[face]
        for p in t.pockets:
            cx, cy = g.to_px(*p.centre)
            r = p.mouth_mm / 2 / TEX_MM
            cv2.circle(
                img, (int(cx * 16), int(cy * 16)), int(r * 16), (14, 14, 14), -1, cv2.LINE_AA, 4
            )
        return img

    def _markings(self, img: np.ndarray, g: Grid, rng) -> None:
        """Faint chalk-white markings: spots, lines, skittle marks (anti-aliased)."""
        t = self.table
        ink = np.zeros(img.shape[:2], np.float32)
        sc = 16

        def pt(x: float, y: float) -> tuple[int, int]:
            px, py = g.to_px(x, y)
            return int(round(px * sc)), int(round(py * sc))

        for name, (a, b) in t.lines.items():
            strength = 0.22 if name != "spotting" else 0.12
            cv2.line(ink, pt(*a), pt(*b), strength, 1, cv2.LINE_AA, 4)
        for x, y in t.spots.values():
            cv2.circle(ink, pt(x, y), int(5 / TEX_MM * sc), 0.7, -1, cv2.LINE_AA, 4)
        for x, y in t.skittle_spots.values():
            cv2.circle(ink, pt(x, y), int(7 / TEX_MM * sc), 0.55, 1, cv2.LINE_AA, 4)
            cv2.circle(ink, pt(x, y), int(2 / TEX_MM * sc), 0.55, -1, cv2.LINE_AA, 4)
        ink = cv2.GaussianBlur(ink, (0, 0), 0.6)
        white = np.array([235.0, 240.0, 240.0], np.float32) * self.look.light(*g.xy())[..., None]
        img += ink[..., None] * (white - img)

    # -------------------------------------------------------------- cushions
    def _cushion_mask(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Where the cushion tops are (outside the noses, inside the rails, cut at pockets)."""
        t, cw = self.table, self.table.cushion_mm
        band = (-cw <= X) & (t.L + cw >= X) & (-cw <= Y) & (t.W + cw >= Y)
        band &= ~((X >= 0) & (X <= t.L) & (Y >= 0) & (Y <= t.W))
        if not t.has_pockets:
            return band
        c = t.corner_mouth_mm / 2**0.5
        mm = t.middle_mouth_mm / 2
        kc, km = 0.55, 0.3
        depth_x = np.where(X < 0, -X, X - t.L)  # depth into the short cushions
        depth_y = np.where(Y < 0, -Y, Y - t.W)
        short = (np.abs(X - t.L / 2) > t.L / 2) & (-cw <= Y) & (t.W + cw >= Y)
        short &= (c - kc * depth_x <= Y) & (t.W - c + kc * depth_x >= Y)
        lng = (
            (np.abs(Y - t.W / 2) > t.W / 2)
            & (c - kc * depth_y <= X)
            & (t.L - c + kc * depth_y >= X)
        )
        lng &= np.abs(X - t.L / 2) >= mm - km * depth_y
        mask = band & (short | lng)
        for hx, hy, r in pocket_holes(t):
            mask &= (X - hx) ** 2 + (Y - hy) ** 2 > (r * 0.8) ** 2
        return mask

    def _cushion(self, X: np.ndarray, Y: np.ndarray, light: np.ndarray, rng) -> np.ndarray:
        t, lk = self.table, self.look
        d = np.maximum.reduce([-X, X - t.L, -Y, Y - t.W])  # depth outward from the nose line
        prof = np.where(d < 5, 1.08, 0.86 - 0.08 * np.clip(d / t.cushion_mm, 0, 1))
        grain = 1.0 + _noise(X.shape, rng, 0.7) * lk.cloth_grain
        shade = light * prof * grain
        return np.dstack([shade * c for c in lk.cloth_bgr]).astype(np.float32)

    # ----------------------------------------------------------------- rails
    def _rail(self, X: np.ndarray, Y: np.ndarray, light: np.ndarray, rng) -> np.ndarray:
        t, lk, g = self.table, self.look, self.grid
        shape = X.shape
        along_x = _noise((shape[0], 1), rng, 0.0)  # grain runs along x on the long rails
        along_y = _noise((1, shape[1]), rng, 0.0)
        fine = _noise(shape, rng, 0.8)
        long_rail = (Y < 0) | (Y > t.W)
        grain = np.where(long_rail, along_x, along_y) * 0.12 + fine * 0.04
        m = t.cushion_mm + t.rail_mm
        edge = np.minimum.reduce([X + m, t.L + m - X, Y + m, t.W + m - Y])
        bevel = np.where(edge < 12, 0.7 + 0.025 * edge, 1.0)
        shade = (0.55 + 0.45 * light) * (1.0 + grain) * bevel
        img = np.dstack([shade * c for c in lk.rail_bgr]).astype(np.float32)
        sc = 16
        mid = t.cushion_mm + t.rail_mm / 2
        for x, y in t.diamond_points():
            dx = -mid if x <= 0 else (mid if x >= t.L else 0.0)
            dy = -mid if y <= 0 else (mid if y >= t.W else 0.0)
            cx, cy = g.to_px(x + dx, y + dy)
            horiz = dy != 0
            a, b = (9.0, 4.5) if horiz else (4.5, 9.0)
            poly = np.array(
                [
                    [cx + a / TEX_MM, cy],
                    [cx, cy + b / TEX_MM],
                    [cx - a / TEX_MM, cy],
                    [cx, cy - b / TEX_MM],
                ]
            )
            cv2.fillPoly(
                img, [np.round(poly * sc).astype(np.int32)], (225, 232, 235), cv2.LINE_AA, 4
            )
        for hx, hy, r in pocket_holes(t):
            cx, cy = g.to_px(hx, hy)
            rr = (r + (40 if t.kind == "pool" else 14)) / TEX_MM
            trim = (
                (150.0, 150.0, 155.0) if t.kind == "pool" else (38.0, 38.0, 40.0)
            )  # chrome/leather
            k = float(lk.light(np.float32(hx), np.float32(hy)))
            trim = tuple(c * k for c in trim)
            cv2.circle(img, (int(cx * sc), int(cy * sc)), int(rr * sc), trim, -1, cv2.LINE_AA, 4)
        return img

    def rail_mask(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        t = self.table
        cw, m = t.cushion_mm, t.cushion_mm + t.rail_mm
        mask = (-m <= X) & (t.L + m >= X) & (-m <= Y) & (t.W + m >= Y)
        mask &= ~((-cw < X) & (t.L + cw > X) & (-cw < Y) & (t.W + cw > Y))
        for hx, hy, r in pocket_holes(t):
            mask &= (X - hx) ** 2 + (Y - hy) ** 2 > r**2
        return mask


@dataclass(frozen=True)
class Background:
    """One camera's static picture and per-pixel geometry.

    ``image``: BGR uint8 (h, w, 3). ``xn``: normalised undistorted coords per pixel (h, w, 2)
    float32. ``cloth_xy``: table mm where each pixel's ray meets the cloth plane (h, w, 2).
    ``surface``: which layer each pixel shows (``SURF_*``), uint8."""

    image: np.ndarray
    xn: np.ndarray
    cloth_xy: np.ndarray
    surface: np.ndarray


def _sample(tex: np.ndarray, grid: Grid, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    mx = ((X - grid.x0) / TEX_MM).astype(np.float32)
    my = ((Y - grid.y0) / TEX_MM).astype(np.float32)
    return cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def build_background(tex: TableTextures, cam: Camera) -> Background:
    """Ray-cast the table's layers through ``cam`` (one call per camera pose)."""
    t, lk = tex.table, tex.look
    w, h = cam.image_size
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    xn = cam.undistort_normalised(np.c_[u.ravel(), v.ravel()]).astype(np.float32)
    d = (np.c_[xn, np.ones(len(xn), np.float32)] @ cam.R.astype(np.float32)).reshape(h, w, 3)
    d[..., 2] *= -1.0  # flipped frame -> table frame (z up); not normalised (fine for planes)
    C = cam.centre.astype(np.float32)

    def hit(z: float) -> tuple[np.ndarray, np.ndarray]:
        s = (z - C[2]) / d[..., 2]
        return C[0] + s * d[..., 0], C[1] + s * d[..., 1]

    X0, Y0 = hit(0.0)
    Xc, Yc = hit(cushion_height(t))
    Xr, Yr = hit(rail_height(t))
    Xf, Yf = hit(FLOOR_Z)
    surf = np.full((h, w), SURF_FLOOR, np.uint8)
    m = t.cushion_mm + t.rail_mm
    inside_outer = (-m <= X0) & (t.L + m >= X0) & (-m <= Y0) & (t.W + m >= Y0)
    surf[inside_outer] = SURF_HOLE
    surf[(X0 >= 0) & (X0 <= t.L) & (Y0 >= 0) & (Y0 <= t.W)] = SURF_CLOTH
    cush = tex._cushion_mask(Xc, Yc)
    surf[cush] = SURF_CUSHION
    rail = tex.rail_mask(Xr, Yr)
    surf[rail] = SURF_RAIL
    img = _sample(tex.floor, tex.floor_grid, Xf, Yf)
    for code, layer, (X, Y) in (
        (SURF_HOLE, tex.cloth, (X0, Y0)),
        (SURF_CLOTH, tex.cloth, (X0, Y0)),
        (SURF_CUSHION, tex.cushion, (Xc, Yc)),
        (SURF_RAIL, tex.rail, (Xr, Yr)),
    ):
        sel = surf == code
        if sel.any():
            img[sel] = _sample(layer, tex.grid, X, Y)[sel]
    # Lamp sheen: the cloth's faint glossy reflection of each lamp (a soft hotspot).
    cloth = surf == SURF_CLOTH
    for lp in lk.lamps:
        k = lp.h / (lp.h + C[2])
        mx, my = lp.x + (C[0] - lp.x) * k, lp.y + (C[1] - lp.y) * k
        d2 = (X0[cloth] - mx) ** 2 + (Y0[cloth] - my) ** 2
        img[cloth] *= (1.0 + 0.08 * lp.power**0.5 * np.exp(-d2 / (2 * 260.0**2)))[:, None]
    # Lens: vignetting and a slight softness.
    r2 = ((u - w / 2) ** 2 + (v - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img *= (lk.gain * (1.0 - lk.vignette * r2)).astype(np.float32)[..., None]
    img = cv2.GaussianBlur(img, (0, 0), 0.55)
    image = np.clip(img, 0, 255).astype(np.uint8)
    cloth_xy = np.dstack([X0, Y0]).astype(np.float32)
    return Background(image=image, xn=xn.reshape(h, w, 2), cloth_xy=cloth_xy, surface=surf)
