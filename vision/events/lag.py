"""The lag read from tracks (pyramid rules 8; 5-pin rules 3): two balls struck together.

Before a match's first shot both players strike their balls at about the same time, from
the house (pyramid: ``x < L/4``) or the lag line (5-pin: ``x = L/4``), one on each long half
of the table (``y < W/2`` / ``y > W/2``), up to the far cushion and back. The shot cutter
groups both balls' movements into one shot (the second starts while the first rolls);
without this module the finder reads the second ball's start as a ball touched or an early
strike. :func:`as_lag` recognises the pattern and rewrites the shot's events: a ``lag``
event naming both balls (the left half's first: player A's in pyramid), a ``strike`` for
each, and a ``cross`` event with ``line: "half"`` where a ball's centre crosses ``y = W/2``
(the opponent's half). Cushions, contacts, pockets, off-table and skittles are the finder's.

Positions are table mm; frames fractional series frames, events in video frames.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contract.events import Event, EventType
from contract.match import Shot
from contract.tables import TableSpec
from vision.events.motion import Movement

LAG_WINDOW_S = 1.0
"""Both balls must start within this many seconds of each other (issue 32: "within a
second"; the 5-pin rule asks both to move before either reaches the far cushion, which
the adjudicator checks)."""

HALF_MARGIN_MM = 2.0
"""A ball's centre must go this far past ``y = W/2`` to count as crossing it (measurement
noise at rest is well under a mm; a ball rolling along the line would flicker across)."""

DROPPED = (EventType.BALL_TOUCHED, EventType.EARLY_STRIKE, EventType.STRIKE)


def lag_pair(
    moves: list[Movement], table: TableSpec, fps: float, strike_like: Callable[[Movement], bool]
) -> tuple[Movement, Movement] | None:
    """The two movements that open a lag, or None: the first two balls to start, within
    :data:`LAG_WINDOW_S` of each other, both strike-like, both from behind the house/lag
    line (``x <= L/4 + 2R``), one on each long half."""
    firsts: dict[str, Movement] = {}
    for m in sorted(moves, key=lambda m: m.start_f):
        firsts.setdefault(m.ball, m)
    if len(firsts) < 2:
        return None
    a, b = sorted(firsts.values(), key=lambda m: m.start_f)[:2]
    line = table.L / 4 + 2 * table.ball_radius
    mid = table.W / 2
    if b.start_f - a.start_f > LAG_WINDOW_S * fps:
        return None
    if a.start_at[0] > line or b.start_at[0] > line:
        return None
    if (a.start_at[1] < mid) == (b.start_at[1] < mid):
        return None
    if not (strike_like(a) and strike_like(b)):
        return None
    return (a, b) if a.start_at[1] < mid else (b, a)


def half_crossings(
    xy: np.ndarray, m: Movement, mid: float, make: Callable[[float], Event]
) -> list[Event]:
    """A ``cross``/``half`` event (from ``make(frame)``) at the first frame where the
    ball's centre, starting on one side of ``y = mid``, lies :data:`HALF_MARGIN_MM` past it
    on the other. ``xy`` (F, 2) mm, one ball; frames series index."""
    side = m.start_at[1] < mid
    ys = xy[m.first : m.last + 2, 1]
    past = (ys > mid + HALF_MARGIN_MM) if side else (ys < mid - HALF_MARGIN_MM)
    hit = np.flatnonzero(np.nan_to_num(past, nan=0).astype(bool))
    return [make(float(m.first + hit[0]))] if len(hit) else []


def as_lag(
    pair: tuple[Movement, Movement],
    events: list[Event],
    xy_of: Callable[[str], np.ndarray],
    table: TableSpec,
    ev: Callable[..., Event],
    uncertainty_mm: float | None = None,
) -> list[Event]:
    """The shot's ``events`` rewritten as a lag opened by ``pair`` (left half's ball
    first): the finder's strike, ball-touched and early-strike readings of the two balls
    give way to one ``strike`` each, a ``lag`` event at the first strike (with
    ``uncertainty_mm``, one ball's rest standard uncertainty, when known) and the half-line
    crossings. ``ev(frame, type, **fields)`` makes an event; ``xy_of(ball)`` (F, 2) mm."""
    balls = (pair[0].ball, pair[1].ball)
    kept = [e for e in events if not (e.type in DROPPED and e.ball in balls)]
    first = min(m.start_f for m in pair)
    extra = {"uncertainty_mm": round(uncertainty_mm, 2)} if uncertainty_mm else {}
    out = [ev(first, EventType.LAG, balls=balls, **extra)]
    for m in pair:
        at = (round(float(m.start_at[0]), 1), round(float(m.start_at[1]), 1))
        out.append(ev(m.start_f, EventType.STRIKE, ball=m.ball, at=at))
        make = lambda f, b=m.ball: ev(f, EventType.CROSS, ball=b, line="half")  # noqa: E731
        out += half_crossings(xy_of(m.ball), m, table.W / 2, make)
    return sorted(out + kept, key=lambda e: (e.frame, e.t, e.type != EventType.LAG))


def is_lag(shot: Shot) -> bool:
    """The shot carries a ``lag`` event."""
    return any(e.type is EventType.LAG for e in shot.events)


REST_NOISE_MM = 0.5
"""One ball's rest position noise (mm, one axis) beside the calibration's error: the median
of the still frames, at 720p about a tenth of a pixel's mm."""


FIT_FLOOR_MM = 1.5
"""The least calibration error assumed from a fit residual alone: a homography's ``rms_mm``
on the markings it was fitted to is not its error on a table it never saw (issue 32: 1.5 to
18 mm today), so a calibration that reports no ``uncertainty`` counts at least this."""


def lag_sigma_mm(calib_data: object) -> float | None:
    """One lag ball's rest standard uncertainty (mm) from a calibration (contract §6), with
    :data:`REST_NOISE_MM` added in quadrature: from its ``uncertainty`` (``rms_mm``, and
    ``max_mm`` / 3 where larger: the worst error is about 3 sigma), else from its fit
    ``rms_mm`` but at least :data:`FIT_FLOOR_MM`; None when it says nothing (the
    adjudicator's default holds)."""
    unc = getattr(calib_data, "uncertainty", None)
    if unc is None:
        unc = (getattr(calib_data, "__pydantic_extra__", None) or {}).get("uncertainty")
    if unc is not None and not isinstance(unc, dict):
        unc = {"rms_mm": getattr(unc, "rms_mm", None), "max_mm": getattr(unc, "max_mm", None)}
    if isinstance(unc, dict) and isinstance(unc.get("rms_mm"), int | float):
        cal = max(float(unc["rms_mm"]), float(unc.get("max_mm") or 0.0) / 3.0)
    else:
        rms = getattr(calib_data, "rms_mm", None)
        if not isinstance(rms, int | float) or rms < 0:
            return None
        cal = max(float(rms), FIT_FLOOR_MM)
    return float(np.hypot(cal, REST_NOISE_MM))
