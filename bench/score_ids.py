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


def _pair_costs(pp: np.ndarray, tt: np.ndarray, gate: float) -> tuple[np.ndarray, np.ndarray]:
    """Capped summed distance and count of agreeing snapshots for every (pred, truth) pair.

    ``pp`` (F, P, 2) and ``tt`` (F, T, 2) hold positions in mm, NaN where the ball is
    absent. A snapshot where only one of the pair exists costs ``gate``.
    """
    P, T = pp.shape[1], tt.shape[1]
    cost = np.zeros((P, T))
    agree = np.zeros((P, T), dtype=np.int64)
    for s in range(0, pp.shape[0], 2048):
        a, b = pp[s : s + 2048], tt[s : s + 2048]
        pa, pb = ~np.isnan(a[..., 0]), ~np.isnan(b[..., 0])
        both = pa[:, :, None] & pb[:, None, :]
        one = pa[:, :, None] ^ pb[:, None, :]
        d = np.linalg.norm(a[:, :, None, :] - b[:, None, :, :], axis=-1)
        d = np.where(both, np.minimum(np.nan_to_num(d, nan=gate), gate), 0.0)
        cost += d.sum(0) + gate * one.sum(0)
        agree += (both & (d <= gate)).sum(0)
    return cost, agree


def map_ids(
    pred_ids: Sequence[str],
    truth_ids: Sequence[str],
    pp: np.ndarray,
    tt: np.ndarray,
    source: str,
    gate: float = GATE_MM,
) -> IdMap:
    """Build the :class:`IdMap` from positions ``pp`` (F, P, 2) / ``tt`` (F, T, 2) in mm
    of the listed ids over F shared snapshots (NaN where absent)."""
    pw = [i for i, p in enumerate(pred_ids) if is_white(p)]
    tw = [j for j, t in enumerate(truth_ids) if is_white(t)]
    cost, agree = _pair_costs(pp[:, pw], tt[:, tw], gate)
    truth_set = {truth_ids[j] for j in tw}
    exact = {pred_ids[i] for i in pw if is_number(pred_ids[i]) and pred_ids[i] in truth_set}
    pairs = {p: p for p in exact}
    rp = [r for r, i in enumerate(pw) if pred_ids[i] not in exact]
    rt = [k for k, j in enumerate(tw) if truth_ids[j] not in exact]
    sub = np.ix_(rp, rt)
    ok = np.array(
        [[compatible_ids(pred_ids[pw[r]], truth_ids[tw[k]]) for k in rt] for r in rp], dtype=bool
    ).reshape(len(rp), len(rt))
    for r, k in assign(cost[sub], (agree[sub] > 0) & ok):
        pairs[pred_ids[pw[rp[r]]]] = truth_ids[tw[rt[k]]]
    # numbers read: which predicted ball sits where each truth numbered ball is
    numbered = [k for k, j in enumerate(tw) if is_number(truth_ids[j])]
    right = sum(
        1
        for r, k in assign(cost, agree > 0)
        if is_number(truth_ids[tw[k]]) and pred_ids[pw[r]] == truth_ids[tw[k]]
    )
    unmapped = tuple(sorted(pred_ids[i] for i in pw if pred_ids[i] not in pairs))
    return IdMap(pairs, source, right, len(numbered), unmapped)


def _stack(snaps: Sequence[Mapping[str, tuple[float, float]]], ids: list[str]) -> np.ndarray:
    col = {ident: k for k, ident in enumerate(ids)}
    out = np.full((len(snaps), len(ids), 2), np.nan)
    for f, snap in enumerate(snaps):
        for ident, xy in snap.items():
            if ident in col:
                out[f, col[ident]] = xy
    return out


def map_ids_from_rests(
    pairs: Sequence[tuple[Mapping[str, tuple[float, float]], Mapping[str, tuple[float, float]]]],
    gate: float = GATE_MM,
) -> IdMap:
    """Map ids from the rest positions (mm) of matched shots: ``[(pred_rest, truth_rest)]``."""
    pred_ids = sorted({i for p, _ in pairs for i in p if is_white(i)})
    truth_ids = sorted({i for _, t in pairs for i in t if is_white(i)})
    pp = _stack([p for p, _ in pairs], pred_ids)
    tt = _stack([t for _, t in pairs], truth_ids)
    return map_ids(pred_ids, truth_ids, pp, tt, "rest", gate)


def _frames_array(tr: Tracks, frames: np.ndarray, ids: list[str]) -> np.ndarray:
    out = np.full((len(frames), len(ids), 2), np.nan)
    for k, ident in enumerate(ids):
        m = tr.id == ident
        f = np.searchsorted(frames, tr.frame[m])
        out[f, k, 0], out[f, k, 1] = tr.x[m], tr.y[m]
    return out


def map_ids_from_tracks(pred: Tracks, truth: Tracks, gate: float = GATE_MM) -> IdMap:
    """Map ids from every frame where both tracks exist (positions in table mm)."""
    pred_ids = [i for i in pred.ids() if is_white(i)]
    truth_ids = [i for i in truth.ids() if is_white(i)]
    frames = np.union1d(pred.frame, truth.frame)
    pp = _frames_array(pred, frames, pred_ids)
    tt = _frames_array(truth, frames, truth_ids)
    return map_ids(pred_ids, truth_ids, pp, tt, "tracks", gate)
