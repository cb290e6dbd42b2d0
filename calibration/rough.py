"""A rough table frame from the cloth's outline alone, for finding balls in pixels where
the full fit (:func:`calibration.fit.fit_plate`) refuses the picture.

The cloth region's outline (:func:`calibration.detect.find_quad`) is mapped onto the
playing surface grown by a cushion's width (:func:`outline_mm`) by one homography: no
cushion noses, no lens distortion, no front end. Which pair of the outline's sides are the
long cushions is not read from their lengths in px (an oblique view shortens the long
ones): it is the pairing, and the focal length, under which the homography is most like a
pinhole camera's. The outline may lie anywhere from the noses to the cushions' outer edge,
so table mm are off by up to a cushion's width; what the frame is good for is the
detector's scale (a ball's radius in px, within that error) and its mask (where the cloth
is). The CALIB it
makes says so: front ``assumed``, ``uncertainty.orientation`` ``ambiguous`` and an
expected error of a cushion's width, so ``calibration_uncertain`` names it.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.detect import find_quad
from calibration.fitbase import (
    FitResult,
    calib_file,
    corner_order,
    table_corners,
)
from calibration.geometry import camera_matrix, pose_from_homography
from contract.tables import TableSpec

NOTE = "rough frame: the cloth's outline only (positions in px measured, table mm rough)"


def rough_error_mm(table: TableSpec) -> float:
    """The expected error (mm, rms) of a rough frame: the outline can lie anywhere from the
    cushion nose to the cushion rubber's outer edge, a cushion's width (the spec's
    ``cushion_mm``) away."""
    return float(table.cushion_mm)


def outline_mm(table: TableSpec) -> np.ndarray:
    """The cloth outline's corners FL, FR, BR, BL (table mm) as the rough frame takes them:
    the cloth covers the cushions, so the outline is their outer edge, the surface grown by
    a cushion's width (the spec's ``cushion_mm``)."""
    c = table.cushion_mm
    return table_corners(table) + np.array([[-c, -c], [-c, c], [c, c], [c, -c]])


HFOV_DEG = np.linspace(15.0, 120.0, 106)  # the lenses tried: horizontal field of view


def _pinhole(
    c4: np.ndarray, table: TableSpec, size: tuple[int, int]
) -> tuple[np.ndarray, float, float]:
    """(H, f px, misfit) of outline corners ``c4`` (px) taken as FL, FR, BR, BL: the focal
    length under which the homography is most like a rigid pinhole camera's (its two
    in-plane axes of one length and square), and how far from it it still is."""
    H, _ = cv2.findHomography(c4, outline_mm(table))
    best = (float("inf"), 0.0)
    for a in HFOV_DEG:
        f = size[0] / 2 / np.tan(np.radians(a) / 2)
        p = pose_from_homography(H, camera_matrix(f, size))
        best = min(best, (p.aspect_error**2 + p.skew**2, f))
    return H, best[1], float(np.sqrt(best[0]))


def rough_fit(img: np.ndarray, table: TableSpec) -> FitResult:
    """The rough frame of a picture (BGR, recorded px). Raises
    :class:`calibration.detect.NoTableError` (one line) where not even the cloth's outline
    is found."""
    h, w = img.shape[:2]
    r0, r1 = table.L / table.W, (table.L + 2 * table.rail_mm) / (table.W + 2 * table.rail_mm)
    quad = find_quad(img, (0.75 * min(r0, r1), 1.3 * max(r0, r1)))
    c4 = corner_order(quad.corners)
    pairings = (_pinhole(np.roll(c4, -r, axis=0), table, (w, h)) for r in (0, 1))
    H, f, _ = min(pairings, key=lambda hfm: hfm[2])
    err = rough_error_mm(table)
    calib = calib_file(
        table,
        (w, h),
        H,
        camera_matrix(f, (w, h)),
        np.zeros(5),
        None,
        rms_mm=None,
        front="assumed",
        frame="rough",
        uncertainty={
            "rms_mm": round(err, 3),
            "max_mm": round(3 * err, 3),
            "orientation": "ambiguous",
        },
    )
    return FitResult(calib, {}, np.zeros(0), 0.0, (0.0, 0.0), [NOTE])
