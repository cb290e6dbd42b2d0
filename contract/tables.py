"""Table specs as data, and the geometry of the table frame (contract §1, §2).

All coordinates are table millimetres: ``x`` along the table from the front
(house / bottom) short cushion, ``y`` across from the left long cushion, the
origin at the front-left corner of the playing surface (the cushion noses).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Literal

from contract.errors import ContractError

TableKind = Literal["pyramid", "carom", "pool", "snooker"]
Point = tuple[float, float]

POCKET_NAMES = (
    "front-left",
    "front-right",
    "middle-left",
    "middle-right",
    "back-left",
    "back-right",
)
CUSHION_NAMES = ("front", "back", "left", "right")
SKITTLE_NAMES = ("centre", "front", "back", "left", "right")
TURNED_SIDE = {"front": "back", "back": "front", "left": "right", "right": "left"}
"""The side a cushion (or 5-pin skittle) name becomes when the table is turned end for end."""


@dataclass(frozen=True)
class Pocket:
    """A pocket: its name, the point of the frame it sits at (mm) and its mouth.

    ``mouth_mm`` is the opening between the cushion noses, measured across the
    pocket's throat; a ball whose centre enters the mouth circle of radius
    ``mouth_mm / 2`` around ``centre`` (pushed outward by ``setback_mm``) falls.
    """

    name: str
    x: float
    y: float
    mouth_mm: float
    setback_mm: float = 0.0

    @property
    def corner(self) -> bool:
        return self.name.startswith(("front", "back"))

    @property
    def centre(self) -> Point:
        """Centre of the pocket's drop circle in table mm (outside the surface)."""
        dx = -1.0 if self.x <= 0 else (1.0 if self.name.startswith("back") else 0.0)
        dy = -1.0 if self.y <= 0 else 1.0
        if self.corner:
            s = self.setback_mm / 2**0.5
            return (self.x + dx * s, self.y + dy * s)
        return (self.x, self.y + dy * self.setback_mm)


@dataclass(frozen=True)
class Segment:
    """A straight cushion nose segment, endpoints in table mm."""

    name: str
    a: Point
    b: Point


