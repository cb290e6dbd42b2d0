"""Dense per-ball time series built from tracks, and the motion quantities shots and
events are cut from.

Positions are table mm (contract §1); time in seconds from the first frame; speeds
in mm per frame. Arrays are ``(B, F)`` or ``(B, F, 2)`` with NaN where a ball has no
row (off the table, pocketed, not yet seen).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contract.tracks import Tracks
from vision.base.geometry import MAX_BALL_SPEED_MM_S


@dataclass(frozen=True)
class Series:
    """Tracks as dense arrays over a contiguous frame range ``first .. first+F-1``."""

    ids: tuple[str, ...]
    first: int
    t: np.ndarray  # (F,) seconds
    xy: np.ndarray  # (B, F, 2) mm, NaN when absent
    visible: np.ndarray  # (B, F) bool; False when absent or predicted
    fps: float
    fallen: np.ndarray | None = None  # (B, F) bool: a skittle lying (TRACKS state column)

    @property
    def n_frames(self) -> int:
        return self.t.shape[0]

    def index(self, ident: str) -> int:
        return self.ids.index(ident)

    def present(self) -> np.ndarray:
        """(B, F) bool: the ball has a row (measured or predicted)."""
        return ~np.isnan(self.xy[..., 0])

    def frame_of(self, t: float) -> int:
        """The nearest video frame of time ``t`` seconds."""
        return int(round(t * self.fps))


def series_from_tracks(tracks: Tracks, fps: float | None = None) -> Series:
    """Dense arrays from TRACKS rows. ``fps`` from the ``t`` column when not given."""
    if len(tracks) == 0:
        return Series((), 0, np.zeros(0), np.zeros((0, 0, 2)), np.zeros((0, 0), bool), fps or 30.0)
    first, last = int(tracks.frame.min()), int(tracks.frame.max())
    n = last - first + 1
    if fps is None:
        fr = np.unique(tracks.frame)
        tt = np.array([tracks.t[tracks.frame == f][0] for f in fr[: min(len(fr), 200)]])
        dt = np.diff(tt) / np.maximum(np.diff(fr[: len(tt)]), 1)
        fps = float(1.0 / np.median(dt)) if len(dt) and np.median(dt) > 0 else 30.0
    ids = tuple(tracks.ids())
    col = {k: i for i, k in enumerate(ids)}
    xy = np.full((len(ids), n, 2), np.nan)
    vis = np.zeros((len(ids), n), bool)
    bi = np.array([col[i] for i in tracks.id], dtype=int)
    fi = tracks.frame - first
    xy[bi, fi, 0] = tracks.x
    xy[bi, fi, 1] = tracks.y
    vis[bi, fi] = tracks.visible
    fallen = None
    if tracks.state is not None:
        fallen = np.zeros((len(ids), n), bool)
        fallen[bi, fi] = tracks.state == "fallen"
    t = (np.arange(n) + first) / fps
    return Series(ids, first, t, xy, vis, fps, fallen)


def fill_gaps(
    series: Series,
    max_gap: int = 6,
    max_hidden: int = 300,
    radius_mm: float = 30.0,
    short: frozenset[str] = frozenset(),
    pockets: list[tuple[float, float, float]] = (),
    max_rolled: int = 20,
) -> Series:
    """Positions to cut shots from: predicted (not visible) rows are replaced by a
    straight line between the measured positions around them (a tracker's prediction
    under an arm is a guess, and the jump back to the measurement would read as motion).
    Gaps of up to ``max_gap`` frames are bridged (a dropped detection is not a ball
    leaving), and gaps of up to ``max_hidden`` frames after which the ball is seen
    again within ``radius_mm`` of where it was (not for the ids in ``short``: a skittle
    the detector lost after a knock lies there, it did not stand hidden), and gaps of up
    to ``max_rolled`` frames after which a moving ball is seen again no farther than it
    could roll at its last speed, plus two diameters for a bounce (a fast ball the
    detector sees now and then: the same rule as :func:`relink`; not from within reach of
    a pocket, ``pockets``: x, y, reach mm). Bridged samples are marked not visible;
    trailing predicted rows are dropped."""
    xy = series.xy.copy()
    xy[~series.visible] = np.nan
    vis = series.visible.copy()
    limit = np.full(xy.shape[0], max_gap)
    for b in range(xy.shape[0]):
        ok = ~np.isnan(xy[b, :, 0])
        idx = np.nonzero(ok)[0]
        if len(idx) < 2:
            continue
        gaps = np.nonzero(np.diff(idx) > 1)[0]
        for g in gaps:
            a, c = idx[g], idx[g + 1]
            # a ball seen again where it was (under an arm, or lost by the tracker for
            # a while) never left; a longer gap that ends elsewhere is a re-spot
            stayed = float(np.linalg.norm(xy[b, c] - xy[b, a])) < radius_mm
            hid = max_hidden if stayed and series.ids[b] not in short else limit[b]
            rolled = not stayed and c - a - 1 <= max_rolled
            if c - a - 1 > hid and not (
                rolled
                and (
                    _rolled(xy[b], idx, g, radius_mm, pockets)
                    or _struck_gap(xy[b], idx, g, radius_mm, series.fps)
                )
            ):
                continue
            w = (np.arange(a + 1, c) - a) / (c - a)
            xy[b, a + 1 : c] = xy[b, a] + np.outer(w, xy[b, c] - xy[b, a])
            vis[b, a + 1 : c] = False
    return Series(series.ids, series.first, series.t, xy, vis, series.fps, series.fallen)


def _struck_gap(xy: np.ndarray, idx: np.ndarray, g: int, radius_mm: float, fps: float) -> bool:
    """Ball positions ``xy`` (F, 2) mm with samples at ``idx``: the ball lay at rest
    before the gap after ``idx[g]`` and is seen moving after it, no farther than a struck
    ball could go (:func:`_struck_unseen`): struck out of sight."""
    a, c = idx[g], idx[g + 1]
    if g < 1:
        return False
    p = idx[g - 1]
    if float(np.linalg.norm(xy[a] - xy[p])) / (a - p) >= 0.5 * radius_mm:
        return False  # rolling, not at rest: :func:`_rolled` judges it
    dist = float(np.linalg.norm(xy[c] - xy[a]))
    return _struck_unseen(xy, ~np.isnan(xy[:, 0]), int(c), dist, int(c - a), radius_mm, fps)


def _rolled(xy: np.ndarray, idx: np.ndarray, g: int, radius_mm: float, pockets) -> bool:
    """Ball positions ``xy`` (F, 2) mm with samples at ``idx``: the gap after ``idx[g]``
    ends no farther than the ball could roll at its last speed (mm/frame, from the two
    samples before the gap) plus two diameters, and it did not start by a pocket."""
    a, c = idx[g], idx[g + 1]
    if g < 1 or any(np.hypot(xy[a, 0] - x, xy[a, 1] - y) < r for x, y, r in pockets):
        return False
    p = idx[g - 1]
    v = float(np.linalg.norm(xy[a] - xy[p])) / (a - p)
    return (
        v > 0.5 * radius_mm and float(np.linalg.norm(xy[c] - xy[a])) <= v * (c - a) + 4 * radius_mm
    )


def noise_mm(series: Series) -> float:
    """Measurement noise estimate (mm, one axis), the larger of two robust figures: the
    median frame-to-frame step of balls at rest (most steps), and the 95th percentile of
    the second differences (a tracker that holds still balls still and lets them jitter
    now and then has a zero median step; rolling balls add almost nothing there)."""
    d = np.diff(series.xy, axis=1).reshape(-1, 2)
    d = d[~np.isnan(d[:, 0])]
    if len(d) < 20:
        return 0.0
    small = np.abs(d[np.linalg.norm(d, axis=1) < 10.0])
    if len(small) < 20:
        return 0.0
    step = float(1.4826 * np.median(small) / np.sqrt(2.0))
    a = (series.xy[:, 2:] - 2 * series.xy[:, 1:-1] + series.xy[:, :-2]).reshape(-1, 2)
    a = a[~np.isnan(a[:, 0])]
    a = np.abs(a[np.linalg.norm(a, axis=1) < 10.0])
    tail = float(np.percentile(a, 95) / (1.96 * np.sqrt(6.0))) if len(a) >= 20 else 0.0
    return max(step, tail)


def speeds(xy: np.ndarray) -> np.ndarray:
    """(B, F) speed in mm/frame: the larger of the backward and forward steps (NaN-safe:
    a step to or from a missing frame counts 0)."""
    step = np.linalg.norm(np.diff(xy, axis=1), axis=2)  # (B, F-1)
    step = np.nan_to_num(step, nan=0.0)
    out = np.zeros(xy.shape[:2])
    out[:, 1:] = step
    out[:, :-1] = np.maximum(out[:, :-1], step)
    return out


def moving_mask(xy: np.ndarray, threshold_mm: float) -> np.ndarray:
    """(B, F) bool: the ball moved more than ``threshold_mm`` over two frames.

    Two-frame displacement halves the influence of per-frame measurement noise while a
    ball that truly rolls adds its motion up.
    """
    b, f = xy.shape[:2]
    out = np.zeros((b, f), bool)
    if f < 3:
        return out
    d2 = np.linalg.norm(xy[:, 2:] - xy[:, :-2], axis=2)
    d2 = np.nan_to_num(d2, nan=0.0) > threshold_mm
    out[:, 1:-1] = d2
    out[:, 2:] |= d2
    out[:, :-2] |= d2
    return out


def rest_position(xy: np.ndarray) -> np.ndarray:
    """Median position (2,) over frames (F, 2), ignoring NaN; NaN when none."""
    ok = ~np.isnan(xy[:, 0])
    if not ok.any():
        return np.array([np.nan, np.nan])
    return np.median(xy[ok], axis=0)


def frames_before(xy: np.ndarray, f0: float, since: float | None = None, n: int = 3) -> np.ndarray:
    """Series indices of a ball's measured samples (``xy`` (F, 2) mm, NaN = none) among
    the ``n`` up to ``floor(f0)``, those from ``since`` on (when it started or was last
    hit then: earlier samples are another motion): its straight run before a hit at
    ``f0``."""
    k = int(np.floor(f0))
    fr = np.arange(max(0, k - n + 1), k + 1)
    if since is not None:
        fr = fr[fr >= since]
    return fr[~np.isnan(xy[fr, 0])]


def line_fit(ts: np.ndarray, ps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares straight motion ``p(t) = a + v t`` through samples (K,), (K, 2)."""
    if len(ts) == 1:
        return ps[0] - 0.0 * ts[0], np.zeros(2)
    A = np.c_[np.ones(len(ts)), ts]
    coef, *_ = np.linalg.lstsq(A, ps, rcond=None)
    return coef[0], coef[1]


