"""Find the playing surface in a clean plate: the cloth region, its four sides, and
sub-pixel edge points along the cushion noses.

All coordinates are recorded (distorted) pixels of the full-resolution picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


class NoTableError(ValueError):
    """No playing surface could be found (one line)."""


@dataclass(frozen=True)
class Cloth:
    """Cloth colour statistics in Lab (OpenCV 8-bit scale): median and robust spread."""

    median: np.ndarray
    spread: np.ndarray

    def distance(self, lab: np.ndarray) -> np.ndarray:
        """Normalised colour distance of Lab pixels (..., 3) from the cloth (0 = cloth)."""
        d = (lab.astype(np.float32) - self.median) / self.spread
        d[..., 0] *= 0.5  # brightness varies under lamps; chroma is what marks the cloth
        return np.sqrt((d * d).sum(-1))


def cloth_stats(lab: np.ndarray) -> Cloth:
    """Cloth statistics from the picture's central box (Lab image)."""
    h, w = lab.shape[:2]
    box = lab[int(h * 0.35) : int(h * 0.65), int(w * 0.35) : int(w * 0.65)].reshape(-1, 3)
    med = np.median(box, 0).astype(np.float32)
    mad = np.median(np.abs(box - med), 0) * 1.4826
    spread = np.maximum(mad, np.array([6.0, 2.5, 2.5])).astype(np.float32)
    return Cloth(med, spread)


@dataclass(frozen=True)
class Quad:
    """The cloth region's outline: four corners (full-res px) in image order (clockwise on
    screen), and the cloth statistics."""

    corners: np.ndarray
    cloth: Cloth
    mask_fraction: float


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    h, w = mask.shape
    inv = cv2.bitwise_not(mask)
    pad = cv2.copyMakeBorder(inv, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=255)
    ff = np.zeros((h + 4, w + 4), np.uint8)
    cv2.floodFill(pad, ff, (0, 0), 0)
    return cv2.bitwise_or(mask, pad[1:-1, 1:-1])


def cloth_mask(img: np.ndarray, work: int = 640) -> tuple[np.ndarray, Cloth, float]:
    """Binary mask of the cloth region at working resolution (largest uniform region in
    the cloth colour of the picture's centre), the cloth stats and the scale
    (working px per full-res px)."""
    h, w = img.shape[:2]
    s = min(1.0, work / max(h, w))
    small = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    cloth = cloth_stats(lab)
    m = (cloth.distance(lab) < 4.0).astype(np.uint8) * 255
    k = max(3, int(round(max(small.shape) * 0.012)) | 1)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
    if n < 2:
        raise NoTableError("no table found: no region of uniform cloth colour")
    cy, cx = lbl.shape[0] // 2, lbl.shape[1] // 2
    pick = lbl[cy, cx] if lbl[cy, cx] > 0 else 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    region = ((lbl == pick) * 255).astype(np.uint8)
    return _fill_holes(region), cloth, s


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    peri = cv2.arcLength(hull, True)
    lo, hi = 0.001, 0.2
    for _ in range(30):
        eps = (lo + hi) / 2
        ap = cv2.approxPolyDP(hull, eps * peri, True)
        if len(ap) == 4:
            return ap.reshape(4, 2).astype(float)
        if len(ap) > 4:
            lo = eps
        else:
            hi = eps
    return None


