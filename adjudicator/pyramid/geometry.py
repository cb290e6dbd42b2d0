"""Pyramid table geometry: the rack (rule 9 / 003 8), re-spotting (25), frozen balls (20).

Everything in table mm (contract §1): ``x`` along the table from the front (house)
cushion, ``y`` across from the left cushion; the back spot is ``(3L/4, W/2)`` and the
spotting line runs from it to the back cushion along ``y = W/2``. A ball's position is
its centre (rule 10 / 003 9).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from contract.tables import TableSpec, load_table

Point = tuple[float, float]
OBJECT_BALLS = tuple(str(i) for i in range(1, 16))
"""The fifteen white balls, numbered (contract §3; tracker ids ``w1``… where unread)."""
GAP_MM = 0.5
"""Clearance kept from obstructing balls when re-spotting ("without touching", 25.2)."""


@lru_cache(maxsize=32)
def table_for(name: str) -> TableSpec:
    """The table spec by name or path (cached: loaded once per process)."""
    return load_table(name)


def in_house(table: TableSpec, p: Point) -> bool:
    """Rule 11 (003 10): strictly inside the house; a centre on the house line is outside."""
    return p[0] < table.house_line_x


def frozen_cushions(table: TableSpec, p: Point, tol_mm: float) -> frozenset[str]:
    """Cushions (front/back/left/right) a ball at ``p`` stands against ("вплотную", 003 20).

    Frozen when the gap between the ball's surface and the cushion nose is <= ``tol_mm``.
    """
    r = table.ball_radius
    x, y = p
    out = []
    if x - r <= tol_mm:
        out.append("front")
    if table.L - x - r <= tol_mm:
        out.append("back")
    if y - r <= tol_mm:
        out.append("left")
    if table.W - y - r <= tol_mm:
        out.append("right")
    return frozenset(out)


def rack_positions(table: TableSpec, ids: Sequence[str]) -> dict[str, Point]:
    """A full or partial pyramid (rule 9 / 003 8 and its note), ids placed in order.

    Apex on the back spot, base parallel to the back cushion, balls touching. A partial
    pyramid fills rows from the apex toward the base; the last row fills from the middle
    outward, symmetric about the long axis; where its count cannot be symmetric the apex
    ball moves into that row (003 8 note). Row ``k`` (0 = apex) lies at
    ``x = back_x + k·√3·r`` and holds ``k + 1`` slots ``2r`` apart.
    """
    n = len(ids)
    if n == 0:
        return {}
    r = table.ball_radius
    bx, cy = table.spots["back"]
    rows: list[int] = []  # balls per row
    left = n
    k = 0
    while left > 0:
        take = min(k + 1, left)
        rows.append(take)
        left -= take
        k += 1
    last = len(rows) - 1
    if rows[last] != last + 1 and rows[last] % 2 != (last + 1) % 2:
        rows[0] -= 1  # the apex ball moves into the base for symmetry
        rows[last] += 1
    slots: list[Point] = []
    for k, m in enumerate(rows):
        x = bx + k * math.sqrt(3.0) * r
        full = [cy + (j - k / 2.0) * 2 * r for j in range(k + 1)]
        if m == k + 1:
            ys = full
        else:  # middle outward, symmetric: centre slot only when the counts are both odd
            order = sorted(range(k + 1), key=lambda j: (abs(j - k / 2.0), j))
            ys = sorted(full[j] for j in order[:m])
        slots.extend((x, y) for y in ys)
    return dict(zip(ids, slots, strict=True))


def _blocked(ox: float, oy: float, cy: float, d: float) -> tuple[float, float] | None:
    """Interval of centre x on the line ``y = cy`` closer than ``d`` to a ball at (ox, oy)."""
    dy = oy - cy
    if abs(dy) >= d:
        return None
    h = math.sqrt(d * d - dy * dy)
    return ox - h, ox + h


def respot_positions(
    table: TableSpec,
    ids: Sequence[str],
    obstacles: Mapping[str, Point] | Iterable[Point],
) -> dict[str, Point]:
    """Re-spot ``ids`` in order by rule 25.2 among balls at rest at ``obstacles``.

    One ball goes on the back spot; several go along the spotting line from the back spot
    toward the back cushion, touching each other. Where other balls are in the way the
    chain sits as near the back spot as it can without touching them; where there is no
    room between the back spot and the back cushion it runs from the back spot toward the
    centre of the table instead. Returns id -> (x, y) mm.
    """
    n = len(ids)
    if n == 0:
        return {}
    r = table.ball_radius
    bx, cy = table.spots["back"]
    pts = obstacles.values() if isinstance(obstacles, Mapping) else obstacles
    d = 2 * r + GAP_MM
    blocks = [b for p in pts if (b := _blocked(p[0], p[1], cy, d)) is not None]
    step = 2 * r

    def free(x0: float, sign: float) -> bool:
        for k in range(n):
            x = x0 + sign * k * step
            if x > table.L - r + 1e-6 or x < r - 1e-6:
                return False
            for lo, hi in blocks:
                if lo < x < hi:
                    return False
        return True

    def candidates(sign: float) -> list[float]:
        c = {bx}
        for lo, hi in blocks:
            for k in range(n):  # chain start that puts ball k just past an obstacle
                c.add((hi if sign > 0 else lo) - sign * k * step)
        return sorted((x for x in c if sign * (x - bx) >= -1e-9), key=lambda x: abs(x - bx))

    for sign in (1.0, -1.0):  # toward the back cushion first, then toward the centre
        for x0 in candidates(sign):
            if free(x0, sign):
                return {b: (x0 + sign * k * step, cy) for k, b in enumerate(ids)}
    if n == 1:  # the whole line is blocked: the back spot is the best the rule allows
        return {ids[0]: (bx, cy)}
    # no contiguous room anywhere on the line: place one at a time, nearest free points
    out: dict[str, Point] = {}
    taken: list[Point] = list(pts)
    for b in ids:
        p = respot_positions(table, [b], taken)
        out[b] = p[b]
        taken.append(p[b])
    return out