def kink_time(a1: np.ndarray, v1: np.ndarray, a2: np.ndarray, v2: np.ndarray) -> float | None:
    """Time where two straight motions meet (least squares); None when parallel."""
    dv = v1 - v2
    den = float(dv @ dv)
    if den < 1e-12:
        return None
    return float(-((a1 - a2) @ dv) / den)


def unswap(series: Series, radius_mm: float) -> Series:
    """Identity swaps of balls at rest undone: when tracks of balls that stood still jump
    by more than a radius in one frame, each onto the place another of them just left
    (a tracker trading labels inside a rack), the rows from that frame on are given
    back to the ball that was there. Positions mm; ``radius_mm`` the ball radius."""
    from vision.base.assign import linear_sum_assignment

    xy, vis = series.xy.copy(), series.visible.copy()
    R = radius_mm
    for k in range(2, series.n_frames):
        step = np.linalg.norm(xy[:, k] - xy[:, k - 1], axis=1)
        still = np.linalg.norm(xy[:, k - 1] - xy[:, k - 2], axis=1) < 0.25 * R
        jump = np.nonzero(np.nan_to_num(step, nan=0.0) > R)[0]
        jump = jump[still[jump]]
        if len(jump) < 2:
            continue
        cost = np.linalg.norm(xy[jump, k][:, None] - xy[jump, k - 1][None], axis=2)
        cost[np.arange(len(jump)), np.arange(len(jump))] = 1e9
        rows, cols = linear_sum_assignment(cost)
        ok = cost[rows, cols] < 0.3 * R
        if not ok.all():
            continue
        src, dst = jump[rows], jump[cols]  # track src now stands where ball dst stood
        xy[dst, k:], vis[dst, k:] = xy[src, k:].copy(), vis[src, k:].copy()
    return Series(series.ids, series.first, series.t, xy, vis, series.fps, series.fallen)


