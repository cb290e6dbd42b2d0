"""The detector's cheaper paths give the plain ones' values to the bit: the changed tiles
folded by halves against the summed-area table, the static blob's mean change against
numpy's mean, the foreground's nonzero pixels and blob statistics against OpenCV's, the
resting balls' carried edge offsets for all balls at once against the
rule ball by ball, and the centroid's early stop against the full iterations."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detect.detector import SHIFT_REACH, Detector, _mean_change
from vision.detect.foreground import tiles_hot
from vision.detect.refine import _refine_one
from vision.detect.split import components, nonzero_flat


def _tiles_by_sums(hot: np.ndarray, tile: int, ch: int = 3) -> np.ndarray:
    """The tiles holding a nonzero byte, from the summed-area table (the plain way)."""
    h, wb = hot.shape
    ys = np.append(np.arange(0, h, tile), h)
    xs = np.append(np.arange(0, wb, ch * tile), wb)
    c = cv2.integral(hot)[np.ix_(ys, xs)]
    return (c[1:, 1:] - c[:-1, 1:] - c[1:, :-1] + c[:-1, :-1] > 0).astype(np.uint8)


@pytest.mark.parametrize(
    "h, w, tile, share",
    [
        (282, 525, 16, 0.001),  # a 1080p table's work box
        (273, 508, 16, 0.01),
        (32, 32, 16, 0.0),  # nothing changed
        (33, 17, 16, 0.05),  # one row and one column of tiles cut short
        (15, 5, 16, 0.2),  # smaller than a tile
        (40, 40, 7, 0.01),  # a tile side that is no power of two
        (9, 9, 1, 0.3),
    ],
)
def test_changed_tiles_match_the_summed_table(h, w, tile, share) -> None:
    rng = np.random.default_rng(h * w + tile)
    for _ in range(5):
        hot = np.where(rng.random((h, 3 * w)) < share, 255, 0).astype(np.uint8)
        got = tiles_hot(hot, tile)
        assert got.shape == (-(-h // tile), -(-w // tile))
        assert np.array_equal(got, _tiles_by_sums(hot, tile))


def test_one_changed_byte_marks_its_tile_only() -> None:
    hot = np.zeros((40, 3 * 40), np.uint8)
    hot[37, 3 * 20 + 2] = 255  # row 37, column 20 (its third channel)
    got = tiles_hot(hot, 16)
    assert np.argwhere(got).tolist() == [[2, 1]]


@pytest.mark.parametrize("shape, spread", [((12, 9), 0.1), ((30, 41), 1.0), ((1, 1), 3.0)])
def test_mean_change_is_numpys_mean(shape, spread) -> None:
    rng = np.random.default_rng(7)
    big = (rng.random((shape[0] + 4, shape[1] + 6)) * 90).astype(np.float32)
    patch = big[2 : 2 + shape[0], 3 : 3 + shape[1]]  # a view, as in the detector
    for _ in range(20):
        old = (patch + rng.normal(0, spread, patch.shape)).astype(np.float32)
        assert _mean_change(patch, old) == float(np.abs(patch - old).mean())


def _carry_ball_by_ball(old, uv, radii, todo, sharp, shift):
    """The carried offsets ball by ball (the rule as first written)."""
    keep = []
    for k in range(len(uv)):
        if todo[k] and sharp[k]:
            keep.append([*(uv[k] - shift[k]), *shift[k]])
            continue
        if not len(old):
            continue
        d = np.hypot(old[:, 0] - uv[k, 0], old[:, 1] - uv[k, 1])
        j = int(np.argmin(d))
        reach = SHIFT_REACH * float(radii[k])
        if d[j] >= reach:
            continue
        if todo[k]:
            uv[k] += old[j, 2:] * (1.0 - d[j] / reach)
        keep.append(old[j])
    return np.array(keep, float).reshape(-1, 4)


class _Held:
    """Just the state :meth:`Detector._carry_shift` reads and writes."""

    def __init__(self, rest: np.ndarray) -> None:
        self._rest_shift = rest


@pytest.mark.parametrize("n, m", [(0, 3), (5, 0), (6, 4), (12, 9), (1, 1)])
def test_carried_offsets_match_the_rule_ball_by_ball(n, m) -> None:
    rng = np.random.default_rng(n * 10 + m)
    for _ in range(50):
        old = np.c_[rng.random((m, 2)) * 40, rng.normal(0, 1, (m, 2))]
        uv = rng.random((n, 2)) * 40
        radii = 6 + rng.random(n) * 6
        todo, sharp = rng.random(n) < 0.6, rng.random(n) < 0.5
        shift = rng.normal(0, 1, (n, 2))
        want_uv = uv.copy()
        want = _carry_ball_by_ball(old, want_uv, radii, todo, sharp, shift)
        held = _Held(old.copy())
        Detector._carry_shift(held, uv, radii, todo, sharp, shift)
        assert np.array_equal(uv, want_uv)
        assert held._rest_shift.shape == want.shape
        assert np.array_equal(held._rest_shift, want)


def _ball_scene(rng: np.random.Generator, blur: float):
    """A white-ish ball (radius 14 px) on green cloth with noise, its plate and an
    estimate off its centre: (img uint8, plate float32, pn, centre, estimate)."""
    h = w = 80
    plate = np.empty((h, w, 3), np.float32)
    plate[:] = (40, 120, 30)
    img = plate.copy()
    c = np.array([40.3, 38.7]) + rng.normal(0, 1.5, 2)
    yy, xx = np.mgrid[0:h, 0:w]
    disk = ((xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= 14**2).astype(np.float32)
    if blur:
        disk = cv2.GaussianBlur(disk, (0, 0), blur)
    img = img + disk[..., None] * (np.array([220, 225, 230], np.float32) - img)
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    pn = np.array([40, 120, 30], np.float32)
    return img, plate, pn / np.linalg.norm(pn), c, c + rng.normal(0, 3, 2)


def _refine_full_iterations(img, plate, pn, c, r, nb, thr, iters):
    """The centroid iterations without the early stop (the plain way)."""
    from vision.base.colour import plate_distance

    half = int(np.ceil(1.7 * r)) + 1
    x0, y0 = max(0, int(c[0]) - half), max(0, int(c[1]) - half)
    x1, y1 = min(img.shape[1], int(c[0]) + half + 1), min(img.shape[0], int(c[1]) + half + 1)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    ax = np.arange(x0, x1, dtype=np.float32)[None, :]
    ay = np.arange(y0, y1, dtype=np.float32)[:, None]
    wgt = np.clip((plate_distance(roi, plate[y0:y1, x0:x1], pn) - 0.5 * thr) / thr, 0.0, 1.0)
    for _ in range(iters):
        d2 = (ay - c[1]) ** 2 + (ax - c[0]) ** 2
        wv = np.where(d2 <= (1.3 * r) ** 2, wgt, 0.0)
        sw = float(wv.sum())
        if sw < 1e-6:
            break
        c = np.array([float(wv.sum(axis=0) @ ax[0]) / sw, float(wv.sum(axis=1) @ ay[:, 0]) / sw])
    return c


@pytest.mark.parametrize("seed, blur, iters", [(1, 0.0, 3), (2, 1.5, 3), (3, 3.0, 6), (4, 0, 8)])
def test_centroid_early_stop_gives_the_full_iterations(seed, blur, iters) -> None:
    rng = np.random.default_rng(seed)
    img, plate, pn, _, est = _ball_scene(rng, blur)
    want = _refine_full_iterations(img, plate, pn, est.copy(), 14.0, None, 30.0, iters)
    got = _refine_one(img, plate, pn, est.copy(), 14.0, np.zeros((0, 2)), 30.0, iters, False)
    assert got is not None
    assert np.array_equal(got[0], want)


@pytest.mark.parametrize(
    "h, w, share",
    [(282, 525, 0.006), (7, 9, 0.3), (1, 5, 0.5), (13, 13, 0.05), (3, 3, 0.0), (16, 16, 1.0)],
)
def test_nonzero_pixels_and_blob_statistics_match_opencv(h, w, share) -> None:
    rng = np.random.default_rng(h + w)
    mask = (rng.random((h, w)) < share).astype(np.uint8) * 255
    mask[h // 2 : h // 2 + 3, : min(w, 4)] = 1  # a blob of pixels that are not 255
    assert np.array_equal(nonzero_flat(mask), np.flatnonzero(mask))
    n, labels, stats, cents = components(mask)
    n2, labels2, stats2, cents2 = cv2.connectedComponentsWithStats(mask, connectivity=8)
    stats2[0], cents2[0] = 0, 0
    assert n == n2 and np.array_equal(labels, labels2)
    assert np.array_equal(stats, stats2) and stats.dtype == np.int32
    assert np.allclose(cents, cents2, rtol=0, atol=1e-9)


def test_the_last_frames_distance_is_restored_from_the_writes_logged() -> None:
    from vision.detect.streak import _Before

    rng = np.random.default_rng(5)
    d = rng.random((40, 60)).astype(np.float32)
    then = d.copy()
    before = _Before(d)
    assert before.array() is d  # nothing written: no copy
    for y0, y1, x0, x1 in [(0, 10, 0, 20), (5, 30, 10, 40), (0, 40, 50, 60), (8, 12, 15, 18)]:
        before.undo.append((y0, y1, x0, x1, d[y0:y1, x0:x1].copy()))  # as the foreground
        d[y0:y1, x0:x1] = rng.random((y1 - y0, x1 - x0))  # logs, then writes
    got = before.array()
    assert got is not d and np.array_equal(got, then)
    assert not np.array_equal(d, then)


def _join_one_by_one(uv, radii, group):
    """A lone candidate joins its nearest crowd within reach, one at a time (plain)."""
    from vision.detect.packed import CROWD, JOIN

    group = np.asarray(group).copy()
    if len(group) < CROWD + 1:
        return group
    _, inv, counts = np.unique(group, return_inverse=True, return_counts=True)
    crowd = counts[inv] >= CROWD
    if crowd.all() or not crowd.any():
        return group
    ci = np.nonzero(crowd)[0]
    for k in np.nonzero(~crowd)[0]:
        d = np.hypot(*(uv[ci] - uv[k]).T)
        reach = JOIN * 0.5 * (radii[ci] + radii[k])
        j = int(np.argmin(d - reach))
        if d[j] <= reach[j]:
            group[k] = group[ci[j]]
    return group


@pytest.mark.parametrize("n, groups, spread", [(3, 2, 100), (6, 2, 60), (10, 3, 120), (13, 4, 80)])
def test_lone_candidates_join_crowds_as_one_by_one(n, groups, spread) -> None:
    from vision.detect.packed import join_crowds

    rng = np.random.default_rng(n * groups)
    joined = 0
    for _ in range(100):
        uv = rng.random((n, 2)) * spread
        radii = 8 + rng.random(n) * 4
        group = rng.integers(0, groups, n)
        want = _join_one_by_one(uv, radii, group)
        got = join_crowds(uv, radii, group)
        assert np.array_equal(got, want)
        joined += int((want != group).sum())
    assert joined > 0 or n <= 3  # the cases do join lone candidates


@pytest.mark.parametrize("share", [0.02, 0.1, 0.5, 1.0])
@pytest.mark.parametrize("h, w, tile", [(282, 525, 16), (33, 47, 16), (20, 20, 5)])
def test_changed_tiles_are_copied_as_by_the_masked_copy(h, w, tile, share) -> None:
    from vision.detect.foreground import _copy_tiles

    rng = np.random.default_rng(int(share * 100) + h)
    th, tw = -(-h // tile), -(-w // tile)
    tiles = (rng.random((th, tw)) < share).astype(np.uint8)
    tiles[0, 0] = 1
    src = rng.integers(0, 255, (h, w, 3)).astype(np.uint8)
    dst = rng.integers(0, 255, (h, w, 3)).astype(np.uint8)
    want = dst.copy()
    grid = cv2.resize(tiles, (tw * tile, th * tile), interpolation=cv2.INTER_NEAREST)
    cv2.copyTo(src, grid[:h, :w], want)
    _copy_tiles(src, dst, tiles, tile)
    assert np.array_equal(dst, want)


@pytest.mark.parametrize("share, inside", [(0.0, 0.9), (0.001, 0.9), (0.05, 0.5), (1.0, 1.0)])
def test_changed_bytes_inside_by_masked_norm_as_by_and_then_count(share, inside) -> None:
    """The change test's count (vision.detect.foreground: the thresholded bytes' L1 norm
    under the region's mask over 255) is the count of the bytes set in both."""
    rng = np.random.default_rng(int(share * 1000))
    hot = np.where(rng.random((282, 3 * 525)) < share, 255, 0).astype(np.uint8)
    region = np.where(rng.random((282, 525)) < inside, 255, 0).astype(np.uint8)
    region3 = np.repeat(region, 3, axis=1)
    want = cv2.countNonZero(cv2.bitwise_and(hot, region3))
    assert round(cv2.norm(hot, cv2.NORM_L1, region3) / 255) == want
