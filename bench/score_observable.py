"""Scores over the observable truth only: truth contacts no camera can see (a pair
pressed together knocking again, a faint impulse) and cushions after a ball's last frame
on the cloth are left out, with the predictions matched to them. Frames are video frame
numbers; positions table mm."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bench.score_events import (
    EVENT_WINDOW,
    IdFn,
    TypeScores,
    _all_events,
    map_event,
    match_events,
)
from bench.score_util import Stats
from contract.events import Event, EventType
from contract.match import Match
from contract.tracks import Tracks
from vision.events.series import series_from_tracks


def pressed_repeats(
    truth: Match,
    positions: Callable[[str, int], tuple[float, float] | None],
    radius_mm: float,
    margin_mm: float = 1.0,
) -> frozenset[tuple[int, frozenset]]:
    """Truth contacts no camera can see: a pair touching again while it never came apart
    since its previous contact in the shot (centre distance within ``margin_mm`` of one
    diameter at every frame between), as balls rolling pressed together knock again and
    again. Returned as ``(frame, {ball, ball})`` keys. ``positions(id, frame)`` gives a
    ball's truth centre (table mm) or None. The first contact of every pair, frozen
    racks included, stays observable: its impulse shows in how both balls move after."""
    out: set[tuple[int, frozenset]] = set()
    for shot in truth.shots:
        last: dict[frozenset, int] = {}
        for e in shot.events:
            if e.type != EventType.CONTACT:
                continue
            key = frozenset(e.balls)
            prev = last.get(key)
            last[key] = e.frame
            if prev is None:
                continue
            apart = False
            for f in range(prev, e.frame + 1):
                pa, pb = positions(e.balls[0], f), positions(e.balls[1], f)
                if pa is None or pb is None:
                    apart = True
                    break
                if np.hypot(pa[0] - pb[0], pa[1] - pb[1]) > 2 * radius_mm + margin_mm:
                    apart = True
                    break
            if not apart:
                out.add((e.frame, key))
    return frozenset(out)


def score_observable_contacts(
    pred: Match,
    truth: Match,
    ids: IdFn,
    hidden: frozenset[tuple[int, frozenset]],
    window: int = EVENT_WINDOW,
) -> TypeScores:
    """Contacts scored against the observable truth only: the ``hidden`` truth contacts
    (:func:`pressed_repeats`) are left out, and so are the predicted contacts matched to
    them (neither a hit nor an invention)."""
    pe = [map_event(e, ids) for e in _all_events(pred) if e.type == EventType.CONTACT]
    te = [e for e in _all_events(truth) if e.type == EventType.CONTACT]
    gone = {j for j, e in enumerate(te) if (e.frame, frozenset(e.balls)) in hidden}
    return _left_out(pe, te, gone, "contact (observable)", window, order=True)


def _left_out(
    pe: list[Event], te: list[Event], gone_t: set[int], name: str, window: int, order: bool
) -> TypeScores:
    """Scores of ``pe`` against ``te`` with the truth events ``gone_t`` (indices) and the
    predicted events matched to them left out."""
    pairs = match_events(pe, te, window)
    gone_p = {i for i, j in pairs if j in gone_t}
    kept = [(i, j) for i, j in pairs if j not in gone_t]
    return TypeScores(
        name,
        len(te) - len(gone_t),
        len(pe) - len(gone_p),
        len(kept),
        Stats.of([abs(pe[i].frame - te[j].frame) for i, j in kept]),
        order_right=sum(pe[i].balls == te[j].balls for i, j in kept) if order else None,
    )


# ------------------------------------------------------------ observable cushions
def score_observable(
    pred: Match,
    truth: Match,
    ids: IdFn,
    hidden: frozenset[tuple[int, str]],
    type_: EventType = EventType.CUSHION,
    window: int = EVENT_WINDOW,
) -> TypeScores:
    """Events of one single-ball type (``cushion``) scored against the observable truth:
    the ``hidden`` truth events (:func:`after_last_sample`) are left out, and so are the
    predicted events matched to them (neither a hit nor an invention)."""
    pe = [map_event(e, ids) for e in _all_events(pred) if e.type == type_]
    te = [e for e in _all_events(truth) if e.type == type_]
    gone = {j for j, e in enumerate(te) if (e.frame, e.ball) in hidden}
    return _left_out(pe, te, gone, f"{type_.value} (observable)", window, order=False)


def _positions(exact: Tracks):
    """``pos(id, frame)``: a ball's exact centre (table mm) at a frame, or None."""
    s = series_from_tracks(exact)

    def pos(ident: str, frame: int) -> tuple[float, float] | None:
        k = frame - s.first
        if ident not in s.ids or not 0 <= k < s.n_frames:
            return None
        x, y = s.xy[s.index(ident), k]
        return None if np.isnan(x) else (float(x), float(y))

    return pos


def hidden_contacts(truth: Match, exact: Tracks, radius_mm: float) -> frozenset:
    """The truth contacts of pairs pressed together since their last contact
    (:func:`pressed_repeats`), from the exact positions."""
    return pressed_repeats(truth, _positions(exact), radius_mm)


def unseen_cushions(truth: Match, exact: Tracks, fps: float) -> frozenset:
    """Truth cushions no video can show: the ball has no exact row at the first frame
    after the touch (it touched a pocket's jaw on its way down after the last frame that
    shows it on the cloth: no later sample, no bend to see). ``(frame, ball)`` keys."""
    pos = _positions(exact)
    return frozenset(
        (e.frame, e.ball)
        for sh in truth.shots
        for e in sh.events
        if e.type == EventType.CUSHION and pos(e.ball, int(np.floor(e.t * fps)) + 1) is None
    )