def despike(series: Series, threshold_mm: float) -> Series:
    """Single positions (one or two frames) of a ball at rest that jump away and back, as
    an arm's edge or a passing ball pulls a detection: replaced by the rest position
    and marked not visible. The two frames before and after must agree within half
    ``threshold_mm``; the spike must exceed it (mm)."""
    xy, vis = series.xy.copy(), series.visible.copy()
    F = series.n_frames
    if F < 6:
        return series
    for width in (1, 2):
        K = np.arange(2, F - 1 - width)
        nb = np.stack([xy[:, K - 2], xy[:, K - 1], xy[:, K + width], xy[:, K + width + 1]])
        with np.errstate(invalid="ignore"):
            med = np.median(nb, axis=0)  # (B, K, 2), NaN where a neighbour is absent
            spread = np.max(np.linalg.norm(nb - med, axis=3), axis=0)
            dev = np.max(
                np.stack([np.linalg.norm(xy[:, K + j] - med, axis=2) for j in range(width)]),
                axis=0,
            )
            hit = (spread < threshold_mm / 2) & (dev > threshold_mm)
        bi, ki = np.nonzero(hit)
        for j in range(width):
            xy[bi, K[ki] + j] = med[bi, ki]
            vis[bi, K[ki] + j] = False
    return Series(series.ids, series.first, series.t, xy, vis, series.fps, series.fallen)


