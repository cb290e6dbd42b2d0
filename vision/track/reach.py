"""A ball leaves rest from its home: the smear it is first seen as runs through the home.

A ball at rest that is struck starts moving *from where it lay*: in the exposure of the
frame it is first seen moving, its centre runs along a straight line that starts at its
home (table mm) or, when it was missed a frame or two, passes the home further back. A
motion smear is the picture of that run: its long axis (``Detections.axis``, table mm)
is the line the centre ran along, so the home lies on that line, within the
measurement noise of a smear's axis. A smear far from a resting ball whose axis passes
the home well off to one side is not that ball leaving (a player's hand or arm cut out
as a ball-wide smear beside a ball it reaches over, pyr-reach-4-720): the tracker's far
gate, which lets a ball seen lately jump several diameters, does not give it to the
resting ball, which stays where it lay.

The band is :data:`REACH_BAND` ball radii either side of the axis: a ball's smear is a
ball wide, so a centre line off the home by more than a radius leaves the ball's own
disk at home outside the smear's middle (physics, not a fit). Measured on the 94
rendered benchmark clips: every resting ball that took a smear through the far gate
had its home 0.35 radii or less off the smear's axis (0.51 through the near gate); the
hands' smears were 2.2 to 3.1 radii off (pyr-reach-4-720, pyr-reach-720). Sharp
detections (no axis) and balls not at rest are not judged here.
"""

from __future__ import annotations

import numpy as np

from vision.capture.source import Detections
from vision.track.state import _Track

REACH_BAND = 1.0  # ball radii either side of a smear's axis where the home of its ball lies


def off_axis(home: np.ndarray, xy: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """(N,) distances (mm) of the points ``home`` (N,2 table mm) from the lines through
    ``xy`` (N,2 mm) along the unit vectors ``axis`` (N,2); NaN where an axis is NaN."""
    d = np.asarray(home, float) - np.asarray(xy, float)
    a = np.asarray(axis, float)
    return np.abs(d[:, 0] * a[:, 1] - d[:, 1] * a[:, 0])


def leaving_home(
    tracks: list[_Track], pairs: list[tuple[int, int]], det: Detections, radius_mm: float
) -> list[tuple[int, int]]:
    """Of far-gate ``pairs`` (index in ``tracks``, detection index), those physics
    allows: a ball at rest in its home (``home_xy`` set, its last measured step at rest)
    takes a smear only when the smear's axis passes within :data:`REACH_BAND` radii of
    the home. Every other pair is kept, as are all pairs when ``det`` has no axes."""
    axis = det.axis
    if axis is None or len(axis) != len(det) or not pairs:
        return pairs
    judged = [
        k
        for k, (i, j) in enumerate(pairs)
        if tracks[i].home_xy is not None
        and tracks[i].moving_run == 0
        and det.blurred[j]
        and np.isfinite(axis[j]).all()
    ]
    if not judged:
        return pairs
    home = np.array([tracks[pairs[k][0]].home_xy for k in judged])
    js = [pairs[k][1] for k in judged]
    off = off_axis(home, det.xy[js], axis[js])
    bad = {k for k, o in zip(judged, off.tolist(), strict=True) if o > REACH_BAND * radius_mm}
    return [p for k, p in enumerate(pairs) if k not in bad]
