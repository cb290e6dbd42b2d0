"""A second touch the camera may have missed: the struck ball back off the cushion.

A ball lying near a cushion, hit, bounces off the cushion at once and may meet the
striker again before the next frame shows them apart (a double kiss): under a frame at
30 fps for a ball a few cm from the cushion. Whether it did decides a Russian pyramid
shot (rule 20: a ball off a cushion into another ball). Where the frames cannot tell,
the touch is written as an ``uncertain`` contact (contract §11), so the adjudicator asks
instead of judging either way. Frames are video frames; positions table mm.
"""

from __future__ import annotations

import numpy as np

from contract.events import Event, EventType
from contract.tables import TableSpec
from vision.events.series import Series

BOUNCE_FRAMES = 2
"""A cushion of the struck ball within this many frames of the contact."""
NEAR_RADII = 2.0
"""... and its centre within this many radii of the cushion line at the contact (under a
radius of cloth between ball and cushion): it comes back within a fraction of a frame,
while the striker still follows on; a ball lying further off is seen coming back."""
LOOK_FRAMES = 4
"""Frames after the cushion in which the pair is looked at."""
POSITION_SIGMA_MM = 1.5
"""One ball's position standard uncertainty (mm): the rest position's default
(``adjudicator.lag_call.DEFAULT_UNCERTAINTY_MM``, a calibration's fit residual floor)."""
TOUCH_TOL_MM = 3.0 * np.sqrt(2.0) * POSITION_SIGMA_MM
"""A gap between two balls' surfaces within 3 combined sigmas of nothing (6.4 mm) may be
a touch the positions cannot tell from a near miss."""


def kiss_doubts(events: list[Event], series: Series, table: TableSpec) -> list[Event]:
    """Uncertain contacts (struck ball, striker) for each contact of ``events`` whose struck
    ball lay within :data:`NEAR_RADII` of a cushion line and hit that cushion within
    :data:`BOUNCE_FRAMES` frames after it, when no later contact of the pair was read and
    the pair came within :data:`TOUCH_TOL_MM` of touching again in the
    :data:`LOOK_FRAMES` frames after the cushion (:func:`_near_again`)."""
    out: list[Event] = []
    radius_mm = table.ball_radius
    contacts = [e for e in events if e.type is EventType.CONTACT and e.balls]
    for e in contacts:
        striker, struck = e.balls
        if struck not in series.ids or striker not in series.ids:
            continue
        bounce = [
            c.frame
            for c in events
            if c.type is EventType.CUSHION and c.ball == struck
            and 0 <= c.frame - e.frame <= BOUNCE_FRAMES
        ]  # fmt: skip
        if not bounce or not _by_cushion(series, struck, e.frame, table):
            continue
        again = any(
            o is not e and set(o.balls) == {striker, struck} and o.frame >= e.frame
            for o in contacts
        )
        if again:
            continue
        hit = _near_again(series, striker, struck, bounce[0], radius_mm)
        if hit is not None:
            f, at = hit
            why = (
                f"{struck} came off the cushion at frame {bounce[0]} within "
                f"{TOUCH_TOL_MM:.0f} mm of {striker}: a second touch cannot be told"
            )
            out.append(
                Event(
                    frame=f,
                    t=round(f / series.fps, 4),
                    type=EventType.CONTACT,
                    balls=(struck, striker),
                    at=at,
                    uncertain=why,
                )
            )
    return out


def _by_cushion(series: Series, ball: str, frame: int, table: TableSpec) -> bool:
    """Whether ``ball``'s centre lay within :data:`NEAR_RADII` radii of a cushion line
    (the playing surface's edge, table mm) at video ``frame``."""
    k = frame - series.first
    if not 0 <= k < series.n_frames:
        return False
    x, y = series.xy[series.index(ball), k]
    if np.isnan(x):
        return False
    edge = min(x, table.L - x, y, table.W - y)
    return bool(edge < NEAR_RADII * table.ball_radius)


def _near_again(
    series: Series, a: str, b: str, frame: int, radius_mm: float
) -> tuple[int, tuple[float, float]] | None:
    """(video frame, contact point mm) where striker ``a`` and struck ball ``b`` came within
    :data:`TOUCH_TOL_MM` of touching in the frames from ``frame`` (the cushion) on: the
    gap between them (centres less a diameter) at a frame or on the straight line between
    two frames' centres (a touch between frames), or None."""
    ia, ib = series.index(a), series.index(b)
    lo = frame - series.first
    hi = min(series.n_frames - 1, lo + LOOK_FRAMES)
    if lo < 0 or hi <= lo:
        return None
    rel = series.xy[ib, lo : hi + 1] - series.xy[ia, lo : hi + 1]  # b from a, mm
    for k in range(len(rel) - 1):
        r0, r1 = rel[k], rel[k + 1]
        if not (np.isfinite(r0).all() and np.isfinite(r1).all()):
            continue
        d = r1 - r0
        t = float(np.clip(-np.dot(r0, d) / max(float(np.dot(d, d)), 1e-9), 0.0, 1.0))
        if float(np.hypot(*(r0 + t * d))) - 2 * radius_mm <= TOUCH_TOL_MM:
            f = lo + k + int(round(t))
            at = (series.xy[ia, f] + series.xy[ib, f]) / 2
            return series.first + f, (round(float(at[0]), 1), round(float(at[1]), 1))
    return None