def _same_kind(a: str, b: str) -> bool:
    """Two track ids that may be one ball: the same colour (``yellow1``, ``yellow3``), or
    either a plain white one (``w17``, a number) as a ball blurred in fast motion is."""
    ka, kb = a.rstrip("0123456789"), b.rstrip("0123456789")
    return ka == kb or ka in ("", "w") or kb in ("", "w")


def _struck_unseen(
    xy: np.ndarray, seen: np.ndarray, s: int, dist: float, gap: int, r: float, fps: float
) -> bool:
    """Whether a track (``xy`` (F, 2) mm, ``seen`` (F,) bool), first seen at frame ``s``
    ``dist`` mm from where a resting ball vanished ``gap`` frames before, may be that ball
    struck out of sight (a break's cue ball lost in its own blur): it is seen moving at
    once (over a tenth of a radius ``r`` a frame between its first two samples, within
    three frames) and ``dist`` lies within :data:`MAX_BALL_SPEED_MM_S` of travel."""
    if dist > MAX_BALL_SPEED_MM_S / fps * gap:
        return False
    nxt = np.nonzero(seen[s + 1 : s + 4])[0]
    if not len(nxt):
        return False
    k = s + 1 + int(nxt[0])
    return float(np.linalg.norm(xy[k] - xy[s])) / (k - s) > 0.1 * r


