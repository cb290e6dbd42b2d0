"""Sub-pixel ball centres (vision.detect.refine): the centre is the ball's own circular edge,
not pulled by what lies beside it (a projected halo ring on one side, the ball's shadow,
a cushion the ball is frozen to, a touching neighbour). Synthetic discs with exact
sub-pixel centres; all positions in video px."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detect.refine import _median_u8, _refine_one, edge_centre, refine_centres

CLOTH = np.array([95.0, 140.0, 60.0])  # BGR
CUSHION = np.array([50.0, 80.0, 35.0])
HALO = np.array([235.0, 225.0, 110.0])  # the projector's cyan ring
BALLS = {"red": (40.0, 40.0, 210.0), "blue": (200.0, 90.0, 20.0), "white": (225, 235, 240)}
SIZE = 128


def _disc(gx: np.ndarray, gy: np.ndarray, c: tuple[float, float], r: float) -> np.ndarray:
    """Anti-aliased coverage (0..1) of a disc of radius ``r`` px at ``c`` (x, y)."""
    return np.clip(r - np.hypot(gx - c[0], gy - c[1]) + 0.5, 0.0, 1.0)


def _scene(
    centres: list[tuple[float, float]], r: float, colour: str, clutter: str, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(picture, cloth plate) float32 BGR: shaded balls at ``centres`` over the cloth with
    ``clutter`` beside the first ball: ``halo`` (a bright ring arc on its +x side),
    ``shadow`` (a darker disc of the ball's size behind it, +x+y), ``cushion`` (the ball
    frozen to a cushion on its -x side, where the plate is the picture itself, as a
    plate from one image is next to the cushion), ``cushion+halo`` or ``none``."""
    gy, gx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    img = np.broadcast_to(CLOTH, (SIZE, SIZE, 3)).astype(np.float32).copy()
    cx, cy = centres[0]
    nose = cx - r + 0.15 * r  # the cushion's edge: the ball overlaps it in the picture
    if "cushion" in clutter:
        img[gx < nose] = CUSHION
    if "halo" in clutter:
        d = np.hypot(gx - cx, gy - cy)
        arc = (d > 1.2 * r) & (d < 1.5 * r) & (gx - cx > 0.3 * np.abs(gy - cy))
        img[arc] = HALO
    if clutter == "shadow":
        a = _disc(gx, gy, (cx + 0.55 * r, cy + 0.35 * r), r)[..., None]
        img = img * (1 - 0.45 * a)
    plate = np.broadcast_to(CLOTH, (SIZE, SIZE, 3)).astype(np.float32).copy()
    col = np.array(BALLS[colour], np.float32)
    for c in centres:
        a = _disc(gx, gy, c, r)[..., None]
        shade = 1.0 - 0.4 * np.clip(np.hypot(gx - c[0], gy - c[1]) / r, 0, 1)[..., None] ** 2
        img = img * (1 - a) + col * shade * a
        hl = _disc(gx, gy, (c[0] - 0.3 * r, c[1] - 0.35 * r), 0.18 * r)[..., None]
        img = img * (1 - hl) + 250.0 * hl  # a specular highlight
    if "cushion" in clutter:
        band = gx < nose + 0.1 * r
        plate[band] = img[band]
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    img += np.random.default_rng(seed).normal(0.0, 2.0, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8), plate


def _refine(img: np.ndarray, plate: np.ndarray, start: np.ndarray, r: float) -> np.ndarray:
    pn = (CLOTH / np.linalg.norm(CLOTH)).astype(np.float32)
    uv, score, _, _ = refine_centres(img, plate, start, np.full(len(start), r), 30.0, pn)
    assert np.all(score > 0.5)
    return uv


@pytest.mark.parametrize("r", [15.7, 22.0])  # snooker stills at 720p; pyramid at 1080p
@pytest.mark.parametrize("colour", ["red", "blue", "white"])
@pytest.mark.parametrize("clutter", ["none", "halo", "shadow", "cushion", "cushion+halo"])
def test_centre_of_a_lone_ball_is_its_edge(r, colour, clutter):
    truth = np.array([64.3, 61.7])
    img, plate = _scene([tuple(truth)], r, colour, clutter)
    start = truth + [1.8, -1.4]  # a proposal from the work image is this far off
    uv = _refine(img, plate, start[None], r)[0]
    assert np.linalg.norm(uv - truth) < 0.3


