"""A resting ball's track that jumps away while the ball is hidden and comes back to
where the ball rested: the positions away were never that ball (``vision.shots``).

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

from vision.series import Series
from vision.track_rest import AT_REST


def drop_reseen_jumps(
    series: Series, radius_mm: float, short: frozenset[str] = frozenset()
) -> Series:
    """``series`` with each excursion of a resting ball's track marked not measured
    (``visible`` False; positions kept, so that :func:`vision.series.fill_gaps` bridges
    them from where the ball rested). An excursion: the ball is seen at rest at A (two
    measured samples within :data:`~vision.track_rest.AT_REST` x ``radius_mm`` of each
    other, table mm), its track crosses frames it was not measured in (hidden) and is
    next measured farther than that from A, and, with a row in every frame (the tracker
    held it on the table: never pocketed or lost), it is later measured back within that
    distance of A just after frames it was not measured in, and once more after that. A
    ball seen rolling back to A (no hidden frames before its return) is left as it is,
    and so are the ids in ``short`` (skittles, which fall where they stood)."""
    near = AT_REST * radius_mm  # no other ball's centre fits this near a resting ball's
    xy, vis = series.xy, series.visible.copy()
    present = series.present()
    for b, ident in enumerate(series.ids):
        if ident in short:
            continue
        seen = np.nonzero(vis[b] & present[b])[0].tolist()
        i = 2
        while i < len(seen):
            a, n = seen[i - 1], seen[i]
            home = xy[b, a]
            rested = float(np.linalg.norm(xy[b, seen[i - 2]] - home)) <= near
            if n - a > 1 and rested and float(np.linalg.norm(xy[b, n] - home)) > near:
                r = _return(xy[b], seen, i, home, near)
                if r is not None and present[b, a : seen[r] + 1].all():
                    vis[b, a + 1 : seen[r]] = False
                    seen = seen[:i] + seen[r:]  # on from the return, as seen at rest
            i += 1
    return Series(series.ids, series.first, series.t, series.xy, vis, series.fps, series.fallen)


def _return(xy: np.ndarray, seen: list[int], i: int, home: np.ndarray, near: float) -> int | None:
    """The index in ``seen`` (measured frames of one ball, positions ``xy`` (F,2) mm)
    of the first sample after ``seen[i]`` back within ``near`` mm of ``home``, when it
    follows a frame not measured and the next sample is near there too; None when the
    ball is first seen back there otherwise (rolling back: real motion) or never."""
    for j in range(i + 1, len(seen)):
        if float(np.linalg.norm(xy[seen[j]] - home)) > near:
            continue
        hidden_before = seen[j] - seen[j - 1] > 1
        stays = j + 1 < len(seen) and float(np.linalg.norm(xy[seen[j + 1]] - home)) <= near
        return j if hidden_before and stays else None
    return None
