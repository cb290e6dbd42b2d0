"""The detector's cheaper paths give the values of the plain ones: the 1/3 crop picked by
``mixChannels`` equals OpenCV's nearest resize, a blob's axes in closed form equal the
eigenvalues numpy computes, and the isolation kernel is the structuring element."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from contract.calib import read_calibration
from contract.tables import load_table
from vision.detect import Detector
from vision.split import _axes, _ellipse, isolated

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "videos"


@pytest.fixture(scope="module")
def detector_1080() -> Detector:
    calib = read_calibration(FIXTURES / "pyramid-knock-1080.calib.json")
    det = Detector(calib, load_table(calib.data.table), tuple(calib.data.image_size))
    assert det._nearest is not None  # 1080p: an odd integer scale, the picking path
    return det


def _resized(det: Detector, img: np.ndarray) -> np.ndarray:
    X, Y, W, H = det._nearest
    size = (det._bbox[2], det._bbox[3])
    return cv2.resize(img[Y : Y + H, X : X + W], size, interpolation=cv2.INTER_NEAREST)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("layout", ["contiguous", "view", "fortran"])
def test_the_picked_crop_equals_the_nearest_resize(detector_1080, seed, layout) -> None:
    w, h = detector_1080.size
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    if layout == "view":  # a frame inside a larger buffer (row stride beyond its width)
        big = rng.integers(0, 256, (h + 8, w + 16, 3), dtype=np.uint8)
        big[4 : 4 + h, 8 : 8 + w] = img
        img = big[4 : 4 + h, 8 : 8 + w]
    elif layout == "fortran":
        img = np.asfortranarray(img)
    got = detector_1080._pick(img)
    assert got.shape == (detector_1080._bbox[3], detector_1080._bbox[2], 3)
    assert np.array_equal(got, _resized(detector_1080, img))


def test_the_picked_crop_is_a_new_array_each_frame(detector_1080) -> None:
    w, h = detector_1080.size
    a = np.full((h, w, 3), 10, np.uint8)
    b = np.full((h, w, 3), 200, np.uint8)
    first = detector_1080._pick(a)
    detector_1080._pick(b)
    assert int(first.max()) == 10  # the reference kept from a frame is not overwritten


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
