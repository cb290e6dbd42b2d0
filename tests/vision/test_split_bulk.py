"""A body reaching in from beyond the table (vision.detect.split.THICK): a blob on the examined
picture's outer edge, holding a disk much wider than a ball and larger than a cluster of
balls, is an actor without k-means; balls at the cushion and racks are split as before.
Work-image px in the split tests, table mm in the detector's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib

from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect.detector import Detector
from vision.detect.split import MAX_PEAK_BALLS, THICK, THICK_FROM, fit_blob, thickness

R = 4.5  # work px: the detector's ball radius


def _disks(centres: list[tuple[float, float]], r: float, shape: tuple[int, int]) -> np.ndarray:
    gy, gx = np.mgrid[0 : shape[0], 0 : shape[1]]
    mask = np.zeros(shape, np.uint8)
    for cx, cy in centres:
        mask[(gx - cx) ** 2 + (gy - cy) ** 2 <= r * r] = 1
    return mask


def _half_disk(radius: float) -> np.ndarray:
    """A body's blob: the half of a disk inside the picture, cut by the crop's top row."""
    w = int(2 * radius) + 3
    gy, gx = np.mgrid[0 : int(radius) + 2, 0:w]
    return ((gx - w / 2) ** 2 + gy**2 <= radius * radius).astype(np.uint8)


def _rack(rows: int, r: float) -> list[tuple[float, float]]:
    return [
        (3 * r + 2 * r * (i + 0.5 * (rows - 1 - j)), 3 * r + j * np.sqrt(3) * r)
        for j in range(rows)
        for i in range(j + 1)
    ]


@pytest.mark.parametrize(
    "mask, lo, hi",
    [
        (_disks([(20, 20)], 9.0, (41, 41)), 8.0, 10.0),  # a disk: its own radius
        (_disks([(10 + 2 * R * i, 10) for i in range(5)], R, (21, 60)), R - 1, R + 1),
        (np.pad(np.ones((10, 40), np.uint8), 1), 4.0, 6.0),  # a band: half its width
        (_half_disk(30.0), 14.0, 16.5),  # cut by the crop's edge: half the half disk's
    ],
)
def test_thickness_is_the_widest_disk_inside(mask, lo, hi) -> None:
    assert lo <= thickness(mask) <= hi


@pytest.mark.parametrize("radius", [5.2 * R, 6.0 * R, 7.0 * R])  # 13-25 balls
def test_a_body_from_the_edge_is_an_actor_without_kmeans(radius) -> None:
    mask = _half_disk(radius)
    n_est = np.count_nonzero(mask) / (np.pi * R * R)
    assert n_est > MAX_PEAK_BALLS and thickness(mask) >= THICK * R
    fit = fit_blob(mask, R, isolated=True, edge=True)
    assert fit.actor and len(fit.centres) == 0 and not fit.splits
    inside = fit_blob(mask, R, isolated=True, edge=False)  # not from beyond: split as ever
    assert inside.splits


@pytest.mark.parametrize(
    "centres, shape",
    [
        ([(10 + 2 * R * i, 6) for i in range(6)], (13, 70)),  # a row along the cushion
        ([(6 + 2 * R * i, 6 + 2 * R * j) for i in range(4) for j in range(3)], (36, 42)),
        (_rack(5, R), (45, 60)),  # a rack touching the edge: gaps, no wide disk inside
    ],
)
def test_balls_at_the_edge_are_split_as_elsewhere(centres, shape) -> None:
    mask = _disks(centres, R, shape)
    assert thickness(mask) < THICK * R or np.count_nonzero(mask) < THICK_FROM * np.pi * R * R
    a = fit_blob(mask, R, isolated=False, edge=True)
    b = fit_blob(mask, R, isolated=False, edge=False)
    assert not a.actor and np.array_equal(a.centres, b.centres)
    assert abs(len(a.centres) - len(centres)) <= 1


def test_a_solid_rack_inside_the_table_is_split() -> None:
    """Reds whose gaps a halo fills (the snooker stills): as wide as a body, not one."""
    mask = _disks(_rack(5, R), 1.25 * R, (45, 60))
    assert thickness(mask) >= THICK * R
    fit = fit_blob(mask, R, isolated=True, edge=False)
    assert not fit.actor and len(fit.centres) >= 13


def test_detector_reports_a_body_over_the_cushion_as_an_actor(monkeypatch) -> None:
    import vision.detect.split as split

    runs = []
    kmeans = split._kmeans
    monkeypatch.setattr(split, "_kmeans", lambda *a, **k: runs.append(a[1]) or kmeans(*a, **k))
    t = load_table("pyramid-12ft")
    size = (1280, 720)
    calib = topdown_calib(t, size)
    img = draw_scene(calib, t, size, [(2600.0, 900.0, "yellow")])
    # a shirt leaning over the left cushion: an ellipse centred on its nose, unlike the
    # cloth and the rails alike (it reaches the examined picture's outer edge)
    (cx, cy), (ex, ey) = calib.table_to_pixel(np.array([[1500.0, 0.0], [1700.0, 170.0]]))
    axes = (int(ex - cx), int(ey - cy))
    cv2.ellipse(img, (int(cx), int(cy)), axes, 0, 0, 360, (170, 170, 60), -1)
    det = Detector(calib, t, size)
    det.fit_background([draw_scene(calib, t, size, [], seed=1)])
    d = det.detect(Frame(0, 0.0, img))
    assert len(d) == 1 and d.cls[0] == "yellow"
    assert len(d.actors) == 1
    x0, y0, x1, y1 = d.actors[0]
    assert x0 < 1500 < x1 and y0 < 100
    assert runs == []  # the body was not clustered into disks (one ball: its mean)
