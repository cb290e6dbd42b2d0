"""Balls and skittles, ray-traced per pixel in small patches of the picture.

Every ball pixel's ray (from the camera's per-pixel map, lens included) is intersected
with the sphere of radius R at the ball's 3D centre: the outline, the parallax and the
shading are exact; numbers are printed at the ball's two poles and turn with ``rot``.
Positions table mm (z above the cloth), velocities mm/s, pixels as recorded.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from contract.tables import TableSpec
from synth.camera import Camera
from synth.figures import GLYPH, FigureStyle, figure_glyph
from synth.look import BALL_BGR, Look
from synth.render_scene import SURF_CLOTH, Background
from synth.world import BallInfo, BallPose, SkittlePose


@lru_cache(maxsize=32)
def glyph(number: int) -> np.ndarray:
    """Ink (0..1, GLYPH x GLYPH float32) of a pool ball's number, centred, upright (two-digit
    numbers at 0.72 the scale of one digit, no mark under 6 and 9)."""
    img = np.zeros((GLYPH, GLYPH), np.uint8)
    s = str(number)
    font, scale, th = cv2.FONT_HERSHEY_DUPLEX, 2.0 if len(s) == 1 else 1.45, 5
    (tw, tht), _ = cv2.getTextSize(s, font, scale, th)
    cv2.putText(img, s, ((GLYPH - tw) // 2, (GLYPH + tht) // 2), font, scale, 255, th, cv2.LINE_AA)
    return img.astype(np.float32) / 255.0


DIGIT_H = 42
"""Ink height (glyph px) of every pyramid figure: 42 of the glyph's 64 px, which spans
0.68 r on the ball (box +-0.34 r), so 0.45 r tall (15 mm on a 68 mm ball), as one digit
has always been printed; two-digit numbers are as tall, with condensed digits."""
NUMBER_W = 60
"""Widest a pyramid number may be (glyph px): two digits are narrowed to fit."""
HOUSE = FigureStyle(height_r=0.34 * 2 * DIGIT_H / GLYPH)
"""The house print: Hershey Duplex in a box of +-0.34 r (ink 0.446 r tall), dark ink, 6
and 9 underlined; every white pyramid ball without a ``figure`` of its own."""
DIGIT_GAP, MARK_GAP, MARK_H = 3, 3, 4
"""Glyph px between two digits, between a 6 or 9 and its underline, and the underline's
thickness (about the stroke's)."""


def pyramid_glyph(number: int) -> np.ndarray:
    """Ink (0..1, GLYPH x GLYPH float32) of a Russian pyramid ball's number in the house
    style, centred, upright, as real pyramid balls print it: every number ``DIGIT_H`` tall
    (two-digit numbers as tall as one digit, their digits condensed to fit ``NUMBER_W``),
    and 6 and 9 underlined so that the figure shows which way is up
    (``synth.figures.figure_glyph`` in ``HOUSE``)."""
    return figure_glyph(number, HOUSE)


def bbox_px(cam: Camera, pts_xyz: np.ndarray, pad: float) -> tuple[int, int, int, int] | None:
    """Pixel box (x0, y0, x1, y1) around projected table points, padded, clipped; None if
    it lies outside the picture."""
    try:
        uv = cam.project(pts_xyz)
    except ValueError:
        return None
    w, h = cam.image_size
    x0 = max(0, int(np.floor(uv[:, 0].min() - pad)))
    y0 = max(0, int(np.floor(uv[:, 1].min() - pad)))
    x1 = min(w, int(np.ceil(uv[:, 0].max() + pad)) + 1)
    y1 = min(h, int(np.ceil(uv[:, 1].max() + pad)) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def silhouette(cam: Camera, centre: np.ndarray, radius: float, n: int = 16) -> np.ndarray:
    """The exact outline of a sphere (table mm) as recorded pixels (n, 2): the circle where
    the camera's tangent cone touches the sphere, projected through the lens."""
    oc = np.asarray(cam.centre) - centre
    dist = float(np.linalg.norm(oc))
    axis = oc / dist
    c = centre + axis * radius**2 / dist
    r = radius * np.sqrt(max(0.0, 1 - radius**2 / dist**2))
    if abs(axis[2]) < 0.9:  # a = axis x z, b = axis x a (written out: np.cross is slow)
        a = np.array([axis[1], -axis[0], 0.0])
    else:
        a = np.array([0.0, axis[2], -axis[1]])
    a /= np.linalg.norm(a)
    b = np.array(
        [
            axis[1] * a[2] - axis[2] * a[1],
            axis[2] * a[0] - axis[0] * a[2],
            axis[0] * a[1] - axis[1] * a[0],
        ]
    )
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pts = c + r * (np.cos(th)[:, None] * a + np.sin(th)[:, None] * b)
    return cam.project(pts)


def _line_kernel(delta: np.ndarray) -> np.ndarray | None:
    """Normalised motion-blur kernel for a smear of ``delta`` pixels (None if tiny)."""
    length = float(np.hypot(*delta))
    if length < 0.75:
        return None
    half = int(np.ceil(length / 2)) + 1
    k = np.zeros((2 * half + 1, 2 * half + 1), np.uint8)
    a = np.round((half - delta / 2) * 16).astype(int)
    b = np.round((half + delta / 2) * 16).astype(int)
    cv2.line(k, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 255, 1, cv2.LINE_AA, 4)
    kf = k.astype(np.float32)
    return kf / kf.sum()


class BallPainter:
    """Draws balls, their shadows and skittles for one camera pose."""

    def __init__(
        self, table: TableSpec, cam: Camera, bg: Background, look: Look, exposure_s: float
    ) -> None:
        self.table, self.cam, self.bg, self.look = table, cam, bg, look
        self.exposure = exposure_s
        self.f = float(cam.K[0, 0])
        self.cloth = np.asarray(look.cloth_bgr, np.float64)

    # ------------------------------------------------------------- geometry
    def _rays(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        xn = self.bg.xn[y0:y1, x0:x1].astype(np.float64)
        d = np.concatenate([xn, np.ones(xn.shape[:2] + (1,))], axis=2) @ self.cam.R
        d[..., 2] *= -1.0
        return d / np.linalg.norm(d, axis=2, keepdims=True)

    def _smear(self, pose: BallPose) -> np.ndarray:
        """Pixel displacement of the ball centre over the exposure."""
        v = np.array([pose.vx, pose.vy, 0.0]) * self.exposure / 2
        s = np.array([pose.x, pose.y, pose.z])
        uv = self.cam.project(np.array([s - v, s + v]))
        return uv[1] - uv[0]

    # -------------------------------------------------------------- shadows
    def shadow(self, img: np.ndarray, pose: BallPose) -> None:
        """Darken the cloth under a ball: one soft shadow per lamp and a contact shade."""
        R = self.table.ball_radius
        if not pose.on_table:
            return
        S = np.array([pose.x, pose.y, pose.z])
        centres, radii, weights = [], [], []
        for lp in self.look.lamps:
            if lp.h <= S[2] + 1:
                continue
            k = lp.h / (lp.h - S[2])
            centres.append(np.array([lp.x, lp.y]) + (S[:2] - [lp.x, lp.y]) * k)
            radii.append(R * k)
            weights.append(lp.power)
        pen = 0.9 * R
        pts = [np.r_[S[:2], 0.0]]
        for c, r in zip(centres, radii, strict=True):
            pts += [
                np.r_[c + [dx, dy], 0.0] for dx in (-r - pen, r + pen) for dy in (-r - pen, r + pen)
            ]
        box = bbox_px(self.cam, np.array(pts), 2)
        if box is None:
            return
        x0, y0, x1, y1 = box
        xy = self.bg.cloth_xy[y0:y1, x0:x1].astype(np.float64)
        dark = np.zeros(xy.shape[:2])
        for c, r, wgt in zip(centres, radii, weights, strict=True):
            dist = np.hypot(xy[..., 0] - c[0], xy[..., 1] - c[1])
            f = np.clip((r + pen / 2 - dist) / pen, 0, 1)
            dark += wgt * f * f * (3 - 2 * f) * 0.42
        lift = max(0.0, 1.0 - (S[2] - R) / (2 * R))
        if lift > 0:
            d0 = np.hypot(xy[..., 0] - S[0], xy[..., 1] - S[1])
            dark = 1 - (1 - dark) * (1 - 0.55 * lift * np.exp(-((d0 / (0.55 * R)) ** 2)))
        dark *= self.bg.surface[y0:y1, x0:x1] == SURF_CLOTH
        patch = img[y0:y1, x0:x1].astype(np.float32)
        patch *= (1 - dark).astype(np.float32)[..., None]
        img[y0:y1, x0:x1] = np.clip(patch, 0, 255).astype(np.uint8)

    # ---------------------------------------------------------------- balls
    def ball(self, img: np.ndarray, pose: BallPose, info: BallInfo) -> None:
        """Ray-trace one ball (with motion blur over the exposure) into ``img``."""
        R = self.table.ball_radius
        S = np.array([pose.x, pose.y, pose.z])
        if not pose.on_table and pose.z <= -R:
            return
        try:
            sil = silhouette(self.cam, S, R)
            smear = self._smear(pose)
        except ValueError:
            return
        kern = _line_kernel(smear)
        pad = 2 + (kern.shape[0] // 2 if kern is not None else 0)
        w, h = self.cam.image_size
        x0 = max(0, int(np.floor(sil[:, 0].min())) - pad)
        y0 = max(0, int(np.floor(sil[:, 1].min())) - pad)
        x1 = min(w, int(np.ceil(sil[:, 0].max())) + pad + 1)
        y1 = min(h, int(np.ceil(sil[:, 1].max())) + pad + 1)
        if x1 <= x0 or y1 <= y0:
            return
        d = self._rays(x0, y0, x1, y1)
        C = np.asarray(self.cam.centre)
        oc = C - S
        dist = float(np.linalg.norm(oc))
        b = d @ oc
        dperp = np.sqrt(np.maximum(dist * dist - b * b, 0.0))
        alpha = np.clip((R - dperp) / (dist / self.f) + 0.5, 0.0, 1.0)
        t = -b - np.sqrt(np.maximum(R * R - dperp * dperp, 0.0))
        n = C + t[..., None] * d - S
        n /= np.maximum(np.linalg.norm(n, axis=2, keepdims=True), 1e-9)
        rgb = self._shade(n, S, oc / dist, pose, info)
        if not pose.on_table:  # dropping into a pocket: darker as it sinks
            rgb *= 1.0 - 0.85 * np.clip((R - pose.z) / (2 * R), 0, 1)
        pre = (rgb * alpha[..., None]).astype(np.float32)
        a32 = alpha.astype(np.float32)
        if kern is not None:
            pre = cv2.filter2D(pre, -1, kern, borderType=cv2.BORDER_CONSTANT)
            a32 = cv2.filter2D(a32, -1, kern, borderType=cv2.BORDER_CONSTANT)
        pre = cv2.GaussianBlur(pre, (0, 0), 0.45)
        a32 = cv2.GaussianBlur(a32, (0, 0), 0.45)
        patch = img[y0:y1, x0:x1].astype(np.float32)
        out = patch * (1 - a32[..., None]) + pre
        img[y0:y1, x0:x1] = np.clip(out, 0, 255).astype(np.uint8)

    def _shade(
        self, n: np.ndarray, S: np.ndarray, view: np.ndarray, pose: BallPose, info: BallInfo
    ) -> np.ndarray:
        base = np.asarray(BALL_BGR.get(info.colour, BALL_BGR["white"]), np.float64)
        albedo = np.broadcast_to(base, n.shape).copy()
        rot = np.asarray(pose.rot, float).reshape(3, 3)
        nb = n @ rot  # body-frame normals (rot maps body -> table)
        white = np.asarray(BALL_BGR["white"], np.float64)
        if info.stripe:
            band = np.abs(nb[..., 2]) > 0.5
            albedo[band] = white
        if info.number is not None:
            pool = info.colour != "white"
            style = HOUSE if pool or info.figure is None else info.figure
            g = glyph(int(info.number)) if pool else figure_glyph(int(info.number), style)
            ink_bgr = np.array(style.ink_bgr)
            for sign in (1.0, -1.0):
                cap = nb[..., 2] * sign > 0.55
                a = nb[..., 0] * sign
                c = nb[..., 1]
                if pool:
                    disc = cap & (a * a + c * c < 0.42**2)
                    albedo[disc] = white
                    scale = 0.3
                else:
                    scale = style.box_r
                gx = np.clip(((a / scale + 1) * GLYPH / 2).astype(int), 0, GLYPH - 1)
                gy = np.clip(((c / scale + 1) * GLYPH / 2).astype(int), 0, GLYPH - 1)
                inside = cap & (np.abs(a) < scale) & (np.abs(c) < scale)
                ink = np.where(inside, g[gy, gx], 0.0)
                albedo += ink[..., None] * (ink_bgr - albedo)
        diffuse = 0.3 + 0.15 * np.clip(n[..., 2], 0, 1)
        spec = np.zeros(n.shape[:2])
        for lp in self.look.lamps:
            lv = np.array([lp.x, lp.y, lp.h]) - S
            lv /= np.linalg.norm(lv)
            diffuse = diffuse + lp.power * 0.62 * np.clip(n @ lv, 0, 1)
            hv = lv + view
            hv /= np.linalg.norm(hv)
            spec += np.sqrt(lp.power) * np.clip(n @ hv, 0, 1) ** 250
        rgb = albedo * (diffuse * self.look.gain)[..., None]
        fres = (1 - np.clip(n @ view, 0, 1)) ** 3 * 0.3
        rgb += fres[..., None] * (self.cloth * 0.8 - rgb)
        rgb += (np.minimum(spec, 1.0) * 250.0)[..., None]
        return np.clip(rgb, 0, 255)

    # -------------------------------------------------------------- skittles
    def skittle(self, img: np.ndarray, pose: SkittlePose) -> None:
        """A skittle: standing, a short white post with a red band seen from above with its
        head; fallen, a lying capsule. Drawn with anti-aliased strokes (it is a few px)."""
        t = self.table
        hgt, wid = t.skittle_height_mm, t.skittle_width_mm
        if not pose.on_table:
            return
        base = np.array([pose.x, pose.y, 0.0])
        if pose.fallen:
            axis = np.array([np.cos(pose.angle), np.sin(pose.angle), 0.0])
            a, b = base + [0, 0, wid / 2], base + axis * hgt + [0, 0, wid / 2]
        else:
            a, b = base, base + [0.0, 0.0, hgt]
        try:
            pts = self.cam.project(np.array([a, b, a + (b - a) * 0.5, a + (b - a) * 0.68]))
        except ValueError:
            return
        scale = self.f / float(np.linalg.norm(np.asarray(self.cam.centre) - base))
        wpx = max(1.0, wid * scale)
        sc = 16

        def p(q: np.ndarray) -> tuple[int, int]:
            return int(round(q[0] * sc)), int(round(q[1] * sc))

        shadow_end = self.cam.project(np.array([base + (b - a) * [1, 1, 0] + [4.0, 4.0, 0.0]]))[0]
        cv2.line(
            img,
            p(pts[0]),
            p(shadow_end),
            tuple(0.45 * c for c in self.look.cloth_bgr),
            max(1, int(wpx)),
            cv2.LINE_AA,
            4,
        )
        body = (225, 230, 232)
        cv2.line(img, p(pts[0]), p(pts[1]), body, max(1, int(round(wpx))), cv2.LINE_AA, 4)
        cv2.line(img, p(pts[2]), p(pts[3]), (40, 40, 200), max(1, int(round(wpx))), cv2.LINE_AA, 4)
        if not pose.fallen:
            cv2.circle(
                img, p(pts[1]), max(8, int(wpx * 0.45 * sc)), (245, 248, 250), -1, cv2.LINE_AA, 4
            )
