"""Players in the picture: cue, arm, hand and body as simple solids in table mm, projected
through the camera (so they show parallax) with a soft shadow on the cloth.

Positions table mm, heights mm above the cloth; drawing in recorded pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from synth.camera import Camera
from synth.look import Look
from synth.world import Actor

SUB = 16  # sub-pixel scale for cv2 drawing (shift = 4)


@dataclass(frozen=True)
class Stroke:
    """A tapered tube through 3D points (N,3) mm with widths (N,) mm and colours (N-1)."""

    pts: np.ndarray
    widths: np.ndarray
    colours: tuple[tuple[float, float, float], ...]


def _tube(a3: np.ndarray, b3: np.ndarray, n: int, w0: float, w1: float, colour_at) -> Stroke:
    s = np.linspace(0.0, 1.0, n + 1)
    pts = a3[None, :] + s[:, None] * (b3 - a3)[None, :]
    widths = w0 + (w1 - w0) * s
    cols = tuple(colour_at(0.5 * (s[i] + s[i + 1])) for i in range(n))
    return Stroke(pts, widths, cols)


def _ellipse(
    centre: np.ndarray, axes: tuple[float, float], angle: float, n: int = 40
) -> np.ndarray:
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ca, sa = np.cos(angle), np.sin(angle)
    x = axes[0] * np.cos(th)
    y = axes[1] * np.sin(th)
    return centre + np.c_[x * ca - y * sa, x * sa + y * ca, np.zeros(n)]


class ActorPainter:
    """Draws actors for one camera pose and reports which pixels they cover."""

    def __init__(self, cam: Camera, look: Look) -> None:
        self.cam, self.look = cam, look
        self.f = float(cam.K[0, 0])
        self.lamp = max(look.lamps, key=lambda lp: lp.power)

    # ------------------------------------------------------------ geometry
    def _strokes(self, actor: Actor) -> tuple[list[Stroke], list[np.ndarray]]:
        """Tubes and filled 3D polygons of one actor."""
        a = np.array([*actor.a, actor.height], float)
        b = np.array([*actor.b, actor.height], float)
        skin = self.look.skin_bgr
        col = tuple(float(c) for c in actor.colour_bgr)
        if actor.kind == "cue":
            length = float(np.linalg.norm(b[:2] - a[:2]))
            b[2] = actor.height + 0.1 * length

            butt_col = (40.0, 32.0, 48.0) if col == (40.0, 40.0, 40.0) else col

            def cue_col(s: float) -> tuple[float, float, float]:
                mm = s * length
                if mm < 12:
                    return (170.0, 120.0, 70.0)  # chalked tip
                if mm < 35:
                    return (228.0, 232.0, 232.0)  # ferrule
                if s < 0.55:
                    return (150.0, 196.0, 226.0)  # maple shaft
                if s < 0.58:
                    return (200.0, 210.0, 215.0)  # joint ring
                return butt_col  # dark butt (the actor's colour)

            n = max(8, int(length / 40))
            return [_tube(a, b, n, 12.0, 30.0, cue_col)], []
        if actor.kind == "arm":
            length = float(np.linalg.norm(b[:2] - a[:2]))
            b[2] = actor.height + 0.25 * length

            def arm_col(s: float) -> tuple[float, float, float]:
                return skin if s < 0.55 else col

            hand = _tube(a - (b - a) * 0.08, a + (b - a) * 0.12, 2, 70.0, 85.0, lambda s: skin)
            return [hand, _tube(a, b, 6, 72.0, 100.0, arm_col)], []
        if actor.kind == "hand":
            # a hand gripping a ball from above: palm over it, fingers reaching forward
            # (away from the elbow ``b``) and curling down, the thumb to one side
            away = a[:2] - b[:2]
            fwd = np.arctan2(away[1], away[0]) if np.any(away) else 0.0
            top = a + [0.0, 0.0, 40.0]
            palm = _ellipse(top - [np.cos(fwd) * 15, np.sin(fwd) * 15, 0.0], (55.0, 45.0), fwd)
            fingers = []
            for da, reach in (
                (-0.45, 70.0),
                (-0.15, 80.0),
                (0.15, 80.0),
                (0.45, 70.0),
                (1.3, 60.0),
            ):
                ang = fwd + da
                tip = a + [reach * np.cos(ang), reach * np.sin(ang), 0.0]
                fingers.append(_tube(top, tip, 2, 20.0, 15.0, lambda s: skin))
            return fingers, [palm]
        # body
        axis = b[:2] - a[:2]
        angle = float(np.arctan2(axis[1], axis[0])) if np.any(axis) else 0.0
        sx, sy = actor.size if actor.size != (0.0, 0.0) else (450.0, 250.0)
        # a head at the torso's table end (away from b), a little higher
        ahead = np.array([np.cos(angle + np.pi), np.sin(angle + np.pi), 0.0])
        head = a + ahead * (sx * 0.95) + [0.0, 0.0, 120.0]
        return [], [_ellipse(a, (sx, sy), angle), _ellipse(head, (105.0, 90.0), angle)]

    def _depth_scale(self, pts: np.ndarray) -> np.ndarray:
        return self.f / np.maximum(self.cam.to_camera(pts)[:, 2], 1.0)

    def _on_cloth(self, pts: np.ndarray, cap: float) -> np.ndarray:
        """Shadow of 3D points (N,3) on the cloth from the main lamp (factor capped)."""
        lp = np.array([self.lamp.x, self.lamp.y, self.lamp.h])
        k = np.minimum(lp[2] / np.maximum(lp[2] - pts[:, 2], 1.0), cap)
        k = np.where(pts[:, 2] >= lp[2], cap, k)
        out = lp[None, :] + (pts - lp[None, :]) * k[:, None]
        out[:, 2] = 0.0
        return out

    # -------------------------------------------------------------- drawing
    def _draw_stroke(
        self, img: np.ndarray, mask: np.ndarray | None, st: Stroke, shade: bool
    ) -> None:
        """A tube as filled polygons (one per run of equal colour) in three shading layers:
        dark rim, body, highlight; round ends."""
        try:
            uv = self.cam.project(st.pts)
        except ValueError:
            return
        wpx = st.widths * self._depth_scale(st.pts)
        seg = np.diff(uv, axis=0)
        seg /= np.maximum(np.linalg.norm(seg, axis=1, keepdims=True), 1e-9)
        tang = np.vstack([seg[:1], seg[:-1] + seg[1:], seg[-1:]])
        tang /= np.maximum(np.linalg.norm(tang, axis=1, keepdims=True), 1e-9)
        nrm = np.c_[-tang[:, 1], tang[:, 0]]
        runs: list[tuple[int, int]] = []
        i0 = 0
        for i in range(1, len(st.colours) + 1):
            if i == len(st.colours) or st.colours[i] != st.colours[i0]:
                runs.append((i0, i))
                i0 = i
        layers = (
            ((1.0, 0.62, 0.0), (0.62, 1.0, 0.0), (0.16, 1.25, 20.0))
            if shade
            else ((1.0, 1.0, 0.0),)
        )
        if mask is not None:
            self._fill_tube(mask, uv, wpx, nrm, 0, len(uv) - 1, 255)
        for frac, gain, add in layers:
            for a, b in runs:
                c = np.asarray(st.colours[a])
                col = tuple(float(min(255.0, v * gain + add)) for v in c)
                self._fill_tube(img, uv, wpx * frac, nrm, a, b, col)

    @staticmethod
    def _fill_tube(
        img: np.ndarray, uv: np.ndarray, wpx: np.ndarray, nrm: np.ndarray, a: int, b: int, col
    ) -> None:
        half = (wpx[a : b + 1] / 2)[:, None]
        left = uv[a : b + 1] + nrm[a : b + 1] * half
        right = uv[a : b + 1] - nrm[a : b + 1] * half
        poly = np.round(np.vstack([left, right[::-1]]) * SUB).astype(np.int32)
        aa = cv2.LINE_AA if img.ndim == 3 else cv2.LINE_8
        cv2.fillPoly(img, [poly], col, aa, 4)
        for k in (a, b):
            if k in (0, len(uv) - 1):
                c = (int(round(uv[k, 0] * SUB)), int(round(uv[k, 1] * SUB)))
                cv2.circle(img, c, int(round(wpx[k] / 2 * SUB)), col, -1, aa, 4)

    def _draw_poly(self, img: np.ndarray, mask: np.ndarray | None, pts: np.ndarray, col) -> None:
        try:
            uv = self.cam.project(pts)
        except ValueError:
            return
        q = np.round(uv * SUB).astype(np.int32)
        if mask is not None:
            cv2.fillPoly(mask, [q], 255, cv2.LINE_8, 4)
        c = np.asarray(col, float)
        cv2.fillPoly(img, [q], tuple(float(v) for v in c * 0.75), cv2.LINE_AA, 4)
        centre = pts.mean(axis=0)
        inner = self.cam.project(centre + (pts - centre) * 0.7)
        cv2.fillPoly(
            img,
            [np.round(inner * SUB).astype(np.int32)],
            tuple(float(v) for v in c),
            cv2.LINE_AA,
            4,
        )

    def shadows(self, img: np.ndarray, actors: tuple[Actor, ...]) -> None:
        """Soft shadows of the actors on the cloth (drawn at quarter resolution, blurred)."""
        w, h = self.cam.image_size
        q = 4
        sh = np.zeros((h // q + 1, w // q + 1), np.uint8)
        any_drawn = False
        # bodies first (high up: faint, spread shadows), then the low cue, arms and hands
        for act in sorted(actors, key=lambda a: a.kind != "body"):
            strokes, polys = self._strokes(act)
            cap = 1.3 if act.kind == "body" else 3.0
            value = 90 if act.kind == "body" else 220
            for st in strokes:
                pts = self._on_cloth(st.pts, cap)
                try:
                    uv = self.cam.project(pts) / q
                except ValueError:
                    continue
                wpx = st.widths * self._depth_scale(pts) / q
                for i in range(len(uv) - 1):
                    p0 = (int(uv[i, 0] * SUB), int(uv[i, 1] * SUB))
                    p1 = (int(uv[i + 1, 0] * SUB), int(uv[i + 1, 1] * SUB))
                    th = max(1, int(round(wpx[i])))
                    cv2.line(sh, p0, p1, value, th, cv2.LINE_AA, 4)
                    any_drawn = True
            for poly in polys:
                try:
                    uv = self.cam.project(self._on_cloth(poly, cap)) / q
                except ValueError:
                    continue
                cv2.fillPoly(sh, [np.round(uv * SUB).astype(np.int32)], value, cv2.LINE_AA, 4)
                any_drawn = True
        if not any_drawn:
            return
        ys, xs = np.nonzero(sh)
        if len(xs) == 0:
            return
        pad = 6
        x0, y0 = max(0, xs.min() - pad), max(0, ys.min() - pad)
        x1, y1 = min(sh.shape[1], xs.max() + pad + 1), min(sh.shape[0], ys.max() + pad + 1)
        small = cv2.GaussianBlur(sh[y0:y1, x0:x1].astype(np.float32) / 255.0, (0, 0), 2.0)
        X0, Y0, X1, Y1 = x0 * q, y0 * q, min(w, x1 * q), min(h, y1 * q)
        big = cv2.resize(small, ((x1 - x0) * q, (y1 - y0) * q), interpolation=cv2.INTER_LINEAR)
        big = big[: Y1 - Y0, : X1 - X0]
        patch = img[Y0:Y1, X0:X1].astype(np.float32) * (1 - 0.42 * big)[..., None]
        img[Y0:Y1, X0:X1] = patch.astype(np.uint8)

    def draw(self, img: np.ndarray, actors: tuple[Actor, ...]) -> np.ndarray:
        """Draw the actors (lowest first) and return their coverage mask (uint8, 255 covered)."""
        w, h = self.cam.image_size
        mask = np.zeros((h, w), np.uint8)
        order = {"cue": 0, "arm": 1, "hand": 2, "body": 3}
        for act in sorted(actors, key=lambda a: (order[a.kind], a.height)):
            strokes, polys = self._strokes(act)
            for st in strokes:
                self._draw_stroke(img, mask, st, shade=True)
            for i, poly in enumerate(polys):
                col = self.look.skin_bgr if act.kind == "hand" else act.colour_bgr
                if act.kind == "body" and i == 1:
                    col = (32, 30, 34)  # hair
                self._draw_poly(img, mask, poly, col)
        return mask
