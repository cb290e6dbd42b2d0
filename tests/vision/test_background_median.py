"""The cloth model's and the drift watch's per-pixel medians by median networks
(vision.detect.background.median_frames): the same values as a full sort (np.median over the
stack, calibration.plate.median_images) for every count of frames, with fewer exchanges."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from calibration.plate import median_images
from vision.detect.background import MEDIAN_NETWORKS, MEDIAN_PLANS, median_frames


@pytest.mark.parametrize("n", sorted(MEDIAN_NETWORKS))
def test_each_network_leaves_the_median_of_every_zero_one_input(n):
    """0-1 principle: a min/max network selects the median of any values when it does
    of every 0/1 input (all 2**n of them checked), with its dead outputs dropped."""
    for bits in itertools.product((0, 1), repeat=n):
        x = list(bits)
        for i, j, lo, hi in MEDIAN_PLANS[n]:
            a, b = x[i], x[j]
            if lo:
                x[i] = min(a, b)
            if hi:
                x[j] = max(a, b)
        assert x[n // 2] == sorted(bits)[n // 2], bits


@pytest.mark.parametrize("n", range(1, 11))
@pytest.mark.parametrize("shape", [(7, 5, 3), (36, 64, 3), (9, 11)])
def test_median_frames_equals_the_full_sort_and_numpy(n, shape):
    """Random uint8 frames, and frames with many ties (a few levels): every value equal
    to median_images (dtype too) and, for an odd count, to np.median of the float32
    stack as the detector took it."""
    rng = np.random.default_rng(n * 100 + len(shape))
    for levels in (256, 3):
        frames = [rng.integers(0, levels, shape, dtype=np.uint8) for _ in range(n)]
        got, want = median_frames(frames), median_images(frames)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        if n % 2:
            stack = np.stack(frames).astype(np.float32)
            assert np.array_equal(got.astype(np.float32), np.median(stack, axis=0))


@pytest.mark.parametrize("n", sorted(MEDIAN_NETWORKS))
def test_the_networks_take_fewer_exchanges_than_the_full_sort(n):
    """cv2.min/cv2.max calls per pixel: the pruned network against the odd-even
    transposition sort of median_images (n rounds of n // 2 or (n - 1) // 2 pairs)."""
    calls = sum(lo + hi for _, _, lo, hi in MEDIAN_PLANS[n])
    full = 2 * sum(len(range(r % 2, n - 1, 2)) for r in range(n))
    assert calls < full
    frames = [np.full((2, 2), v, np.uint8) for v in range(n)][::-1]
    assert median_frames(frames)[0, 0] == n // 2
    assert frames[0][0, 0] == n - 1  # the inputs are left as they were
