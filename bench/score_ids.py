"""Map predicted ball ids to truth ids, once per video (contract §3).

Named ids (``yellow``, ``white``, ``red``, skittles, and numbers ``1``..``15`` when both
sides use the number) compare with ``==``, never substrings. The anonymous white
pyramid balls (``w1``, ``w2``, ... or numbers the other side lacks) are mapped by
position: Hungarian on the summed distances (table mm, each capped at the gate) over
the frames, or the shots' rest positions, where the balls exist. A predicted number is
never mapped to a different truth number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bench.score_util import assign, ratio
from contract.tracks import Tracks

GATE_MM = 50.0
_WHITE = re.compile(r"^(w\d+|\d+)$")
_NUMBER = re.compile(r"^\d+$")
UNMAPPED = "?"  # prefix of a predicted white id that maps to no truth id


def is_white(ident: str) -> bool:
    """A pyramid white ball id: a tracker id ``wN`` or a number ``N``."""
    return bool(_WHITE.match(ident))


def is_number(ident: str) -> bool:
    return bool(_NUMBER.match(ident))


def compatible_ids(pred_id: str, truth_id: str) -> bool:
    """May position map ``pred_id`` to ``truth_id``? Not two different numbers: when both
    sides use numbers they compare with ``==`` (a misread number stays wrong)."""
    return not (is_number(pred_id) and is_number(truth_id)) or pred_id == truth_id


@dataclass(frozen=True)
class IdMap:
    """Predicted id -> truth id. Named ids, and numbers absent from the data the mapping
    was built on, pass through unchanged (compared with ``==``); any other white id that
    maps to nothing becomes ``?ID`` so it can never equal a truth id.

    ``numbers_right`` / ``numbers_total``: truth numbered balls whose position-matched
    predicted ball carries the same number (the numbers-read share).
    """

    pairs: Mapping[str, str] = field(default_factory=dict)
    source: str = "none"
    numbers_right: int = 0
    numbers_total: int = 0
    unmapped: tuple[str, ...] = ()

    def __call__(self, pred_id: str) -> str:
        if pred_id in self.pairs:
            return self.pairs[pred_id]
        if not is_white(pred_id) or is_number(pred_id):
            return pred_id  # named, or a number the mapping never saw: compare with ==
        return UNMAPPED + pred_id

    @property
    def numbers_read(self) -> float | None:
        return ratio(self.numbers_right, self.numbers_total)

    def to_json(self) -> dict:
        return {
            "source": self.source,
            "pairs": dict(sorted(self.pairs.items())),
            "unmapped": list(self.unmapped),
            "numbers_right": self.numbers_right,
            "numbers_total": self.numbers_total,
            "numbers_read": self.numbers_read,
        }


@dataclass(frozen=True)
class _Rows:
    """Positions (table mm) of the white balls, one row per (snapshot, id), by snapshot."""

    ids: list[str]
    snap: np.ndarray  # int: a frame number, or the index of a matched shot
    idx: np.ndarray  # int index into ids
    x: np.ndarray
    y: np.ndarray

    @classmethod
    def of(cls, snap: np.ndarray, ident: np.ndarray, x: np.ndarray, y: np.ndarray) -> _Rows:
        uniq, inv = np.unique(np.asarray(ident).astype(str), return_inverse=True)
        white = np.array([is_white(u) for u in uniq], dtype=bool)
        keep = white[inv] if len(inv) else np.zeros(0, bool)
        remap = np.cumsum(white) - 1
        snap, idx = np.asarray(snap, np.int64)[keep], remap[inv[keep]]
        # one row per (snapshot, id): the last wins, as in a dict
        _, first = np.unique(np.c_[snap, idx][::-1], axis=0, return_index=True)
        sel = np.sort(len(snap) - 1 - first) if len(snap) else np.zeros(0, np.int64)
        order = sel[np.argsort(snap[sel], kind="stable")]
        xs, ys = np.asarray(x, float)[keep], np.asarray(y, float)[keep]
        return cls([str(u) for u in uniq[white]], snap[order], idx[order], xs[order], ys[order])


def _pair_costs(pr: _Rows, tr: _Rows, gate: float) -> tuple[np.ndarray, np.ndarray]:
    """Capped summed distance and count of agreeing snapshots for every (pred, truth) id.

    Over the snapshots where either exists: ``min(d, gate)`` where both exist, ``gate``
    where only one does. Computed from the rows that share a snapshot (a sparse join), so
    memory grows with the rows, not with snapshots x ids.
    """
    P, T = len(pr.ids), len(tr.ids)
    n_p = np.bincount(pr.idx, minlength=P).astype(float)
    n_t = np.bincount(tr.idx, minlength=T).astype(float)
    both = np.zeros((P, T))
    agree = np.zeros((P, T), dtype=np.int64)
    for s in range(0, len(tr.snap), 100_000):
        tf = tr.snap[s : s + 100_000]
        lo = np.searchsorted(pr.snap, tf, "left")
        cnt = np.searchsorted(pr.snap, tf, "right") - lo
        ti = s + np.repeat(np.arange(len(tf)), cnt)
        pi = np.repeat(lo, cnt) + np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        d = np.hypot(pr.x[pi] - tr.x[ti], pr.y[pi] - tr.y[ti])
        close = np.nan_to_num(d, nan=np.inf) <= gate
        np.add.at(both, (pr.idx[pi], tr.idx[ti]), np.where(close, d, gate) - 2 * gate)
        np.add.at(agree, (pr.idx[pi], tr.idx[ti]), close)
    return gate * (n_p[:, None] + n_t[None, :]) + both, agree


def map_ids(pr: _Rows, tr: _Rows, source: str, gate: float = GATE_MM) -> IdMap:
    """Build the :class:`IdMap` from the white balls' positions (mm) in shared snapshots."""
    pred_ids, truth_ids = pr.ids, tr.ids
    cost, agree = _pair_costs(pr, tr, gate)
    exact = {p for p in pred_ids if is_number(p) and p in set(truth_ids)}
    pairs = {p: p for p in exact}
    rp = [r for r, p in enumerate(pred_ids) if p not in exact]
    rt = [k for k, t in enumerate(truth_ids) if t not in exact]
    sub = np.ix_(rp, rt)
    ok = np.array(
        [[compatible_ids(pred_ids[r], truth_ids[k]) for k in rt] for r in rp], dtype=bool
    ).reshape(len(rp), len(rt))
    for r, k in assign(cost[sub], (agree[sub] > 0) & ok):
        pairs[pred_ids[rp[r]]] = truth_ids[rt[k]]
    # numbers read: which predicted ball sits where each truth numbered ball is
    right = sum(
        1
        for r, k in assign(cost, agree > 0)
        if is_number(truth_ids[k]) and pred_ids[r] == truth_ids[k]
    )
    numbered = sum(is_number(t) for t in truth_ids)
    unmapped = tuple(sorted(p for p in pred_ids if p not in pairs))
    return IdMap(pairs, source, right, numbered, unmapped)


