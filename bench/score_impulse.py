"""Contacts scored against the truth whose impulse a camera can see.

The simulator writes each truth contact's ``impulse`` (the velocity each ball took, mm
per video frame; contract §9). A contact is read from the balls' velocity changes: the
straight fits over ``FIT_FRAMES`` samples before and after the touch, each a slope of
positions that carry the tracks' per-frame noise ``sigma`` mm. The change of velocity
so measured has a noise of ``sigma * sqrt(2 * 12 / (n (n^2 - 1)))`` (= ``sigma`` for
three samples a side); a contact whose impulse is below ``IMPULSE_SIGMAS`` times that
is not observable from positions alone (a rack's inner pair that passed 0.03 mm/frame).

``sigma`` is measured on the clip itself (:func:`track_noise`): the frame-to-frame
change of each tracked ball's error against the exact positions (its slowly varying
bias cancels; the white part is what blurs a velocity), robust (MAD) over every ball
and frame both sides have. The plain F1 stays the figure of record; this one is beside.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contract.events import EventType
from contract.match import Match
from contract.tracks import Tracks
from vision.series import series_from_tracks

FIT_FRAMES = 3  # samples of each straight fit a velocity change is read from
IMPULSE_SIGMAS = 3.0  # an observable impulse exceeds this many velocity-change sigmas


def dv_noise(sigma_mm: float, n: int = FIT_FRAMES) -> float:
    """Noise (mm/frame) of a velocity change read from two straight fits of ``n``
    samples each, the positions carrying ``sigma_mm`` of white noise."""
    return float(sigma_mm * np.sqrt(2.0 * 12.0 / (n * (n * n - 1))))


def impulse_threshold(sigma_mm: float, k: float = IMPULSE_SIGMAS) -> float:
    """Least impulse (mm/frame) an observable contact carries at noise ``sigma_mm``."""
    return k * dv_noise(sigma_mm)


def track_noise(pred: Tracks, exact: Tracks, ids: Callable[[str], str]) -> float | None:
    """Per-frame position noise (mm) of the predicted tracks: 1.4826 MAD of the
    frame-to-frame change of (predicted - exact) position, per axis, over every mapped
    ball (``ids``: predicted id -> truth id) and every pair of consecutive frames both
    sides have, divided by sqrt(2). None when no such pair exists."""
    sp, se = series_from_tracks(pred), series_from_tracks(exact)
    if not sp.ids or not se.ids:
        return None
    steps: list[np.ndarray] = []
    for b, pid in enumerate(sp.ids):
        tid = ids(pid)
        if tid not in se.ids:
            continue
        lo, hi = max(sp.first, se.first), min(sp.first + sp.n_frames, se.first + se.n_frames)
        if hi - lo < 2:
            continue
        p = sp.xy[b, lo - sp.first : hi - sp.first]
        e = se.xy[se.index(tid), lo - se.first : hi - se.first]
        vis = sp.visible[b, lo - sp.first : hi - sp.first]
        err = np.where(vis[:, None], p - e, np.nan)
        d = np.diff(err, axis=0).reshape(-1)
        steps.append(d[~np.isnan(d)])
    d = np.concatenate(steps) if steps else np.zeros(0)
    if len(d) == 0:
        return None
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2.0))


def faint_contacts(truth: Match, threshold: float) -> tuple[frozenset, int]:
    """Truth contacts whose impulse is below ``threshold`` mm/frame, as ``(frame, {ball,
    ball})`` keys, and how many truth contacts carry no impulse (an old truth file: they
    stay in, observable)."""
    out, unknown = set(), 0
    for e in [e for s in truth.shots for e in s.events] + list(truth.events):
        if e.type != EventType.CONTACT:
            continue
        if e.impulse is None:
            unknown += 1
        elif e.impulse < threshold:
            out.add((e.frame, frozenset(e.balls)))
    return frozenset(out), unknown
