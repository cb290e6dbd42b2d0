"""The checks a fitted calibration must pass before it is written (each refusal is one
:class:`calibration.detect.NoTableError` line)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.detect import NoTableError
from calibration.geometry import Pose
from contract.tables import TableSpec


def check_fit(
    pose: Pose, coverage: float, rms: float | None, manual: bool, table: TableSpec
) -> None:
    """Refuse a fit that is not a table: mirrored, wrong aspect ratio, poor residuals."""
    if pose.position[2] <= 0:
        raise NoTableError("no table found: the fitted surface would be seen from below")
    if abs(pose.aspect_error) > 0.12 or pose.skew > 0.12:
        raise NoTableError(
            f"no table found: the outline's proportions do not match {table.name} "
            f"({table.L:.0f} x {table.W:.0f} mm; off by {abs(pose.aspect_error):.0%})"
        )
    if manual:
        return
    if coverage < 0.5 or rms is None or rms > 8.0:
        raise NoTableError(
            f"no table found: the cushion lines do not fit ({coverage:.0%} of edge points "
            f"within 10 mm, rms {rms if rms is not None else float('nan'):.1f} mm)"
        )


def check_in_view(corners_px: np.ndarray, size: tuple[int, int]) -> None:
    """Refuse a fit whose table corners (video px, (4, 2)) are not finite points near the
    picture (within one picture size of it): the cushions were found in the picture, so a
    corner beyond the horizon or far outside it is a pose that fits them by accident."""
    w, h = size
    q = np.asarray(corners_px, float)
    near = (q[:, 0] > -w) & (q[:, 0] < 2 * w) & (q[:, 1] > -h) & (q[:, 1] < 2 * h)
    if not np.isfinite(q).all() or not near.all():
        raise NoTableError("no table found: the fitted table's corners lie outside the picture")


ON_CLOTH = 0.97  # least share of the fitted surface's area inside the cloth's outline


def check_on_cloth(surface_px: np.ndarray, outline_px: np.ndarray) -> None:
    """Refuse a fit whose playing surface (its corners at the cushion noses' height, video
    px: where the cloth is seen to end, a view at an angle hiding the cloth under the near
    noses) is not inside the cloth region's outline it was searched from: the surface is
    cloth, so a fit that puts part of it over the rails, the floor or a player fits the
    cushion lines by accident. The 3 % allowed is the outline's own slack (pocket
    cut-outs, px rounding)."""
    a = np.asarray(surface_px, np.float32).reshape(-1, 1, 2)
    b = np.asarray(outline_px, np.float32).reshape(-1, 1, 2)
    area = abs(cv2.contourArea(a))
    if not cv2.isContourConvex(a) or area <= 0:
        raise NoTableError("no table found: the fitted surface is not a convex four-sided shape")
    inter, _ = cv2.intersectConvexConvex(a, b)
    if inter < ON_CLOTH * area:
        raise NoTableError(
            f"no table found: the fitted surface lies {1 - inter / area:.0%} off the cloth"
        )
