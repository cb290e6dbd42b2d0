"""Where balls go: ball in hand (rule 13), balls off the table (rule 11), the break (4).

Positions are table mm (contract §1): ``x`` from the bottom (front) short cushion to the
top (back) one, the centre line ``x = L/2``. 5-pin spots (rules 1.2–1.5): ``bottom``
(100 mm from the bottom cushion), ``lag`` (L/4), ``red`` (3L/4), ``top`` (L - 100).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from contract.tables import TableSpec

Half = Literal["bottom", "top"]
Point = tuple[float, float]
ON_LINE_MM = 0.5  # rule 13.4: a centre this close to the centre line is "exactly on" it


def _d2(a: Point, b: Point) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def covered(p: Point, balls: Iterable[Point], table: TableSpec) -> bool:
    """True when a ball (centre within one ball diameter) occupies or covers spot ``p``."""
    lim = table.ball_mm**2
    return any(_d2(p, b) < lim for b in balls)


def hand_half(offender: Point | None, table: TableSpec) -> Half:
    """Rules 13.2 / 13.4: the half opposite the offender's ball; the bottom half when it
    lies exactly on the centre line (or is not on the table)."""
    if offender is None or abs(offender[0] - table.L / 2) <= ON_LINE_MM:
        return "bottom"
    return "top" if offender[0] < table.L / 2 else "bottom"


def in_half(p: Point, half: Half, table: TableSpec, others: Iterable[Point] = ()) -> bool:
    """Rule 13.3 (and 4.2 for the break): a ball centred at ``p`` lies on the surface in
    ``half`` with no part over the centre line, and overlaps no other ball."""
    r = table.ball_radius
    x, y = p
    if not (r <= x <= table.L - r and r <= y <= table.W - r):
        return False
    ok = x <= table.L / 2 - r if half == "bottom" else x >= table.L / 2 + r
    return ok and not covered(p, others, table)


def respot_offender(on_table: Mapping[str, Point], offender: str, table: TableSpec) -> Point:
    """Rule 13.5: at the incoming player's request the offender's ball goes to the top
    spot; when the red covers it, to the bottom spot (the ball in hand then goes to the
    other half, :func:`hand_half` of the returned point)."""
    others = [p for b, p in on_table.items() if b != offender]
    top = table.spots["top"]
    return top if not covered(top, others, table) else table.spots["bottom"]


def _first_free(names: Iterable[str], balls: Iterable[Point], table: TableSpec) -> Point:
    taken = list(balls)
    names = list(names)
    for n in names:
        if not covered(table.spots[n], taken, table):
            return table.spots[n]
    return table.spots[names[-1]]


def off_table_spots(
    off: Iterable[str],
    on_table: Mapping[str, Point],
    offender: str,
    incoming: str,
    table: TableSpec,
) -> dict[str, Point]:
    """Rule 11.3: where the referee puts balls that left the table.

    ``on_table``: rest positions of the balls still on the table; ``offender``: the
    striker's own ball; ``incoming``: the opponent's ball (he plays next, from hand, so
    his ball gets no spot here). The red goes to the red spot, else the spot of the ball
    covering it (11.3c); the offender's ball to the spot at the short cushion opposite
    the incoming player's ball, else the spot of the ball covering it (11.3a).
    """
    placed = {b: p for b, p in on_table.items() if b != incoming}  # picked up (13.2)
    out: dict[str, Point] = {}
    off = set(off)
    if "red" in off:
        out["red"] = _first_free(("red", "top", "bottom"), placed.values(), table)
        placed["red"] = out["red"]
    if offender in off:
        inc = on_table.get(incoming)
        end = "bottom" if inc is not None and inc[0] >= table.L / 2 else "top"
        order = (end, "red", "bottom" if end == "top" else "top")
        out[offender] = _first_free(order, placed.values(), table)
    return out


def break_position(table: TableSpec, other_ball: str) -> dict[str, Point]:
    """Rule 4.1: the opponent's ball on the top spot, the red on the red spot; the
    breaker's ball is in hand in the bottom half (4.2), so it has no position yet."""
    return {other_ball: table.spots["top"], "red": table.spots["red"]}
