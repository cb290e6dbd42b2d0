"""A ball at rest nudged by a ball passing it (a kiss too thin to bend the passing ball's
path, or to set the other rolling): the shift of its rest position along their line of
centres, read from the medians of its positions before the passing ball came near and
after it left.

Positions table mm, times fractional frames (series index), noise ``sigma`` mm.
"""

from __future__ import annotations

import numpy as np

from vision.events.series import Series

# gap (mm) within which a passing ball's image pulls a resting ball's detected centre
# aside: on the synthetic 720p break pyr-break-5-720, ball 12 read 0.9 mm off as ball 8
# passed 5.4 mm away at 9.5 mm/frame (frame 324), and ball 4 up to 1.9 mm off while ball 7
# crept by 3.5 to 5.8 mm away (frames 91-96); neither was touched then
NUDGE_REACH_MM = 10.0
# the least shift along the line of centres, in noise sigmas of a difference of two
# medians of positions at rest (about 0.15 mm at 720p): as the impulse scan's 6 sigmas
NUDGE_SIGMAS = 6.0
NUDGE_SAMPLES = 6  # positions at rest read each side
NUDGE_LINGER = 12  # frames either side of the pass the passing ball may stay within reach


def rest_window(
    series: Series, a: int, b: int, f: float, R: float, sigma: float
) -> tuple[slice, slice] | None:
    """Frames (series index) of ball ``b`` at rest before ball ``a`` came within
    ``NUDGE_REACH_MM`` of it (gap, mm) about the pass at fractional frame ``f``, and after
    ``a`` left that reach: the last and the first ``NUDGE_SAMPLES`` frames with the pair's
    gap beyond it, ``b``'s positions in each within the rest tolerance (``0.3 mm + 4
    sigma``, as :func:`vision.events.contact_checks.stayed_put`) of their median, and no other
    ball within that reach of ``b`` from the first to the last. None when ``a`` stays
    within reach longer than ``NUDGE_LINGER`` frames either side, or a sample is
    missing."""
    xy, n = series.xy, NUDGE_SAMPLES
    gap = np.linalg.norm(xy[a] - xy[b], axis=1) - 2 * R
    k = int(np.floor(f))
    far = ~(gap <= NUDGE_REACH_MM)  # a missing sample passes here; the windows check it
    k0 = next((j for j in range(k, k - NUDGE_LINGER - 1, -1) if j >= 0 and far[j]), None)
    hi = min(k + NUDGE_LINGER + 1, series.n_frames)
    k1 = next((j for j in range(k + 1, hi) if far[j]), None)
    if k0 is None or k1 is None or k0 - n + 1 < 0 or k1 + n > series.n_frames:
        return None
    pre, post = slice(k0 - n + 1, k0 + 1), slice(k1, k1 + n)
    for w in (pre, post):
        p = xy[b, w]
        if np.isnan(p).any() or not far[w].all():
            return None
        if np.linalg.norm(p - np.median(p, axis=0), axis=1).max() > 0.3 + 4.0 * sigma:
            return None
    span = slice(pre.start, post.stop)
    for c in range(len(series.ids)):
        if (
            c not in (a, b)
            and np.nanmin(np.linalg.norm(xy[c, span] - xy[b, span], axis=1), initial=np.inf) - 2 * R
            <= NUDGE_REACH_MM
        ):
            return None
    return pre, post


def nudged(series: Series, a: int, b: int, f: float, R: float, sigma: float) -> bool:
    """Ball ``b``, at rest before and after ball ``a`` passed it at fractional frame ``f``
    (:func:`rest_window`), shifted its rest position away from ``a`` along their line of
    centres at ``f`` by more than ``NUDGE_SIGMAS`` noise sigmas of a difference of two
    medians (``sigma``: the rest noise, mm, one axis; a median of ``n`` carries ``1.25
    sigma / sqrt(n)``), and by more than twice as far as across that line: a touch pushes
    a ball along the line of centres, a detection that shifted moves it any way."""
    w = rest_window(series, a, b, f, R, sigma)
    if w is None:
        return False
    pre, post = w
    xy = series.xy
    shift = np.median(xy[b, post], axis=0) - np.median(xy[b, pre], axis=0)
    k = int(np.floor(f))
    pa = xy[a, k] + (xy[a, min(k + 1, series.n_frames - 1)] - xy[a, k]) * (f - k)
    line = xy[b, k] - pa
    if np.isnan(line).any():
        return False
    line = line / max(float(np.linalg.norm(line)), 1e-9)
    along = float(shift @ line)
    across = abs(float(shift[0] * line[1] - shift[1] * line[0]))
    noise = np.sqrt(2.0) * 1.2533 * sigma / np.sqrt(NUDGE_SAMPLES)
    return along > NUDGE_SIGMAS * noise and across < 0.5 * along
