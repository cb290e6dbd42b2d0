"""Checks that keep a contact finder honest: evidence that a touch did (or did not)
pass an impulse, read from the balls' positions around it.

Positions table mm, times fractional frames (series index), noise ``sigma`` mm.
"""

from __future__ import annotations

import numpy as np

from vision.events.series import Series, line_fit


def _window(series: Series, b: int, lo: int, hi: int) -> np.ndarray | None:
    """Positions (mm) of ball ``b`` over frames ``lo .. hi-1``; None when any is missing
    or the window leaves the series."""
    if lo < 0 or hi > series.n_frames:
        return None
    xy = series.xy[b, lo:hi]
    return None if np.isnan(xy).any() else xy


def stayed_put(series: Series, b: int, f: float, sigma: float, n: int = 3) -> bool:
    """Ball ``b`` stood still over the ``n`` frames before ``f`` and after it: every
    position within ``0.3 mm + 4 sigma`` of its position just before. A ball another ball
    touched moves off (or passes the push on to a ball it leans on: :func:`untouched`)."""
    k = int(np.floor(f))
    xy = _window(series, b, k - n + 1, k + n + 1)
    if xy is None:
        return False
    return bool(np.linalg.norm(xy - xy[n - 1], axis=1).max() < 0.3 + 4.0 * sigma)


# frames either side of a touch over which a ball at rest must stand still to have taken
# no push: the last of n frames after floor(f) lies n - 1 to n frames after the touch, and
# a ball pushed gently (about 1 mm/frame: it slides, then rolls at 5/7 of that, slowing)
# gets past the stayed_put tolerance only in its third or fourth frame (on the synthetic
# 720p pyr-break-5-720, ball 14 touched by 13 at 1.1 mm/frame was 1.38 mm from rest 2.2
# frames later, read 1.09 mm, 1.10 mm allowed)
STILL_N = 4


def untouched(
    series: Series, b: int, other: int, f: float, R: float, sigma: float, n: int = STILL_N
) -> bool:
    """Ball ``b`` did not take a push from ``other`` at ``f``: it stood still over the
    ``n`` frames before and after (:func:`stayed_put`), and no ball resting against it on
    the far side from ``other`` (touching within ``3 mm + 3 sigma``: a detector places
    balls that touch a mm or two apart; its centre ahead of ``b`` along the push) set off
    then, as the last ball of a Newton's cradle does while the middle one stays put."""
    if not stayed_put(series, b, f, sigma, n):
        return False
    return not _passed_on(series, b, other, f, R, sigma, n)


def _passed_on(
    series: Series, b: int, other: int, f: float, R: float, sigma: float, n: int, reach: float = 0.0
) -> bool:
    """A ball resting against ``b`` on the far side from ``other`` (touching within
    ``3 mm + 3 sigma``, or within ``reach`` mm: as far as ``b`` would travel; its centre
    ahead of ``b`` along the push) set off at ``f``: the push went through ``b`` (a
    Newton's cradle), or ``b`` ran into it before going that far. True where the push's
    line is unread."""
    k = int(np.floor(f))
    pb, po = series.xy[b, k], series.xy[other, k]
    push = pb - po
    if np.isnan(push).any():
        return True
    push = push / max(float(np.linalg.norm(push)), 1e-9)
    for c in range(len(series.ids)):
        if c in (b, other):
            continue
        pc = series.xy[c, k]
        if np.isnan(pc[0]):
            continue
        d = pc - pb
        gap = float(np.linalg.norm(d)) - 2 * R
        ahead = float(d @ push) > 0.5 * float(np.linalg.norm(d))
        near = gap < max(3.0 + 3.0 * sigma, reach)
        if near and ahead and not stayed_put(series, c, f, sigma, n):
            return True
    return False


def stayed_short(
    series: Series,
    b: int,
    other: int,
    f: float,
    R: float,
    sigma: float,
    travel: float,
    n: int = 6,
) -> bool:
    """Ball ``b``, at rest before ``f``, did not travel as a ball given the least impulse a
    contact carries would: the median of its ``n`` positions from two frames after ``f``
    (the frames a fast ball passing beside it smears left out), plus its wobble before
    where that exceeds the rest noise, lies less than ``travel`` mm (that impulse's
    travel to the window's middle) minus three noise sigmas of two medians at rest
    (``sigma``: the rest noise, mm, one axis; a median of ``n`` carries
    ``1.25 sigma / sqrt(n)``) from the median of its ``n`` positions before, and no ball
    resting against it, or within ``travel`` ahead of it, took the push on
    (:func:`_passed_on`). A resting ball beside a fast
    smeared one wobbles by more than its rest noise for a frame or two and back (on the
    synthetic 1080p carom break, 0.7 mm as a ball passed 6 mm off at 75 mm/frame, the
    truth not moving): :func:`stayed_put` reads that as a start, this does not. False
    where a position is missing."""
    k = int(np.floor(f))
    pre = _window(series, b, k - n + 1, k + 1)
    post = _window(series, b, k + 2, k + 2 + n)
    if pre is None or post is None:
        return False
    rest = np.median(pre, axis=0)
    # a wobble before beyond the rest noise (``0.3 mm + 4 sigma``, within which it lay
    # still: a slow creep, a detection shifting by a fraction of a pixel) bounds how far
    # it went on its own: counted as travel (it stood within that wobble)
    wobble = float(np.linalg.norm(pre - rest, axis=1).max())
    own = wobble if wobble > 0.3 + 4.0 * sigma else 0.0
    moved = float(np.linalg.norm(np.median(post, axis=0) - rest)) + own
    noise = 3.0 * np.sqrt(2.0) * 1.2533 * sigma / np.sqrt(n)
    short = bool(moved < travel - noise)
    return short and not _passed_on(series, b, other, f, R, sigma, 3, reach=travel)


