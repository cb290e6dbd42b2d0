"""The cloth outline's four sides where it is seen at an angle and cut into by an arm."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.detect import _hull_lines, _outline_lines, intersect

# a table seen from its front end at an angle: a trapezoid (screen px, clockwise)
TRUE = np.array([[250.0, 80.0], [710.0, 80.0], [900.0, 500.0], [60.0, 500.0]])


def _outline(notch: bool) -> np.ndarray:
    mask = np.zeros((560, 960), np.uint8)
    cv2.fillPoly(mask, [TRUE.astype(np.int32)], 255)
    if notch:  # an arm over the far cushion, reaching into the cloth
        cv2.fillPoly(mask, [np.array([[400, 60], [470, 60], [500, 230], [430, 240]], np.int32)], 0)
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(cnts, key=cv2.contourArea).reshape(-1, 2).astype(float)


def _corners(lines) -> np.ndarray:
    return np.array([intersect(*lines[i - 1], *lines[i]) for i in range(4)])


def _err(found: np.ndarray) -> float:
    return float(max(np.linalg.norm(TRUE - c, axis=1).min() for c in found))


def test_an_angled_outline_cut_by_an_arm_keeps_its_four_corners():
    pts = _outline(notch=True)
    old = _outline_lines(pts)
    if old is not None:  # the parallel-sides reading misses a corner or folds
        c = _corners(old)
        assert _err(c) > 5 or not cv2.isContourConvex(c.astype(np.float32).reshape(-1, 1, 2))
    lines = _hull_lines(pts)
    assert lines is not None
    assert _err(_corners(lines)) < 2.0


def test_a_shape_that_is_not_four_sided_gives_no_lines():
    mask = np.zeros((400, 400), np.uint8)
    cv2.circle(mask, (200, 200), 150, 255, -1)
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    assert _hull_lines(cnts[0].reshape(-1, 2).astype(float)) is None


def test_corners_cut_off_by_pockets_are_found_where_the_sides_meet():
    """Corner pockets bite into every corner of the cloth region: its hull's four-vertex
    simplification covers less of it (its vertices sit inside the corners), and the four
    side lines still meet at the true corners."""
    mask = np.zeros((560, 960), np.uint8)
    cv2.fillPoly(mask, [TRUE.astype(np.int32)], 255)
    for x, y in TRUE:
        cv2.circle(mask, (int(x), int(y)), 28, 0, -1)
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts = max(cnts, key=cv2.contourArea).reshape(-1, 2).astype(float)
    hull = cv2.convexHull(pts.astype(np.float32).reshape(-1, 1, 2))
    ap = cv2.approxPolyDP(hull, 0.01 * cv2.arcLength(hull, True), True)
    if len(ap) == 4:  # the case this covers: four vertices short of 95 % of the hull
        assert cv2.contourArea(ap) < 0.95 * cv2.contourArea(hull)
    lines = _hull_lines(pts)
    assert lines is not None
    assert _err(_corners(lines)) < 3.0
