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


def cloth_mask(
    img: np.ndarray, work: int = 640, widen: float = 1.0
) -> tuple[np.ndarray, Cloth, float]:
    """Binary mask of the cloth region at working resolution (largest uniform region in
    the cloth colour of the picture's centre), the cloth stats and the scale
    (working px per full-res px). ``widen`` multiplies the hue tolerance (for cloth
    whose hue drifts across the table under mixed light)."""
    h, w = img.shape[:2]
    s = min(1.0, work / max(h, w))
    small = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    # remove thin lines (markings, projected drawings) and balls' highlights first
    k5 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    small = cv2.morphologyEx(cv2.morphologyEx(small, cv2.MORPH_CLOSE, k5), cv2.MORPH_OPEN, k5)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    cloth = cloth_stats(lab)
    m = _hue_mask(cv2.cvtColor(small, cv2.COLOR_BGR2HSV), widen)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
    if n < 2:
        raise NoTableError("no table found: no region of uniform cloth colour")
    cy, cx = lbl.shape[0] // 2, lbl.shape[1] // 2
    pick = lbl[cy, cx] if lbl[cy, cx] > 0 else 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    region = ((lbl == pick) * 255).astype(np.uint8)
    return _fill_holes(region), cloth, s


def _hue_mask(hsv: np.ndarray, widen: float = 1.0) -> np.ndarray:
    """Pixels of the cloth's hue (brightness-tolerant: lamps and vignetting darken the
    cloth towards the rails), from the statistics of the picture's central box."""
    h, w = hsv.shape[:2]
    box = hsv[int(h * 0.4) : int(h * 0.6), int(w * 0.4) : int(w * 0.6)].reshape(-1, 3)
    box = box.astype(np.float32)
    hue0 = _circ_median(box[:, 0])
    dh = _hue_diff(box[:, 0], hue0)
    tol = widen * max(10.0, 4 * 1.4826 * float(np.median(dh)))
    s0, v0 = float(np.median(box[:, 1])), float(np.median(box[:, 2]))
    hh = _hue_diff(hsv[..., 0].astype(np.float32), hue0)
    ok = (hh < tol) & (hsv[..., 1] > 0.5 * s0) & (hsv[..., 2] > 0.35 * v0)
    return ok.astype(np.uint8) * 255


def _hue_diff(h: np.ndarray, h0: float) -> np.ndarray:
    d = np.abs(h - h0)
    return np.minimum(d, 180 - d)  # OpenCV 8-bit hue is 0..179


def _circ_median(h: np.ndarray) -> float:
    a = h.astype(np.float64) * np.pi / 90
    m = np.arctan2(np.sin(a).mean(), np.cos(a).mean())
    centre = (m * 90 / np.pi) % 180
    d = (h - centre + 90) % 180 - 90
    return float((centre + np.median(d)) % 180)


def _ransac_line(
    p: np.ndarray, tol: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray] | None:
    """The line through most points (within ``tol``), refined by a Huber fit."""
    if len(p) < 10:
        return None
    best = None
    for _ in range(150):
        i, j = rng.choice(len(p), 2, replace=False)
        d = p[j] - p[i]
        nd = np.linalg.norm(d)
        if nd < 5:
            continue
        n = np.array([-d[1], d[0]]) / nd
        inl = np.abs((p - p[i]) @ n) < tol
        if best is None or inl.sum() > best.sum():
            best = inl
    if best is None or best.sum() < 10:
        return None
    return _fit_line(p[best])


