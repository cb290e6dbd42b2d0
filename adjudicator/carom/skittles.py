"""Skittles after a shot (rule 12): which are set up again, and which stay off.

Knocked skittles are set up on their marks before the next shot (rule 12, the
referee's practice); a skittle moved but still standing is put back (12.4); a mark
covered fully or partly by a ball keeps its skittle off until the mark is free (12.7).
Positions are table mm.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from adjudicator.carom.values import SKITTLES
from contract.match import Respot
from contract.tables import TableSpec

MOVED_MM = 2.0  # a standing skittle this far from its mark has been moved (12.4)


def mark_covered(
    mark: tuple[float, float], balls: Iterable[tuple[float, float]], table: TableSpec
) -> bool:
    """Rule 12.7: a ball covers a skittle's mark (it would touch the skittle standing there)."""
    lim = (table.ball_radius + table.skittle_width_mm / 2) ** 2
    return any((mark[0] - x) ** 2 + (mark[1] - y) ** 2 < lim for x, y in balls)


def skittle_plan(
    table: TableSpec,
    balls: Mapping[str, tuple[float, float]],
    knocked: Iterable[str],
    removed_before: Iterable[str],
    rest: Mapping[str, tuple[float, float]],
) -> tuple[tuple[Respot, ...], tuple[str, ...]]:
    """The skittles to set up on their marks and those left off (12.7).

    ``balls``: the balls' positions for the next shot (mm); ``knocked``: skittles that fell
    on this shot; ``removed_before``: skittles off since an earlier shot; ``rest``: the
    shot's rest positions (skittle ids may appear: a standing skittle that moved).
    Returns ``(respots, removed)``.
    """
    marks = table.skittle_spots
    down = set(knocked) | set(removed_before)
    respots: list[Respot] = []
    removed: list[str] = []
    pts = list(balls.values())
    lim = (table.ball_radius + table.skittle_width_mm / 2) ** 2
    for s in SKITTLES:
        mx, my = marks[s]
        if any((mx - x) ** 2 + (my - y) ** 2 < lim for x, y in pts):
            removed.append(s)
        elif s in down:
            respots.append(Respot(id=s, at=(mx, my)))
        elif s in rest:
            x, y = rest[s]
            if (x - mx) ** 2 + (y - my) ** 2 > MOVED_MM**2:
                respots.append(Respot(id=s, at=(mx, my)))
    return tuple(respots), tuple(removed)
