"""Score TRACKS.csv rows against truth rows, frame by frame (positions in table mm).

A truth row is matched by the predicted row of the same (mapped) id in the same frame
within a fixed gate of 50 mm. Moving rows are those whose truth position moved more
than 1 mm since the previous frame. Identity switches count, per truth id, the times
its corresponding predicted ball changes id (CLEAR-MOT: a correspondence is kept while it
stays within the gate, the rest is a per-frame Hungarian assignment within the gate): a
swap of two ids is two switches, one per truth ball.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bench.score_ids import GATE_MM, IdMap, map_ids_from_tracks
from bench.score_util import Stats, assign, ratio
from contract.tables import TableSpec
from contract.tracks import Tracks

MOVING_MM = 1.0  # truth displacement since the previous frame above which a row is moving


@dataclass(frozen=True)
class TrackScores:
    """Per-frame track figures. Errors in table mm; ``coverage`` is the share of truth rows
    with ``visible=1`` matched within the gate; ``false_share`` the share of predicted rows
    with no truth row of any id within the gate in their frame. ``switch_at`` lists
    ``(frame, truth id)``; ``shots_clean`` counts the given shots with no switch."""

    gate_mm: float
    truth_rows: int
    visible_rows: int
    pred_rows: int
    error: Stats
    error_moving: Stats
    error_rest: Stats
    covered: int
    false_rows: int
    switches: int
    switch_at: tuple[tuple[int, str], ...]
    shots: int
    shots_clean: int

    @property
    def coverage(self) -> float | None:
        return ratio(self.covered, self.visible_rows)

    @property
    def false_share(self) -> float | None:
        return ratio(self.false_rows, self.pred_rows)

    @property
    def shots_without_switch(self) -> float | None:
        return ratio(self.shots_clean, self.shots)


def truth_moving(tr: Tracks, threshold_mm: float = MOVING_MM) -> np.ndarray:
    """Per row: did this id move more than ``threshold_mm`` since frame - 1? (False when the
    id has no row in the previous frame.)"""
    order = np.lexsort((tr.frame, tr.id.astype(str)))
    moving = np.zeros(len(tr), bool)
    if len(order) < 2:
        return moving
    a, b = order[:-1], order[1:]
    same = (tr.id[a] == tr.id[b]) & (tr.frame[b] - tr.frame[a] == 1)
    step = np.hypot(tr.x[b] - tr.x[a], tr.y[b] - tr.y[a])
    moving[b] = same & (step > threshold_mm)
    return moving


def _by_frame(tr: Tracks) -> dict[int, np.ndarray]:
    if len(tr) == 0:
        return {}
    order = np.argsort(tr.frame, kind="stable")
    frames, starts = np.unique(tr.frame[order], return_index=True)
    return {int(f): g for f, g in zip(frames, np.split(order, starts[1:]), strict=True)}


def _correspond(
    tids: np.ndarray, last: dict[str, str], col: dict[str, int], near: np.ndarray, d: np.ndarray
) -> list[tuple[int, int]]:
    """This frame's truth-row -> pred-column correspondences (CLEAR-MOT): a truth ball keeps
    last frame's predicted id while that id is still within the gate; the other rows get
    a Hungarian assignment on distance within the gate."""
    kept: list[tuple[int, int]] = []
    for r, t in enumerate(tids):
        c = col.get(last.get(t, ""))
        if c is not None and near[r, c] and all(c != k for _, k in kept):
            kept.append((r, c))
    rows = [r for r in range(len(tids)) if all(r != k for k, _ in kept)]
    cols = [c for c in range(d.shape[1]) if all(c != k for _, k in kept)]
    sub = np.ix_(rows, cols)
    return kept + [(rows[r], cols[c]) for r, c in assign(d[sub], near[sub])]


def score_tracks(
    pred: Tracks,
    truth: Tracks,
    table: TableSpec | None = None,
    *,
    ids: IdMap | None = None,
    shots: Sequence[tuple[int, int]] = (),
    gate_mm: float = GATE_MM,
) -> TrackScores:
    """Compare predicted and truth tracks.

    ``table`` is accepted for a uniform signature with the other scorers and not needed
    (the gate is a fixed ``gate_mm``). ``ids`` defaults to the position mapping of these
    tracks; ``shots`` are truth ``(start, end)`` frames for the per-shot switch figure.
    """
    ids = ids or map_ids_from_tracks(pred, truth, gate_mm)
    lut = {i: ids(i) for i in set(pred.id.tolist())}
    pid = np.array([lut[i] for i in pred.id], dtype=object)
    moving = truth_moving(truth)
    tf, pf = _by_frame(truth), _by_frame(pred)
    err, err_mov, err_rest = [], [], []
    covered = false_rows = 0
    last: dict[str, str] = {}
    switch_at: list[tuple[int, str]] = []
    for f in sorted(set(tf) | set(pf)):
        ti = tf.get(f, np.empty(0, int))
        pi = pf.get(f, np.empty(0, int))
        d = np.hypot(
            truth.x[ti][:, None] - pred.x[pi][None, :], truth.y[ti][:, None] - pred.y[pi][None, :]
        )
        near = d <= gate_mm
        false_rows += int(np.sum(~near.any(axis=0))) if len(ti) else len(pi)
        col = {pid[j]: c for c, j in enumerate(pi)}
        for r, i in enumerate(ti):
            c = col.get(truth.id[i])
            if c is None or not near[r, c]:
                continue
            e = float(d[r, c])
            err.append(e)
            (err_mov if moving[i] else err_rest).append(e)
            covered += bool(truth.visible[i])
        for r, c in _correspond(truth.id[ti], last, col, near, d):
            t, p = truth.id[ti[r]], pid[pi[c]]
            if last.get(t, p) != p:
                switch_at.append((f, t))
            last[t] = p
    clean = sum(not any(s <= f <= e for f, _ in switch_at) for s, e in shots)
    return TrackScores(
        gate_mm=gate_mm,
        truth_rows=len(truth),
        visible_rows=int(np.sum(truth.visible)),
        pred_rows=len(pred),
        error=Stats.of(err),
        error_moving=Stats.of(err_mov),
        error_rest=Stats.of(err_rest),
        covered=covered,
        false_rows=false_rows,
        switches=len(switch_at),
        switch_at=tuple(switch_at),
        shots=len(shots),
        shots_clean=clean,
    )
