"""Which of a frame's detections give birth to a new (tentative) ball in
:class:`vision.track.tracker.Tracker`.

A detection no track claimed is born unless its centre lies in a pocket's drop circle or
past a cushion nose, or it is a faint streak (``vision.detect.streak``: a streak only extends a
track); none is born on a frame that is not ``free`` (the tracker's word: a frame
of a camera move or just after it, ``vision.base.camera_motion.lose_unseen``, once a ball was
confirmed). The few that pass are then asked of ``attached`` (table mm (N,2) ->
(N,) bool, e.g. :meth:`vision.detect.detector.Detector.attached`): a blob whose thresholded
colour runs on over the cloth (a fingertip, a cue) is not born. That test is made only
here, for the detections about to be born, never for every detection of a frame.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contract.tables import TableSpec
from vision.detect.detector import Detections
from vision.detect.streak import SCORE as STREAK_SCORE
from vision.track.state import _Track

Attached = Callable[[np.ndarray], np.ndarray]


def births(
    det: Detections,
    claimed: set[int],
    in_pocket: np.ndarray,
    table: TableSpec,
    free: bool = True,
    attached: Attached | None = None,
) -> list[int]:
    """Indices into ``det`` of the detections to give birth to, in order. ``claimed``:
    the detections tracks took; ``in_pocket`` (N,) bool: centres in a pocket's drop
    circle; ``free``: births may come from this frame (none when False)."""
    if not free:
        return []
    out = [
        j
        for j in np.nonzero(~np.asarray(in_pocket, bool))[0].tolist()
        if j not in claimed
        and table.on_surface(*det.xy[j])  # no ball's centre is past a nose
        and det.score[j] > STREAK_SCORE  # a streak (vision.detect.streak) only extends a track
    ]
    if out and attached is not None:
        hand = np.asarray(attached(det.xy[out]), bool)
        out = [j for j, h in zip(out, hand.tolist(), strict=True) if not h]
    return out


def young_tracks(live: list[_Track], frame: int, used_t: set[int]) -> list[int]:
    """Indices into ``live`` of the tentative tracks seen at the frame before ``frame`` and
    not yet given a detection (``used_t``): a ball born moving. A new track has no velocity,
    so the near gate around its prediction misses a ball running a diameter or more a frame
    (a rack ball off a break at 3-6 m/s was born anew every frame and never confirmed until
    it slowed down); the tracker gives these their colour's leftover detections within the
    farthest a ball travels in a frame (:data:`vision.base.geometry.MAX_BALL_SPEED_MM_S`)."""
    return [
        i
        for i, t in enumerate(live)
        if i not in used_t and t.state == "tentative" and t.last_seen == frame - 1
    ]
