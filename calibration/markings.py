"""Markings searched where the model predicts them: spots (small faint dots), the house
and centre lines (faint straight lines across the table), skittle marks, pockets (dark
mouths). Input: the clean plate's lightness (float32, recorded px) and a ``to_px``
function mapping table mm (N,2) to recorded pixels.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from calibration.detect import _sample
from contract.tables import TableSpec

ToPx = Callable[[np.ndarray], np.ndarray]


def px_per_mm(to_px: ToPx, xy: tuple[float, float]) -> float:
    """Local picture scale (px per mm) at a table point."""
    p = to_px(np.array([xy, (xy[0] + 10, xy[1]), (xy[0], xy[1] + 10)]))
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20)


def find_spot(
    light: np.ndarray,
    to_px: ToPx,
    xy: tuple[float, float],
    spot_mm: float = 16.0,
    search_mm: float = 40.0,
) -> tuple[np.ndarray, float] | None:
    """A small dot (lighter or darker than the cloth) near the predicted table point.

    Returns (sub-pixel centre in recorded px, contrast / noise) or None."""
    c = to_px(np.array([xy]))[0]
    s = px_per_mm(to_px, xy)
    r_spot = max(1.0, spot_mm * s / 2)
    half = int(np.ceil(search_mm * s + 3 * r_spot + 4))
    x0, y0 = int(round(c[0])) - half, int(round(c[1])) - half
    h, w = light.shape
    if x0 < 0 or y0 < 0 or x0 + 2 * half + 1 > w or y0 + 2 * half + 1 > h:
        return None
    win = light[y0 : y0 + 2 * half + 1, x0 : x0 + 2 * half + 1]
    bg = cv2.medianBlur(win.astype(np.uint8), max(3, int(4 * r_spot) | 1)).astype(np.float32)
    d = cv2.GaussianBlur(win - bg, (0, 0), max(0.7, r_spot / 2))
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    inside = np.hypot(xx, yy) <= search_mm * s + 1
    noise = 1.4826 * np.median(np.abs(d - np.median(d))) + 0.3
    best = None
    for sign in (1.0, -1.0):
        dd = np.where(inside, sign * d, -np.inf)
        k = int(np.argmax(dd))
        v = dd.flat[k] / noise
        if best is None or v > best[1]:
            best = (k, v, sign)
    k, score, sign = best
    if score < 6.0:
        return None
    ky, kx = divmod(k, win.shape[1])
    y1, y2, x1, x2 = max(ky - 2, 0), ky + 3, max(kx - 2, 0), kx + 3
    wts = np.clip(sign * d[y1:y2, x1:x2], 0, None)
    if wts.sum() <= 0:
        return None
    gy, gx = np.mgrid[y1:y2, x1:x2]
    cy, cx = (wts * gy).sum() / wts.sum(), (wts * gx).sum() / wts.sum()
    return np.array([x0 + cx, y0 + cy]), float(score)


def line_score(
    light: np.ndarray,
    to_px: ToPx,
    a: tuple[float, float],
    b: tuple[float, float],
    search_mm: float = 30.0,
    n: int = 40,
) -> tuple[float, float]:
    """Evidence of a thin straight line from table point ``a`` to ``b`` (mm): the mean
    profile across the predicted line, its strongest thin peak (either polarity) over
    the noise. Returns (score, offset of the peak in px along the line's normal)."""
    from scipy.ndimage import median_filter

    t = np.linspace(0.1, 0.9, n)
    pts_mm = np.array(a)[None] + t[:, None] * (np.array(b) - np.array(a))[None]
    p = to_px(pts_mm)
    d = p[-1] - p[0]
    d /= np.linalg.norm(d)
    nrm = np.array([-d[1], d[0]])
    s_px = px_per_mm(to_px, tuple(pts_mm[n // 2]))
    reach = search_mm * s_px + 6
    off = np.arange(-reach, reach + 0.5, 0.5)
    xy = p[:, None, :] + off[None, :, None] * nrm[None, None, :]
    prof = _sample(light, xy)
    width = max(4, int(round(2 * max(2.0, 6 * s_px))))  # samples: wider than a line
    prof = prof - median_filter(prof, size=(1, 2 * width + 1), mode="nearest")  # high-pass
    mean = np.median(prof, axis=0)  # robust to balls lying on the line
    inner = np.abs(off) <= search_mm * s_px
    k = int(np.argmax(np.where(inner, np.abs(mean), -1)))
    away = np.abs(off - off[k]) > 3  # px: the aggregated profile's own noise elsewhere
    noise = max(float(1.4826 * np.median(np.abs(mean[away] - np.median(mean[away])))), 0.3)
    return float(abs(mean[k]) / noise), float(off[k])


def pocket_dark(
    light: np.ndarray, to_px: ToPx, table: TableSpec, cloth_light: float
) -> dict[str, np.ndarray]:
    """Pockets whose mouth is dark (mean lightness < 55% of the cloth's): name -> px."""
    out: dict[str, np.ndarray] = {}
    h, w = light.shape
    for p in table.pockets:
        c = np.array(p.centre)
        ring = c[None] + (p.mouth_mm / 4) * np.array(
            [[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 12, endpoint=False)]
        )
        q = to_px(np.vstack([c, ring]))
        if np.any(q < 0) or np.any(q[:, 0] >= w) or np.any(q[:, 1] >= h):
            continue
        if float(np.mean(_sample(light, q))) < 0.55 * cloth_light:
            out[f"pocket:{p.name}"] = q[0]
    return out


def end_evidence(light: np.ndarray, to_px: ToPx, table: TableSpec) -> tuple[float, float]:
    """Evidence that the front is where the model says (house line at L/4, spotting line
    towards the back) and for the mirrored reading. Pyramid only; (0, 0) elsewhere."""
    if table.kind != "pyramid":
        return 0.0, 0.0
    L, W = table.L, table.W
    here = line_score(light, to_px, (L / 4, 0), (L / 4, W))[0]
    there = line_score(light, to_px, (3 * L / 4, 0), (3 * L / 4, W))[0]
    sp_here = line_score(light, to_px, (3 * L / 4 + 60, W / 2), (L - 60, W / 2))[0]
    sp_there = line_score(light, to_px, (L / 4 - 60, W / 2), (60, W / 2))[0]
    return here + sp_here, there + sp_there
