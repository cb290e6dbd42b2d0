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
