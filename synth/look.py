"""The look of a synthetic table: lamps, colours and materials, drawn from a seed.

Positions are table mm (contract §1), heights mm above the cloth; colours BGR 0..255.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contract.tables import TableSpec

BALL_BGR: dict[str, tuple[int, int, int]] = {
    "white": (196, 224, 236),  # ivory
    "yellow": (30, 185, 235),
    "red": (35, 35, 190),
    "black": (28, 26, 26),
    "blue": (165, 60, 20),
    "green": (60, 115, 25),
    "pink": (165, 130, 235),
    "brown": (30, 60, 110),
    "orange": (25, 115, 235),
    "purple": (115, 35, 85),
    "maroon": (40, 25, 110),
}

RAIL_WOODS: tuple[tuple[int, int, int], ...] = (
    (22, 38, 70),  # dark walnut
    (30, 55, 95),  # oak
    (20, 28, 45),  # wenge
    (28, 28, 30),  # black lacquer (pool)
)

FLOORS: tuple[tuple[int, int, int], ...] = (
    (40, 45, 50),  # dark carpet
    (120, 160, 200),  # light wood
    (60, 120, 60),  # green carpet
    (110, 110, 115),  # grey
    (25, 25, 28),  # dark hall
)


@dataclass(frozen=True)
class Lamp:
    """A lamp over the table: position (x, y) mm, ``h`` mm above the cloth, ``power`` share."""

    x: float
    y: float
    h: float
    power: float


@dataclass(frozen=True)
class Look:
    """Everything about a table's appearance that does not move."""

    lamps: tuple[Lamp, ...]
    cloth_bgr: tuple[float, float, float]
    rail_bgr: tuple[float, float, float]
    floor_bgr: tuple[float, float, float]
    skin_bgr: tuple[float, float, float]
    ambient: float
    pool_sharpness: float
    """Exponent of the lamps' light cones: 1 = broad even light, 3 = tight pools."""
    gain: float
    vignette: float
    noise_sigma: float
    cloth_grain: float
    seed: int

    def light(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Relative illumination (about 0.5..1.05) of the cloth at table mm (x, y)."""
        tot = np.zeros(np.broadcast(x, y).shape, np.float32)
        for lp in self.lamps:
            d2 = (x - lp.x) ** 2 + (y - lp.y) ** 2
            tot += lp.power * (lp.h**2 / (d2 + lp.h**2)) ** self.pool_sharpness
        return (self.ambient + (1 - self.ambient) * tot).astype(np.float32)


def random_look(table: TableSpec, rng: np.random.Generator) -> Look:
    """1-3 lamps along the table 0.9-1.3 m above the cloth, a wood for the rails, a floor."""
    n = int(rng.integers(1, 4))
    h = float(rng.uniform(900.0, 1300.0))
    lamps = []
    for i in range(n):
        x = table.L * (i + 0.5) / n + rng.normal(0, 40)
        lamps.append(Lamp(x, table.W / 2 + rng.normal(0, 40), h, 1.0 / n))
    rail = RAIL_WOODS[int(rng.integers(0, 3))] if table.kind != "pool" else RAIL_WOODS[3]
    jitter = rng.uniform(0.92, 1.08, 3)
    cloth = tuple(float(min(255.0, c * j)) for c, j in zip(table.cloth_bgr, jitter, strict=True))
    skin = (
        float(rng.uniform(110, 150)),
        float(rng.uniform(150, 175)),
        float(rng.uniform(195, 225)),
    )
    return Look(
        lamps=tuple(lamps),
        cloth_bgr=cloth,  # type: ignore[arg-type]
        rail_bgr=tuple(float(c) for c in rail),  # type: ignore[arg-type]
        floor_bgr=tuple(float(c) for c in FLOORS[int(rng.integers(0, len(FLOORS)))]),  # type: ignore[arg-type]
        skin_bgr=skin,
        ambient=float(rng.uniform(0.45, 0.7)),
        pool_sharpness=float(rng.uniform(1.0, 2.5)),
        gain=float(rng.uniform(0.95, 1.45)),
        vignette=float(rng.uniform(0.1, 0.3)),
        noise_sigma=float(rng.uniform(1.0, 2.5)),
        cloth_grain=float(rng.uniform(0.015, 0.04)),
        seed=int(rng.integers(0, 2**31)),
    )
