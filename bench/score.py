"""The scorer: compare any tablemon output with ground truth (issue 2, part 6).

Benchmarks call these pure functions directly::

    report = score_match(pred_match, truth_match)            # shots, events, rest, verdicts
    tracks = score_tracks(pred_tracks, truth_tracks, table)  # per-frame error, coverage, ids
    calib = score_calibration(pred_calib, truth_calib, table)  # mm over the table
    report = score_all(pred_match, truth_match, tracks=(p, t), calibration=(p, t))
    print(report.table()); json.dump(report.to_json(), f)

Frames are video frame numbers, positions table mm (contract §1). White pyramid ids
are mapped to truth ids by position once per video (:mod:`bench.score_ids`): from the
tracks when given, otherwise from the rest positions of every matched shot.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from bench.score_calib import CalibScores, score_calibration
from bench.score_events import (
    EVENT_WINDOW,
    POCKET_WINDOW,
    EventScores,
    RestScores,
    ShotScores,
    TypeScores,
    VerdictScores,
    extend_ids_by_events,
    score_events,
    score_rest,
    score_shots,
    score_verdicts,
)
from bench.score_ids import IdMap, map_ids_from_rests, map_ids_from_tracks
from bench.score_sum import (
    combine_calibration,
    combine_events,
    combine_ids,
    combine_rest,
    combine_shots,
    combine_tracks,
    combine_verdicts,
)
from bench.score_tracks import TrackScores, score_tracks
from bench.score_util import Stats, fmt, jsonable, pct
from contract.calib import Calibration
from contract.match import Match
from contract.tables import TableSpec
from contract.tracks import Tracks

__all__ = [
    "CalibScores",
    "EventScores",
    "IdMap",
    "Report",
    "RestScores",
    "ShotScores",
    "Stats",
    "TrackScores",
    "TypeScores",
    "VerdictScores",
    "combine",
    "score_all",
    "score_calibration",
    "score_match",
    "score_tracks",
]


@dataclass(frozen=True)
class Report:
    """Every figure of one comparison (or of ``videos`` combined by :func:`combine`);
    ``tracks`` / ``calibration`` only when scored."""

    shots: ShotScores
    events: EventScores
    rest: RestScores
    verdicts: VerdictScores
    ids: IdMap
    tracks: TrackScores | None = None
    calibration: CalibScores | None = None
    videos: int = 1

    def to_json(self) -> dict:
        return jsonable(self)

    def table(self) -> str:
        return format_report(self)


def score_match(pred: Match, truth: Match, ids: IdMap | None = None) -> Report:
    """Shots, events, rest positions and verdicts of ``pred`` against ``truth``.

    ``ids`` maps predicted to truth ids; by default it is built from the rest positions
    of all matched shots, then, for white balls never seen at rest (pocketed first), from
    the events that name them.
    """
    shots = score_shots(pred.shots, truth.shots)
    if ids is None:
        rests = [(pred.shots[i].rest, truth.shots[j].rest) for i, j in shots.pairs]
        ids = extend_ids_by_events(map_ids_from_rests(rests), pred, truth)
    return Report(
        shots=shots,
        events=score_events(pred, truth, ids, shots.pairs, EVENT_WINDOW),
        rest=score_rest(pred, truth, ids, shots.pairs),
        verdicts=score_verdicts(pred, truth, shots.pairs),
        ids=ids,
    )


def score_all(
    pred: Match,
    truth: Match,
    tracks: tuple[Tracks, Tracks] | None = None,
    calibration: tuple[Calibration, Calibration] | None = None,
    table: TableSpec | None = None,
) -> Report:
    """Everything the CLI scores: ``tracks`` and ``calibration`` are ``(pred, truth)`` pairs.

    With tracks the id mapping comes from them (every frame) and serves the match too.
    """
    ids = map_ids_from_tracks(*tracks) if tracks else None
    rep = score_match(pred, truth, ids)
    tr = cal = None
    if tracks:
        spans = [(s.start.frame, s.end.frame) for s in truth.shots]
        tr = score_tracks(tracks[0], tracks[1], table, ids=rep.ids, shots=spans)
    if calibration:
        cal = score_calibration(calibration[0], calibration[1], table)
    return dataclasses.replace(rep, tracks=tr, calibration=cal)


def combine(reports: Sequence[Report]) -> Report:
    """One report for a set of videos: counts summed, ratios recomputed, error statistics
    merged from every value; ``tracks`` / ``calibration`` from the reports that have them."""
    if not reports:
        raise ValueError("no reports to combine")
    tr = [r.tracks for r in reports if r.tracks is not None]
    ca = [r.calibration for r in reports if r.calibration is not None]
    return Report(
        shots=combine_shots([r.shots for r in reports]),
        events=combine_events([r.events for r in reports]),
        rest=combine_rest([r.rest for r in reports]),
        verdicts=combine_verdicts([r.verdicts for r in reports]),
        ids=combine_ids([r.ids for r in reports]),
        tracks=combine_tracks(tr) if tr else None,
        calibration=combine_calibration(ca) if ca else None,
        videos=sum(r.videos for r in reports),
    )


# ------------------------------------------------------------------ the table
def _type_row(s: TypeScores) -> str:
    notes = []
    if s.order_right is not None:
        notes.append(f"order right {s.order_right}/{s.tp}")
    if s.by_total is not None:
        notes.append(f"by right {s.by_right}/{s.by_total}")
    if s.flagged:
        notes.append(f"flagged uncertain {s.flagged} ({s.flagged_tp} true)")
    return (
        f"  {s.type:<14}{s.truth:>6}{s.pred:>6}{s.tp:>6}{fmt(s.precision):>11}"
        f"{fmt(s.recall):>8}{fmt(s.f1):>7}  {'  '.join(notes)}"
    ).rstrip()


def _frames(s: Stats) -> str:
    return "-" if s.n == 0 else f"mean {s.mean:.2f} max {s.max:.0f}"


def _listed(what: str, items: tuple[str, ...], most: int = 8) -> list[str]:
    if not items:
        return []
    more = f" (+{len(items) - most} more)" if len(items) > most else ""
    return [f"  {what:<7}{'; '.join(items[:most])}{more}"]


def _final_score(v: VerdictScores) -> str:
    if not v.pred_score:  # several videos combined
        return f"             final scores agree in {v.scores_agree}/{v.scores_compared} videos"
    agree = "" if v.score_agree is None else (" agree" if v.score_agree else " DIFFER")
    return (
        f"             final score {v.pred_score['A']}:{v.pred_score['B']} vs truth "
        f"{v.truth_score['A']}:{v.truth_score['B']}{agree}"
    )


def format_report(r: Report) -> str:
    """The readable table ``tablemon score`` prints (frames, table mm)."""
    s, e, rest, v = r.shots, r.events, r.rest, r.verdicts
    lines = [f"videos       {r.videos}"] if r.videos > 1 else []
    lines += [
        f"shots        truth {s.truth}  pred {s.pred}  matched {s.matched}  "
        f"recall {fmt(s.recall)}  precision {fmt(s.precision)}",
        f"             start error {_frames(s.start_error)} frames; end error "
        f"{_frames(s.end_error)} frames; both within 2 frames {pct(s.within_2)}",
        f"events (±{e.window} frames, pockets ±{max(e.window, POCKET_WINDOW)})",
        "  type           truth  pred    tp  precision  recall     F1  notes",
        *[_type_row(t) for t in e.types],
        _type_row(e.overall),
        f"  first contact right {e.first_contact_right}/{e.first_contact_total} "
        f"({pct(e.first_contact)}); pockets invented {e.pockets_invented}",
        *_listed("missed", e.missed),
        *_listed("extra", e.extra),
        f"rest         {rest.shots} shots; error {rest.error.brief()}; missing {rest.missing}; "
        f"extra {rest.extra}; numbers read {rest.numbers_right}/{rest.numbers_total}",
        f"ids          mapped from {r.ids.source}: {len(r.ids.pairs)} white ids; unmapped "
        f"{', '.join(r.ids.unmapped) or '-'}; numbers read {r.ids.numbers_right}/"
        f"{r.ids.numbers_total} ({pct(r.ids.numbers_read)})",
        f"verdicts     compared {v.compared}; agree {v.agree} ({pct(v.share)}): legal {v.legal}, "
        f"fouls {v.fouls}, scored {v.scored}, next {v.next}",
        _final_score(v),
    ]
    if r.tracks:
        t = r.tracks
        lines += [
            f"tracks       coverage {pct(t.coverage)} ({t.covered}/{t.visible_rows} visible "
            f"truth rows, {t.gate_mm:.0f} mm gate); false rows {t.false_rows}/{t.pred_rows} "
            f"({pct(t.false_share)}); identity switches {t.switches}; shots without switch "
            f"{t.shots_clean}/{t.shots}",
            f"             error all    {t.error.brief()}",
            f"             error moving {t.error_moving.brief()}",
            f"             error rest   {t.error_rest.brief()}",
        ]
    if r.calibration:
        c = r.calibration
        ball = "-" if c.error_ball is None else c.error_ball.brief()
        lines += [
            f"calibration  {c.table}, {c.points} points ({c.lost} lost); cloth {c.error.brief()}",
            f"             ball height {ball}; front end "
            f"right in {c.front_right}/{c.videos} videos"
            + ("" if c.front_x_mm is None else f" (x = {c.front_x_mm:.1f} mm)"),
        ]
    return "\n".join(lines)
