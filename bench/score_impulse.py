"""Contacts scored against the truth whose impulse a camera can see.

The simulator writes each truth contact's ``impulse`` (the velocity each ball took, mm
per video frame; contract §9). A contact is read from the balls' velocity changes: the
straight fits over ``FIT_FRAMES`` samples before and after the touch, each a slope of
positions that carry the tracks' per-frame noise ``sigma`` mm. The change of velocity
so measured has a noise of ``sigma * sqrt(2 * 12 / (n (n^2 - 1)))`` (= ``sigma`` for
three samples a side); a contact whose impulse is below ``IMPULSE_SIGMAS`` times that
is not observable from positions alone (a rack's inner pair that passed 0.03 mm/frame).

For tracks from video the velocity-change noise is measured on the clip itself
(:func:`dv_error_noise`): the same two fits applied to each moving ball's error against
the exact positions (a slowly varying bias cancels; what is left blurs a velocity
change), robust (MAD) over every ball and frame both sides have. For tracks with known
white noise it is :func:`dv_noise`. The plain F1 stays the figure of record; this one
is beside.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contract.events import EventType
from contract.match import Match
from contract.tracks import Tracks
from vision.events.series import series_from_tracks

FIT_FRAMES = 3  # samples of each straight fit a velocity change is read from
IMPULSE_SIGMAS = 3.0  # an observable impulse exceeds this many velocity-change sigmas
MOVING_MM = 5.0  # a ball covering more than this over six frames is moving


def dv_noise(sigma_mm: float, n: int = FIT_FRAMES) -> float:
    """Noise (mm/frame) of a velocity change read from two straight fits of ``n``
    samples each, the positions carrying ``sigma_mm`` of white noise."""
    return float(sigma_mm * np.sqrt(2.0 * 12.0 / (n * (n * n - 1))))


def impulse_threshold(sigma_dv: float, k: float = IMPULSE_SIGMAS) -> float:
    """Least impulse (mm/frame) an observable contact carries where a velocity change
    is read with noise ``sigma_dv`` mm/frame (:func:`dv_noise`, :func:`dv_error_noise`)."""
    return k * sigma_dv


def dv_error_noise(pred: Tracks, exact: Tracks, ids: Callable[[str], str]) -> float | None:
    """Noise (mm/frame) of a velocity change read from the predicted tracks, measured
    against the exact positions: at every frame k of a mapped ball (``ids``: predicted
    id -> truth id) moving (more than ``MOVING_MM`` from k-2 to k+3 in the exact
    positions) and measured (``visible``) over k-2 .. k+3, the change between the straight
    fits of k-2..k and k+1..k+3 (slopes of three samples) of its error, predicted less
    exact; 1.4826 MAD per axis over all of them. A resting ball held still by the
    tracker has none (a rack's members before the break): only motion shows the noise
    a contact's impulse must stand out of. None when no such frame exists."""
    sp, se = series_from_tracks(pred), series_from_tracks(exact)
    found: list[np.ndarray] = []
    for b, pid in enumerate(sp.ids):
        tid = ids(pid)
        if tid not in se.ids:
            continue
        lo, hi = max(sp.first, se.first), min(sp.first + sp.n_frames, se.first + se.n_frames)
        if hi - lo < 6:
            continue
        p = sp.xy[b, lo - sp.first : hi - sp.first]
        e = se.xy[se.index(tid), lo - se.first : hi - se.first]
        vis = sp.visible[b, lo - sp.first : hi - sp.first]
        err = np.where(vis[:, None], p - e, np.nan)
        k = np.arange(2, len(err) - 3)
        dv = 0.5 * (err[k + 3] - err[k + 1]) - 0.5 * (err[k] - err[k - 2])
        moving = np.linalg.norm(e[k + 3] - e[k - 2], axis=1) > MOVING_MM
        dv = dv[moving & ~np.isnan(dv).any(axis=1)].reshape(-1)
        found.append(dv)
    d = np.concatenate(found) if found else np.zeros(0)
    if len(d) == 0:
        return None
    return float(1.4826 * np.median(np.abs(d - np.median(d))))


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
