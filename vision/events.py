"""Events of one shot from the movements of its balls (contract §8).

strike: the first ball to start with no contact to explain it; contact: a ball starts
or its path kinks where another ball is one diameter away (the faster ball is the
striking one); cushion: a kink one radius from a cushion nose with the normal velocity
reversed; pocket / off_table: a ball leaves the surface, into a pocket mouth or not;
cross: a ball's centre crosses the centre line. Positions mm, times fractional frames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from contract.events import Event, EventType
from contract.tables import TableSpec
from vision.motion import Kink, Movement
from vision.series import Series, line_fit

if TYPE_CHECKING:
    from vision.shots import ShotSettings


class EventFinder:
    """Finds the events of shots within one series (read-only after construction)."""

    def __init__(self, series: Series, table: TableSpec, settings: ShotSettings) -> None:
        self.s = series
        self.table = table
        self.settings = settings
        self.R = table.ball_radius

    # ------------------------------------------------------------------ helpers
    def _ev(self, f: float, type_: EventType, **kw) -> Event:
        frame = int(round(self.s.first + f))
        t = max((self.s.first + f) / self.s.fps, 0.0)
        return Event(frame=frame, t=round(t, 4), type=type_, **kw)

    def pos_before(self, b: int, f: float) -> np.ndarray | None:
        """Position (mm) of ball ``b`` at fractional frame ``f`` from its straight motion
        just before ``f`` (so a kink at ``f`` does not pull it)."""
        xy = self.s.xy[b]
        lo = int(np.floor(f))
        fr = np.arange(max(0, lo - 2), min(lo, len(xy) - 1) + 1)
        fr = fr[~np.isnan(xy[fr, 0])]
        if len(fr) == 0:
            return None
        a, v = line_fit(fr.astype(float), xy[fr])
        if len(fr) == 1:
            return xy[fr[0]]
        return a + v * f

    def speed_before(self, b: int, f: float) -> float:
        xy = self.s.xy[b]
        lo = int(np.floor(f))
        if lo < 1 or lo >= len(xy) or np.isnan(xy[lo, 0]) or np.isnan(xy[lo - 1, 0]):
            return 0.0
        return float(np.linalg.norm(xy[lo] - xy[lo - 1]))

    def partner(
        self, ball: str, at: np.ndarray, f: float, exclude: set[str]
    ) -> tuple[str, float] | None:
        """The ball one diameter from ``at`` at frame ``f``: (id, its speed before)."""
        best: tuple[float, str, float] | None = None
        for b, ident in enumerate(self.s.ids):
            if ident == ball or ident in exclude:
                continue
            p = self.pos_before(b, f)
            if p is None:
                continue
            sp = self.speed_before(b, f)
            d = float(np.linalg.norm(p - at))
            err = abs(d - 2 * self.R)
            if err < 0.3 * self.R + 0.6 * sp and (best is None or err < best[0]):
                best = (err, ident, sp)
        return None if best is None else (best[1], best[2])

    def cushion_of(self, k: Kink) -> str | None:
        """Cushion name when the kink lies one radius from a nose with the normal
        velocity reversed."""
        x, y = k.at
        vb, va = np.asarray(k.v_before), np.asarray(k.v_after)
        R, L, W = self.R, self.table.L, self.table.W
        tol = 0.35 * R + 0.5 * float(np.linalg.norm(vb))
        cands = [
            ("front", x - R, 0, -1),
            ("back", L - R - x, 0, 1),
            ("left", y - R, 1, -1),
            ("right", W - R - y, 1, 1),
        ]
        for name, gap, axis, sign in cands:
            if abs(gap) < tol and vb[axis] * sign > 0 and va[axis] * sign <= 0.2 * abs(vb[axis]):
                return name
        return None

    def pocket_of(self, m: Movement) -> str | None:
        """The pocket a vanished ball went into, or None (off the table)."""
        if not self.table.pockets:
            return None
        at = np.asarray(m.stop_at)
        best = None
        for p in self.table.pockets:
            d = float(np.hypot(at[0] - p.x, at[1] - p.y))
            reach = p.mouth_mm / 2 + 2.5 * self.R + 0.8 * float(np.linalg.norm(m.v_end))
            if d < reach and (best is None or d < best[0]):
                best = (d, p.name)
        return None if best is None else best[1]

    def leave_time(self, m: Movement) -> float:
        """Fractional frame the vanished ball's centre crossed the surface's edge."""
        at, v = np.asarray(m.stop_at), np.asarray(m.v_end)
        L, W = self.table.L, self.table.W
        ts = []
        for axis, lo, hi in ((0, 0.0, L), (1, 0.0, W)):
            if v[axis] > 1e-6:
                ts.append((hi - at[axis]) / v[axis])
            elif v[axis] < -1e-6:
                ts.append((lo - at[axis]) / v[axis])
        dt = min(ts) if ts else 0.5
        return m.stop_f + float(np.clip(dt, 0.0, 2.0))

    # ------------------------------------------------------------------ shots
    def shot_events(self, group: list[Movement]) -> tuple[list[Event], str | None]:
        """Events of one shot (its movements), and the cue ball."""
        events: list[Event] = []
        contacts: list[tuple[float, frozenset]] = []
        moves = sorted(group, key=lambda m: m.start_f)
        first = moves[0]
        cue = first.ball
        starts = {first.ball: first.start_f}
        events.append(self._ev(first.start_f, EventType.STRIKE, ball=cue))

        def add_contact(f: float, striker: str, struck: str, at: np.ndarray) -> None:
            key = frozenset((striker, struck))
            if any(k == key and abs(f - g) < 2.0 for g, k in contacts):
                return
            contacts.append((f, key))
            events.append(
                self._ev(
                    f,
                    EventType.CONTACT,
                    balls=(striker, struck),
                    at=(round(float(at[0]), 1), round(float(at[1]), 1)),
                )
            )

        for m in moves[1:]:
            starts.setdefault(m.ball, m.start_f)
            rest = np.asarray(m.start_at)
            p = self.partner(m.ball, rest, m.start_f, exclude=set())
            if p is not None:
                add_contact(m.start_f, p[0], m.ball, rest)
            elif m.ball != cue:
                fast = float(np.linalg.norm(m.v_start)) > self.settings.early_strike_mm_per_frame
                kind = EventType.EARLY_STRIKE if fast else EventType.BALL_TOUCHED
                events.append(self._ev(m.start_f, kind, ball=m.ball))
        for m in moves:
            b = self.s.index(m.ball)
            for k in m.kinks:
                name = self.cushion_of(k)
                if name is not None:
                    events.append(self._ev(k.f, EventType.CUSHION, ball=m.ball, cushion=name))
                    continue
                p = self.partner(m.ball, np.asarray(k.at), k.f, exclude=set())
                if p is None:
                    continue
                mine = float(np.linalg.norm(k.v_before))
                striker, struck = (m.ball, p[0]) if mine >= p[1] else (p[0], m.ball)
                add_contact(k.f, striker, struck, np.asarray(k.at))
            if m.gone:
                pocket = self.pocket_of(m)
                tf = self.leave_time(m)
                if pocket:
                    events.append(self._ev(tf, EventType.POCKET, ball=m.ball, pocket=pocket))
                else:
                    events.append(self._ev(tf, EventType.OFF_TABLE, ball=m.ball))
            events += self._crossings(b, m)
        events.sort(key=lambda e: (e.frame, e.t))
        return events, cue

    def _crossings(self, b: int, m: Movement) -> list[Event]:
        """Centre-line crossings of ball ``b`` during movement ``m``."""
        x = self.s.xy[b, m.first : m.last + 1, 0]
        c = self.table.centre_line_x
        out = []
        for i in range(len(x) - 1):
            x0, x1 = x[i], x[i + 1]
            if np.isnan(x0) or np.isnan(x1) or (x0 - c) * (x1 - c) > 0 or x0 in (x1, c):
                continue
            f = m.first + i + (c - x0) / (x1 - x0)
            out.append(self._ev(f, EventType.CROSS, ball=m.ball, line="centre"))
        return out
