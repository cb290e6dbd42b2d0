"""A fast ball that stops dead at a contact, and the smear of the ball it hit (``vision.track.tracker``).

pyr-offtable-0-1080: the yellow, jumped at 168 mm a frame, stops dead on the 7 at frame 59
while the 7 flies off the table. The yellow's prediction runs on past the contact; the 7's
smear (a blurred detection, read white) lies 32 mm from it, the yellow itself (sharp, read
yellow) 95 mm back, just outside the near gate. A blurred detection's colour is not
trusted, so the yellow's track took the 7's smear (cost 59 mm against the resting 7's
61 mm), the 7's track was left unmatched, and the yellow was born again as a new white
ball ``w10`` (its name taken) while its old track coasted off the table (an invented
``off_table``).

Colours decide it: a ball of a sure colour that took another colour's smear while a sharp
detection of its own colour is left over within the far gate, and a ball of the smear's
colour is left unmatched within the near gate of it, swaps: each takes the detection of its
own colour. No new threshold: the gates are the tracker's (``TrackerConfig``).
"""

from __future__ import annotations

import numpy as np

from vision.detect.detector import Detections
from vision.track.state import _Track


def _dist(tr: _Track, xy: np.ndarray) -> float:
    """Distance (table mm) of ``xy`` from the track's prediction or its last measured
    place, whichever is nearer (as the tracker's assignment measures it)."""
    return float(min(np.hypot(*(tr.x[:2] - xy)), np.hypot(*(tr.last_xy - xy))))


def colour_swaps(
    live: list[_Track],
    det: Detections,
    pairs: list[tuple[int, int]],
    near_mm: float,
    far_mm: float,
) -> list[tuple[int, int]]:
    """``pairs`` (index in ``live``, detection index) with every swap made: a track of a
    sure colour paired with a blurred detection of another colour gives it to a left-over
    active track of that colour within ``near_mm`` of it and takes the nearest left-over
    sharp detection of its own colour within ``far_mm`` (table mm). A new list."""
    out = list(pairs)
    used_t = {i for i, _ in out}
    used_d = {j for _, j in out}
    for k in range(len(pairs)):
        i, j1 = out[k]
        tr = live[i]
        if not (tr.sure and det.blurred[j1] and det.cls[j1] != tr.cls):
            continue
        own = [
            j
            for j in range(len(det))
            if j not in used_d and not det.blurred[j] and det.cls[j] == tr.cls
        ]
        own = [j for j in own if _dist(tr, det.xy[j]) <= far_mm]
        other = [
            m
            for m, t in enumerate(live)
            if m not in used_t
            and t.state == "active"
            and t.cls == det.cls[j1]
            and _dist(t, det.xy[j1]) <= near_mm
        ]
        if not own or not other:
            continue
        j2 = min(own, key=lambda j: _dist(tr, det.xy[j]))
        m = min(other, key=lambda m: _dist(live[m], det.xy[j1]))
        out[k] = (i, j2)
        out.append((m, j1))
        used_t.add(m)
        used_d.add(j2)
    return out
