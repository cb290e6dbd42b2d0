"""The drift check's in-view mask is made once per sample geometry and picture size, and
made again when either changes (a followed camera, another picture size)."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib

from calibration.monitor import MAX_SHIFT, REACH, CalibrationMonitor
from contract.tables import load_table

SIZE = (960, 540)


@pytest.fixture(scope="module")
def monitor() -> CalibrationMonitor:
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=40)
    img = draw_scene(calib, table, SIZE, [(900.0, 600.0, "white")])
    return CalibrationMonitor(img, calib.data, table)


def _fresh(mon: CalibrationMonitor, w: int, h: int) -> np.ndarray:
    m = REACH - MAX_SHIFT
    mid = mon.xy[..., MAX_SHIFT : MAX_SHIFT + 2 * m + 1, :]
    lo, hi = mid.min(axis=(2, 3)), mid.max(axis=(2, 3))
    return (lo >= 0).all(-1) & (hi[..., 0] <= w - 1) & (hi[..., 1] <= h - 1)


@pytest.mark.parametrize(
    "shift, size",
    [
        ((0.0, 0.0), SIZE),
        ((0.0, 0.0), (700, 400)),  # a smaller picture: profiles near the edges fall out
        ((-60.0, 0.0), SIZE),  # followed: the samples moved left, the left ones out of view
        ((0.0, 45.0), SIZE),
        ((0.0, 0.0), SIZE),  # back to the plate's pose
    ],
)
def test_in_view_follows_the_geometry(monitor, shift, size) -> None:
    G = None
    if shift != (0.0, 0.0):  # frame px -> plate px: the frame shows the table shifted by -t
        G = np.array([[1, 0, -shift[0]], [0, 1, -shift[1]], [0, 0, 1.0]])
    monitor.follow(G)
    w, h = size
    got = monitor._in_view(w, h)
    assert np.array_equal(got, _fresh(monitor, w, h))
    assert monitor._in_view(w, h) is got  # the second ask: the mask made before


def test_a_move_out_of_view_drops_profiles(monitor) -> None:
    monitor.follow(None)
    inside = int(monitor._in_view(*SIZE).sum())
    monitor.follow(np.array([[1, 0, 80.0], [0, 1, 0], [0, 0, 1.0]]))
    assert int(monitor._in_view(*SIZE).sum()) < inside
    monitor.follow(None)
    assert int(monitor._in_view(*SIZE).sum()) == inside
