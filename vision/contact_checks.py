"""Checks that keep a contact finder honest: evidence that a touch did (or did not)
pass an impulse, read from the balls' positions around it.

Positions table mm, times fractional frames (series index), noise ``sigma`` mm.
"""

from __future__ import annotations

import numpy as np

from vision.series import Series


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


def untouched(
    series: Series, b: int, other: int, f: float, R: float, sigma: float, n: int = 3
) -> bool:
    """Ball ``b`` did not take a push from ``other`` at ``f``: it stood still before and
    after, and no ball resting against it on the far side from ``other`` (touching within
    ``3 mm + 3 sigma``: a detector places balls that touch a mm or two apart; its centre
    ahead of ``b`` along the push) set off then, as the last ball of a Newton's cradle does
    while the middle one stays put."""
    if not stayed_put(series, b, f, sigma, n):
        return False
    k = int(np.floor(f))
    pb, po = series.xy[b, k], series.xy[other, k]
    push = pb - po
    if np.isnan(push).any():
        return False
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
        if gap < 3.0 + 3.0 * sigma and ahead and not stayed_put(series, c, f, sigma, n):
            return False
    return True
