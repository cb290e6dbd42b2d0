"""Balls the vision did not see during a shot (contract §11 ``Shot.lost``, issue 31).

A ball that goes unseen while it moves may do anything meanwhile: hit a cushion, touch a
ball, fall. The shot says so, and the adjudicator judges what it may have done
(:func:`adjudicator.doubt.lost_hypotheses`) instead of trusting the events as complete.
Frames are series-relative inside, video frames in the output; positions table mm.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from contract.events import Event, EventType
from contract.match import Lost
from contract.tables import TableSpec
from vision.events.series import Series

MIN_LOST_FRAMES = 2
"""A gap of one frame is bridged by the track's own interpolation; from two frames on, a
fast ball (several m/s at a break: over a diameter a frame) may bounce unseen."""

GONE = (EventType.POCKET, EventType.OFF_TABLE, EventType.HANGING_DROP)


def _near_pocket(table: TableSpec, at: np.ndarray) -> str | None:
    """The pocket whose mouth lies within three radii of ``at`` (mm), if any."""
    R = table.ball_radius
    for p in table.pockets:
        if np.hypot(at[0] - p.x, at[1] - p.y) < p.mouth_mm / 2 + 3 * R:
            return p.name
    return None


def lost_spans(
    series: Series, fs: int, fe: int, events: Iterable[Event], table: TableSpec,
    skip: frozenset[str] = frozenset(),
) -> tuple[Lost, ...]:  # fmt: skip
    """The stretches of frames ``fs..fe`` (series-relative) in which a ball seen before went
    unseen (absent or predicted) for ``MIN_LOST_FRAMES`` or more while it moved: it came
    back over a diameter from where it was last seen, or never came back in the shot
    without a pocket or off-table event to explain it. ``skip``: ids not to report
    (skittles)."""
    R = table.ball_radius
    gone = {e.ball for e in events if e.type in GONE}
    out: list[Lost] = []
    fs, fe = max(fs, 0), min(fe, series.n_frames - 1)
    for b, ident in enumerate(series.ids):
        if ident in skip:
            continue
        vis = series.visible[b, fs : fe + 1]
        xy = series.xy[b, fs : fe + 1]
        k = 0
        while k < len(vis):
            if vis[k]:
                k += 1
                continue
            j = k
            while j < len(vis) and not vis[j]:
                j += 1
            if k > 0 and j - k >= MIN_LOST_FRAMES:
                before = xy[k - 1]
                back = j < len(vis)
                moved = back and float(np.hypot(*(xy[j] - before))) > 2 * R
                if moved or (not back and ident not in gone):
                    near = None if back else _near_pocket(table, before)
                    span = {"ball": ident, "from": series.first + fs + k,
                            "to": series.first + fs + j - 1, "near": near}  # fmt: skip
                    out.append(Lost.model_validate(span))
            k = j
    return tuple(out)