@pytest.mark.parametrize("clutter", ["none", "halo", "cushion"])
@pytest.mark.parametrize("side", [(0.0, 1.0), (0.7071, 0.7071)])  # neighbour below, diagonal
def test_touching_neighbours_each_keep_their_centre(clutter, side):
    r = 15.7
    a = np.array([60.2, 45.6])
    b = a + 2.02 * r * np.array(side)
    img, plate = _scene([tuple(a), tuple(b)], r, "red", clutter, seed=3)
    start = np.array([a + [1.2, 1.5], b + [-1.0, 1.1]])
    uv = _refine(img, plate, start, r)
    assert np.linalg.norm(uv[0] - a) < 0.3
    # the second ball has no clutter of its own; the first one's halo, reaching round to
    # it, pulls its centroid by about half a pixel: under what the edge fit is tried for
    assert np.linalg.norm(uv[1] - b) < 0.75


@pytest.mark.parametrize("shift", [(6.0, 0.0), (-4.5, 5.0), (0.0, -7.5)])
def test_edge_centre_comes_back_from_an_estimate_half_a_radius_off(shift):
    r = 15.7
    truth = np.array([63.6, 64.2])
    img, _ = _scene([tuple(truth)], r, "red", "halo", seed=5)
    res = edge_centre(img, truth + shift, r)
    assert res is not None
    centre, radius, share = res
    assert np.linalg.norm(centre - truth) < 0.3
    assert abs(radius - r) < 0.1 * r and share > 0.6


@pytest.mark.parametrize("what", ["cloth", "cushion edge"])
def test_edge_centre_finds_no_ball_where_there_is_none(what):
    gy, gx = np.mgrid[0:SIZE, 0:SIZE]
    img = np.broadcast_to(CLOTH, (SIZE, SIZE, 3)).astype(np.float32).copy()
    if what == "cushion edge":
        img[gx < 60] = CUSHION
    img += np.random.default_rng(1).normal(0.0, 2.0, img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    assert edge_centre(img, np.array([64.0, 64.0]), 15.7) is None


@pytest.mark.parametrize(
    "n, lo, hi", [(1, 0, 256), (2, 0, 256), (7, 100, 104), (250, 0, 256), (401, 250, 256)]
)
def test_histogram_median_equals_numpys(n, lo, hi):
    rng = np.random.default_rng(n)
    for _ in range(50):
        x = rng.integers(lo, hi, (n, 3)).astype(np.uint8)
        got = _median_u8(x)
        assert got.dtype == np.float64
        assert np.array_equal(got, np.median(x.astype(np.float32), axis=0))


def _refine_reference(img, plate, pn, uv, radii, thr, todo, sharp, passes=2):
    """The plain formulation: each ball's neighbours from the centres as they stand when
    it is reached (earlier balls of the pass already refined)."""
    out = uv.astype(float).copy()
    n = len(uv)
    score, ring, bgr = np.zeros(n), np.zeros(n), np.zeros((n, 3))
    for p in range(passes):
        crowded = False
        for i in range(n):
            nb = np.delete(out, i, axis=0)
            nb = nb[np.linalg.norm(nb - out[i], axis=1) < 3.0 * radii[i]]
            crowded |= len(nb) > 0
            if (p > 0 and len(nb) == 0) or not todo[i]:
                continue
            res = _refine_one(img, plate, pn, out[i], float(radii[i]), nb, thr, 3, sharp[i])
            if res is not None:
                out[i], score[i], ring[i], bgr[i] = res
        if not crowded:
            break
    return out, np.clip(score, 0, 1), ring, bgr


@pytest.mark.parametrize("todo", ["all", "first", "last", "none", "alternate"])
@pytest.mark.parametrize("clutter", ["none", "halo"])
def test_refined_centres_equal_the_plain_formulation(todo, clutter):
    r = 15.7
    truth = [(30.0, 40.0), (61.5, 40.8), (46.0, 67.5), (100.0, 100.0)]  # a cluster, one alone
    img, plate = _scene(truth, r, "red", clutter, seed=5)
    rng = np.random.default_rng(1)
    uv = np.array(truth) + rng.uniform(-2, 2, (4, 2))
    radii = np.full(4, r)
    mask = {
        "all": [1, 1, 1, 1],
        "first": [1, 0, 0, 0],
        "last": [0, 0, 0, 1],
        "none": [0, 0, 0, 0],
        "alternate": [0, 1, 0, 1],
    }[todo]
    todo_arr = np.array(mask, bool)
    sharp = np.array([True, False, True, True])
    pn = (CLOTH / np.linalg.norm(CLOTH)).astype(np.float32)
    got = refine_centres(img, plate, uv, radii, 30.0, pn, todo=todo_arr, sharp=sharp)
    want = _refine_reference(img, plate, pn, uv, radii, 30.0, todo_arr, sharp)
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)
    moved = np.any(got[0] != uv, axis=1)
    assert np.array_equal(moved, todo_arr)  # only the balls asked for are refined
