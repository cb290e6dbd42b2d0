"""5-pin skittles (carom rules 1): five pins on their spots, knocked over by balls or by
each other. Table mm and seconds.

A standing skittle falls when a ball's centre comes within *reach* (ball radius plus the
skittle's base radius) of the skittle's spot; it falls away from the ball, along the ball's
motion blended with the line from the ball to the pin. A falling skittle (length
``height_mm``) knocks a standing neighbour whose base lies within the pin's half width plus
the neighbour's base radius of the segment it sweeps. Balls are not deflected by skittles
(the pins weigh a few grams against a 210 g ball).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from contract.tables import TableSpec

FALL_TIME = 0.15  # s for a pin to lie flat


@dataclass
class SkittleSet:
    """Mutable state of the five pins during one shot (copied per simulation)."""

    names: tuple[str, ...]
    spots: np.ndarray  # (5,2) mm
    base_r: float
    half_width: float
    length: float
    standing: np.ndarray  # (5,) bool
    down: dict[str, tuple[float, str, float]] = field(default_factory=dict)
    """skittle -> (time s, knocked by, fall angle radians)"""

    @classmethod
    def for_table(cls, table: TableSpec, standing: dict[str, bool] | None = None) -> SkittleSet:
        """The pins of ``table`` (carom-match), all standing unless ``standing`` says not."""
        spots = table.skittle_spots
        if not spots:
            raise ValueError(f"table {table.name} has no skittle spots")
        names = tuple(spots)
        st = np.array([True if standing is None else standing.get(n, True) for n in names])
        return cls(
            names=names,
            spots=np.array([spots[n] for n in names], float),
            base_r=table.skittle_base_mm / 2,
            half_width=table.skittle_width_mm / 2,
            length=table.skittle_height_mm,
            standing=st,
        )

    def copy(self) -> SkittleSet:
        return SkittleSet(
            self.names,
            self.spots.copy(),
            self.base_r,
            self.half_width,
            self.length,
            self.standing.copy(),
            dict(self.down),
        )

    def first_reach(
        self, pos: np.ndarray, vel: np.ndarray, idx: np.ndarray, horizon: float, ball_r: float
    ) -> tuple[float, int, int] | None:
        """Earliest time (<= horizon s) a moving ball in ``idx`` reaches a standing pin:
        (t, ball index, skittle index), or None."""
        if not len(idx) or not self.standing.any():
            return None
        s = np.flatnonzero(self.standing)
        p, v = pos[idx], vel[idx]
        dp = p[:, None, :] - self.spots[s][None]
        a = np.broadcast_to((v * v).sum(1)[:, None], dp.shape[:2])
        b = 2 * (dp * v[:, None, :]).sum(2)
        c = (dp * dp).sum(2) - (ball_r + self.base_r) ** 2
        t = np.full(a.shape, np.inf)
        disc = b * b - 4 * a * c
        ok = (disc >= 0) & (a > 1e-12) & (b < 0)
        t[ok] = np.maximum((-b[ok] - np.sqrt(disc[ok])) / (2 * a[ok]), 0.0)
        k = np.unravel_index(int(np.argmin(t)), t.shape)
        if t[k] > horizon:
            return None
        return float(t[k]), int(idx[k[0]]), int(s[k[1]])

    def knock(
        self,
        k: int,
        by: str,
        t: float,
        ball_vel: np.ndarray | None = None,
        from_xy: np.ndarray | None = None,
    ) -> list[dict]:
        """Knock pin ``k`` over at time ``t`` by ``by``; returns its skittle_down event and
        those of any pins its fall brings down (in time order)."""
        if not self.standing[k]:
            return []
        if ball_vel is not None and np.hypot(*ball_vel) > 0:
            ang = math.atan2(ball_vel[1], ball_vel[0])
        elif from_xy is not None:
            d = self.spots[k] - from_xy
            ang = math.atan2(d[1], d[0])
        else:
            ang = 0.0
        self.standing[k] = False
        self.down[self.names[k]] = (t, by, ang)
        events = [{"t": t, "type": "skittle_down", "skittle": self.names[k], "by": by}]
        d = np.array([math.cos(ang), math.sin(ang)])
        for j in np.flatnonzero(self.standing):
            rel = self.spots[j] - self.spots[k]
            along = float(rel @ d)
            if not 0 < along <= self.length + self.base_r:
                continue
            off = abs(float(rel[0] * d[1] - rel[1] * d[0]))
            if off <= self.half_width + self.base_r:
                tj = t + FALL_TIME * math.sqrt(min(1.0, along / self.length))
                events += self.knock(int(j), self.names[k], tj, from_xy=self.spots[k])
        return events

    def settled(self, t: float) -> bool:
        """True when every knocked pin has finished falling by time ``t``."""
        return all(t >= tk + FALL_TIME for tk, _, _ in self.down.values())
