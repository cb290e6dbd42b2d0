"""Blob splitting (vision.detect.split): the disk cover counts and costs against a plain
per-disk formulation, and splits of synthetic touching balls; work-image px."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect.split import _cover_count, _disk_cost, fit_blob


def _cover_reference(centres: np.ndarray, r: float, h: int, w: int) -> np.ndarray:
    """Each pixel's count of disks (x - cx)^2 + (y - cy)^2 <= r^2, disk by disk."""
    gx, gy = np.arange(w)[None, :], np.arange(h)[:, None]
    cover = np.zeros((h, w), int)
    for c in centres:
        cover += (gx - c[0]) ** 2 + (gy - c[1]) ** 2 <= r * r
    return cover


@pytest.mark.parametrize(
    "h, w, r, k, grid",
    [
        (40, 60, 5.0, 2, False),  # whole-pixel radius
        (40, 60, 5.5, 6, True),  # centres and radius on half pixels: ties on the edge
        (120, 90, 7.3, 30, False),  # an arm's worth of disks
        (9, 7, 6.2, 5, False),  # disks larger than the crop, some wholly outside it
    ],
)
def test_cover_count_equals_disk_by_disk(h, w, r, k, grid):
    rng = np.random.default_rng(k)
    for _ in range(40):
        c = np.c_[rng.uniform(-r, w + r, k), rng.uniform(-r, h + r, k)]
        if grid:
            c = np.round(c * 2) / 2
        assert np.array_equal(_cover_count(c, r, h, w), _cover_reference(c, r, h, w))


@pytest.mark.parametrize("k", [2, 3, 8])
def test_disk_cost_counts_xor_overlap_and_unexplained(k):
    rng = np.random.default_rng(k)
    mask = (rng.random((50, 70)) < 0.4).astype(np.uint8)
    c = rng.uniform(5, 45, (k, 2))
    cover = _cover_reference(c, 6.0, 50, 70)
    m = mask > 0
    xor = np.count_nonzero(m ^ (cover > 0)) + np.count_nonzero(cover > 1)
    unexplained = np.count_nonzero(m & (cover == 0)) / np.count_nonzero(m)
    assert _disk_cost(mask, c, 6.0) == (float(xor), float(unexplained))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_row_of_touching_balls_splits_into_its_balls(n):
    r = 6.0
    truth = np.array([[10.0 + 2 * r * i, 12.0] for i in range(n)])
    gx, gy = np.meshgrid(np.arange(int(2 * r * n + 20)), np.arange(25))
    mask = np.zeros(gx.shape, np.uint8)
    for c in truth:
        mask[(gx - c[0]) ** 2 + (gy - c[1]) ** 2 <= r * r] = 255
    fit = fit_blob(mask, r, isolated=False)
    assert not fit.actor and len(fit.centres) == n
    got = fit.centres[np.argsort(fit.centres[:, 0])]
    assert np.abs(got - truth).max() < 1.0
