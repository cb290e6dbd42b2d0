"""Centres of touching balls in rendered pictures (the synthetic renderer: lamps' soft
shadows, shading, the camera's perspective): balls of a frozen cluster read touching.
With ``vision.detect.refine.SYMMETRIC_CELL`` the centroid among neighbours takes what lies
beyond a ball's disk and its edge only where it is symmetric about the estimate; without
it (the default: the event stage's tolerances were set on centres read apart) a bisector
with a touching ball cuts the ball's shadow and blur on that side only, and touching
balls read about 1 mm apart per neighbour. Positions table mm; at 720p a ball's
radius is about 9 px (3.7 mm a px), at 1080p about 14 px."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

import vision.detect.refine as refine
from contract.calib import Calibration
from contract.tables import load_table
from synth.camera import random_camera
from synth.planner import rack
from synth.render import Renderer
from synth.world import BallInfo, BallPose, WorldFrame
from vision.capture.source import Frame
from vision.detect.detector import Detector

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius
SIZES = {"720": (1280, 720), "1080": (1920, 1080)}


def _cluster(kind: str) -> dict[str, tuple[float, float]]:
    """Truth centres (mm): a full rack on its spot, or two / three balls touching."""
    if kind == "rack":
        return rack(TABLE, np.random.default_rng(0))
    a = np.array([2400.0, 700.0])
    pts = [a, a + [2 * R, 0.0], a + [R, np.sqrt(3) * R]][: 2 if kind == "pair" else 3]
    return {str(k + 1): (float(p[0]), float(p[1])) for k, p in enumerate(pts)}


def _read_gaps(size: str, kind: str, seed: int) -> np.ndarray:
    """Read centre distance less the true one (mm) of every truly touching pair."""
    wh = SIZES[size]
    cam = random_camera(TABLE, wh, np.random.default_rng(seed))
    balls = _cluster(kind)
    infos = {b: BallInfo(b, "white", int(b)) for b in balls}
    ren = Renderer(TABLE, [cam], infos, seed=seed)
    empty, _ = ren.render(WorldFrame(0, 0.0, {}))
    img, _ = ren.render(
        WorldFrame(1, 1 / 30, {b: BallPose(x, y, R) for b, (x, y) in balls.items()})
    )
    det = Detector(Calibration(cam.to_calibration(TABLE)), TABLE, wh)
    det.fit_background([empty])
    d = det.detect(Frame(1, 1 / 30, img))
    truth = np.array(list(balls.values()))
    i, j = linear_sum_assignment(cdist(truth, d.xy))
    assert len(i) == len(truth)
    read = d.xy[j[np.argsort(i)]]
    gaps = []
    for a in range(len(truth)):
        for b in range(a + 1, len(truth)):
            true = float(np.linalg.norm(truth[a] - truth[b]))
            if true < 2 * R + 0.5:
                gaps.append(float(np.linalg.norm(read[a] - read[b])) - true)
    return np.array(gaps)


@pytest.mark.parametrize(
    ("size", "kind", "seed"),
    [
        ("720", "pair", 1),
        ("720", "triple", 2),
        ("720", "rack", 3),
        ("1080", "pair", 4),
        ("1080", "triple", 5),
        ("1080", "rack", 6),
    ],
)
def test_touching_balls_read_touching(size, kind, seed, monkeypatch):
    monkeypatch.setattr(refine, "SYMMETRIC_CELL", True)
    gaps = _read_gaps(size, kind, seed)
    assert abs(float(gaps.mean())) < 0.4, gaps.round(2)
    assert float(np.percentile(np.abs(gaps), 90)) < 1.2, gaps.round(2)
    assert float(np.abs(gaps).max()) < 1.8, gaps.round(2)


@pytest.mark.parametrize(("size", "kind", "seed"), [("720", "triple", 2), ("1080", "triple", 5)])
def test_one_sided_centroid_pushes_touching_balls_apart(size, kind, seed, monkeypatch):
    """The same clusters with the centroid's window cut by the bisector alone."""
    monkeypatch.setattr(refine, "SYMMETRIC_CELL", False)
    before = _read_gaps(size, kind, seed)
    monkeypatch.setattr(refine, "SYMMETRIC_CELL", True)
    after = _read_gaps(size, kind, seed)
    assert float(before.mean()) > 0.5
    assert abs(float(after.mean())) < 0.5 * float(before.mean())
