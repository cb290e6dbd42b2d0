"""A hidden resting ball leaves its rest only when the departure is seen (``vision.track.tracker``).

pyr-pots-10-1080: the 2 rests by the left cushion; an arm reaching over it hides it,
and the arm's end, cut out as a white ball-wide smear 82 mm from the 2's home (inside
the near gate), was given to the hidden 2 for thirteen frames: TRACKS.csv showed the 2
flying to the hand and back. A struck ball does not do that: once it has left its home
it rolls on, away from the home, for many frames (a ball rolling at the slowest speed
that counts as motion rolls on for seconds), so the next time it is measured it has
moved on, away from the home, at the speed of motion or more.

So a hidden ball (not measured last frame) that the tracker predicts at rest where it
lies (its home, or where it was last measured when it has no home yet: pyr-reach-720's
1, seen only now and then under an arm) and that takes a detection farther than a ball
radius from there (a ball partly covered by an arm is seen by its visible part, whose
centre lies within its disk: within a radius) is *held*: its filter follows the detection as before, but its rows wait. The departure is
confirmed, and the rows go out as measured, when the next measurement has moved on,
away from the home, at ``rest_speed_mm_s`` or more (the tracker's own line between rest
and motion), or when the home is visibly empty cloth (the ball is not there), or when
the track leaves the table (pocketed, lost: as before). It is refused when the ball is
measured back within a radius of its home, when the next measurement has not moved on
(a hand holding still), or when ``far_gate_misses`` frames pass with no measurement
(the tracker's bound on frames a struck ball may go unseen): the ball is restored at
its home, hidden, and the held rows are rewritten where it was last seen at rest
(where the tracker predicts a hidden resting ball), with ``visible=0``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vision.capture.source import Detections
from vision.track.state import TrackerConfig, _Track

# the filter and bookkeeping fields put back when a departure is refused
_STATE = (
    "x",
    "pa",
    "pb",
    "pc",
    "last_seen",
    "last_t",
    "hits",
    "last_xy",
    "last_v",
    "occluded",
    "moving_run",
    "empty_run",
    "rest_run",
    "home_xy",
)


@dataclass
class Hold:
    """A hidden resting ball's unconfirmed departure: where it rests (``home``, table
    mm), the track's state before it took the first far detection (``saved``), the last
    detection's place ``z`` (mm), time ``t`` (s) and frame, and the frame the hold began."""

    home: np.ndarray
    saved: dict
    z: np.ndarray
    t: float
    frame: int
    began: int


def _copy(v):
    return v.copy() if isinstance(v, np.ndarray) else v


def start_holds(
    live: list[_Track],
    det: Detections,
    pairs: list[tuple[int, int]],
    radius_mm: float,
    resting: Callable[[_Track], bool],
) -> None:
    """Hold each track of ``pairs`` (index in ``live``, detection index) that is active,
    at rest (``resting``: the tracker believes it still), not measured last frame and
    not already held, and takes a detection farther than ``radius_mm`` from where it
    rests: its home, or where it was last measured when it has none yet (table mm).
    Call before the filters take the measurements."""
    for i, j in pairs:
        tr = live[i]
        if tr.hold is not None or tr.state != "active" or tr.last_seen >= det.frame - 1:
            continue
        home = tr.home_xy if tr.home_xy is not None else tr.last_xy
        if resting(tr) and float(np.linalg.norm(det.xy[j] - home)) > radius_mm:
            saved = {k: _copy(getattr(tr, k)) for k in _STATE}
            tr.hold = Hold(home.copy(), saved, det.xy[j].copy(), det.t, det.frame, det.frame)


def judge_holds(
    live: list[_Track],
    det: Detections,
    matched: dict[int, int],
    cfg: TrackerConfig,
    radius_mm: float,
    empty: Callable[[np.ndarray], np.ndarray] | None,
) -> list[tuple]:
    """Confirm or refuse the held departures of ``live`` after this frame's filters and
    states were updated (``matched``: id(track) -> detection index; a refused track's
    entry is removed, so that its row this frame is predicted). Returns the rows released
    (TRACKS.csv tuples, earlier frames); a still-held track keeps its home."""
    out: list[tuple] = []
    for tr in live:
        h = tr.hold
        if h is None:
            continue
        if tr.state != "active":  # pocketed or lost while held: as the tracker decided
            out += _release(tr)
            continue
        if h.began == det.frame:
            tr.home_xy = h.home  # not the detection's place: the home stays until confirmed
            continue
        j = matched.get(id(tr))
        if j is None:
            if det.frame - h.frame <= cfg.far_gate_misses:
                tr.home_xy = h.home
                continue
            verdict = "refuse"
        else:
            verdict = _verdict(h, det.xy[j], det.t, cfg.rest_speed_mm_s, radius_mm)
            h.z, h.t, h.frame = det.xy[j].copy(), det.t, det.frame
        if verdict == "refuse" and empty is not None and bool(empty(h.home[None])[0]):
            verdict = "confirm"  # its home is empty cloth: the ball did leave
        if verdict == "confirm":
            out += _release(tr)
        elif verdict == "home":
            out += _refuse(tr, restore=False)
        elif verdict == "refuse":
            out += _refuse(tr, restore=True)
            matched.pop(id(tr), None)
        else:
            tr.home_xy = h.home
    return out


def _verdict(h: Hold, z: np.ndarray, t: float, rest_speed: float, radius_mm: float) -> str:
    """What a held track's new measurement ``z`` (mm) at ``t`` (s) says: ``home`` (back
    within a radius of its home), ``confirm`` (moved on, away from the home, at the speed
    of motion or more) or ``refuse`` (it did not move on)."""
    d = float(np.linalg.norm(z - h.home))
    if d <= radius_mm:
        return "home"
    speed = float(np.linalg.norm(z - h.z)) / max(t - h.t, 1e-3)
    away = d > float(np.linalg.norm(h.z - h.home))
    return "confirm" if speed >= rest_speed and away else "refuse"


def _release(tr: _Track) -> list[tuple]:
    """The held rows as measured (the departure is real); the hold ends."""
    rows, tr.pending, tr.hold = tr.pending, [], None
    return rows


def _refuse(tr: _Track, restore: bool) -> list[tuple]:
    """The held rows rewritten where the hidden ball was last seen at rest (where the
    tracker predicts a hidden resting ball), not measured (``visible=0``); with
    ``restore`` the track's state before the hold is put back (hidden at rest there),
    else it keeps this frame's measurement (seen again at home)."""
    h = tr.hold
    hx, hy = (float(v) for v in h.saved["last_xy"])
    rows = [(r[0], r[1], r[2], hx, hy, 0, None, None) for r in tr.pending]
    if restore:
        for k, v in h.saved.items():
            setattr(tr, k, _copy(v))
        tr.x = np.r_[tr.last_xy, 0.0, 0.0]  # at rest where it was last seen, not moving
    else:  # measured at home now: at rest there, not moving
        tr.home_xy, tr.moving_run, tr.last_v = h.home, 0, np.zeros(2)
        tr.x[2:] = 0.0
    tr.pending, tr.hold = [], None
    return rows


def end_holds(tracks: list[_Track]) -> list[tuple]:
    """The video ended with departures unconfirmed: each held ball's rows at its home."""
    return [r for tr in tracks if tr.hold is not None for r in _refuse(tr, restore=True)]
