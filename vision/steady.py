"""A camera error that moves every resting ball at once, found from the balls themselves.

A hand-held camera is registered frame by frame onto the calibration's reference picture
(``vision.register``); where that registration is off for a frame (the uk8ball clip: 13 to
33 mm on frames 30-34 while the camera drifts, 7 to 18 mm on 313-321 as it swings), every
ball at rest seems to jump by the same small motion of the picture, and the jump reads as
a strike (frame 31 there) or carries a ball resting at a pocket's jaw into the pocket (322).
Balls never move like that: a struck ball moves alone, a break scatters the rack. So when
most of the balls at rest are found displaced by one small motion (a shift, a small
turn and zoom: the registration's error near the table), this frame's positions are mapped
back by it before they are tracked. Positions table mm.
"""

from __future__ import annotations

import numpy as np

STEADY_MIN_BALLS = 4  # at least this many resting balls must agree ...
STEADY_SHARE = 0.6  # ... and this share of the resting balls found near where they rest
STEADY_MIN_MM = 4.0  # a common shift smaller than this is left alone (noise, slow drift)
STEADY_REACH_BALLS = 2.0  # a resting ball's detection is searched this many diameters away
STEADY_TOL_BALLS = 0.15  # detections within this many diameters of the common shift agree
STEADY_MAX_RUN = 8  # frames in a row at most: a camera error that lasts is the new picture
MORE_GAIN = 0.7  # a turn (then a zoom) is fitted too where it leaves under this share of the error


def common_motion(rest: np.ndarray, seen: np.ndarray, ball_mm: float) -> np.ndarray | None:
    """The 2x3 motion (a shift, or a turn and shift) that maps this frame's detections
    ``seen`` (N,2 mm) back onto where the balls were last measured, ``rest`` (K,2 mm),
    where most of those balls moved
    together by more than :data:`STEADY_MIN_MM` (a camera error); None where they did not.

    The shift is the mode of the displacements from each resting ball to the detections
    within :data:`STEADY_REACH_BALLS` diameters (each vote counts the resting balls with a
    detection that agrees within :data:`STEADY_TOL_BALLS` diameters), the median shift of
    those balls, or a turn and shift, or a turn, zoom and shift fitted to them where that
    explains them clearly better (:data:`MORE_GAIN`; a registration error also turns and
    zooms the picture, but from balls bunched in a rack a fitted zoom is mostly noise,
    magnified far from them)."""
    rest = np.asarray(rest, float).reshape(-1, 2)
    seen = np.asarray(seen, float).reshape(-1, 2)
    k = len(rest)
    if k < STEADY_MIN_BALLS or len(seen) < STEADY_MIN_BALLS:
        return None
    diff = seen[None, :, :] - rest[:, None, :]  # (K, N, 2): rest ball k -> detection j
    dist = np.hypot(diff[..., 0], diff[..., 1])
    cand = diff[dist < STEADY_REACH_BALLS * ball_mm]  # (P, 2) candidate shifts
    if not len(cand):
        return None
    tol = STEADY_TOL_BALLS * ball_mm
    # agree[p, k]: resting ball k has a detection at its place moved by candidate p
    off = diff[None, :, :, :] - cand[:, None, None, :]  # (P, K, N, 2)
    agree = (np.hypot(off[..., 0], off[..., 1]) < tol).any(axis=2)
    support = agree.sum(axis=1)
    best = int(np.argmax(support))
    if support[best] < max(STEADY_MIN_BALLS, STEADY_SHARE * k):
        return None
    near = np.hypot(*(diff - cand[best]).transpose(2, 0, 1))  # (K, N)
    ks = np.nonzero(agree[best])[0]
    js = np.argmin(near[ks], axis=1)
    src, dst = seen[js], rest[ks]
    shift = np.median(src - dst, axis=0)
    if float(np.hypot(*shift)) < STEADY_MIN_MM:
        return None
    best, err = None, np.inf
    for m in (  # the simplest motion that explains the balls: a more complex one must gain
        np.array([[1.0, 0.0, -shift[0]], [0.0, 1.0, -shift[1]]]),
        _fit(src, dst, zoom=False),
        _fit(src, dst, zoom=True),
    ):
        e = float(np.median(np.hypot(*(apply_motion(m, src) - dst).T)))
        if e < MORE_GAIN * err:
            best, err = m, e
    return best if err <= tol else None  # else not one motion after all


def _fit(src: np.ndarray, dst: np.ndarray, zoom: bool) -> np.ndarray:
    """The 2x3 turn and shift (and ``zoom``: scale) mapping ``src`` onto ``dst`` (N,2 mm)
    in least squares (Umeyama)."""
    ms, md = src.mean(axis=0), dst.mean(axis=0)
    a, b = src - ms, dst - md
    u, sv, vt = np.linalg.svd(b.T @ a)
    d = np.diag([1.0, np.linalg.det(u @ vt)])
    rot = u @ d @ vt
    if zoom:
        rot *= float(np.trace(np.diag(sv) @ d)) / max(float((a * a).sum()), 1e-9)
    return np.c_[rot, md - rot @ ms]


def apply_motion(m: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Points ``xy`` (N,2 mm) mapped by the 2x3 matrix ``m``."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    return xy @ m[:, :2].T + m[:, 2]
