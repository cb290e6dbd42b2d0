"""Cushion and pocket geometry as the simulator sees it (table mm): cushion-nose segments,
pocket jaws, rounded nose ends and each pocket's drop line."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from contract.tables import TableSpec
from synth.params import Params


@dataclass(frozen=True)
class Rails:
    """Cushion geometry the simulator collides with: segments, their owners, jaw points."""

    a: np.ndarray  # (S,2)
    b: np.ndarray  # (S,2)
    names: tuple[str, ...]
    points: np.ndarray  # (P,2) rounded nose ends
    point_names: tuple[str, ...]
    pockets: tuple[str, ...]
    drop_p: np.ndarray  # (Q,2) a point of each pocket's drop line
    drop_n: np.ndarray  # (Q,2) its outward normal: past the line the ball falls


def rails_for(table: TableSpec, params: Params | None = None) -> Rails:
    """Cushion noses plus pocket jaws: from each nose end a short jaw runs into the pocket,
    converging slightly (a real pocket's facings).

    The contract's mouths (72-73 mm corners on a 68 mm ball) are measured between the
    rubber noses, above the ball's equator; a ball rolls past a rounded nose that a point
    model would stop. So the simulator opens the mouths to ``corner_mouth_balls`` /
    ``middle_mouth_balls`` ball diameters (when wider than the spec) and drops a ball whose
    centre passes the mouth line by ``drop_depth * R``: tuned so that balls aimed at a
    pocket fall about as often as on a real table (see tests/synth/test_physics.py)."""
    if params is None:
        params = Params()
    p = params
    if table.has_pockets:
        phys = replace(
            table,
            corner_mouth_mm=max(table.corner_mouth_mm, p.corner_mouth_balls * table.ball_mm),
            middle_mouth_mm=max(table.middle_mouth_mm, p.middle_mouth_balls * table.ball_mm),
        )
    else:
        phys = table
    segs = [(s.name, np.array(s.a, float), np.array(s.b, float)) for s in phys.cushion_segments]
    pts: list[tuple[str, np.ndarray]] = []
    jl = 1.3 * table.ball_radius
    drop_p, drop_n = [], []
    for pk in phys.pockets:
        corner = np.array([pk.x, pk.y])
        out = _outward(pk.name)
        ends = []
        for name, a, b in list(segs):
            for end in (a, b):
                if np.hypot(*(end - corner)) > pk.mouth_mm * 0.75:
                    continue
                ends.append(end)
                pts.append((name, end))
                d = out / np.hypot(*out)
                mid_dir = corner + out * 1000.0 - end
                toward = mid_dir - d * (mid_dir @ d)
                n = np.hypot(*toward)
                if n > 1e-9:
                    d = d * np.cos(0.14) + toward / n * np.sin(0.14)
                segs.append((name, end.copy(), end + d * jl))
        mid = np.mean(ends, axis=0) if ends else corner
        nrm = out / np.hypot(*out)
        drop_p.append(mid + nrm * p.drop_depth * table.ball_radius)
        drop_n.append(nrm)
    return Rails(
        a=np.array([s[1] for s in segs]).reshape(-1, 2),
        b=np.array([s[2] for s in segs]).reshape(-1, 2),
        names=tuple(s[0] for s in segs),
        points=np.array([p[1] for p in pts]).reshape(-1, 2),
        point_names=tuple(p[0] for p in pts),
        pockets=tuple(pk.name for pk in phys.pockets),
        drop_p=np.array(drop_p, float).reshape(-1, 2),
        drop_n=np.array(drop_n, float).reshape(-1, 2),
    )


def pocket_targets(
    table: TableSpec, params: Params | None = None
) -> dict[str, tuple[float, float]]:
    """The middle of each pocket's mouth (mm) in the simulator's geometry: where to aim."""
    if params is None:
        params = Params()
    p = params
    r = rails_for(table, p)
    pts = r.drop_p - r.drop_n * p.drop_depth * table.ball_radius
    return {n: (float(x), float(y)) for n, (x, y) in zip(r.pockets, pts, strict=True)}


def _outward(pocket: str) -> np.ndarray:
    """Direction out of the surface through a pocket: corner pockets along the diagonal,
    middle ones straight across the long rail."""
    sx = -1.0 if pocket.startswith("front") else 1.0
    sy = -1.0 if pocket.endswith("left") else 1.0
    if pocket.startswith("middle"):
        return np.array([0.0, sy])
    return np.array([sx, sy])
