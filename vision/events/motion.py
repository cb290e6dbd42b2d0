"""Per-ball motion analysis: when a ball starts, where its path kinks, when it stops or
leaves the table. Everything here works on one ball's samples from a :class:`Series`.

Times are in frames (fractional, relative to the series' first frame) unless a name
says seconds; positions and distances in table mm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.events.series import kink_time, line_fit


@dataclass(frozen=True)
class Kink:
    """An abrupt change of a ball's velocity at fractional frame ``f`` and position ``at``."""

    f: float
    at: tuple[float, float]
    v_before: tuple[float, float]  # mm/frame
    v_after: tuple[float, float]  # mm/frame


@dataclass(frozen=True)
class Movement:
    """One run of motion of one ball, from rest (or appearance) to rest (or disappearance).

    ``start_f``/``stop_f`` fractional frames; ``gone`` when the ball left the surface
    (pocket or off the table) at ``stop_f`` instead of stopping; ``hidden`` when most
    of the run was predicted (occluded), as when a hand carries a ball.
    """

    ball: str
    start_f: float
    stop_f: float
    start_at: tuple[float, float]
    stop_at: tuple[float, float]
    v_start: tuple[float, float]
    v_end: tuple[float, float]
    kinks: tuple[Kink, ...]
    gone: bool
    hidden: bool
    first: int  # integer frame range (series index) of the run
    last: int
    appeared: bool = False  # the track began moving (a fragment, a hand): not a ball at rest
    reach_mm: float = 0.0  # farthest the ball got from where it started


def _valid(xy: np.ndarray) -> np.ndarray:
    return ~np.isnan(xy[:, 0])


