"""Score shots, events, rest positions and verdicts of a MATCH.json against its truth.

Frames are video frame numbers; positions are table mm (contract §1). Predicted ids
are mapped to truth ids with an :class:`~bench.score_ids.IdMap` before comparing.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from bench.score_ids import GATE_MM, IdMap, compatible_ids, is_number, is_white
from bench.score_util import Stats, assign, ratio
from contract.events import REQUIRED, Event, EventType
from contract.match import Match, Shot

EVENT_WINDOW = 3  # frames either side
POCKET_WINDOW = 10  # a pocket's, frames either side: a fall is seen late (contract §8)
IdFn = Callable[[str], str]


# ------------------------------------------------------------------------ shots
@dataclass(frozen=True)
class ShotScores:
    """Shots matched one-to-one by the overlap (IoU) of their [start, end] frames.

    ``pairs`` holds (pred list index, truth list index); errors are absolute, in frames;
    ``within_2`` is the share of matched shots whose start and end are both within 2.
    """

    truth: int
    pred: int
    matched: int
    start_error: Stats
    end_error: Stats
    within_2_n: int
    pairs: tuple[tuple[int, int], ...] = ()

    @property
    def recall(self) -> float | None:
        return ratio(self.matched, self.truth)

    @property
    def precision(self) -> float | None:
        return ratio(self.matched, self.pred)

    @property
    def within_2(self) -> float | None:
        return ratio(self.within_2_n, self.matched)


def _iou(a: Shot, b: Shot) -> float:
    lo, hi = max(a.start.frame, b.start.frame), min(a.end.frame, b.end.frame)
    inter = max(0, hi - lo + 1)
    union = (a.end.frame - a.start.frame + 1) + (b.end.frame - b.start.frame + 1) - inter
    return inter / union if union > 0 else 0.0


def score_shots(pred: Sequence[Shot], truth: Sequence[Shot]) -> ShotScores:
    """Hungarian on ``1 - IoU``; pairs that do not overlap at all are never matched."""
    iou = np.array([[_iou(p, t) for t in truth] for p in pred]).reshape(len(pred), len(truth))
    pairs = sorted(assign(1.0 - iou, iou > 0), key=lambda pt: pt[1])
    ds = np.array([abs(pred[p].start.frame - truth[t].start.frame) for p, t in pairs])
    de = np.array([abs(pred[p].end.frame - truth[t].end.frame) for p, t in pairs])
    both = int(np.sum((ds <= 2) & (de <= 2))) if pairs else 0
    return ShotScores(
        truth=len(truth),
        pred=len(pred),
        matched=len(pairs),
        start_error=Stats.of(ds),
        end_error=Stats.of(de),
        within_2_n=both,
        pairs=tuple(pairs),
    )


# ----------------------------------------------------------------------- events
@dataclass(frozen=True)
class TypeScores:
    """One event type: counts, precision, recall, F1 and the frame error of matches.

    ``order_right`` (contact): matched contacts whose striking ball is right.
    ``by_right`` / ``by_total`` (skittle_down): matched falls whose ``by`` agrees.
    """

    type: str
    truth: int
    pred: int
    tp: int
    frame_error: Stats
    order_right: int | None = None
    by_right: int | None = None
    by_total: int | None = None
    flagged: int = 0
    """Predicted events flagged ``uncertain`` (contract §8: counted as predicted too)."""
    flagged_tp: int = 0
    """Flagged events that match a true one."""

    @property
    def precision(self) -> float | None:
        return ratio(self.tp, self.pred)

    @property
    def recall(self) -> float | None:
        return ratio(self.tp, self.truth)

    @property
    def f1(self) -> float | None:
        return ratio(2 * self.tp, self.truth + self.pred)


@dataclass(frozen=True)
class EventScores:
    """All event types present on either side, plus the micro-average ``overall``.

    ``first_contact_right`` / ``first_contact_total``: matched shots whose first contact is
    the same pair in the same order (or both have none). ``pockets_invented``: predicted
    pocket events with no truth pocket event to match. ``missed`` / ``extra``: the truth
    events left unmatched and the predicted ones (predicted ids mapped), one line each
    (``frame type ids detail``), for reading what went wrong in one video.
    """

    window: int
    types: tuple[TypeScores, ...]
    overall: TypeScores
    first_contact_right: int
    first_contact_total: int
    pockets_invented: int
    missed: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    @property
    def first_contact(self) -> float | None:
        return ratio(self.first_contact_right, self.first_contact_total)

    def get(self, type_: EventType | str) -> TypeScores | None:
        return next((s for s in self.types if s.type == str(type_)), None)


def map_event(e: Event, m: IdFn) -> Event:
    """The event with its ball ids (``ball``, ``balls``, ``by``) passed through ``m``."""
    upd: dict = {}
    if e.ball is not None:
        upd["ball"] = m(e.ball)
    if e.balls is not None:
        upd["balls"] = (m(e.balls[0]), m(e.balls[1]))
    if e.by is not None:
        upd["by"] = m(e.by)
    return e.model_copy(update=upd) if upd else e


def same_cushion(a: str, b: str) -> bool:
    """Equal cushions; ``left-front`` etc. collapse to ``left`` when either side lacks halves."""
    if a == b:
        return True
    ha, hb = a.startswith(("left-", "right-")), b.startswith(("left-", "right-"))
    if ha and hb:
        return False
    return a.split("-")[0] == b.split("-")[0]


def compatible(p: Event, t: Event) -> bool:
    """Same type and the same balls / cushion / pocket / skittle (ids already mapped)."""
    if p.type != t.type:
        return False
    for f in REQUIRED[t.type]:
        a, b = getattr(p, f), getattr(t, f)
        if f == "balls":
            if set(a) != set(b):
                return False
        elif f == "cushion":
            if not same_cushion(a, b):
                return False
        elif a != b:
            return False
    return p.line is None or t.line is None or p.line == t.line


def match_events(
    pred: Sequence[Event], truth: Sequence[Event], window: int
) -> list[tuple[int, int]]:
    """One-to-one matches (pred index, truth index) within ``window`` frames, Hungarian on
    the frame distance among compatible pairs, solved per cluster of nearby frames."""
    items = sorted(
        [(e.frame, 0, i) for i, e in enumerate(pred)]
        + [(e.frame, 1, j) for j, e in enumerate(truth)]
    )
    out: list[tuple[int, int]] = []
    start = 0
    for k in range(1, len(items) + 1):
        if k < len(items) and items[k][0] - items[k - 1][0] <= window:
            continue
        ps = [i for _, side, i in items[start:k] if side == 0]
        ts = [j for _, side, j in items[start:k] if side == 1]
        start = k
        if not ps or not ts:
            continue
        df = np.abs(np.array([[pred[i].frame - truth[j].frame for j in ts] for i in ps]))
        ok = np.array([[compatible(pred[i], truth[j]) for j in ts] for i in ps]) & (df <= window)
        out += [(ps[r], ts[c]) for r, c in assign(df, ok)]
    return out


def _all_events(m: Match) -> list[Event]:
    evs = [e for s in m.shots for e in s.events] + list(m.events)
    return sorted(evs, key=lambda e: e.frame)


def _first_contact(s: Shot, m: IdFn) -> tuple[str, str] | None:
    e = next((e for e in s.events if e.type == EventType.CONTACT), None)
    return None if e is None else (m(e.balls[0]), m(e.balls[1]))


def score_events(
    pred: Match,
    truth: Match,
    ids: IdFn,
    shot_pairs: Sequence[tuple[int, int]],
    window: int = EVENT_WINDOW,
) -> EventScores:
    """Events of the whole video (every shot plus match-level events), per type."""
    pe = [map_event(e, ids) for e in _all_events(pred)]
    te = _all_events(truth)
    types = sorted({e.type for e in pe} | {e.type for e in te}, key=list(EventType).index)
    rows: list[TypeScores] = []
    tot = [0, 0, 0]
    dall: list[int] = []
    invented = 0
    missed: list[Event] = []
    extra: list[Event] = []
    for ty in types:
        p = [e for e in pe if e.type == ty]
        t = [e for e in te if e.type == ty]
        w = max(window, POCKET_WINDOW) if ty == EventType.POCKET else window
        pairs = match_events(p, t, w)
        d = [abs(p[i].frame - t[j].frame) for i, j in pairs]
        mp, mt = {i for i, _ in pairs}, {j for _, j in pairs}
        extra += [e for i, e in enumerate(p) if i not in mp]
        missed += [e for j, e in enumerate(t) if j not in mt]
        kw: dict = {}
        if ty == EventType.CONTACT:
            kw["order_right"] = sum(p[i].balls == t[j].balls for i, j in pairs)
        if ty == EventType.SKITTLE_DOWN:
            withby = [(i, j) for i, j in pairs if t[j].by is not None]
            kw["by_total"] = len(withby)
            kw["by_right"] = sum(p[i].by == t[j].by for i, j in withby)
        if ty == EventType.POCKET:
            invented = len(p) - len(pairs)
        kw["flagged"] = sum(1 for e in p if e.uncertain)
        kw["flagged_tp"] = sum(1 for i, _ in pairs if p[i].uncertain)
        rows.append(TypeScores(str(ty), len(t), len(p), len(pairs), Stats.of(d), **kw))
        tot = [tot[0] + len(t), tot[1] + len(p), tot[2] + len(pairs)]
        dall += d
    fc = [
        _first_contact(pred.shots[i], ids) == _first_contact(truth.shots[j], str)
        for i, j in shot_pairs
    ]
    return EventScores(
        window=window,
        types=tuple(rows),
        overall=TypeScores(
            "all",
            tot[0],
            tot[1],
            tot[2],
            Stats.of(dall),
            flagged=sum(r.flagged for r in rows),
            flagged_tp=sum(r.flagged_tp for r in rows),
        ),  # fmt: skip
        first_contact_right=sum(fc),
        first_contact_total=len(fc),
        pockets_invented=invented,
        missed=tuple(describe(e) for e in sorted(missed, key=lambda e: e.frame)),
        extra=tuple(describe(e) for e in sorted(extra, key=lambda e: e.frame)),
    )


def describe(e: Event) -> str:
    """One short line for an event: ``52 contact yellow>w7`` or ``70 cushion w7 back``."""
    who = ">".join(e.balls) if e.balls else (e.ball or e.skittle or "")
    detail = [v for v in (e.cushion, e.pocket, e.line) if v]
    if e.by is not None:
        detail.append(f"by {e.by}")
    return " ".join(str(v) for v in (e.frame, e.type.value, who, *detail) if v != "")


def extend_ids_by_events(
    ids: IdMap, pred: Match, truth: Match, window: int = EVENT_WINDOW
) -> IdMap:
    """Map the white ids the rest positions could not (a ball pocketed before any rest
    state) by events: a vote for ``p -> t`` each time a predicted event naming ``p`` and a
    truth event naming ``t`` are compatible under it, within ``window`` frames."""
    pe, te = _all_events(pred), _all_events(truth)
    p_all = {i for e in pe for i in e.ids} | {i for s in pred.shots for i in s.rest}
    t_all = {i for e in te for i in e.ids} | {i for s in truth.shots for i in s.rest}
    same = {i for i in p_all & t_all if is_number(i)}  # numbers on both sides: ==
    taken = set(ids.pairs.values()) | same
    left_p = sorted({i for e in pe for i in e.ids if is_white(i) and i not in ids.pairs} - same)
    left_t = sorted({i for e in te for i in e.ids if is_white(i) and i not in taken})
    if not left_p or not left_t:
        return ids
    frames = [e.frame for e in te]
    col = {t: c for c, t in enumerate(left_t)}
    votes = np.zeros((len(left_p), len(left_t)))
    for r, p in enumerate(left_p):
        for e in (e for e in pe if p in e.ids):
            lo, hi = bisect_left(frames, e.frame - window), bisect_right(frames, e.frame + window)
            for t_ev in (t for t in te[lo:hi] if t.type == e.type):
                for t in (t for t in t_ev.ids if t in col and compatible_ids(p, t)):
                    m = dict(ids.pairs) | {p: t}
                    votes[r, col[t]] += compatible(
                        map_event(e, lambda i, m=m: m.get(i, ids(i))), t_ev
                    )
    pairs = dict(ids.pairs)
    for r, c in assign(-votes, votes > 0):
        pairs[left_p[r]] = left_t[c]
    if len(pairs) == len(ids.pairs):
        return ids
    unmapped = tuple(i for i in ids.unmapped if i not in pairs)
    return replace(ids, pairs=pairs, source=ids.source + "+events", unmapped=unmapped)


# ------------------------------------------------------------------------- rest
@dataclass(frozen=True)
class RestScores:
    """Rest positions of matched shots, by mapped id: distance in table mm.

    ``missing``: truth balls at rest the prediction lacks; ``extra``: predicted balls with
    no truth ball of that id. ``numbers_right`` / ``numbers_total``: truth numbered balls
    whose predicted ball at the same place (Hungarian, 50 mm gate) carries that number.
    """

    shots: int
    error: Stats
    missing: int
    extra: int
    numbers_right: int
    numbers_total: int

    @property
    def numbers_read(self) -> float | None:
        return ratio(self.numbers_right, self.numbers_total)


def _numbers_at_rest(p: dict, t: dict) -> tuple[int, int]:
    pw = [i for i in p if is_white(i)]
    tw = [i for i in t if is_white(i)]
    total = sum(is_number(i) for i in tw)
    if not pw or not tw:
        return 0, total
    d = np.array([[np.hypot(p[a][0] - t[b][0], p[a][1] - t[b][1]) for b in tw] for a in pw])
    right = sum(pw[r] == tw[c] and is_number(tw[c]) for r, c in assign(d, d <= GATE_MM))
    return right, total


def score_rest(
    pred: Match, truth: Match, ids: IdFn, shot_pairs: Sequence[tuple[int, int]]
) -> RestScores:
    errs: list[float] = []
    missing = extra = right = total = 0
    for i, j in shot_pairs:
        p = {ids(k): v for k, v in pred.shots[i].rest.items()}
        t = truth.shots[j].rest
        errs += [float(np.hypot(p[k][0] - t[k][0], p[k][1] - t[k][1])) for k in t if k in p]
        missing += sum(k not in p for k in t)
        extra += sum(k not in t for k in p)
        r, n = _numbers_at_rest(pred.shots[i].rest, t)
        right, total = right + r, total + n
    return RestScores(len(shot_pairs), Stats.of(errs), missing, extra, right, total)


# ----------------------------------------------------------------------- verdicts
@dataclass(frozen=True)
class VerdictScores:
    """Verdict agreement over matched shots with a verdict on both sides.

    ``agree`` counts shots where legal, the set of fouls, scored and next all agree; the
    other counts are per component. ``scores_agree`` / ``scores_compared`` count videos
    whose final match scores agree (a video is compared when both sides judged a shot);
    ``pred_score`` / ``truth_score`` are the final scores of a single video (empty when
    several videos are combined).
    """

    compared: int
    agree: int
    legal: int
    fouls: int
    scored: int
    next: int
    scores_compared: int
    scores_agree: int
    pred_score: dict[str, int]
    truth_score: dict[str, int]

    @property
    def share(self) -> float | None:
        return ratio(self.agree, self.compared)

    @property
    def score_agree(self) -> bool | None:
        """Final scores agree in every compared video (None when none was compared)."""
        return None if not self.scores_compared else self.scores_agree == self.scores_compared


def _score(d: dict[str, int]) -> dict[str, int]:
    return {"A": int(d.get("A", 0)), "B": int(d.get("B", 0))}


def score_verdicts(
    pred: Match, truth: Match, shot_pairs: Sequence[tuple[int, int]]
) -> VerdictScores:
    c = {"legal": 0, "fouls": 0, "scored": 0, "next": 0}
    agree = compared = 0
    for i, j in shot_pairs:
        pv, tv = pred.shots[i].verdict, truth.shots[j].verdict
        if pv is None or tv is None:
            continue
        compared += 1
        ok = {
            "legal": pv.legal == tv.legal,
            "fouls": set(pv.fouls) == set(tv.fouls),
            "scored": _score(pv.scored) == _score(tv.scored),
            "next": pv.next == tv.next,
        }
        for k, v in ok.items():
            c[k] += v
        agree += all(ok.values())
    judged = any(s.verdict for s in pred.shots) and any(s.verdict for s in truth.shots)
    ps, ts = _score(pred.score), _score(truth.score)
    return VerdictScores(
        compared,
        agree,
        **c,
        scores_compared=int(judged),
        scores_agree=int(judged and ps == ts),
        pred_score=ps,
        truth_score=ts,
    )
