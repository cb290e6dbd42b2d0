"""The blob split's cheaper paths give the values of the plain ones: a blob's axes in
closed form equal the eigenvalues numpy computes, and the isolation test's cached kernel is
the structuring element."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detect.split import _axes, _ellipse, isolated


@pytest.mark.parametrize(
    "axes, angle",
    [((9, 4), 0), ((9, 4), 30), ((12, 5), 90), ((7, 7), 0), ((15, 3), 135), ((5, 2), 60)],
)
def test_blob_axes_match_the_covariance_eigenvalues(axes, angle) -> None:
    mask = np.zeros((41, 41), np.uint8)
    cv2.ellipse(mask, (20, 20), axes, angle, 0, 360, 1, -1)
    major, minor, centre = _axes(mask)
    m = cv2.moments(mask, binaryImage=True)
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / m["m00"]
    ev = np.sort(np.linalg.eigvalsh(cov))[::-1]
    assert major == pytest.approx(4.0 * np.sqrt(ev[0]), rel=1e-12, abs=1e-12)
    assert minor == pytest.approx(4.0 * np.sqrt(max(ev[1], 0.0)), rel=1e-9, abs=1e-9)
    assert major >= minor
    assert major == pytest.approx(2 * max(axes), rel=0.1)  # full lengths of the ellipse
    assert np.allclose(centre, [20, 20], atol=0.25)  # OpenCV's raster is not symmetric


def test_an_empty_blob_has_no_axes() -> None:
    major, minor, _ = _axes(np.zeros((5, 5), np.uint8))
    assert (major, minor) == (0.0, 0.0)


@pytest.mark.parametrize("size", [3, 7, 11])
def test_the_cached_kernel_is_the_structuring_element(size) -> None:
    ref = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    assert np.array_equal(_ellipse(size), ref)
    assert _ellipse(size) is _ellipse(size)


@pytest.mark.parametrize("gap, alone", [(12, True), (2, False)])
def test_isolation_sees_a_neighbour_within_a_radius(gap, alone) -> None:
    fg = np.zeros((30, 60), np.uint8)
    cv2.circle(fg, (15, 15), 5, 1, -1)
    fg[:, 15 + 5 + gap :] = 1  # a body beside the ball, ``gap`` px from its edge
    n, labels = cv2.connectedComponents(fg, connectivity=8)
    assert n == 3
    i = int(labels[15, 15])
    x, y, w, h = cv2.boundingRect((labels == i).astype(np.uint8))
    assert isolated(fg, labels, i, x, y, w, h, 5.0) is alone
