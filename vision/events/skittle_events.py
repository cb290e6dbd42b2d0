"""``skittle_down`` events of 5-pin carom, for :class:`vision.events.finder.EventFinder`: a
skittle turns fallen (or leaves its mark), knocked by the ball that passed nearest its
mark just before, or by a skittle that fell nearby. Positions table mm, times fractional
frames relative to the series' first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from contract.events import Event, EventType

if TYPE_CHECKING:
    from contract.tables import TableSpec
    from vision.events.series import Series


class SkittleEvents:
    """Mixin: needs ``s`` (Series), ``table``, ``R``, ``skittles``, ``_ev`` and
    ``pos_interp`` of the event finder."""

    s: Series
    table: TableSpec
    R: float
    skittles: tuple[str, ...]

    def skittle_events(
        self, lo: float, hi: float, starts: dict[str, float] | None = None
    ) -> list[Event]:
        """skittle_down events within frames [lo, hi): a skittle turns ``fallen`` (or,
        without a state column, leaves its mark by more than its base). ``by``: the
        nearest ball within reach then, else a skittle that fell just before nearby.
        ``starts``: each ball's first start in the shot (fractional frames): a ball that
        lay within reach of the skittle knocks it when it starts, not before."""
        out: list[Event] = []
        reach = self.R + self.table.skittle_base_mm + 6.0
        fallen_at: list[tuple[float, str, np.ndarray]] = []
        hi = min(hi, self.s.n_frames)  # a shot still under way when the video ends
        for ident in self.skittles:
            b = self.s.index(ident)
            xy = self.s.xy[b]
            gone = np.zeros(len(xy), bool)
            if self.s.fallen is not None:
                down = self.s.fallen[b]
            else:
                seen = ~np.isnan(xy[:, 0])
                home = xy[seen][:1]
                down = (
                    np.linalg.norm(xy - home, axis=1) > self.table.skittle_base_mm
                    if len(home)
                    else np.zeros(len(xy), bool)
                )
                # a lying skittle the detector no longer finds: its track ends
                gone = ~seen & (np.cumsum(seen) > 0)
                down = down | gone
            idx = np.nonzero(
                down[int(max(lo, 1)) : int(hi)] & ~down[int(max(lo, 1)) - 1 : int(hi) - 1]
            )[0]
            if len(idx):
                f = int(max(lo, 1)) + int(idx[0])
                home = xy[f - 1] if not np.isnan(xy[f - 1, 0]) else xy[f]
                fallen_at.append((float(f), ident, home, bool(gone[f])))
        fallen_at = [r[:3] for r in fallen_at if not r[3] or self._near_ball(r[2], r[0], reach)]
        for f, ident, home in sorted(fallen_at, key=lambda r: r[0]):
            # a skittle shows as fallen a few frames after the knock: the ball that passed
            # nearest its mark shortly before is the knocker
            by, best, when = None, reach, f - 0.5
            for b, other in enumerate(self.s.ids):
                if other in self.skittles:
                    continue
                for g in np.arange(f - 8.0, f + 0.25, 0.25):
                    p = self.pos_interp(b, float(g))
                    if p is not None and np.linalg.norm(p - home) < best:
                        by, best, when = other, float(np.linalg.norm(p - home)), float(g)
            if by is not None:  # the knock: when that ball first came within reach
                b = self.s.index(by)
                for g in np.arange(f - 8.0, when + 0.25, 0.25):
                    p = self.pos_interp(b, float(g))
                    if p is not None and np.linalg.norm(p - home) < reach:
                        when = float(g)
                        break
                when = max(when, (starts or {}).get(by, lo))
            if by is None:
                prior = [
                    (abs(f - g), s)
                    for g, s, h in fallen_at
                    if g <= f
                    and s != ident
                    and np.linalg.norm(h - home) < 2 * self.table.skittle_height_mm + 10
                ]
                by = min(prior)[1] if prior else None
            extra = {"by": by} if by else {}
            out.append(self._ev(when, EventType.SKITTLE_DOWN, skittle=ident, **extra))
        return out

    def _near_ball(self, at: np.ndarray, f: float, reach: float) -> bool:
        """A ball came within ``reach`` mm of ``at`` in the eight frames up to ``f``: a
        skittle whose track ended then was knocked, not hidden by an arm."""
        for b, other in enumerate(self.s.ids):
            if other in self.skittles:
                continue
            for g in np.arange(f - 8.0, f + 0.25, 0.25):
                p = self.pos_interp(b, float(g))
                if p is not None and np.linalg.norm(p - at) < reach:
                    return True
        return False