def _fit_line(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Robust line fit (Huber): point on line and unit direction."""
    vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], float), np.array([vx, vy], float)


def intersect(p1: np.ndarray, d1: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """Intersection of two lines given as (point, direction)."""
    a = np.array([d1, -d2]).T
    t = np.linalg.solve(a, p2 - p1)
    return p1 + t[0] * d1


def find_quad(img: np.ndarray) -> Quad:
    """The cloth region's outer outline as a quadrilateral (full-res px).

    Raises NoTableError when the region is too small, fills the picture, or is not a
    convex four-sided shape."""
    mask, cloth, s = cloth_mask(img)
    frac = float(mask.mean() / 255)
    if frac < 0.08:
        raise NoTableError(
            f"no table found: the cloth region covers only {frac:.0%} of the picture"
        )
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(cnts, key=cv2.contourArea)
    hull = cv2.convexHull(cnt)
    quad = _quad_from_hull(hull)
    if quad is None or not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        raise NoTableError("no table found: the cloth region is not four-sided")
    h, w = mask.shape
    border = np.sum(
        (quad[:, 0] < 2) | (quad[:, 0] > w - 3) | (quad[:, 1] < 2) | (quad[:, 1] > h - 3)
    )
    if border >= 3 or frac > 0.97:
        raise NoTableError("no table found: the uniform region fills the picture")
    # refine each side with a robust line through the contour points near its middle
    pts = cnt.reshape(-1, 2).astype(float)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = (b - a) / np.linalg.norm(b - a)
        n = np.array([-d[1], d[0]])
        t = (pts - a) @ d / np.linalg.norm(b - a)
        off = np.abs((pts - a) @ n)
        sel = pts[(t > 0.15) & (t < 0.85) & (off < max(3.0, 0.01 * max(h, w)))]
        lines.append(_fit_line(sel) if len(sel) > 10 else (a, d))
    corners = np.array([intersect(*lines[i - 1], *lines[i]) for i in range(4)])
    corners = corners / s
    # clockwise on screen (image y down): positive signed area in image coordinates
    area = 0.5 * np.sum(
        corners[:, 0] * np.roll(corners[:, 1], -1) - np.roll(corners[:, 0], -1) * corners[:, 1]
    )
    if area < 0:
        corners = corners[::-1].copy()
    return Quad(corners, cloth, frac)


# ------------------------------------------------------------------ sub-pixel edges
def _sample(img: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``img`` at float pixel positions ``xy`` (..., 2)."""
    shp = xy.shape[:-1]
    flat = xy.reshape(-1, 2).astype(np.float32)
    n = len(flat)
    cols = min(n, 4096)
    rows = -(-n // cols)
    pad = np.zeros((rows * cols, 2), np.float32)
    pad[:n] = flat
    m = pad.reshape(rows, cols, 2)
    out = cv2.remap(img, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = out.reshape(rows * cols, *img.shape[2:])[:n]
    return out.reshape(*shp, *img.shape[2:]) if img.ndim == 3 else out.reshape(shp)


def side_edges(
    lab: np.ndarray,
    cloth: Cloth,
    a: np.ndarray,
    b: np.ndarray,
    inward: np.ndarray,
    reach_px: float,
    n: int = 120,
    skip_middle: float = 0.0,
) -> np.ndarray:
    """Sub-pixel points where the flat cloth ends, scanning outward from inside the
    surface across the side a->b (px). ``reach_px``: how far inside the side's line to
    start. Returns (M, 2) recorded px (M <= n; profiles with no clear edge are dropped)."""
    t = np.linspace(0.05, 0.95, n)
    if skip_middle > 0:
        t = t[np.abs(t - 0.5) > skip_middle]
    base = a[None] + t[:, None] * (b - a)[None]
    outer = 0.35 * reach_px + 4
    s = np.arange(-outer, reach_px + 1.0, 0.5)  # signed distance inward from the side
    xy = base[:, None, :] + s[None, :, None] * inward[None, None, :]
    prof = cloth.distance(_sample(lab, xy))
    prof = cv2.GaussianBlur(prof, (5, 1), 0.8)
    inner_lvl = np.median(prof[:, s > reach_px * 0.75], axis=1)
    keep: list[np.ndarray] = []
    for i in range(len(t)):
        p = prof[i]
        # walk outward (decreasing s) from the inner end to the first clear departure
        above = np.nonzero((p > max(3.0, inner_lvl[i] + 2.5)) & (s < reach_px * 0.9))[0]
        if len(above) == 0:
            continue
        j = above[-1]  # s grows with the index: the outermost-in-index is nearest inside
        lo = max(1, j - 6)
        hi = min(len(s) - 2, j + 6)
        g = -np.gradient(p)[lo:hi]  # rising outward = falling with s
        k = int(np.argmax(g)) + lo
        if k <= 0 or k >= len(s) - 1:
            continue
        gm = -np.gradient(p)
        den = gm[k - 1] - 2 * gm[k] + gm[k + 1]
        frac = 0.5 * (gm[k - 1] - gm[k + 1]) / den if den < 0 else 0.0
        sk = s[k] + float(np.clip(frac, -1, 1)) * (s[1] - s[0])
        keep.append(base[i] + sk * inward)
    return np.array(keep).reshape(-1, 2)