def _fit(xy: np.ndarray, frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return line_fit(frames.astype(float), xy[frames])


def start_time(xy: np.ndarray, rest: np.ndarray, f1: int, last: int) -> tuple[float, np.ndarray]:
    """Fractional frame at which a ball resting at ``rest`` started moving, its first
    velocity (mm/frame). ``f1`` is the first frame clearly away from rest."""
    fr = np.arange(f1, min(f1 + 2, last) + 1)
    fr = fr[_valid(xy[fr])]
    if len(fr) < 2:
        return float(f1) - 0.5, xy[f1] - rest
    a, v = _fit(xy, fr)
    vv = float(v @ v)
    if vv < 1e-9:
        return float(f1) - 0.5, v
    t0 = float((rest - a) @ v / vv)
    return float(np.clip(t0, f1 - 1.0, f1)), v


def stop_time(
    xy: np.ndarray,
    first: int,
    last: int,
    rest: np.ndarray,
    eps: float,
    floor: float = 0.0,
    decel: float | None = None,
) -> float:
    """Fractional frame at which the ball came to rest at ``rest``.

    Rolling to a stop at a nearly constant deceleration leaves ``d(t) = k (t_stop - t)^2``
    to go, so ``sqrt(d)`` falls on a straight line that reaches zero at the stop; a
    least-squares line through the last samples well above the noise (and ``floor`` mm:
    a tracker that smooths its positions lags behind a ball that is stopping) finds it.
    With the rolling deceleration ``decel`` (mm/frame^2, measured over the whole video:
    :func:`rolling_decel`) only the stop is fitted, each sample saying ``t + sqrt(2 d /
    decel)`` and the median of them taken (a noisy tracker's last samples, whose errors
    would bend a fitted slope, weigh no more than the others).
    Falls back to the frame after the last sample farther than ``eps`` from rest.
    """
    p = xy[first : last + 1]
    d = np.linalg.norm(p - rest, axis=1)
    far = np.nonzero(d > eps)[0]
    if len(far) == 0:
        return float(first)
    i_far = int(far[-1])
    fallback = float(first + i_far) + 1.0
    # the last approach only (after a cushion or a ball sent it back, d rose over one
    # frame or two: a slow rise hides in the noise frame to frame), samples well above
    # the noise and a tracker's lag at the stop, weighted by sqrt(d) (the error of
    # sqrt(d) shrinks as d grows)
    dd, thr = d[: i_far + 1], max(1.5, 2.0 * eps)
    rising = np.r_[np.nonzero(np.diff(dd) > thr)[0] + 1, np.nonzero(dd[2:] - dd[:-2] > thr)[0] + 2]
    after = int(rising.max()) if len(rising) else 0
    use = np.nonzero(d[: i_far + 1] > max(2.5 * eps, floor))[0]
    use = use[(use >= after) & (use >= use[-1] - 20)][-16:] if len(use) else use
    if len(use) < 3:
        return fallback
    if decel is not None and decel > 0:
        t0 = float(np.median(use + np.sqrt(2.0 * d[use] / decel)))
        return float(first) + float(np.clip(t0, float(use[-1]), float(i_far) + 15.0))
    b, a = np.polyfit(use.astype(float), np.sqrt(d[use]), 1, w=np.sqrt(d[use]))
    if b >= -1e-9:
        return fallback
    t0 = float(np.clip(-a / b, float(use[-1]), float(i_far) + 15.0))
    return float(first) + t0


def rolling_decel(xy: np.ndarray, lo: float = 1.5, hi: float = 8.0) -> float | None:
    """The rolling deceleration (mm/frame^2) of the balls of a video, ``xy`` (B, F, 2) mm:
    the median loss of speed over four frames where a ball rolls slowly (``lo`` to ``hi``
    mm/frame, speeds over four frames each side: a slow ball rolls, it no longer slides).
    None with fewer than 20 such samples."""
    if xy.shape[1] < 9:
        return None
    sp = np.linalg.norm(xy[:, 4:] - xy[:, :-4], axis=2) / 4.0
    a = (sp[:, :-4] - sp[:, 4:]) / 4.0
    mid = sp[:, 2:-2]
    with np.errstate(invalid="ignore"):
        ok = (mid > lo) & (mid < hi) & (np.abs(a) < 2.0)
    return float(np.median(a[ok])) if ok.sum() >= 20 else None


def _through(xy: np.ndarray, f0: int, f1: int) -> tuple[np.ndarray, np.ndarray]:
    """The straight motion through the samples at frames ``f0`` and ``f1``: (position at
    frame 0, velocity per frame), as :func:`line_fit` returns it."""
    v = (xy[f1] - xy[f0]) / float(f1 - f0)
    return xy[f0] - v * f0, v


def find_kinks(xy: np.ndarray, first: int, last: int, abs_thr: float, rel_thr: float) -> list[Kink]:
    """Abrupt velocity changes within frames ``first..last`` of one ball (mm, frames).

    A change between frame f-1 and f+1 larger than ``abs_thr + rel_thr * |v|`` marks a
    kink; its time is where the straight motions before and after it meet.
    """
    if last - first < 3:
        return []
    p = xy[first : last + 1]
    v = np.diff(p, axis=0)  # v[k] = p[k+1] - p[k]
    dv = np.linalg.norm(np.diff(v, axis=0), axis=1)  # dv[k] at sample k+1
    sp = np.maximum(np.linalg.norm(v[:-1], axis=1), np.linalg.norm(v[1:], axis=1))
    hit = dv > abs_thr + rel_thr * sp
    out: list[Kink] = []
    k = 0
    n = len(hit)
    while k < n:
        if not hit[k]:
            k += 1
            continue
        j = k
        while j + 1 < n and hit[j + 1]:
            j += 1
        c = first + 1 + k + int(np.argmax(dv[k : j + 1]))  # frame of the kink (series index)
        pre = np.arange(max(first, c - 3), c)
        post = np.arange(c + 1, min(last, c + 3) + 1)
        # one sample before: the ball was just starting (no straight motion to bend)
        if len(pre) >= 2 and len(post) >= 1:
            # one sample after (the last before the ball dropped): the line through it
            # and the kink's sample (its position at frame 0, as a fit gives it)
            a1, v1 = _fit(xy, pre)
            a2, v2 = _fit(xy, post) if len(post) >= 2 else _through(xy, c, post[0])
            tk = kink_time(a1, v1, a2, v2)
            tk = float(np.clip(tk if tk is not None else c, c - 1.0, c + 1.0))
            at = (a1 + v1 * tk + a2 + v2 * tk) / 2
            out.append(Kink(tk, (float(at[0]), float(at[1])), tuple(v1), tuple(v2)))
        k = j + 1
    return out


def movements(
    ident: str,
    xy: np.ndarray,
    visible: np.ndarray,
    moving: np.ndarray,
    *,
    eps: float,
    abs_thr: float,
    rel_thr: float,
    stop_floor: float = 0.0,
    decel: float | None = None,
    creep: int = 0,
) -> list[Movement]:
    """Split one ball's frames into runs of motion (``moving`` (F,) bool mask);
    ``stop_floor`` (mm), ``decel`` (mm/frame^2): see :func:`stop_time`; ``creep``:
    frames a ball may still roll after ``moving`` ends (its rest is read after them)."""
    out: list[Movement] = []
    valid = _valid(xy)
    n = len(xy)
    f = 0
    while f < n:
        if not moving[f] or not valid[f]:
            f += 1
            continue
        g = f
        while g + 1 < n and moving[g + 1] and valid[g + 1]:
            g += 1
        # rest before: the last valid still samples before f
        before = np.arange(max(0, f - 6), f)
        before = before[valid[before]]
        rest0 = np.median(xy[before], axis=0) if len(before) else xy[f]
        d0 = np.linalg.norm(xy[f : g + 1] - rest0, axis=1)
        # the first frame from which the ball stays away (jitter at rest is no start)
        out_ = d0 > eps
        stay = out_[: len(out_) - 2] & out_[1 : len(out_) - 1] & out_[2:]
        away = np.nonzero(stay if stay.any() else out_)[0]
        f1 = f + int(away[0]) if len(away) else f
        st, v0 = start_time(xy, rest0, f1, g) if len(before) else (float(f), np.zeros(2))
        gone = g + 1 < n and not valid[g + 1]  # the video ending is not a ball leaving
        after = np.arange(g + 1, min(n, g + 7))
        after = after[valid[after]] if not gone else after[:0]
        if gone:
            last_vis = g
            while last_vis > f and not visible[last_vis]:
                last_vis -= 1
            fr = np.arange(max(f, last_vis - 2), last_vis + 1)
            a, ve = _fit(xy, fr) if len(fr) >= 2 else (xy[last_vis], np.zeros(2))
            stop_f, stop_at = float(last_vis), xy[last_vis]
        elif len(after) == 0:  # the video ends with the ball still moving
            stop_f, stop_at, ve = float(g), xy[g], np.zeros(2)
        else:
            # the ball still creeps after the motion mask lets go (below ``move_mm`` over
            # two frames): its rest is read from the frames after it stopped creeping
            nxt = np.nonzero(moving[g + 1 :] & valid[g + 1 :])[0]
            end = g + 1 + int(nxt[0]) if len(nxt) else n
            later = np.arange(g + 1 + creep, min(end, g + 7 + creep))
            later = later[valid[later]]
            use = later if creep and len(later) >= 3 else after
            rest1 = np.median(xy[use], axis=0)
            stop_f = stop_time(xy, f, int(use[-1]), rest1, eps, stop_floor, decel)
            stop_at, ve = rest1, np.zeros(2)
        kinks = find_kinks(xy, f, g if gone else min(n - 1, g + 1), abs_thr, rel_thr)
        hidden = visible[f : g + 1].mean() < 0.5
        out.append(
            Movement(
                ident,
                st,
                stop_f,
                (float(rest0[0]), float(rest0[1])),
                (float(stop_at[0]), float(stop_at[1])),
                (float(v0[0]), float(v0[1])),
                (float(ve[0]), float(ve[1])),
                tuple(kinks),
                gone,
                bool(hidden),
                f,
                g,
                appeared=len(before) == 0,
                reach_mm=float(np.nanmax(d0)) if len(d0) else 0.0,
            )
        )
        f = g + 1
    return out


def rolls_away(m: Movement, xy: np.ndarray) -> bool:
    """The ball's distance from where it stood (``xy`` (F, 2) mm, its positions) grows
    over three frames from where it first got clear of the noise: a ball set rolling
    does, a detection hopping between two places or a label traded between two balls
    does not."""
    d = np.linalg.norm(xy[m.first : m.last + 2] - np.asarray(m.start_at), axis=1)
    d = d[~np.isnan(d)]
    far = d > max(5.0, 0.25 * m.reach_mm)  # clear of the noise at rest
    k = int(np.argmax(far)) if far.any() else len(d)
    run = d[max(k - 1, 0) : k + 3]
    return len(run) < 4 or bool(np.all(np.diff(run) > 0.0))


def seen_moving(
    m: Movement, xy: np.ndarray, visible: np.ndarray, step_mm: float, max_gap: int = 3
) -> float | None:
    """The frame (series index, fractional) from which ball ``m`` is seen rolling: two
    successive steps between measured samples (``visible``; at most ``max_gap`` frames
    apart) each longer than ``step_mm`` per frame and in the same direction; the returned
    frame is the last one before the first step's end (the ball may have stood until
    then: samples missing there leave its start open). None when the run never shows that: a detection
    that jumped and then stays put (an arm's edge pulling a centre, a ball found again a
    few mm off after an occlusion, a track handed to a false detection under an arm and
    back) is a position that changed, not a ball that rolled. ``xy`` (F, 2) mm and
    ``visible`` (F,) are the ball's positions and measured flags."""
    lo, hi = max(0, m.first - 1), min(len(xy), m.last + 2)
    seen = [f for f in range(lo, hi) if visible[f] and not np.isnan(xy[f, 0])]
    for a, b, c in zip(seen, seen[1:], seen[2:], strict=False):
        if b - a > max_gap or c - b > max_gap:
            continue
        s1, s2 = (xy[b] - xy[a]) / (b - a), (xy[c] - xy[b]) / (c - b)
        if min(np.linalg.norm(s1), np.linalg.norm(s2)) > step_mm and float(s1 @ s2) > 0.0:
            return float(b - 1)
    return None
