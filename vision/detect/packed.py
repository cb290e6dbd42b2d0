"""A cluster of touching balls (a rack) as the splitter should see it (``vision.detect.split``).

Work-image pixels (the detector's downscaled image); ``r`` the expected ball radius there.

In a tight rack of balls on a cloth of nearly their colour (reds on red cloth, uk8ball),
the foreground of a dark ball is a thin ring or a small core with a gap around it (the
black ball of the UK 8-ball rack: its glare core and its rim against the lighter
neighbours), and the balls of the cloth's colour are thinned by the detector's relative
threshold. The blob then holds less area than its balls, so the count the splitter tries
(up to 1.1 x the blob's area in balls) stops short of the rack: 13 of 15 at uk8ball
frames 150 and 178. Here the blob's enclosed holes no bigger than a ball are filled (a
ball's or a gap between balls: never cloth the blob does not surround), and the counts
tried reach :data:`PACKED_MAX` x the filled area in balls, where a tight rack's
triangle of balls of 0.9 packing density and thinned edges ends.

A split of the filled blob is taken only where it finds balls the plain split misses
(:func:`accept`): more balls, none two sharing a ball (centres at least :data:`MIN_GAP`
radii apart), and each ball it adds on foreground that no plain disk covers (at least
:data:`NEW_SHARE` of a ball's area). A tight rack of the generated clips, every ball's
foreground whole, is split right plainly; filled, its gaps between balls made one more
centre squeezed between two balls (1.33 and 1.40 radii from its neighbour, on
foreground the plain disks already covered: 0.10 and 0.18 of a ball), while the thinned
real racks' extra balls stand 1.59-1.72 radii apart on 0.29-0.53 of a ball left
uncovered (uk8ball frames 0, 150, 178).
"""

from __future__ import annotations

import cv2
import numpy as np

PACKED = True  # ungated it put two centres on racked balls of the generated breaks and
# cost contacts (bench events video contact F1 0.896 -> 0.839): now gated by accept()
PACKED_FROM = 4.0  # blobs of at least this many balls' area are clusters looked at here
PACKED_MAX = 1.25  # the most balls tried: this many times the filled area in balls
MIN_GAP = 1.5  # ball radii: two centres nearer than this are one ball split in two
NEW_SHARE = 0.25  # of a ball's area: what each added ball covers that no plain disk does


def enclosed_holes(mask: np.ndarray, most: float) -> tuple[np.ndarray, np.ndarray]:
    """(labels (H,W int32) of ``mask``'s background regions, 4-connected, label 0 the
    mask's own pixels; per label, True for a hole: a region the mask encloses (not
    reaching the crop's border) of at most ``most`` px). ``mask`` uint8, nonzero inside."""
    inv = (mask == 0).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(inv, connectivity=4)
    h, w = mask.shape
    x, y, bw, bh, area = stats.T
    hole = (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h) & (area <= most)
    hole[0] = False
    return lab, hole


def fill_holes(mask: np.ndarray, most: float) -> np.ndarray:
    """``mask`` (uint8, nonzero inside) with every background region it encloses
    (4-connected, not reaching the crop's border) of at most ``most`` px filled."""
    lab, hole = enclosed_holes(mask, most)
    if not hole.any():
        return mask
    out = mask.copy()
    out[hole[lab]] = 1
    return out


def packed(mask: np.ndarray, r: float, lo: int, hi: int) -> tuple[np.ndarray, int]:
    """(the blob ``mask`` with its holes up to a ball's area filled, the most balls to
    try): at least ``hi``, up to :data:`PACKED_MAX` x the filled area over a ball's
    (``r`` px), never under ``lo``."""
    filled = fill_holes(mask, np.pi * r * r)
    n = float(np.count_nonzero(filled)) / (np.pi * r * r)
    return filled, max(lo, hi, int(np.ceil(n * PACKED_MAX)))


def _disks(centres: np.ndarray, r: float, shape: tuple[int, int]) -> np.ndarray:
    """(len(centres), h, w) bool: each disk of radius ``r`` px at ``centres`` (K,2 px)."""
    c = np.asarray(centres, float).reshape(-1, 2)
    gx, gy = np.arange(shape[1])[None, None, :], np.arange(shape[0])[None, :, None]
    return (gx - c[:, 0, None, None]) ** 2 + (gy - c[:, 1, None, None]) ** 2 <= r * r


def accept(filled: np.ndarray, r: float, plain: np.ndarray, more: np.ndarray) -> bool:
    """True when the split ``more`` (K,2 work px) of the hole-filled blob ``filled``
    (uint8) finds balls the plain split ``plain`` (J,2 work px) misses: more balls, no two
    centres nearer than :data:`MIN_GAP` radii (``r`` px), and the ``K - J`` added balls
    each covering at least :data:`NEW_SHARE` of a ball's area of foreground that no plain
    disk covers (a hole or a thinned ball's place, not a tight rack's gaps)."""
    plain, more = np.asarray(plain, float), np.asarray(more, float)
    extra = len(more) - len(plain)
    if extra <= 0:
        return False
    d = np.hypot(*(more[:, None] - more[None]).transpose(2, 0, 1))
    if np.any(d[np.triu_indices(len(more), 1)] < MIN_GAP * r):
        return False
    free = (filled > 0) & ~_disks(plain, r, filled.shape).any(axis=0)
    new = np.sort((_disks(more, r, filled.shape) & free).sum(axis=(1, 2)))[::-1]
    return bool(new[extra - 1] >= NEW_SHARE * np.pi * r * r)


CROWD = 3  # candidates of one blob judged together by the verifier (vision.detect.detector)
JOIN = 2.3  # ball radii: a lone candidate this near a crowd's is one of its balls


def join_crowds(uv: np.ndarray, radii: np.ndarray, group: np.ndarray) -> np.ndarray:
    """(N,) group ids where a candidate whose blob has fewer than :data:`CROWD` candidates
    takes the group of a crowd's candidate (a blob of :data:`CROWD` or more) within
    :data:`JOIN` radii of it (``uv`` (N,2) video px, ``radii`` (N,) video px): a ball of
    a rack cut off from the rack's blob by the relative threshold (a red of uk8ball's
    rack on red cloth, frame 0) is judged with the rack, not alone."""
    group = np.asarray(group).copy()
    if len(group) < CROWD + 1:
        return group
    _, inv, counts = np.unique(group, return_inverse=True, return_counts=True)
    crowd = counts[inv] >= CROWD
    if crowd.all() or not crowd.any():
        return group
    uv = np.asarray(uv, float).reshape(-1, 2)
    radii = np.asarray(radii, float)
    ci, lone = np.nonzero(crowd)[0], np.nonzero(~crowd)[0]  # all lone ones at once
    d = np.hypot(uv[ci][None, :, 0] - uv[lone, None, 0], uv[ci][None, :, 1] - uv[lone, None, 1])
    reach = JOIN * 0.5 * (radii[ci][None, :] + radii[lone, None])
    j = np.argmin(d - reach, axis=1)
    rows = np.arange(len(lone))
    join = d[rows, j] <= reach[rows, j]
    group[lone[join]] = group[ci[j[join]]]
    return group
