"""Turning a white ball's printed figure to face the camera (``vision.numbers.reader``' second
look): the camera sees a ball as an orthographic sphere, so a figure printed off the line
of sight can be turned to face it. :func:`ink_centre` finds the figure on a tight patch,
:func:`unwarp` re-views the sphere from it, :func:`turned_figure` does both.

Tight patches are ``NUM_PATCH`` px square over ``2 * NUM_SPAN`` ball radii around the
ball's sub-pixel centre (video px); offsets here are in ball radii from that centre (x
right, y down in the picture)."""

from __future__ import annotations

import cv2
import numpy as np

NUM_PATCH = 32
"""Number patch side in patch pixels."""
NUM_SPAN = 1.0
"""Half the number patch side in ball radii (the patch covers the ball's disc)."""

INK_DARK = 0.7
"""A disc pixel is ink when its grey level is under this share of its surroundings' (a
grey closing wider than a stroke: the ball's shading without the figure)."""
INK_DISC = 0.85
"""Ink is looked for inside this many radii of the centre (the limb and cloth are dark)."""
LIMB = 0.95
"""Farthest out (ball radii) :func:`unwarp` samples the old view: sphere points it does
not show, or shows in the edge's blend with the cloth, take the disc at this radius in
their direction."""
INK_MIN = 0.01
"""Least share of the disc that must be ink before its centre is trusted."""


def patch_grid(size: int, span: float = NUM_SPAN) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of each pixel centre of a ``size`` px patch, in ball radii from the ball's
    centre (x right, y down in the picture), arrays (size, size)."""
    c = ((np.arange(size) + 0.5) / size * 2 - 1) * span
    return np.meshgrid(c, c)


def ink_weights(
    patch: np.ndarray, span: float = NUM_SPAN
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """(ink weight per pixel (P, P): how much darker than ``INK_DARK`` of its surroundings
    a disc pixel is, x, y (radii, :func:`patch_grid`), the inner disc mask, the median
    grey of the surroundings on the disc) of a white ball's tight patch."""
    g = np.asarray(patch, np.float32).mean(axis=2)
    x, y = patch_grid(g.shape[0], span)
    disc = x * x + y * y < INK_DISC**2
    k = 2 * (g.shape[0] // 8) + 1  # wider than a figure's stroke: closing keeps the shading
    bg = cv2.morphologyEx(g, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    w = np.where(disc, np.maximum(0.0, (bg - g) - (1 - INK_DARK) * bg), 0.0)
    return w, x, y, disc, float(np.median(bg[disc]))


def ink_centre(patch: np.ndarray, span: float = NUM_SPAN) -> np.ndarray | None:
    """Centre (2,) of the dark ink on a white ball's tight patch (BGR uint8 (P, P, 3)
    covering ``2 * span`` radii), in ball radii from the ball's centre (x right, y down),
    weighted by how dark each ink pixel is; None when too little ink is seen."""
    w, x, y, disc, shade = ink_weights(patch, span)
    if (w > 0).sum() < INK_MIN * disc.sum() or shade < 40:
        return None
    return np.array([(w * x).sum(), (w * y).sum()]) / w.sum()


def ink_size(patch: np.ndarray, span: float = NUM_SPAN) -> tuple[float, float]:
    """(share of the disc that is ink, weighted spread of the ink about its centre in ball
    radii: the root mean square distance) of a white ball's tight patch (BGR uint8
    (P, P, 3) covering ``2 * span`` radii), ink as :func:`ink_centre` finds it; (0, 0)
    when no ink is seen. A figure 0.45 r tall and 0.37 r wide spreads about 0.15 r."""
    w, x, y, disc, shade = ink_weights(patch, span)
    if not w.sum() > 0 or shade < 40:
        return 0.0, 0.0
    cx, cy = (w * x).sum() / w.sum(), (w * y).sum() / w.sum()
    spread = float(np.sqrt((w * ((x - cx) ** 2 + (y - cy) ** 2)).sum() / w.sum()))
    return float((w > 0).sum() / disc.sum()), spread


def turned_view(pole_xy: np.ndarray) -> np.ndarray:
    """Rotation (3, 3) that turns the sphere point seen at ``pole_xy`` (ball radii from
    the centre, orthographic view, z toward the camera) to the disc's centre, about the
    axis perpendicular to both (the smallest turn): ``S_old = R @ S_new``."""
    a, b = np.asarray(pole_xy, float)
    s = min(np.hypot(a, b), 0.999)
    if s < 1e-9:
        return np.eye(3)
    c = np.sqrt(1 - s * s)
    k = np.array([-b, a, 0.0]) / np.hypot(a, b)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return c * np.eye(3) + s * kx + (1 - c) * np.outer(k, k)


def unwarp(
    patch: np.ndarray, pole_xy: np.ndarray, size: int = NUM_PATCH, span: float = NUM_SPAN
) -> np.ndarray:
    """The ball of ``patch`` (BGR uint8 (P, P, 3) over ``2 * span`` radii) seen from the
    direction of its surface point ``pole_xy`` (ball radii from the centre, x right, y
    down): each disc pixel of the ``size`` px output is the sphere point that faces the
    new view, resampled (bilinear) where the old view shows it (orthographic, a good
    approximation for a ball seen from metres away); sphere points the old view does not
    show take the ball's edge (``LIMB``) in their direction; outside the disc the patch is kept as it is. A
    figure printed around ``pole_xy`` comes out frontal and full size."""
    P = patch.shape[0]
    x, y = patch_grid(size, span)
    rho2 = x * x + y * y
    inside = rho2 < 1.0
    z = np.sqrt(np.clip(1.0 - rho2, 0.0, None))
    s_old = np.einsum("ij,jhw->ihw", turned_view(pole_xy), np.stack([x, y, z]))
    u, v = s_old[0], s_old[1]
    n = np.maximum(np.hypot(u, v), 1e-9)
    edge = (s_old[2] < 0) | (n > LIMB)  # hidden, or where the cloth blends into the edge
    u = np.where(edge, u / n * LIMB, u)
    v = np.where(edge, v / n * LIMB, v)
    u, v = np.where(inside, u, x), np.where(inside, v, y)
    mx = ((u / span + 1) / 2 * P - 0.5).astype(np.float32)
    my = ((v / span + 1) / 2 * P - 0.5).astype(np.float32)
    return cv2.remap(np.asarray(patch), mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


FRONTAL_OFF = (0.3, 0.6)
"""Ink-centre offsets (ball radii) between which :func:`frontal` turns the ball: closer
in the figure is frontal already; farther out the "ink" is more likely the limb's shade."""


def turned_figure(patch: np.ndarray, span: float = NUM_SPAN) -> np.ndarray | None:
    """A tight patch (BGR uint8 (P, P, 3)) with its figure turned to face the camera:
    :func:`unwarp` about the ink's centre (:func:`ink_centre`) when that lies
    ``FRONTAL_OFF`` radii from the ball's centre, else None."""
    c = ink_centre(patch, span)
    if c is None or not FRONTAL_OFF[0] <= float(np.hypot(*c)) <= FRONTAL_OFF[1]:
        return None
    return unwarp(patch, c, patch.shape[0], span)


def frontal(patch: np.ndarray, span: float = NUM_SPAN) -> np.ndarray:
    """:func:`turned_figure` of ``patch``, or the patch itself where it turns nothing."""
    t = turned_figure(patch, span)
    return np.asarray(patch) if t is None else t