def bent(series: Series, b: int, lo: int, hi: int, sigma: float, friction: float) -> bool:
    """Ball ``b``'s path over samples ``lo .. hi-1`` changed velocity between two frames
    by more than the cloth's friction can (``friction`` mm/frame^2, sliding) plus three
    noise sigmas of a second difference (``sigma`` mm, one axis; sqrt(6) sigma an axis):
    a cushion or a ball hit it there. False where a sample is missing."""
    xy = _window(series, b, lo, hi)
    if xy is None or len(xy) < 3:
        return False
    acc = np.linalg.norm(xy[2:] - 2 * xy[1:-1] + xy[:-2], axis=1)
    return bool(acc.max() > friction + 3.0 * np.sqrt(12.0) * sigma)


APPROACH_SIGMAS = 3.0  # a contact's approach speed: at least this many velocity-noise sigmas


def motion_noise_mm(series: Series, lo: float = 1.0, hi: float = 30.0) -> float:
    """Measurement noise (mm, one axis) of balls in motion: the robust spread (MAD) of
    the second differences of positions of balls moving ``lo .. hi`` mm/frame, over
    sqrt(6) (three samples' noise). A ball's centre in motion is read from a blurred
    disk, beside neighbours more often than at rest: two to three times the rest noise
    the shot settings carry (0.35 mm at 720p, 0.16 mm at 1080p on the synthetic set);
    0 when too few samples."""
    xy = series.xy
    if xy.shape[1] < 3:
        return 0.0
    acc = xy[:, 2:] - 2 * xy[:, 1:-1] + xy[:, :-2]
    v = np.linalg.norm(xy[:, 2:] - xy[:, :-2], axis=2) / 2
    with np.errstate(invalid="ignore"):
        a = np.abs(acc[(v > lo) & (v < hi)])
    a = a[~np.isnan(a[:, 0]) & (np.linalg.norm(a, axis=1) < 10.0)]
    if len(a) < 20:
        return 0.0
    return float(1.4826 * np.median(a) / np.sqrt(6.0))


def approach_speed(series: Series, a: int, b: int, f: float, n: int = 3) -> float | None:
    """Speed (mm/frame) at which balls ``a`` and ``b`` closed in on each other along their
    line of centres before fractional frame ``f``: straight fits over the ``n`` frames up
    to ``floor(f)``; None when a sample is missing. Its noise is about the motion noise
    (:func:`motion_noise_mm`; a slope of three samples carries 1/sqrt(2) of it per ball).
    Two balls that touched set off together (a rack's members spreading side by side)
    close in on each other at nothing: any kink of theirs is noise, not a contact."""
    k = int(np.floor(f))
    if k - n + 1 < 0 or k >= series.n_frames:
        return None
    fr = np.arange(k - n + 1, k + 1, dtype=float)
    pa, pb = series.xy[a, k - n + 1 : k + 1], series.xy[b, k - n + 1 : k + 1]
    if np.isnan(pa).any() or np.isnan(pb).any():
        return None
    (xa, va), (xb, vb) = line_fit(fr, pa), line_fit(fr, pb)
    d = (xb + vb * k) - (xa + va * k)
    d = d / max(float(np.linalg.norm(d)), 1e-9)
    return float((va - vb) @ d)


# a pair read touching twice met again when its gap at the later touch is this much
# below its largest since the earlier one: mm (a detector places touching balls a mm or
# two apart), and motion-noise sigmas (three of a difference of two gaps, each read from
# two centres: 2 sigma)
AGAIN_MM = 2.0
AGAIN_SIGMAS = 6.0


def met_again(series: Series, a: int, b: int, f0: float, f1: float, margin: float) -> bool:
    """Balls ``a`` and ``b``, read touching at fractional frames ``f0`` and ``f1``, closed
    in on each other again in between: their centre distance (mm) at the sample nearest
    the later time is more than ``margin`` mm below its largest at a sample from the
    earlier time on (a ball that came back off a cushion into the one it had just
    left). Two contacts of one pair that close are one touch read twice unless they
    met again: a pair flying apart after one touch only widens its gap. False with
    fewer than two samples there or one missing."""
    lo, hi = sorted((f0, f1))
    ks = np.arange(int(np.ceil(lo)), int(round(hi)) + 1)
    ks = ks[(ks >= 0) & (ks < series.n_frames)]
    if len(ks) < 2:
        return False
    gap = np.linalg.norm(series.xy[a, ks] - series.xy[b, ks], axis=1)
    with np.errstate(invalid="ignore"):
        return bool(np.max(gap[:-1]) - gap[-1] > margin)
