"""``off_table`` of a ball knocked off mid-table: hit hard, gone at once, never seen again.

A ball struck by a fast ball can leave the cloth within a frame or two (a jumped ball:
the camera sees at most one smeared sample of it before it is over the cushion).
Where it vanished far from every edge, :meth:`vision.events.edges.EdgeEvents.gone_event` says
nothing, rightly for a ball merely lost (hidden, not gone). This module says
``off_table`` when the physics and the rest of the shot agree:

* a contact of the shot sent it: the hitting ball reached it within
  :data:`FLY_FRAMES` frames of its last sample, faster than a ball must go to jump a
  cushion (:data:`vision.events.edges.OFF_TABLE_MM_S`);
* it is never seen again in the shot (nor in the second after its last motion), and no
  other ball is born meanwhile (a hidden ball found again under a new id);
* its path, straight along the line of centres at the speed an equal-mass hit gives
  it (the hitter's speed times the cosine of the cut angle), reaches a cushion, not a
  pocket mouth (a pocket is never guessed).

The event is dated when that path reaches the cushion line; a centre-line crossing on
the way is dated the same way. Positions in table mm, frames as series indices.
"""

from __future__ import annotations

import numpy as np

from contract.events import Event, EventType
from vision.events.edges import OFF_TABLE_MM_S
from vision.events.motion import Movement
from vision.events.series import line_fit

FLY_FRAMES = 2  # a knocked-off ball is gone within this many frames of the contact


class FlownEvents:
    """Mixin of :class:`vision.events.finder.EventFinder` (uses its series ``s``, ``table``,
    ``R``, ``_ev`` and ``pocket_at``)."""

    def knocked_off(
        self, moves: list[Movement], events: list[Event], vanished: list[Movement]
    ) -> list[Event]:
        """``off_table`` (and a centre-line ``cross`` on the way) of each ball of the
        shot that vanished mid-table right after a hard contact and was not otherwise
        accounted for (no pocket or off_table found for it): a moving ball of the shot
        (``moves``) gone at once, or a resting one gone as a ball reached it
        (``vanished``: :meth:`vision.events.edges.EdgeEvents.rest_vanished`)."""
        told = {e.ball for e in events if e.type in (EventType.POCKET, EventType.OFF_TABLE)}
        gone = [m for m in moves if m.gone and m.stop_f - m.start_f <= FLY_FRAMES]
        cands = [m for m in gone + vanished if m.ball not in told]
        end = min(self.s.n_frames, max(m.last for m in moves) + 1 + int(self.s.fps))
        out: list[Event] = []
        for m in cands:
            out += self._knocked(m, events, end)
        return out

    def _knocked(self, m: Movement, events: list[Event], end: int) -> list[Event]:
        if not self._unseen_after(m, end):
            return []
        for e in events:
            if e.type != EventType.CONTACT or m.ball not in e.balls:
                continue
            cf = e.frame - self.s.first  # series index of the contact
            if not m.start_f - 1 <= cf <= m.last + 1 or m.last - cf > FLY_FRAMES:
                continue
            hitter = e.balls[0] if e.balls[1] == m.ball else e.balls[1]
            path = self._sent(hitter, np.asarray(m.start_at), cf)
            if path is not None:
                return self._flight(m.ball, *path, events)
        return []

    def _unseen_after(self, m: Movement, end: int) -> bool:
        """Ball ``m.ball`` has no row after ``m.last`` up to ``end``, and no other track
        absent just after that frame appears later in that time (a hidden ball found
        again under another id, or a new one)."""
        xy = self.s.xy[..., 0]
        b = self.s.index(m.ball)
        if m.last + 1 >= end or not np.isnan(xy[b, m.last + 1 : end]).all():
            return False  # seen again, or the video ends: nothing to judge
        absent = np.isnan(xy[:, m.last + 1])
        later = ~np.isnan(xy[:, m.last + 1 : end]).all(axis=1)
        return not np.any(absent & later)

    def _sent(
        self, hitter: str, at: np.ndarray, cf: int
    ) -> tuple[float, np.ndarray, np.ndarray, float] | None:
        """(fractional frame of the hit, the struck ball's rest ``at`` mm, its unit
        direction, its speed mm/frame) from the hitter's straight path in the frames up
        to the contact ``cf``; None when the hitter is too slow to send a ball off the
        table or its path never comes within two radii of ``at``."""
        h = self.s.index(hitter)
        fr = np.arange(max(0, cf - 3), min(cf, self.s.n_frames - 1) + 1)
        fr = fr[~np.isnan(self.s.xy[h, fr, 0])]
        if len(fr) < 2:
            return None
        a, v = line_fit(fr.astype(float), self.s.xy[h, fr])  # p(f) = a + v f
        speed = float(np.linalg.norm(v))
        if speed * self.s.fps < OFF_TABLE_MM_S:
            return None
        # first f with |a + v f - at| = 2R: the moment of contact
        w = a - at
        qa, qb, qc = speed**2, 2.0 * float(w @ v), float(w @ w) - (2.0 * self.R) ** 2
        disc = qb * qb - 4.0 * qa * qc
        if disc < 0:
            return None
        f_hit = (-qb - disc**0.5) / (2.0 * qa)
        d = at - (a + v * f_hit)
        d /= max(float(np.linalg.norm(d)), 1e-9)
        cos = float(d @ v) / speed
        if cos * speed * self.s.fps < OFF_TABLE_MM_S:
            return None
        return f_hit, at, d, cos * speed

    def _flight(
        self, ball: str, f_hit: float, at: np.ndarray, d: np.ndarray, speed: float, events
    ) -> list[Event]:
        """``off_table`` where the straight flight from ``at`` along ``d`` at ``speed``
        (mm/frame) reaches the surface's edge (nothing at a pocket mouth), and a ``cross``
        of the centre line before it unless one is already found."""
        L, W = self.table.L, self.table.W
        ts = [
            ((hi if d[k] > 0 else lo) - at[k]) / d[k]
            for k, lo, hi in ((0, 0.0, L), (1, 0.0, W))
            if abs(d[k]) > 1e-9
        ]
        dist = min(ts)
        if self.pocket_at(at + d * dist) is not None:
            return []
        out = [self._ev(f_hit + dist / speed, EventType.OFF_TABLE, ball=ball)]
        c = self.table.centre_line_x
        crossed = any(e.type == EventType.CROSS and e.ball == ball for e in events)
        end_x = at[0] + d[0] * dist
        if not crossed and (at[0] - c) * (end_x - c) < 0:
            f = f_hit + (c - at[0]) / (d[0] * speed)
            out.append(self._ev(f, EventType.CROSS, ball=ball, line="centre"))
        return out
