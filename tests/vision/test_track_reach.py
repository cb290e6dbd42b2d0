"""A ball leaving rest starts from its home: a smear far from a resting ball whose long
axis passes well off the home (a player's hand cut out as a ball-wide smear beside a
ball it reaches over) is not that ball leaving, and the far gate does not give it to
the ball (pyr-reach-4-720: ball 8 seen to jump 100 mm at frames 46 and 321, the hand's
smear axis 2.2 radii off its home: two invented shots). A smear whose axis runs
through the home (a struck ball) is taken as before, and so is a sharp detection."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from contract.tables import load_table
from vision.detect.detector import Detections
from vision.detect.split import fit_blob, long_axis
from vision.track.reach import REACH_BAND, off_axis
from vision.track.tracker import Tracker

FPS = 30.0
HOME = np.array([2019.0, 1733.0])  # table mm: ball 8's home along the cushion in the clip
OTHER = np.array([1770.0, 900.0])
SMEAR_AT = HOME + [-100.0, 2.0]  # the hand's smear, measured in the clip (2.93 radii off)


def _run(angle_deg: float | None, hidden: int) -> tuple[float, float]:
    """w1 rests 30 frames at HOME, goes unseen ``hidden`` frames, then a detection shows
    at SMEAR_AT: a smear whose long axis points ``angle_deg`` degrees from the table's
    x axis, or a sharp ball when None; next frame it shows again 30 mm on along that
    line, away from HOME (a struck ball rolls on: vision.track.depart). Returns w1's
    distance (mm) from HOME on those two frames (rows held a frame or two included)."""
    tracker = Tracker(load_table("pyramid-12ft"))
    seen = 30 + hidden
    if angle_deg is None:
        a = None
        on = (SMEAR_AT - HOME) / np.linalg.norm(SMEAR_AT - HOME)
    else:
        a = np.array([math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))])
        on = a if a @ (SMEAR_AT - HOME) > 0 else -a
    rows = []
    for k in range(seen + 2):
        if k < 30:
            det = Detections.from_xy(k, k / FPS, [HOME, OTHER], ["white"] * 2)
        elif k >= seen:
            at = SMEAR_AT + (k - seen) * 30.0 * on
            det = Detections.from_xy(k, k / FPS, [OTHER, at], ["white"] * 2)
            if a is not None:
                axis = np.array([[np.nan, np.nan], a])
                det = replace(det, blurred=np.array([False, True]), axis=axis)
        else:
            det = Detections.from_xy(k, k / FPS, [OTHER], ["white"])
        rows.append(tracker.update(det))
    rows.append(tracker.finish())
    w1 = {
        f: (x, y)
        for r in rows
        for f, i, x, y in zip(r.frame, r.id, r.x, r.y, strict=True)
        if i == "w1"
    }
    now, then = (float(np.hypot(*(np.array(w1[f]) - HOME))) for f in (seen, seen + 1))
    return now, then


@pytest.mark.parametrize("hidden", [0, 1, 2])
@pytest.mark.parametrize(
    ("angle_deg", "taken"),
    [
        (0.0, True),  # the smear runs along the line from the home: a struck ball
        (180.0, True),  # the same line, the other way round
        (12.0, True),  # 0.6 radii off: within a smear's band
        (47.0, False),  # the hand's smear in the clip: its axis 2.2 radii off the home
        (90.0, False),  # across the line from the home
        (None, True),  # a sharp detection: not judged here (no axis)
    ],
)
def test_resting_ball_takes_only_a_smear_running_through_its_home(angle_deg, taken, hidden):
    now, then = _run(angle_deg, hidden)
    if taken:
        assert now == pytest.approx(float(np.hypot(*(SMEAR_AT - HOME))), abs=1.0)
    else:
        assert now < 1.0 and then < 1.0  # it stays where it lay


@pytest.mark.parametrize(
    ("home", "xy", "axis", "want"),
    [
        ((0.0, 0.0), (100.0, 0.0), (1.0, 0.0), 0.0),
        ((0.0, 0.0), (100.0, 0.0), (0.0, 1.0), 100.0),
        ((0.0, 34.0), (100.0, 0.0), (-1.0, 0.0), 34.0),
        ((0.0, 0.0), (100.0, 100.0), (math.sqrt(0.5), math.sqrt(0.5)), 0.0),
    ],
)
def test_off_axis_is_the_distance_from_the_smear_line(home, xy, axis, want):
    got = off_axis(np.array([home]), np.array([xy]), np.array([axis]))
    assert got[0] == pytest.approx(want, abs=1e-9)


def test_a_ball_is_within_the_band_of_its_own_smear_but_the_hand_is_not():
    r = load_table("pyramid-12ft").ball_radius
    assert REACH_BAND * r < 2.2 * r  # the hand's measured offset is outside the band
    assert REACH_BAND * r >= 0.6 * r  # a struck ball's measured offsets are inside


@pytest.mark.parametrize("angle_deg", [0.0, 30.0, 49.0, 90.0, 135.0])
def test_smear_fit_gives_its_long_axis(angle_deg):
    """A ball smeared along ``angle_deg`` (image px, y down): the fit says smear and its
    axis is that direction (either way along it)."""
    r = 4.75  # work px, as a ball at 720p
    mask = np.zeros((60, 60), np.uint8)
    a = math.radians(angle_deg)
    d = 2.0 * r * np.array([math.cos(a), math.sin(a)])  # half the run: three balls long
    p0, p1 = np.round(30 + d).astype(int), np.round(30 - d).astype(int)
    cv2.line(mask, tuple(p0.tolist()), tuple(p1.tolist()), 1, int(round(2 * r)))
    fit = fit_blob(mask, r)
    assert fit.smear
    for ax in (fit.axis, long_axis(mask)):
        assert abs(ax[0] * math.cos(a) + ax[1] * math.sin(a)) > math.cos(math.radians(5))
