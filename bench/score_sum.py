"""Combine the scores of many videos into one (a benchmark set): counts are summed,
ratios recomputed from the sums, and error statistics merged from the raw values
(so the median of the set is the median of every error, not a median of medians).
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.score_calib import CalibScores
from bench.score_events import EventScores, RestScores, ShotScores, TypeScores, VerdictScores
from bench.score_ids import IdMap
from bench.score_tracks import TrackScores
from bench.score_util import Stats


def _sum(items: Sequence[object], name: str) -> int:
    return sum(getattr(x, name) for x in items)


def _opt_sum(items: Sequence[object], name: str) -> int | None:
    vals = [getattr(x, name) for x in items if getattr(x, name) is not None]
    return sum(vals) if vals else None


def combine_shots(items: Sequence[ShotScores]) -> ShotScores:
    return ShotScores(
        truth=_sum(items, "truth"),
        pred=_sum(items, "pred"),
        matched=_sum(items, "matched"),
        start_error=Stats.merge([s.start_error for s in items]),
        end_error=Stats.merge([s.end_error for s in items]),
        within_2_n=_sum(items, "within_2_n"),
    )


def _combine_type(name: str, items: Sequence[TypeScores]) -> TypeScores:
    return TypeScores(
        type=name,
        truth=_sum(items, "truth"),
        pred=_sum(items, "pred"),
        tp=_sum(items, "tp"),
        frame_error=Stats.merge([t.frame_error for t in items]),
        order_right=_opt_sum(items, "order_right"),
        by_right=_opt_sum(items, "by_right"),
        by_total=_opt_sum(items, "by_total"),
        flagged=_sum(items, "flagged"),
        flagged_tp=_sum(items, "flagged_tp"),
    )


def combine_events(items: Sequence[EventScores]) -> EventScores:
    order: list[str] = []
    for e in items:
        order += [t.type for t in e.types if t.type not in order]
    types = tuple(
        _combine_type(name, [t for e in items for t in e.types if t.type == name]) for name in order
    )
    return EventScores(
        window=items[0].window if items else 0,
        types=types,
        overall=_combine_type("all", [e.overall for e in items]),
        first_contact_right=_sum(items, "first_contact_right"),
        first_contact_total=_sum(items, "first_contact_total"),
        pockets_invented=_sum(items, "pockets_invented"),
    )


def combine_rest(items: Sequence[RestScores]) -> RestScores:
    return RestScores(
        shots=_sum(items, "shots"),
        error=Stats.merge([r.error for r in items]),
        missing=_sum(items, "missing"),
        extra=_sum(items, "extra"),
        numbers_right=_sum(items, "numbers_right"),
        numbers_total=_sum(items, "numbers_total"),
    )


def combine_verdicts(items: Sequence[VerdictScores]) -> VerdictScores:
    keys = ("compared", "agree", "legal", "fouls", "scored", "next")
    return VerdictScores(
        **{k: _sum(items, k) for k in keys},
        scores_compared=_sum(items, "scores_compared"),
        scores_agree=_sum(items, "scores_agree"),
        pred_score={},
        truth_score={},
    )


def combine_ids(items: Sequence[IdMap]) -> IdMap:
    """Only the numbers-read counts survive; the pairs belong to each video."""
    return IdMap(
        pairs={},
        source="combined",
        numbers_right=_sum(items, "numbers_right"),
        numbers_total=_sum(items, "numbers_total"),
    )


def combine_tracks(items: Sequence[TrackScores]) -> TrackScores:
    keys = ("truth_rows", "visible_rows", "pred_rows", "covered", "false_rows", "switches")
    return TrackScores(
        gate_mm=items[0].gate_mm if items else 0.0,
        **{k: _sum(items, k) for k in keys},
        error=Stats.merge([t.error for t in items]),
        error_moving=Stats.merge([t.error_moving for t in items]),
        error_rest=Stats.merge([t.error_rest for t in items]),
        switch_at=(),
        shots=_sum(items, "shots"),
        shots_clean=_sum(items, "shots_clean"),
    )


def combine_calibration(items: Sequence[CalibScores]) -> CalibScores:
    """``error`` over every grid point of every video; ``error_ball`` only over the
    videos that have it (None when none has)."""
    balls = [c.error_ball for c in items if c.error_ball is not None]
    names = sorted({c.table for c in items})
    return CalibScores(
        table=", ".join(names),
        points=_sum(items, "points"),
        error=Stats.merge([c.error for c in items]),
        error_ball=Stats.merge(balls) if balls else None,
        front_x_mm=items[0].front_x_mm if len(items) == 1 else None,
        front_right=_sum(items, "front_right"),
        videos=_sum(items, "videos"),
        lost=_sum(items, "lost"),
    )
