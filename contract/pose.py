"""The camera's optical centre from a calibration that does not state it.

CALIB.json (contract §6) needs only the cloth's homography (undistorted px -> table mm)
and, optionally, the lens (``distortion.camera_matrix``). A ball's centre lies a radius
above the cloth, so mapping it through the cloth's homography alone puts it off by
``R * d / h`` (``d`` its distance from the point below the camera, ``h`` the camera's
height): 9 mm median on a 12 ft table seen from 3.7 m. A pinhole camera over a plane
fixes its own position: the homography is ``K [r1 r2 t]`` up to scale (Zhang), so with
the lens matrix ``K`` the rotation and the centre follow exactly. Without ``K`` the focal
length of a camera looking nearly straight down is not observable from the homography,
so no centre is guessed.
"""

from __future__ import annotations

import numpy as np

MIN_HEIGHT_MM = 300.0
"""A camera solved lower than this above the cloth is not taken (no camera watches a
table from under 30 cm; a lens matrix that does not belong to the homography gives such
centres)."""


def camera_centre(image_to_table: np.ndarray, camera_matrix: np.ndarray) -> np.ndarray | None:
    """The optical centre ``(x, y, height above the cloth)`` in table mm of the camera
    whose cloth homography is ``image_to_table`` (undistorted px -> table mm) and whose
    lens matrix is ``camera_matrix`` (3x3 px); None where the two do not make a camera
    above the cloth."""
    G = np.linalg.inv(np.asarray(image_to_table, float))  # table (x, y, 1) -> px
    M = np.linalg.solve(np.asarray(camera_matrix, float), G)
    scale = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    if M[2, 2] * scale < 0:  # the table lies in front of the camera
        scale = -scale
    r1, r2, t = M[:, 0] * scale, M[:, 1] * scale, M[:, 2] * scale
    U, _, Vt = np.linalg.svd(np.c_[r1, r2, np.cross(r1, r2)])
    C = -(U @ Vt).T @ t
    if not np.all(np.isfinite(C)) or abs(C[2]) < MIN_HEIGHT_MM:
        return None
    return np.array([C[0], C[1], abs(C[2])])
