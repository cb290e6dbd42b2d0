"""The detector's checks of its candidates: the ONNX patch model on pool, snooker and
carom tables, and the 5-pin skittles near their marks.

A mixin of :class:`vision.detect.detector.Detector` (its ``table``, ``plate_full``, ``pn``,
``thr``, ``calib`` and the classifier it loads when first needed).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from contract.calib import Calibration
from vision.base.colour import plate_distance
from vision.capture.source import Detections
from vision.detect.cloth import majority
from vision.detect.skittles import find_skittles

VERIFIED = ("pool", "snooker", "carom")  # table kinds whose candidates the ONNX model checks
AMBIGUOUS = {"skin", "pink", "orange", "brown"}  # colours a hand shares with some balls
# ivory balls (pyramid's whites, carom's white) under warm light read as skin: on these
# kinds a sharp skin-coloured candidate is asked of the ONNX model, never dropped unasked
IVORY = {"pyramid": {"skin"}, "carom": {"skin"}}


def smear_axes_mm(
    calib: Calibration, uv: np.ndarray, axes: list | None, radius_mm: float
) -> np.ndarray:
    """(N,2) table-mm unit vectors along the smears' long axes (``axes``: per centre a
    unit vector in image px, or None for a sharp ball) at the centres ``uv`` (N,2 video
    px, on the plane ``radius_mm`` above the cloth); NaN rows for sharp balls."""
    out = np.full((len(uv), 2), np.nan)
    k = [i for i, a in enumerate(axes or []) if a is not None]
    if not k:
        return out
    step = 5.0 * np.array([axes[i] for i in k], float)  # px: a few pixels along the axis
    ends = calib.pixel_to_table(np.r_[uv[k] - step, uv[k] + step], height=radius_mm)
    d = ends[len(k) :] - ends[: len(k)]
    out[k] = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    return out


def with_axes(det: Detections, axis: np.ndarray | None) -> Detections:
    """``det`` carrying the smear ``axis`` rows of its first detections (those the blob
    fits found); detections added after them (streaks, skittles) have none (NaN)."""
    if axis is None or len(axis) > len(det):
        return det
    pad = np.full((len(det) - len(axis), 2), np.nan)
    return replace(det, axis=np.r_[np.asarray(axis, float).reshape(-1, 2), pad])


class CandidateChecks:
    """The ONNX verification and the skittle search of :class:`vision.detect.detector.Detector`.
    ``_ivory_known``: (2u, 2v) rounded -> the model's answer for an ivory candidate asked
    alone at the last detection (set by the detector, empty after :meth:`_reset`)."""

    _ivory_known: dict[tuple[int, int], bool]

    def _verified(
        self,
        img: np.ndarray,
        uv: np.ndarray,
        radii: np.ndarray,
        basic: list[str],
        keep: np.ndarray,
        doubt: np.ndarray | None = None,
        group: np.ndarray | None = None,
    ) -> np.ndarray:
        """On a pool, snooker or carom table the ONNX patch model (``vision.detect.classify``)
        decides whether a candidate in ``keep`` is a ball where ``doubt`` (N,) bool marks
        it (a sharp disk only partly covered: a chalked cue tip) or, on pool and snooker,
        where its colour could be a hand's (skin, pink, orange, brown); elsewhere the
        classical stage stands.
        Three or more candidates sharing a ``group`` (N,) id (the disks of one blob)
        are judged together, every colour asked: all are balls when most are (a rack,
        where the neighbours in a patch can mislead the model about one), none when most
        are not (an arm or a cue split into ball-sized disks). Two are judged each on its
        own (a struck ball smeared beside the cue tip: the model knows no smears).
        On pyramid and carom tables a sharp skin-coloured candidate (an ivory ball under
        warm light, :data:`IVORY`) is asked too; one asked alone at the same place (half
        px) at the last detection keeps that answer (a ball at rest).
        (N,) bool."""
        out = np.ones(len(uv), bool)
        kind = self.table.kind
        ivory = IVORY.get(kind, set())
        if (kind not in VERIFIED and not ivory) or not len(uv):
            return out
        group = np.arange(len(uv)) if group is None else np.asarray(group)
        _, inverse, counts = np.unique(group, return_inverse=True, return_counts=True)
        crowd = counts[inverse] > 2
        hand = kind in ("pool", "snooker")  # balls of a hand's colours
        tan = np.array([b in ivory for b in basic], bool) & keep  # asked for colour alone
        ask = np.array([hand and b in AMBIGUOUS for b in basic], bool) & keep | tan
        if kind in VERIFIED:
            if doubt is not None:
                ask |= keep & doubt
            ask |= keep & crowd
        else:  # pyramid: only the ivory ones, each on its own
            crowd = np.zeros(len(uv), bool)
        # an ivory ball asked alone at the very same place (half px) last time: its answer
        # again (a ball at rest keeps its refined centre), not the model on every frame
        other = crowd | (doubt if doubt is not None and kind in VERIFIED else False)
        lone = tan & ~other
        keys = [(round(2 * u), round(2 * v)) for u, v in uv.tolist()]
        known = self._ivory_known
        again = lone & np.array([k in known for k in keys], bool)
        yes = np.ones(len(uv), bool)
        yes[again] = [known[keys[i]] for i in np.nonzero(again)[0]]
        fresh = ask & ~again
        if fresh.any():
            if self._classifier is None:
                from vision.detect.classify import BallClassifier

                self._classifier = BallClassifier.load()
            res = self._classifier.classify(img, uv[fresh], radii[fresh])
            yes[np.nonzero(fresh)[0]] = np.asarray(res.is_ball) >= 0.5
        self._ivory_known = {keys[i]: bool(yes[i]) for i in np.nonzero(lone)[0]}
        if not ask.any():
            return out
        return np.where(crowd, majority(group, yes, ask), yes)

    def _add_skittles(self, img: np.ndarray, det: Detections) -> Detections:
        """``det`` with the 5-pin skittles found near their marks (class ``skittle``)."""

        def distance(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
            roi = img[y0:y1, x0:x1].astype(np.float32)
            return plate_distance(roi, self.plate_full[y0:y1, x0:x1], self.pn)

        uv, xy = find_skittles(img, distance, self.calib, self.table, self.thr, det.uv, det.radius)
        n = len(uv)
        if n == 0:
            return det
        return Detections(
            det.frame,
            det.t,
            np.r_[det.uv, uv],
            np.r_[det.xy, xy],
            np.r_[det.radius, np.zeros(n)],
            np.r_[det.cls, np.full(n, "skittle", object)],
            np.r_[det.score, np.ones(n)],
            np.r_[det.blurred, np.zeros(n, bool)],
            det.actors,
        )
