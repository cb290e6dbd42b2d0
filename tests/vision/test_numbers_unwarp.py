"""Turning a ball's printed figure to face the camera (``vision.numbers.reader``): the ink's
centre, the sphere unwarp, and the reader's second look at balls at rest."""

from __future__ import annotations

import numpy as np
import pytest

from vision.numbers.reader import (
    FRONTAL_OFF,
    LIMB,
    NUM_PATCH,
    READABLE_P,
    NumberReader,
    frontal,
    ink_centre,
    patch_grid,
    surer,
    turned_figure,
    unwarp,
)

CAP = 0.3  # radius (radians on the sphere) of the dark cap printed around the pole


def ball_patch(tilt_deg: float, azim_deg: float = 0.0, size: int = NUM_PATCH) -> np.ndarray:
    """A white ball with shading on green cloth, seen from straight above (orthographic),
    with a dark round cap of ``CAP`` radians centred on a pole ``tilt_deg`` off the line of
    sight toward ``azim_deg`` (0: right in the picture, 90: down)."""
    x, y = patch_grid(size)
    rho2 = x * x + y * y
    z = np.sqrt(np.clip(1 - rho2, 0, None))
    t, a = np.radians(tilt_deg), np.radians(azim_deg)
    pole = np.array([np.sin(t) * np.cos(a), np.sin(t) * np.sin(a), np.cos(t)])
    on_cap = np.arccos(np.clip(x * pole[0] + y * pole[1] + z * pole[2], -1, 1)) < CAP
    grey = 140 + 100 * z  # darker toward the limb
    img = np.where(on_cap, 30.0, grey)
    out = np.stack([img, img, img], axis=2)
    out[rho2 >= 1] = (40, 120, 30)
    return out.astype(np.uint8)


def cap_shape(patch: np.ndarray) -> tuple[np.ndarray, float]:
    """(centre (2,) in ball radii, width across / width along its offset) of the dark cap."""
    x, y = patch_grid(patch.shape[0])
    g = patch.mean(axis=2)
    m = (g < 110) & (x * x + y * y < 0.9)
    c = np.array([x[m].mean(), y[m].mean()])
    d = c / max(np.hypot(*c), 1e-9) if np.hypot(*c) > 0.05 else np.array([1.0, 0.0])
    along = (x[m] - c[0]) * d[0] + (y[m] - c[1]) * d[1]
    across = -(x[m] - c[0]) * d[1] + (y[m] - c[1]) * d[0]
    return c, float(np.sqrt(across.var() / max(along.var(), 1e-12)))


@pytest.mark.parametrize("tilt, azim", [(0, 0), (20, 30), (30, 200), (35, 300)])
def test_ink_centre_is_where_the_figure_is(tilt, azim):
    c = ink_centre(ball_patch(tilt, azim))
    want = np.sin(np.radians(tilt)) * np.array([np.cos(np.radians(azim)), np.sin(np.radians(azim))])
    assert c is not None
    assert np.hypot(*(c - want)) < 0.08


def test_no_ink_on_a_plain_ball():
    assert ink_centre(ball_patch(80)) is None  # the cap is on the far side


@pytest.mark.parametrize("tilt, azim", [(30, 0), (32, 120), (38, 250)])
def test_unwarp_turns_the_figure_to_face_the_camera(tilt, azim):
    """Foreshortened by cos(tilt) before; centred and (within the pixel grid and the
    resampling's blur) round after."""
    p = ball_patch(tilt, azim, 64)
    c0, ratio0 = cap_shape(p)
    assert ratio0 > 1.1  # wider across than along: foreshortened
    out = unwarp(p, ink_centre(p), 64)
    c1, ratio1 = cap_shape(out)
    assert np.hypot(*c1) < 0.08
    assert abs(ratio1 - 1) < 0.5 * abs(ratio0 - 1)


def test_unwarp_about_the_centre_changes_nothing_but_the_edge():
    p = ball_patch(10, 40)
    out = unwarp(p, np.zeros(2))
    x, y = patch_grid(NUM_PATCH)
    rho = np.hypot(x, y)
    same = (rho < LIMB - 0.05) | (rho >= 1)
    assert np.abs(out[same].astype(int) - p[same].astype(int)).max() <= 1


def test_unwarp_keeps_the_cloth_around_the_disc():
    p = ball_patch(30, 0)
    out = unwarp(p, np.array([0.5, 0.0]))
    x, y = patch_grid(NUM_PATCH)
    outside = x * x + y * y > 1.05
    assert np.array_equal(out[outside], p[outside])


@pytest.mark.parametrize(
    "tilt, turned", [(0, False), (10, False), (25, True), (33, True), (50, False)]
)
def test_only_off_centre_figures_are_turned(tilt, turned):
    p = ball_patch(tilt, 45)
    off = np.sin(np.radians(tilt))
    assert (FRONTAL_OFF[0] <= off <= FRONTAL_OFF[1]) == turned  # the case table is right
    assert (turned_figure(p) is not None) == turned
    assert np.array_equal(frontal(p), p) != turned


def test_surer_keeps_the_surer_readable_look():
    def look(n, p, p0=1e-6):
        out = np.full(16, (1 - p - p0) / 14)
        out[n], out[0] = p, p0
        return np.log(out)

    a = np.stack([look(9, 0.5), look(4, 0.9), look(9, 0.5)])
    b = np.stack([look(9, 0.9), look(4, 0.6), look(8, 0.3, p0=max(READABLE_P, 0.6))])
    got = surer(a, b)
    assert np.array_equal(got[0], b[0])  # surer second look
    assert np.array_equal(got[1], a[1])  # first look surer
    assert np.array_equal(got[2], a[2])  # the second look thinks nothing is readable


def test_reader_second_look_only_where_flagged():
    reader = NumberReader.load()
    img = np.full((200, 200, 3), (40, 120, 30), np.uint8)
    ball = ball_patch(30, 0, 64)
    img[68:132, 68:132] = ball
    uv, r = np.array([[99.5, 99.5]]), np.array([32.0])
    plain = reader.read(img, uv, r)
    assert np.allclose(reader.read(img, uv, r, second=np.array([False])), plain)
    both = reader.read(img, uv, r, second=np.array([True]))
    again = reader.read_patches(frontal(reader_patch(img, uv, r))[None])
    assert np.allclose(both, surer(plain, again))
    reader.second_look = False
    assert np.allclose(reader.read(img, uv, r, second=np.array([True])), plain)


def reader_patch(img: np.ndarray, uv: np.ndarray, r: np.ndarray) -> np.ndarray:
    from vision.detect.classify import extract_patches

    return extract_patches(img, uv, r, NUM_PATCH, 1.0)[0]