def _snap_rows(snaps: Sequence[Mapping[str, tuple[float, float]]]) -> _Rows:
    items = [(k, i, xy) for k, snap in enumerate(snaps) for i, xy in snap.items()]
    return _Rows.of(
        np.array([k for k, _, _ in items], dtype=np.int64),
        np.array([i for _, i, _ in items], dtype=object),
        np.array([xy[0] for _, _, xy in items], dtype=float),
        np.array([xy[1] for _, _, xy in items], dtype=float),
    )


def map_ids_from_rests(
    pairs: Sequence[tuple[Mapping[str, tuple[float, float]], Mapping[str, tuple[float, float]]]],
    gate: float = GATE_MM,
) -> IdMap:
    """Map ids from the rest positions (mm) of matched shots: ``[(pred_rest, truth_rest)]``."""
    pr = _snap_rows([p for p, _ in pairs])
    tr = _snap_rows([t for _, t in pairs])
    return map_ids(pr, tr, "rest", gate)


def map_ids_from_tracks(pred: Tracks, truth: Tracks, gate: float = GATE_MM) -> IdMap:
    """Map ids from every frame where both tracks exist (positions in table mm)."""
    pr = _Rows.of(pred.frame, pred.id, pred.x, pred.y)
    tr = _Rows.of(truth.frame, truth.id, truth.x, truth.y)
    return map_ids(pr, tr, "tracks", gate)