@dataclass(frozen=True)
class TableSpec:
    """A table's nominal geometry. Every real table is calibrated; this is the model.

    Units: millimetres. ``skittle_offset_mm`` is ``d`` of contract §1 (carom only).
    """

    name: str
    kind: TableKind
    length_mm: float
    width_mm: float
    ball_mm: float
    corner_mouth_mm: float = 0.0
    middle_mouth_mm: float = 0.0
    cushion_mm: float = 50.0
    rail_mm: float = 120.0
    skittle_offset_mm: float = 0.0
    skittle_height_mm: float = 25.0
    skittle_width_mm: float = 9.0
    skittle_base_mm: float = 7.0
    cloth_bgr: tuple[int, int, int] = (60, 120, 20)
    diamonds: bool = True
    description: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    # ------------------------------------------------------------------ basics
    @property
    def L(self) -> float:  # noqa: N802 - the contract's name
        return self.length_mm

    @property
    def W(self) -> float:  # noqa: N802 - the contract's name
        return self.width_mm

    @property
    def ball_radius(self) -> float:
        return self.ball_mm / 2.0

    @property
    def has_pockets(self) -> bool:
        return self.corner_mouth_mm > 0

    @cached_property
    def pockets(self) -> tuple[Pocket, ...]:
        """The six pockets of contract §1 (empty on a carom table)."""
        if not self.has_pockets:
            return ()
        L, W = self.L, self.W
        c, m = self.corner_mouth_mm, self.middle_mouth_mm
        sc = self.extra.get("corner_setback_mm", c * 0.25)
        sm = self.extra.get("middle_setback_mm", m * 0.35)
        return (
            Pocket("front-left", 0.0, 0.0, c, sc),
            Pocket("front-right", 0.0, W, c, sc),
            Pocket("middle-left", L / 2, 0.0, m, sm),
            Pocket("middle-right", L / 2, W, m, sm),
            Pocket("back-left", L, 0.0, c, sc),
            Pocket("back-right", L, W, c, sc),
        )

    def pocket(self, name: str) -> Pocket:
        for p in self.pockets:
            if p.name == name:
                return p
        raise KeyError(f"table {self.name} has no pocket {name!r}")

    # ---------------------------------------------------------------- markings
    @cached_property
    def spots(self) -> dict[str, Point]:
        """Named spots (mm). Pyramid: general rules 2.1; carom: carom rules 1."""
        L, W = self.L, self.W
        if self.kind == "carom":
            return {
                "bottom": (100.0, W / 2),
                "lag": (L / 4, W / 2),
                "red": (3 * L / 4, W / 2),
                "top": (L - 100.0, W / 2),
                "centre": (L / 2, W / 2),
            }
        return {"front": (L / 4, W / 2), "centre": (L / 2, W / 2), "back": (3 * L / 4, W / 2)}

    @property
    def house_line_x(self) -> float:
        """The house line ``x = L/4``; the house is ``x < L/4`` (a centre on it is outside)."""
        return self.L / 4

    @property
    def centre_line_x(self) -> float:
        return self.L / 2

    def in_house(self, x: float, y: float | None = None) -> bool:
        """True when a ball centre at ``x`` mm lies strictly inside the house (rule 10)."""
        return x < self.house_line_x

    @cached_property
    def skittle_spots(self) -> dict[str, Point]:
        """The five skittle marks of 5-pin (contract §1); empty elsewhere."""
        if self.kind != "carom" or self.skittle_offset_mm <= 0:
            return {}
        L, W, d = self.L, self.W, self.skittle_offset_mm
        return {
            "centre": (L / 2, W / 2),
            "front": (L / 2 - d, W / 2),
            "back": (L / 2 + d, W / 2),
            "left": (L / 2, W / 2 - d),
            "right": (L / 2, W / 2 + d),
        }

    @cached_property
    def markings(self) -> dict[str, Point]:
        """Every point marking by name (the names CALIB.json's ``markings`` use)."""
        out = {f"spot:{k}": v for k, v in self.spots.items()}
        out.update({f"skittle:{k}": v for k, v in self.skittle_spots.items()})
        out.update(
            {
                "corner:front-left": (0.0, 0.0),
                "corner:front-right": (0.0, self.W),
                "corner:back-left": (self.L, 0.0),
                "corner:back-right": (self.L, self.W),
            }
        )
        return out

    @cached_property
    def lines(self) -> dict[str, tuple[Point, Point]]:
        """Line markings (mm endpoints): house line and centre line (pyramid), spotting line."""
        L, W = self.L, self.W
        if self.kind == "carom":
            return {"centre": ((L / 2, 0.0), (L / 2, W))}
        return {
            "house": ((L / 4, 0.0), (L / 4, W)),
            "centre": ((L / 2, 0.0), (L / 2, W)),
            "spotting": ((3 * L / 4, W / 2), (L, W / 2)),
        }

    # ---------------------------------------------------------------- cushions
    @cached_property
    def cushion_segments(self) -> tuple[Segment, ...]:
        """Cushion noses: four lines on a carom table, six segments between pocket mouths."""
        L, W = self.L, self.W
        if not self.has_pockets:
            return (
                Segment("front", (0.0, 0.0), (0.0, W)),
                Segment("back", (L, 0.0), (L, W)),
                Segment("left", (0.0, 0.0), (L, 0.0)),
                Segment("right", (0.0, W), (L, W)),
            )
        c = self.corner_mouth_mm / 2**0.5
        m = self.middle_mouth_mm / 2
        return (
            Segment("front", (0.0, c), (0.0, W - c)),
            Segment("back", (L, c), (L, W - c)),
            Segment("left-front", (c, 0.0), (L / 2 - m, 0.0)),
            Segment("left-back", (L / 2 + m, 0.0), (L - c, 0.0)),
            Segment("right-front", (c, W), (L / 2 - m, W)),
            Segment("right-back", (L / 2 + m, W), (L - c, W)),
        )

    def nearest_cushion(self, x: float, y: float) -> str:
        """Name of the cushion (front/back/left/right) nearest to a point (mm)."""
        d = {"front": x, "back": self.L - x, "left": y, "right": self.W - y}
        return min(d, key=d.__getitem__)

    def on_surface(self, x: float, y: float, margin: float = 0.0) -> bool:
        """True when (x, y) mm lies on the playing surface shrunk by ``margin`` mm."""
        return margin <= x <= self.L - margin and margin <= y <= self.W - margin

    def diamond_points(self) -> list[Point]:
        """Rail sights (mm, on the cushion-nose lines): 8 along each long rail side, 4 across."""
        if not self.diamonds:
            return []
        L, W = self.L, self.W
        pts: list[Point] = []
        for i in range(1, 8):
            pts += [(L * i / 8, 0.0), (L * i / 8, W)]
        for j in range(1, 4):
            pts += [(0.0, W * j / 4), (L, W * j / 4)]
        return pts

    # ------------------------------------------------------------------ io
    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "extra"}
        d["cloth_bgr"] = list(self.cloth_bgr)
        d.update(self.extra)
        return d