def relink(
    series: Series,
    radius_mm: float,
    pockets: list[tuple[float, float, float]] = (),
    max_gap: int = 20,
    joined: list[tuple[str, str, int, int]] | None = None,
) -> Series:
    """Tracks the tracker lost and started afresh joined again: a track that stops being
    seen mid-table, and a new track that starts within ``max_gap`` frames no farther from
    where the first was last seen than the first could roll in the meantime (its top
    speed over its last samples, plus two diameters for a bounce), are one ball; where
    only a sample before the last is within that reach, the samples after it are a ghost
    (a cue tip taken for a fast ball) and the bridge starts there; the younger track's rows move
    to the older id, the gap bridged in a straight line (not visible). A track last seen
    within reach of a pocket (``pockets``: x, y, reach mm) dropped and stays ended.
    A ball that vanished at rest (never seen again) and a track that appears already
    moving within ``max_gap`` frames, where a struck ball could have rolled meanwhile
    (:func:`_struck_unseen`), are one ball too, joined after every nearer pair: a ball
    struck out of sight. Predicted (not visible) rows count as not seen; tracks of
    different colours are never joined. Positions mm. ``joined``, where given, gets one
    ``(younger id, older id, first frame bridged, first frame of the younger)`` (video
    frames) a join, for the TRACKS.csv rows (:func:`vision.stream.joined_rows`)."""
    xy = series.xy.copy()
    vis = series.visible.copy()
    seen = vis & ~np.isnan(xy[..., 0])
    B, F = seen.shape
    first = np.where(seen.any(axis=1), seen.argmax(axis=1), F)
    last = np.where(seen.any(axis=1), F - 1 - seen[:, ::-1].argmax(axis=1), -1)
    cands = []
    for b in range(B):
        e = int(last[b])
        if e < 1 or e >= F - 1:
            continue
        pe = xy[b, e]
        if any(np.hypot(pe[0] - x, pe[1] - y) < r for x, y, r in pockets):
            continue
        # the last samples seen (newest first) and the speed between the last two
        ks = (max(0, e - 6) + np.nonzero(seen[b, max(0, e - 6) : e + 1])[0])[::-1][:4]
        steps = np.linalg.norm(np.diff(xy[b, ks[::-1]], axis=0), axis=1) / np.diff(ks[::-1])
        resting = not len(steps) or float(steps[-1]) < 0.5 * radius_mm
        top = float(steps.max()) if len(steps) else 0.0  # mm/frame: a ghost can't hide it
        for c in range(B):
            s = int(first[c])
            if c == b or s >= F or not 0 < s - e <= max_gap or seen[c, : e + 1].any():
                continue
            if not _same_kind(series.ids[b], series.ids[c]):
                continue
            dist = float(np.linalg.norm(xy[c, s] - pe))
            for k in ks[:3]:  # from the last sample, or one before a ghost at the end
                reach = top * (s - k) + 4 * radius_mm
                d_k = float(np.linalg.norm(xy[c, s] - xy[b, k]))
                if d_k <= reach:
                    cands.append((d_k / reach, b, c, int(k), s))
                    break
            else:
                if resting and _struck_unseen(
                    xy[c], seen[c], s, dist, s - e, radius_mm, series.fps
                ):
                    ratio = dist / (MAX_BALL_SPEED_MM_S / series.fps * (s - e))
                    cands.append((1.0 + ratio, b, c, e, s))
    used_b, used_c = set(), set()
    for _, b, c, e, s in sorted(cands):
        if b in used_b or c in used_c or b in used_c or c in used_b:
            continue
        used_b.add(b)
        used_c.add(c)
        xy[b, e + 1 :], vis[b, e + 1 :] = xy[c, e + 1 :], vis[c, e + 1 :]
        w = (np.arange(e + 1, s) - e) / (s - e)
        xy[b, e + 1 : s] = xy[b, e] + np.outer(w, xy[c, s] - xy[b, e])
        vis[b, e + 1 : s] = False
        xy[c], vis[c] = np.nan, False
        if joined is not None:
            joined.append((series.ids[c], series.ids[b], series.first + e + 1, series.first + s))
    return Series(series.ids, series.first, series.t, xy, vis, series.fps, series.fallen)
