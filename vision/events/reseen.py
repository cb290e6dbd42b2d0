"""A resting ball's track that jumps away while the ball is hidden and comes back to
where the ball rested: the positions away were never that ball (``vision.events.shots``).

pyr-pots-10-1080: the 2 rests by the left cushion; an arm reaching over it to strike
the yellow hides it, and the tracker, coasting it, gives it a false detection on the
player's hand 82 mm away (1.2 diameters, inside the near gate) for thirteen frames; the
2 is then seen again where it rested. Read as motion, the jump back opened a shot with
a strike of the 2 (12 frames before the yellow's real strike) and the hand's place by
the cushion made a cushion event. A ball does not leave its place unseen and come back
to rest on it: a ball that was hidden and is seen again where it was is at rest, and
the track's jump away and back is not motion.
"""

from __future__ import annotations

import numpy as np

from vision.events.series import Series
from vision.track.rest import AT_REST


def drop_reseen_jumps(
    series: Series, radius_mm: float, short: frozenset[str] = frozenset()
) -> Series:
    """``series`` with each excursion of a resting ball's track marked not measured
    (``visible`` False; positions kept, so that :func:`vision.events.series.fill_gaps` bridges
    them from where the ball rested). An excursion: the ball is seen at rest at A (two
    measured samples within :data:`~vision.track.rest.AT_REST` x ``radius_mm`` of each
    other, table mm), its track crosses frames it was not measured in (hidden) and is
    next measured farther than that from A, and, with a row in every frame (the tracker
    held it on the table: never pocketed or lost), it is later measured back within that
    distance of A just after frames it was not measured in, and once more after that. A
    ball seen rolling back to A (no hidden frames before its return) is left as it is,
    and so are the ids in ``short`` (skittles, which fall where they stood)."""
    near = AT_REST * radius_mm  # no other ball's centre fits this near a resting ball's
    vis = series.visible.copy()
    present = series.present()
    for b, ident in enumerate(series.ids):
        if ident in short:
            continue
        seen = np.nonzero(vis[b] & present[b])[0]
        p = series.xy[b, seen]
        alive = np.ones(len(seen), bool)  # samples not yet found part of an excursion
        for i in (np.nonzero(np.diff(seen) > 1)[0] + 1).tolist():  # just after hidden frames
            before = np.nonzero(alive[:i])[0][-2:]
            if len(before) < 2 or not alive[i]:
                continue
            home = p[before[1]]
            rested = float(np.linalg.norm(p[before[0]] - home)) <= near
            if not rested or float(np.linalg.norm(p[i] - home)) <= near:
                continue
            r = _return(seen, p, i, home, near)
            if r is not None and present[b, seen[before[1]] : seen[r] + 1].all():
                vis[b, seen[i:r]] = False
                alive[i:r] = False
    return Series(series.ids, series.first, series.t, series.xy, vis, series.fps, series.fallen)


def _return(seen: np.ndarray, p: np.ndarray, i: int, home: np.ndarray, near: float) -> int | None:
    """The index in ``seen`` (one ball's measured frames, at positions ``p`` (K,2) mm) of
    the first sample after ``i`` back within ``near`` mm of ``home``, when it follows a
    frame not measured and the next sample is near there too; None when the ball is first
    seen back there otherwise (rolling back: real motion) or never."""
    back = np.nonzero(np.linalg.norm(p[i + 1 :] - home, axis=1) <= near)[0]
    if not len(back):
        return None
    j = i + 1 + int(back[0])
    hidden_before = seen[j] - seen[j - 1] > 1
    stays = j + 1 < len(seen) and float(np.linalg.norm(p[j + 1] - home)) <= near
    return j if hidden_before and stays else None
