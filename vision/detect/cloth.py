"""The empty cloth and what lies on it, for the detector (``vision.detect.detector``): where the
pocket holes are, whether a ball-sized disk shows bare cloth, and the vote that judges
the disks of one blob together."""

from __future__ import annotations

import cv2
import numpy as np

from contract.calib import Calibration
from contract.tables import TableSpec
from vision.base.geometry import ball_radius_px, mouth_lines


def cut_pocket_holes(core: np.ndarray, calib: Calibration, table: TableSpec, margin: float) -> None:
    """Clear from ``core`` (uint8 mask, video px; changed in place) the pocket holes:
    within a circle around each pocket (its mouth plus 1.8 ball radii), the pixels past
    the pocket's mouth line less ``margin`` ball radii (table mm at the cloth). The cloth
    on the table side of a mouth stays in ``core``, so a ball resting near a pocket
    through the whole video is not taken for background."""
    R = table.ball_radius
    mouths = mouth_lines(table)
    for p in table.pockets:
        c = calib.table_to_pixel(np.array([p.centre]))[0]
        r = ball_radius_px(calib, table, np.array([p.centre]))[0]
        rr = r * (p.mouth_mm / 2 + 1.8 * R) / R
        disk = np.zeros_like(core)
        cv2.circle(disk, (int(round(c[0])), int(round(c[1]))), int(rr), 255, -1)
        dist = np.linalg.norm(mouths[:, :2] - np.asarray(p.centre), axis=1)
        if not len(dist) or dist.min() >= p.mouth_mm:  # no mouth line: the whole circle
            core[disk > 0] = 0
            continue
        m = mouths[np.argmin(dist)]
        vv, uu = np.nonzero(disk & core)
        xy = calib.pixel_to_table(np.c_[uu, vv].astype(float), height=0.0)
        hole = (xy - m[:2]) @ m[2:] > -margin * R
        core[vv[hole], uu[hole]] = 0


def empty_disks(
    inside: np.ndarray, region: np.ndarray, centres: np.ndarray, radii: np.ndarray, share: float
) -> np.ndarray:
    """(N,) bool: True where the disk at ``centres`` (N,2) with ``radii`` (N,) (px of the
    ``inside`` mask: True where a pixel differs from the empty cloth) has fewer than
    ``share`` of its pixels inside: bare cloth. Disks not wholly within the image and
    ``region`` (bool, same shape: the pixels examined) are never empty (unknown)."""
    h, w = inside.shape
    out = np.zeros(len(centres), bool)
    for k, ((cu, cv), r) in enumerate(zip(centres, radii, strict=True)):
        if not (np.isfinite(cu) and np.isfinite(cv) and r > 0):
            continue
        x0, y0 = int(np.floor(cu - r)), int(np.floor(cv - r))
        x1, y1 = int(np.ceil(cu + r)) + 1, int(np.ceil(cv + r)) + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1]
        disk = (xx - cu) ** 2 + (yy - cv) ** 2 <= r * r
        if not disk.any() or not region[y0:y1, x0:x1][disk].all():
            continue
        out[k] = float(np.mean(inside[y0:y1, x0:x1][disk])) < share
    return out


def majority(group: np.ndarray, ok: np.ndarray, among: np.ndarray) -> np.ndarray:
    """(N,) bool: per candidate, whether at least half of the candidates of its ``group``
    that are ``among`` (N,) bool are ``ok``; True where none of its group is among."""
    group, ok, among = np.asarray(group), np.asarray(ok, bool), np.asarray(among, bool)
    if not len(group):
        return np.ones(0, bool)
    _, g = np.unique(group, return_inverse=True)
    asked = np.bincount(g, weights=among.astype(float))
    yes = np.bincount(g, weights=(ok & among).astype(float))
    share = np.divide(yes, asked, out=np.ones_like(yes), where=asked > 0)
    return share[g] >= 0.5
