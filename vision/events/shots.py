"""Cut play into shots at rest states and say what happened, in order (contract §8).

Input: tracks (table mm per frame). A shot starts at the strike (the first ball to move
with no contact to explain it: the cue ball) and ends when every ball has been still
for the settle window. Balls carried by a hand (moving while hidden) and balls that
appear (re-spotted) make no shot. Event times are interpolated between frames and
reported at the nearest frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from contract.events import Event, EventType
from contract.match import FrameTime, Match, Shot
from contract.tables import TableSpec
from contract.tracks import Tracks
from vision.base.camera_motion import AFTER_FRAMES, in_spans
from vision.base.geometry import MAX_BALL_SPEED_MM_S
from vision.events.finder import EventFinder
from vision.events.lag import as_lag, lag_pair
from vision.events.lost import lost_spans
from vision.events.motion import (
    Movement,
    movements,
    rolling_decel,
    rolls_away,
    seen_moving,
    start_time,
    stop_time,
)
from vision.events.reseen import drop_reseen_jumps
from vision.events.series import (
    Series,
    despike,
    fill_gaps,
    moving_mask,
    noise_mm,
    relink,
    rest_position,
    series_from_tracks,
    unswap,
)
from vision.events.settings import ShotSettings, adapt, seen_step_mm

# a tracker's lag behind a stopping ball grows with its noise: distances to the rest
# position below this many noise sigmas are left out of the stop fit (at 720p ~3 mm)
STOP_LAG_SIGMAS = 20.0


@dataclass(frozen=True)
class CutResult:
    """Shots found, and events outside any shot (hand moves are not events)."""

    shots: tuple[Shot, ...]
    loose_events: tuple[Event, ...]
    # tracks joined again (series.relink): (younger id, older id, first bridged, first seen)
    joined: tuple[tuple[str, str, int, int], ...] = ()


def _ev(series: Series, f: float, type_: EventType, **kw) -> Event:
    frame = int(round(series.first + f))
    t = (series.first + f) / series.fps
    return Event(frame=frame, t=round(max(t, 0.0), 4), type=type_, **kw)


LOST_HOLD_S = 2.0
"""Seconds after a ball vanished on the cloth in which another ball starting to move is
taken as hit by it (a ball rolls a few metres in two seconds), not struck."""


def _all_movements(series: Series, table: TableSpec, s: ShotSettings) -> list[Movement]:
    mask = moving_mask(series.xy, s.move_mm) & series.present()
    skittles = set(table.skittle_spots) if table.kind == "carom" else set()
    decel = s.decel
    out: list[Movement] = []
    for b, ident in enumerate(series.ids):
        if ident in skittles:
            continue
        out += movements(
            ident,
            series.xy[b],
            series.visible[b],
            mask[b],
            eps=s.rest_mm,
            abs_thr=s.kink_abs_mm,
            rel_thr=s.kink_rel,
            stop_floor=STOP_LAG_SIGMAS * s.sigma_mm,
            decel=decel,
            creep=int(np.ceil(0.5 * s.move_mm / decel)) if decel else 0,
        )
    out = [still_stop(m, series.xy[series.index(m.ball)], s) for m in out]
    return sorted((m for m in out if _real(m, series, s)), key=lambda m: m.start_f)


def still_stop(m: Movement, xy: np.ndarray, s: ShotSettings) -> Movement:
    """Movement ``m`` with its stop read again when, before the stop read, its ball lay
    still after its run, jumped and lay still again: a rolling ball does not; a centre
    pulled to one side by an arm, a shadow or a skittle beside it does (a ball set off
    again shows as a run of its own). Still: three frames or more, each within
    ``rest_mm`` (4.5 noise sigmas) of their median; a jump: a step over ``rest_mm`` from
    frame to frame that moves that median by more than ``rest_mm`` and more than a
    ball under the motion threshold (``move_mm / 2`` a frame) still rolls at the
    video's rolling deceleration. The stop is read (:func:`vision.events.motion.stop_time`)
    from the samples up to the last still frame before the jump, the rest as their
    median; kept when earlier than the stop read before. ``xy`` (F, 2) table mm of the
    ball, frames series index."""
    lo, hi = m.last + 1, int(np.ceil(m.stop_f))
    if m.gone or hi - lo < 3 or hi + 3 > len(xy):
        return m
    p = xy[lo : hi + 3]
    if np.isnan(p[:, 0]).any():
        return m
    v = 0.5 * s.move_mm
    jump = max(s.rest_mm, v * v / (2.0 * s.decel)) if s.decel else s.rest_mm

    def still(q: np.ndarray) -> np.ndarray | None:
        c = np.median(q, axis=0)
        return c if (np.linalg.norm(q - c, axis=1) <= s.rest_mm).all() else None

    step = np.linalg.norm(np.diff(p, axis=0), axis=1)
    j = int(np.argmax(step > s.rest_mm))
    if step[j] <= s.rest_mm or j < 2 or lo + j >= hi:
        return m
    a, b = still(p[: j + 1]), still(p[j + 1 : j + 4])
    if a is None or b is None or np.linalg.norm(b - a) <= jump:
        return m
    stop = stop_time(xy, m.first, lo + j, a, s.rest_mm, STOP_LAG_SIGMAS * s.sigma_mm, s.decel)
    if stop >= m.stop_f:
        return m
    return replace(m, stop_f=stop, stop_at=(float(a[0]), float(a[1])))


def _real(m: Movement, series: Series, s: ShotSettings) -> bool:
    """A movement is real when the ball vanished or got farther than a few mm from where
    it started (a centre pulled by an arm's edge for a frame or two is not motion)."""
    if m.gone:
        return True
    b = series.index(m.ball)
    path = series.xy[b, m.first : m.last + 2]
    path = path[~np.isnan(path[:, 0])]
    reach = np.linalg.norm(path - np.asarray(m.start_at), axis=1).max() if len(path) else 0.0
    return bool(reach > max(3.0 * s.move_mm, 5.0))


def _strike_like(
    m: Movement,
    radius: float,
    xy: np.ndarray | None = None,
    visible: np.ndarray | None = None,
    step_mm: float = 0.75,
) -> bool:
    """Can this movement open a shot? A struck ball leaves its place: it ends at least half
    a radius away, or went two diameters out (and came back off a cushion), or vanished;
    a centre pulled by an arm or a body at its edge comes back to where it was. With the
    ball's positions ``xy`` (F, 2) mm: and it rolls away, its distance from where it stood
    growing over its first three moving frames (a detection hopping between two places
    inside a rack, or a label traded between two balls, does not). With its measured
    flags ``visible`` (F,) too: and it is seen rolling (:func:`vision.events.motion.seen_moving`,
    steps over ``step_mm`` per frame), unless it vanished: a ball under a reaching arm
    whose track jumps to a false detection and stays there was never struck."""
    moved = float(np.hypot(m.stop_at[0] - m.start_at[0], m.stop_at[1] - m.start_at[1]))
    if not (m.gone or moved >= 0.5 * radius or m.reach_mm >= 4.0 * radius):
        return False
    if xy is None:
        return True
    if not rolls_away(m, xy):
        return False
    return visible is None or m.gone or seen_moving(m, xy, visible, step_mm) is not None


def _group(
    moves: list[Movement],
    settle: float,
    radius: float,
    series: Series | None = None,
    step_mm: float = 0.75,
    moved: list[tuple[float, float]] = (),
    pockets: list[tuple[float, float, float]] = (),
) -> list[list[Movement]]:
    """Group movements into shots: a strike-like movement starting more than ``settle``
    frames after everything stopped opens a new shot; other movements outside shots are
    measurement jitter and dropped. ``step_mm``: see :func:`_strike_like`. ``moved``:
    [first, last] series frames in which the camera moved: a movement starting there (or
    within :data:`vision.base.camera_motion.AFTER_FRAMES` after) opens no shot, and a shot
    under way when the camera began to move goes on through the move.

    A ball of the shot that vanished on the cloth, away from every pocket (``pockets``:
    (x, y, reach) mm), is unknown, not at rest (issue 31): when it is seen again moving
    before the next shot opens, that run is the same shot's (a fast ball lost in its own
    blur), and a ball that starts to move within ``LOST_HOLD_S`` of its vanishing was hit
    by it, not struck: it opens no new shot."""
    groups: list[list[Movement]] = []
    end = -1e9
    unknown: dict[str, float] = {}  # ball -> frame it vanished on the cloth
    hold = LOST_HOLD_S * (series.fps if series is not None else 30.0)
    for m in moves:
        if m.hidden:
            continue
        if m.appeared:
            if groups and m.ball in unknown:
                groups[-1].append(m)
                end = max(end, m.stop_f)
                unknown.pop(m.ball)
            continue
        end = _through(end, settle, moved) if groups else end
        lost_hit = any(f <= m.start_f <= f + hold for f in unknown.values())
        if not groups or (m.start_f > end + settle and not lost_hit):
            if in_spans(m.start_f, moved, AFTER_FRAMES):
                continue
            b = series.index(m.ball) if series is not None else None
            xy = series.xy[b] if series is not None else None
            vis = series.visible[b] if series is not None else None
            if not _strike_like(m, radius, xy, vis, step_mm):
                continue
            if xy is not None:
                m = seen_start(m, xy, vis, step_mm)
            groups.append([m])
            unknown = {}
            end = m.stop_f
        else:
            groups[-1].append(m)
            end = max(end, m.stop_f)
        if m.gone and not _at_pocket(m.stop_at, pockets):
            unknown[m.ball] = m.stop_f
    return groups


def _at_pocket(at: tuple[float, float], pockets: list[tuple[float, float, float]]) -> bool:
    """Whether ``at`` (mm) lies within reach of a pocket ((x, y, reach) mm)."""
    return any(np.hypot(at[0] - x, at[1] - y) <= r for x, y, r in pockets)


def seen_start(m: Movement, xy: np.ndarray, visible: np.ndarray, step_mm: float) -> Movement:
    """Movement ``m`` of a struck ball dated where the ball is seen to leave its rest.

    A ball struck between frames k-1 and k is seen rolling (:func:`seen_moving`, steps
    over ``step_mm`` per frame) from frame k-1 or k, so its start lies at most one frame
    before that. A start dated earlier while the ball was measured (``visible``) in
    every frame up to then was read from its centre jittering in place (a cue tip or
    an arm at its edge, a skittle beside it): the start is read again from the rest
    there (the median of the six frames up to that frame) and the samples after it
    (:func:`vision.events.motion.start_time`). ``xy`` (F, 2) table mm, frames series index."""
    if m.gone or visible is None:
        return m
    seen = seen_moving(m, xy, visible, step_mm)
    if seen is None or seen <= m.start_f + 1.0:
        return m
    f1 = int(seen) + 1
    if f1 > m.last or not visible[int(np.ceil(m.start_f)) : f1].all():
        return m  # unseen between: the ball may have rolled there
    rest = np.median(xy[max(0, f1 - 6) : f1], axis=0)
    st, v0 = start_time(xy, rest, f1, m.last)
    at = (float(rest[0]), float(rest[1]))
    return replace(m, start_f=st, start_at=at, v_start=(float(v0[0]), float(v0[1])))


def _through(end: float, settle: float, moved) -> float:
    """The end of a shot under way at ``end`` carried through the camera moves
    ``moved`` ([first, last] frames) that began before it could settle."""
    for a, b in sorted(moved):
        if a <= end + settle and b > end:
            end = b
    return end


CAMERA_BLIND = (EventType.BALL_TOUCHED, EventType.EARLY_STRIKE, EventType.POCKET)


def _unseen(events, series: Series, moved) -> list[Event]:
    """``events`` less those a moving camera cannot tell (a ball touched, an early
    strike, a pocket) dated in a move ``moved`` (series frames) or just after it."""
    return [
        e
        for e in events
        if e.type not in CAMERA_BLIND or not in_spans(e.frame - series.first, moved, AFTER_FRAMES)
    ]


def _is_hanging_drop(g: list[Movement], table: TableSpec) -> str | None:
    """A lone ball that leaves its rest in a pocket mouth and drops: the pocket's name."""
    if len(g) != 1 or not g[0].gone:
        return None
    m = g[0]
    r = table.ball_radius
    for p in table.pockets:
        near = np.hypot(m.start_at[0] - p.x, m.start_at[1] - p.y) < p.mouth_mm / 2 + 2 * r
        if near and np.hypot(m.stop_at[0] - m.start_at[0], m.stop_at[1] - m.start_at[1]) < 3 * r:
            return p.name
    return None


CAROM_BALLS = ("white", "yellow", "red")


def _drop_spares(series: Series, table: TableSpec) -> Series:
    """On a carom table the balls are ``white``, ``yellow`` and ``red`` (contract §3): a
    second track of one of them (``red1``, ``red2`` ... as a tracker names a colour it sees
    twice) while that ball's own track is on the table for most of its frames is not a
    ball of that colour. Where exactly one other carom ball is missing for most of those
    frames, it is that ball read in the wrong colour (a white smear read yellow under
    broadcast light): its rows fill that ball's frames not seen. Otherwise (a sleeve, a
    skittle lying) its rows are dropped. Both ids are kept."""
    if table.kind != "carom":
        return series
    xy = series.xy.copy()
    vis = series.visible.copy()
    present = series.present()
    for b, ident in enumerate(series.ids):
        base = ident.rstrip("0123456789")
        if ident in CAROM_BALLS or base not in CAROM_BALLS or base not in series.ids:
            continue
        mine = present[b]
        if not mine.any() or present[series.index(base)][mine].mean() <= 0.5:
            continue
        gone = [
            c
            for c in CAROM_BALLS
            if c != base and c in series.ids and vis[series.index(c)][mine].mean() < 0.5
        ]
        if len(gone) == 1 and _within_reach(series, series.index(gone[0]), b, table.ball_radius):
            c = series.index(gone[0])
            fill = mine & ~vis[c]
            xy[c, fill], vis[c, fill] = xy[b, fill], vis[b, fill]
        xy[b], vis[b] = np.nan, False
    return Series(series.ids, series.first, series.t, xy, vis, series.fps, series.fallen)


def _within_reach(series: Series, c: int, b: int, radius: float) -> bool:
    """Track ``b`` first appears where ball ``c``, seen last before it, could have rolled
    meanwhile at the fastest a ball travels (two diameters more for a bounce, table mm)."""
    seen_b = np.nonzero(series.visible[b])[0]
    seen_c = np.nonzero(series.visible[c])[0]
    if not len(seen_b):
        return False
    s = int(seen_b[0])
    before = seen_c[seen_c < s]
    if not len(before):
        return True  # never seen before it: nothing to bound it
    e = int(before[-1])
    reach = MAX_BALL_SPEED_MM_S / series.fps * (s - e) + 4 * radius
    return float(np.linalg.norm(series.xy[b, s] - series.xy[c, e])) <= reach


def cut_series(
    series: Series,
    table: TableSpec,
    settings: ShotSettings | None = None,
    moved=(),
    *,
    lag: bool = True,
    lag_sigma_mm: float | None = None,
) -> CutResult:
    """Shots with events and rest positions from dense series. ``moved``: [first, last]
    video frames in which the camera moved (``vision.register.DriftWatch.moves``): no
    strike, ``ball_touched``, ``early_strike`` or pocket comes from them. ``lag``: the
    shots before the first that is not a lag may be lags (two balls struck together,
    :mod:`vision.events.lag`); ``lag_sigma_mm``: one ball's rest standard uncertainty (mm,
    from the calibration) written on each lag event."""
    moved = [(a - series.first, b - series.first) for a, b in moved]
    R = table.ball_radius
    pockets = [(p.x, p.y, p.mouth_mm + 2 * R) for p in table.pockets]
    joined: list[tuple[str, str, int, int]] = []
    series = relink(_drop_spares(series, table), R, pockets, joined=joined)
    pins = frozenset(table.skittle_spots) if table.kind == "carom" else frozenset()
    series = drop_reseen_jumps(series, R, pins)  # a hidden ball seen again where it was
    series = unswap(fill_gaps(series, radius_mm=R, short=pins, pockets=pockets), R)
    sigma = noise_mm(series)
    series = despike(series, max(3.0, 6.0 * sigma))
    s = adapt(settings or ShotSettings(), sigma)
    balls = [b for b, i in enumerate(series.ids) if i not in pins]
    s = replace(s, decel=rolling_decel(series.xy[balls]) if balls else None)
    settle = s.settle_s * series.fps
    moves = _all_movements(series, table, s)
    groups = _group(moves, settle, table.ball_radius, series, seen_step_mm(s), moved, pockets)
    finder = EventFinder(series, table, s)
    shots: list[Shot] = []
    loose: list[Event] = []
    prev_end = -1e9
    step = seen_step_mm(s)

    def strike(m: Movement) -> bool:
        b = series.index(m.ball)
        return _strike_like(m, R, series.xy[b], series.visible[b], step)

    lagging = lag
    for g in groups:
        pocket = _is_hanging_drop(g, table)
        if pocket and shots and g[0].start_f - prev_end <= s.hang_s * series.fps:
            ev = _ev(series, g[0].stop_f, EventType.HANGING_DROP, ball=g[0].ball, pocket=pocket)
            last = shots[-1]
            rest = {k: v for k, v in last.rest.items() if k != g[0].ball}
            shots[-1] = last.model_copy(update={"events": (*last.events, ev), "rest": rest})
            continue
        events, cue = finder.shot_events(g)
        if lagging and (pair := lag_pair(g, table, series.fps, strike)) is not None:
            xy_of = lambda b: series.xy[series.index(b)]  # noqa: E731
            make = lambda f, t, **kw: _ev(series, f, t, **kw)  # noqa: E731
            events, cue = as_lag(pair, events, xy_of, table, make, lag_sigma_mm), None
        else:
            lagging = False  # the lag comes before a match's first shot
        events = _unseen(events, series, moved) if moved else events
        start_f = min(m.start_f for m in g)
        end_f = max(m.stop_f for m in g)
        prev_end = end_f
        skittles = frozenset(table.skittle_spots) if table.kind == "carom" else frozenset()
        shots.append(
            _make_shot(series, table, len(shots) + 1, start_f, end_f, cue, events, settle, skittles)
        )
    return CutResult(tuple(shots), tuple(loose), tuple(joined))


def _make_shot(
    series: Series,
    table: TableSpec,
    index: int,
    start_f: float,
    end_f: float,
    cue: str | None,
    events,
    settle: float,
    skittles: frozenset[str] = frozenset(),
) -> Shot:
    fs = int(round(start_f))
    fe = int(round(end_f))
    lo, hi = max(0, fe), min(series.n_frames, fe + max(2, int(settle)))
    rest: dict[str, tuple[float, float]] = {}
    lost = lost_spans(series, fs, fe, events, table, skittles)
    for b, ident in enumerate(series.ids):
        if hi <= lo:
            break
        if ident in skittles:
            continue
        p = rest_position(series.xy[b, lo:hi])
        if np.isfinite(p[0]) and np.isfinite(series.xy[b, hi - 1, 0]):
            rest[ident] = (round(float(p[0]), 1), round(float(p[1]), 1))
    ft = lambda f: FrameTime(frame=series.first + f, t=round((series.first + f) / series.fps, 4))  # noqa: E731
    return Shot(
        index=index,
        start=ft(max(fs, 0)),
        end=ft(max(fe, 0)),
        cue_ball=cue,
        events=tuple(sorted(events, key=lambda e: (e.frame, e.t))),
        rest=rest,
        lost=lost,
    )


def cut_tracks(
    tracks: Tracks,
    table: TableSpec,
    fps: float | None = None,
    settings: ShotSettings | None = None,
    moved=(),
    *,
    lag: bool = True,
    lag_sigma_mm: float | None = None,
) -> CutResult:
    """Shots from TRACKS rows (contract §7); ``moved``, ``lag``, ``lag_sigma_mm``: see
    :func:`cut_series`."""
    series = series_from_tracks(tracks, fps)
    return cut_series(series, table, settings, moved, lag=lag, lag_sigma_mm=lag_sigma_mm)


def shots_from_tracks(
    match: Match,
    tracks: Tracks,
    table: TableSpec,
    settings: ShotSettings | None = None,
    moved=(),
) -> Match:
    """``match`` with the shots cut from ``tracks`` (fps from ``match.video``), events
    outside shots kept at the top level; verdicts are left to the adjudicator.
    ``moved``: [first, last] frames in which the camera moved (see :func:`cut_series`)."""
    fps = match.video.fps if match.video else None
    cut = cut_tracks(tracks, table, fps, settings, moved)
    return match.model_copy(
        update={"shots": cut.shots, "events": tuple(match.events) + cut.loose_events}
    )