_FIELDS = set(TableSpec.__dataclass_fields__) - {"extra"}
_BUILTIN = resources.files("contract") / "specs"


def table_from_dict(data: dict, source: str = "<dict>") -> TableSpec:
    """Build a spec from a JSON object; unknown keys go to ``extra``."""
    if not isinstance(data, dict):
        raise ContractError(source, "", "a table spec must be a JSON object")
    for req in ("name", "kind", "length_mm", "width_mm", "ball_mm"):
        if req not in data:
            raise ContractError(source, req, "missing")
    if data["kind"] not in ("pyramid", "carom", "pool", "snooker"):
        raise ContractError(source, "kind", f"unknown kind {data['kind']!r}")
    for key in ("length_mm", "width_mm", "ball_mm"):
        v = data[key]
        if not isinstance(v, int | float) or v <= 0:
            raise ContractError(source, key, f"must be a positive number, got {v!r}")
    known = {k: v for k, v in data.items() if k in _FIELDS}
    if "cloth_bgr" in known:
        known["cloth_bgr"] = tuple(int(c) for c in known["cloth_bgr"])
    extra = {k: v for k, v in data.items() if k not in _FIELDS}
    return TableSpec(**known, extra=extra)


def table_names() -> list[str]:
    """Names of the built-in table specs."""
    return sorted(p.name[:-5] for p in _BUILTIN.iterdir() if p.name.endswith(".json"))


def load_table(name_or_path: str | Path) -> TableSpec:
    """Load a table spec by built-in name (``pyramid-12ft``) or from a JSON file path."""
    s = str(name_or_path)
    path = Path(s)
    if s.endswith(".json") or path.exists():
        if not path.exists():
            raise ContractError(s, "", "no such table spec file")
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            raise ContractError(s, "", f"not valid JSON: {e.msg} at line {e.lineno}") from None
        return table_from_dict(data, s)
    res = _BUILTIN / f"{s}.json"
    if not res.is_file():
        raise ContractError(s, "table", f"unknown table; built-in: {', '.join(table_names())}")
    return table_from_dict(json.loads(res.read_text()), s)


DEFAULT_TABLE = {
    "pyramid-free": "pyramid-12ft",
    "pyramid-combined": "pyramid-12ft",
    "pyramid-dynamic": "pyramid-12ft",
    "pyramid-classic": "pyramid-12ft",
    "carom-5pin": "carom-match",
}
