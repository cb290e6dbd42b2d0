"""Detector-level causes of the strikes and pockets missed or invented on the real footage
(``tablemon bench events_real``), each reproduced on small synthetic pictures (top-down
calibration, exact centres; tests/vision/vision_scene.py):

- clip5: a resting ball is measured by its edge fit while its blob stands still and by its
  plain centroid once a cue tip touching it changes the blob; the switch moved its centre
  (1.7 mm there), and the strike was dated at the switch, 4 frames early.
- clip3: the blue 2 struck on blue cloth is a faint streak for the five frames it rolls
  to the pocket (its ball-sized mean colour distance from the cloth 14-16, the detector's
  threshold 22; the cloth's own marks reach 8.6): never detected after the contact, so
  its track ends in the open and the pocket is missed. Not fixed yet: the strict xfail
  below is that case. A second cause stands behind it: the cue ball's own track is lost
  at 30 (smeared, 380 mm from its prediction at 31, past the far gate) and it goes on as a
  new track, so no contact explains the blue's motion and the events' causal filter would
  drop its pocket even where its streak is found.

Positions table mm; pictures 1280x720 px.
"""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib

import vision.detect.detector as detect_mod
from contract.tables import load_table
from vision.capture.source import Frame
from vision.detect.detector import Detector

SIZE = (1280, 720)
POOL = load_table("pool-9ft")
HALO = (235, 225, 110)  # a bright arc beside the ball: pulls its centroid
CUE = (60, 90, 150)


def _resting_ball_then_cue_tip() -> tuple[np.ndarray, list[np.ndarray]]:
    """A white ball at rest with a bright arc just outside it on its +y side (its centroid
    is pulled, its edge fit is not), 12 still frames, then a cue tip along -x touching it
    (the blob changes) for 8 frames. Returns (the ball's centre mm, the frames)."""
    calib = topdown_calib(POOL, SIZE)
    xy = np.array([900.0, 500.0])
    img = draw_scene(calib, POOL, SIZE, [(*xy, "white")])
    c = calib.table_to_pixel(xy[None], height=POOL.ball_radius)[0]
    edge = calib.table_to_pixel((xy + [POOL.ball_radius, 0.0])[None], height=POOL.ball_radius)
    r = float(np.linalg.norm(edge[0] - c))
    gy, gx = np.mgrid[0 : SIZE[1], 0 : SIZE[0]].astype(np.float32)
    d = np.hypot(gx - c[0], gy - c[1])
    still = img.copy()
    still[(d > 1.2 * r) & (d < 1.5 * r) & (gy - c[1] > 0.3 * np.abs(gx - c[0]))] = HALO
    touched = still.copy()
    touched[(gx < c[0] - r + 1) & (gx > c[0] - r - 60) & (np.abs(gy - c[1]) < 4)] = CUE
    return xy, [still] * 12 + [touched] * 8


@pytest.mark.parametrize(("reach", "max_jump_mm"), [(detect_mod.SHIFT_REACH, 1.0), (0.0, None)])
def test_resting_ball_keeps_its_centre_when_a_cue_tip_changes_its_blob(
    monkeypatch, reach, max_jump_mm
):
    """The edge-minus-centroid offset measured while the ball stood still is carried to
    the frames measured by the centroid: along the arc's pull (+y) the centre stays put
    (the tip's own pull lies along its axis, x). Without the carry (reach 0) it jumps by
    the arc's pull, several mm: the cause of clip5's early strike."""
    monkeypatch.setattr(detect_mod, "SHIFT_REACH", reach)
    xy, frames = _resting_ball_then_cue_tip()
    det = Detector(topdown_calib(POOL, SIZE), POOL, SIZE)
    det.fit_background([draw_scene(topdown_calib(POOL, SIZE), POOL, SIZE, [], seed=1)])
    seen = []
    for k, img in enumerate(frames):
        d = det.detect(Frame(k, k / 25.0, img))
        seen.append(d.xy[int(np.argmin(np.linalg.norm(d.xy - xy, axis=1)))])
    seen = np.array(seen)
    assert np.abs(seen[:12] - xy).max() < 0.5  # at rest: the edge fit, on the ball
    jump = float(np.abs(seen[12:, 1] - seen[11, 1]).max())
    if max_jump_mm is not None:
        assert jump < max_jump_mm
    else:
        assert jump > 3.0


def _streak(img: np.ndarray, a: np.ndarray, b: np.ndarray, r: float, step: float) -> np.ndarray:
    """``img`` with a motion streak from ``a`` to ``b`` (px) of half-width ``r`` px: the
    cloth darkened by ``step`` levels (a dark blue ball smeared over blue cloth)."""
    gy, gx = np.mgrid[0 : img.shape[0], 0 : img.shape[1]].astype(np.float32)
    ab = b - a
    t = np.clip(((gx - a[0]) * ab[0] + (gy - a[1]) * ab[1]) / float(ab @ ab), 0, 1)
    d = np.hypot(gx - (a[0] + t * ab[0]), gy - (a[1] + t * ab[1]))
    w = np.clip(r - d + 0.5, 0, 1)[..., None] * np.array([1.0, 1.0, 0.6])
    return np.clip(img.astype(np.float32) - step * w, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(
    "step",
    [
        pytest.param(
            15.0,
            marks=pytest.mark.xfail(
                strict=True, reason="clip3: a streak this faint is under the threshold"
            ),
        ),
        40.0,
    ],
)
def test_faint_streak_of_a_struck_blue_ball_on_blue_cloth_is_found(step):
    """The navy ball rests for 8 frames, then only its streak is seen, 3-6 diameters away
    (clip3's blue 2 one frame after the cue ball hit it). Darkened by 40 levels the streak
    is found (a smear); by 15 (clip3's contrast) it is not."""
    size = (1920, 1080)
    calib = topdown_calib(POOL, size)
    rest = np.array([1600.0, 600.0])
    others = [(400.0, 300.0, "white"), (800.0, 900.0, "yellow"), (2000.0, 1000.0, "red")]
    still = draw_scene(calib, POOL, size, [(*rest, "navy"), *others])
    gone = draw_scene(calib, POOL, size, others)
    c = calib.table_to_pixel(rest[None], height=POOL.ball_radius)[0]
    edge = calib.table_to_pixel((rest + [POOL.ball_radius, 0.0])[None], height=POOL.ball_radius)
    r = float(np.linalg.norm(edge[0] - c))
    det = Detector(calib, POOL, size)
    det.fit_background([draw_scene(calib, POOL, size, others, seed=1)])
    for k in range(8):
        assert len(det.detect(Frame(k, k / 30.0, still))) == 4
    a = c + (60.0, -40.0)
    b = a + (90.0, -60.0)
    d = det.detect(Frame(8, 8 / 30.0, _streak(gone, a, b, r, step)))
    near = np.hypot(*(d.uv - (a + b) / 2).T) < 4 * r
    assert near.any() and d.blurred[near].all()
