"""A ball at rest read in another colour for a frame or a few (``vision.track.tracker``).

clip1 of the pool footage: the pink 4, resting in the rack, was read orange and, for three
frames in a row, red. The tracker never gives a ball of a sure colour a sharp detection of
another colour, so the red detections were left over and born as a second ball at the
same place (11 balls counted for 10). No other ball fits within a fraction of a radius of
a resting ball's centre, so a detection left over there is that ball, misread.
"""

from __future__ import annotations

import numpy as np

from vision.base.assign import linear_sum_assignment
from vision.detect.detector import Detections
from vision.track.state import _Track

AT_REST = 0.5  # ball radii: a leftover detection this near a ball seen at rest is that ball


def at_rest_pairs(
    live: list[_Track], det: Detections, used_t: set[int], used_d: set[int], radius_mm: float
) -> list[tuple[int, int]]:
    """Pairs (index in ``live``, detection index) of a ball of a sure colour measured at
    rest last frame (not a hidden ball's predicted place) and a sharp detection of another
    colour within :data:`AT_REST` x ``radius_mm`` of it (table mm), both left over by the
    usual assignment (``used_t``, ``used_d``); nearest first (Hungarian)."""
    ts = [
        i
        for i, t in enumerate(live)
        if i not in used_t
        and t.state == "active"
        and t.moving_run == 0
        and t.sure
        and t.last_seen >= det.frame - 1
    ]
    ds = np.array([j for j in range(len(det)) if j not in used_d and not det.blurred[j]], int)
    if not ts or not len(ds):
        return []
    last = np.array([live[i].last_xy for i in ts])
    return nearest_leftovers(live, ts, last, det, ds, False, AT_REST * radius_mm)


def nearest_leftovers(
    live: list[_Track],
    ts: list[int],
    at: np.ndarray,
    det: Detections,
    ds: np.ndarray,
    same_colour: bool,
    gate_mm: float,
) -> list[tuple[int, int]]:
    """Pairs (index in ``live``, detection index) of the tracks ``ts`` and detections
    ``ds`` left over by the usual assignment, nearest first (Hungarian): each track's
    place ``at`` (len(ts),2 table mm: where it rests) within ``gate_mm`` of a detection of
    its own colour (``same_colour``) or of another colour (not)."""
    d = np.linalg.norm(at[:, None, :] - det.xy[ds][None, :, :], axis=2)
    tcls = np.array([live[i].cls for i in ts], object)
    same = tcls[:, None] == np.asarray(det.cls, object)[ds][None, :]
    d[~same if same_colour else same] = np.inf
    d[d > gate_mm] = np.inf
    r, c = linear_sum_assignment(np.where(np.isfinite(d), d, 1e9))
    return [(ts[a], int(ds[b])) for a, b in zip(r, c, strict=True) if np.isfinite(d[a, b])]