def _outline_lines(pts: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Four side lines of a (nearly) quadrilateral outline, in screen order, from the
    contour points' tangent directions: two dominant orientations, two sides each."""
    k = 6
    tang = np.roll(pts, -k, axis=0) - np.roll(pts, k, axis=0)
    ang = np.degrees(np.arctan2(tang[:, 1], tang[:, 0])) % 180
    hist = np.bincount(np.round(ang).astype(int) % 180, minlength=180).astype(float)
    hist = np.convolve(np.r_[hist[-5:], hist, hist[:5]], np.ones(5) / 5, "same")[5:-5]
    a1 = int(np.argmax(hist))
    d = np.abs((np.arange(180) - a1 + 90) % 180 - 90)
    a2 = int(np.argmax(np.where(d > 45, hist, -1)))
    c = pts.mean(0)
    rng = np.random.default_rng(0)
    found = []
    for a0 in (a1, a2):
        sel = np.abs((ang - a0 + 90) % 180 - 90) < 12
        t = np.radians(a0)
        n = np.array([-np.sin(t), np.cos(t)])
        off = (pts - c) @ n
        for side in (off < 0, off > 0):
            ln = _ransac_line(pts[sel & side], 1.5, rng)
            if ln is None:
                return None
            found.append(ln)

    # order: around the centre by the angle of each line's closest point
    def key(ln: tuple[np.ndarray, np.ndarray]) -> float:
        p0, dd = ln
        q = p0 + ((c - p0) @ dd) * dd
        return float(np.arctan2(q[1] - c[1], q[0] - c[0]))

    return sorted(found, key=key)


def _hull_lines(pts: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Four side lines of an outline seen at an angle or cut into (an arm, a cue or a
    player's body over a cushion): the outline's convex hull bridges the cuts and is
    simplified to four vertices; each side is then fitted (RANSAC, Huber) to the outline
    points that lie along the middle 80 % of that hull side, so a cut's own points fall
    out. Screen order of the hull; None when the hull is not four-sided (no four vertices
    cover 95 % of its area)."""
    hull = cv2.convexHull(pts.astype(np.float32).reshape(-1, 1, 2))
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in np.linspace(0.005, 0.08, 16):
        ap = cv2.approxPolyDP(hull, float(eps * peri), True)
        if len(ap) == 4:
            quad = ap.reshape(4, 2).astype(float)
            break
        if len(ap) < 4:
            return None
    if quad is None:
        return None
    hull_area = cv2.contourArea(hull)
    chamfered = cv2.contourArea(quad.astype(np.float32)) < 0.95 * hull_area
    # how far from a simplified side its true side may lie (share of the side's length):
    # a vertex cut off by a corner pocket sits up to about half a pocket mouth (a tenth
    # of a short cushion) inside the true corner
    band = 0.06 if chamfered else 0.02
    rng = np.random.default_rng(0)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        d = (b - a) / max(length, 1e-9)
        t = (pts - a) @ d
        near = np.abs((pts - a) @ np.array([-d[1], d[0]])) < max(3.0, band * length)
        sel = near & (t > 0.1 * length) & (t < 0.9 * length)
        ln = _ransac_line(pts[sel], 1.5, rng)
        lines.append(ln if ln is not None else (a, d))
    if chamfered and not _covers(lines, hull, hull_area):
        return None  # four vertices that do not cover the hull: not four-sided
    return lines


def _covers(lines: list[tuple[np.ndarray, np.ndarray]], hull: np.ndarray, area: float) -> bool:
    """Whether the quad of four side lines covers a hull whose own four-vertex
    simplification does not (corner pockets cut the hull's corners off, so its vertices
    sit inside the true corners): convex, holding 95 % of the hull's area, and at most
    15 % larger than the hull."""
    try:
        c4 = np.array([intersect(*lines[i - 1], *lines[i]) for i in range(4)], np.float32)
    except np.linalg.LinAlgError:
        return False
    if not cv2.isContourConvex(c4.reshape(-1, 1, 2)):
        return False
    inter, _ = cv2.intersectConvexConvex(c4.reshape(-1, 1, 2), hull.astype(np.float32))
    return inter >= 0.95 * area and cv2.contourArea(c4) <= 1.15 * area


def _fit_line(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Robust line fit (Huber): point on line and unit direction."""
    vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], float), np.array([vx, vy], float)


def intersect(p1: np.ndarray, d1: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """Intersection of two lines given as (point, direction)."""
    a = np.array([d1, -d2]).T
    t = np.linalg.solve(a, p2 - p1)
    return p1 + t[0] * d1


def find_quad(img: np.ndarray, aspect: tuple[float, float] | None = None) -> Quad:
    """The cloth region's outer outline as a quadrilateral (full-res px).

    ``aspect``: the range of long/short side ratios a table's outline may have; an
    outline outside it (or none) is searched again with a wider cloth-hue tolerance
    (cloth whose hue drifts across the table under mixed light); when no outline fits
    the range the first one found is returned (steep views foreshorten). Raises NoTableError
    when the region is too small, fills the picture, or is not a convex four-sided
    shape."""
    err: NoTableError | None = None
    first: Quad | None = None
    for widen in (1.0, 1.5, 2.0):
        try:
            quad = _find_quad(img, widen)
        except NoTableError as e:
            err = err or e
            continue
        if aspect is None or aspect[0] <= _quad_aspect(quad.corners) <= aspect[1]:
            return quad
        first = first or quad
    if first is not None:  # an oblique view: proportions say little, keep the first
        return first
    assert err is not None
    raise err


def _quad_aspect(c: np.ndarray) -> float:
    """Long/short ratio of a quad from the mean lengths of its opposite sides (px)."""
    lens = [float(np.linalg.norm(c[(i + 1) % 4] - c[i])) for i in range(4)]
    a, b = lens[0] + lens[2], lens[1] + lens[3]
    return max(a, b) / max(min(a, b), 1e-9)


def _find_quad(img: np.ndarray, widen: float) -> Quad:
    mask, cloth, s = cloth_mask(img, widen=widen)
    frac = float(mask.mean() / 255)
    if frac < 0.08:
        raise NoTableError(
            f"no table found: the cloth region covers only {frac:.0%} of the picture"
        )
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(cnts, key=cv2.contourArea)
    h, w = mask.shape
    corners = None
    for finder in (_outline_lines, _hull_lines):
        lines = finder(cnt.reshape(-1, 2).astype(float))
        if lines is None:
            continue
        c4 = np.array([intersect(*lines[i - 1], *lines[i]) for i in range(4)])
        if cv2.isContourConvex(c4.astype(np.float32).reshape(-1, 1, 2)):
            corners = c4
            break
    if corners is None:
        raise NoTableError("no table found: the cloth region is not four-sided")
    border = np.sum(
        (corners[:, 0] < 2)
        | (corners[:, 0] > w - 3)
        | (corners[:, 1] < 2)
        | (corners[:, 1] > h - 3)
    )
    if border >= 3 or frac > 0.97:
        raise NoTableError("no table found: the uniform region fills the picture")
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


def _peaks(g: np.ndarray, lvl: float) -> np.ndarray:
    """Indices of local maxima of ``g`` at or above ``lvl``."""
    return np.nonzero((g[1:-1] >= lvl) & (g[1:-1] >= g[:-2]) & (g[1:-1] >= g[2:]))[0] + 1


def _nose_index(
    d: np.ndarray, noise: float, scale_from: np.ndarray | None = None, band_max: int = 32
) -> tuple[int, int | None] | None:
    """Index of the cushion nose on one profile (``d``: lightness gain going outward, per
    sample of 0.5 px; index grows inwards; ``noise``: its noise level on the cloth).

    Seen from above, the cloth darkens into the shadow under the nose and the lit nose
    follows: walking outward from the cloth, the nose is the first clear brightening; a
    clear darkening met first (the shadow's edge) is followed by the brightening within
    a few samples when there is one, else it is the edge itself. Returns (that index,
    the index of a second darkening up to ``band_max`` samples further out or None):
    under a dark cushion top the shadowed cloth is a band lit between the cloth and the
    top, and the nose is the band's outer step; the caller decides per side which of
    the two to use."""
    mag = np.abs(d)
    top = float(mag[scale_from].max()) if scale_from is not None and scale_from.any() else 0.0
    top = top if top >= max(1.5, 6 * noise) else float(mag.max())
    if top < max(1.5, 6 * noise):
        return None
    pk = _peaks(mag, max(0.3 * top, 6 * noise))
    if len(pk) == 0:
        return None
    k = int(pk[-1])  # the clear edge nearest the inside
    if d[k] > 0:
        return k, None
    lo = max(1, k - 24)  # up to 12 px further out
    seg = d[lo:k]
    if len(seg) and seg.max() >= max(0.25 * abs(d[k]), 4 * noise):
        return lo + int(np.argmax(seg)), None
    far = _peaks(np.maximum(-d, 0.0), max(0.25 * abs(d[k]), 3 * noise))
    far = far[(far < k - 4) & (far >= max(1, k - band_max))]
    return k, (int(far[-1]) if len(far) else None)


def _subpixel(g: np.ndarray, k: int, s: np.ndarray) -> float:
    """Sub-sample position (px along the profile) of the extremum of ``g`` at ``k``."""
    m = np.abs(g)
    den = m[k - 1] - 2 * m[k] + m[k + 1]
    frac = 0.5 * (m[k - 1] - m[k + 1]) / den if den < 0 else 0.0
    return float(s[k] + np.clip(frac, -1, 1) * (s[1] - s[0]))


def side_edges(
    lab: np.ndarray,
    cloth: Cloth,
    a: np.ndarray,
    b: np.ndarray,
    inward: np.ndarray,
    reach_px: float,
    n: int = 120,
    skip_middle: float = 0.0,
    guard_px: float = 0.0,
    window: tuple[float, float] | None = None,
) -> np.ndarray:
    """Sub-pixel points where the flat cloth ends, scanning outward from inside the
    surface across the side a->b (px). ``reach_px``: how far inside the side's line to
    start. ``guard_px``: edges closer than this inside the side's line (the rail's edge
    when the cushion tops share the cloth's colour) do not set the strength scale.
    ``window``: look for the edge only this far (min, max px) inside the side's line
    (the noise level is still measured ``reach_px`` inside). Returns (M, 2) recorded px (M <= n; profiles with no clear edge are dropped)."""
    t = np.linspace(0.05, 0.95, n)
    if skip_middle > 0:
        t = t[np.abs(t - 0.5) > skip_middle]
    base = a[None] + t[:, None] * (b - a)[None]
    outer = 0.35 * reach_px + 4
    s = np.arange(-outer, reach_px + 1.0, 0.5)  # signed distance inward from the side
    xy = base[:, None, :] + s[None, :, None] * inward[None, None, :]
    light = _sample(lab[..., 0], xy).astype(np.float32)  # (n, S) lightness, s ascending
    light = cv2.GaussianBlur(light, (5, 1), 0.8)
    out_d = -np.gradient(light, axis=1)  # brightening going outward (towards the rail)
    usable = s < reach_px * 0.85
    if window is not None:
        usable &= (s > window[0]) & (s < window[1])
    inner = out_d[:, s > reach_px * 0.85]
    noise = float(1.4826 * np.median(np.abs(inner - np.median(inner)))) if inner.size else 0.5
    # a shadow band is narrower than the cushion top (guard_px is 0.4 of its width)
    band_max = int(2 * min(16.0, 1.5 * guard_px)) if guard_px > 0 else 32
    first: list[np.ndarray] = []
    band: list[np.ndarray | None] = []
    for i in range(len(t)):
        hit = _nose_index(np.where(usable, out_d[i], 0.0), noise, s >= guard_px, band_max)
        if hit is None:
            continue
        first.append(base[i] + _subpixel(out_d[i], hit[0], s) * inward)
        band.append(None if hit[1] is None else base[i] + _subpixel(out_d[i], hit[1], s) * inward)
    return _one_reading(np.array(first).reshape(-1, 2), band)


def _one_reading(first: np.ndarray, band: list[np.ndarray | None]) -> np.ndarray:
    """One reading of the nose per side (recorded px): the profiles whose first edge lies
    on the side's dominant line (balls, chalk and projected drawings on the cloth near the
    cushion fall off it); where most of those show a shadow band under a dark cushion
    top, the band's outer steps instead."""
    on = np.ones(len(first), bool)
    line = _ransac_line(first, 1.5, np.random.default_rng(0)) if len(first) >= 10 else None
    if line is not None:
        p0, dd = line
        on = np.abs((first - p0) @ np.array([-dd[1], dd[0]])) < 3.0
        if on.sum() < 0.25 * len(first):
            on[:] = True
    outer = [b for b, o in zip(band, on, strict=True) if o and b is not None]
    if len(outer) >= max(8, 0.4 * on.sum()):
        return np.array(outer).reshape(-1, 2)
    return first
