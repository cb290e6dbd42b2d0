"""Lag scenarios (pyramid rules 8; 5-pin rules 3): two balls struck together up the table.

Pyramid (``pyramid-12ft``, the yellow and ball ``1`` on an empty table): A from the house
on the left half (``y = 450``), B on the right (``y = W - 450``). 5-pin (``carom-match``,
red on its spot and the five skittles): A white at ``(L/4, W/2 - 300)``, B yellow at
``(L/4, W/2 + 300)`` (rule 3: 30 cm either side of the lag spot). Each case names where each
ball should stop (``x`` mm from the near cushion) or how it should lose; the speed that
stops a straight ball at a distance is found by simulation (:func:`speed_for`), so the
distances are what the physics gives, near the aim, and the truth is exact.

Cases: clean lags 5-300 mm apart, near ties (0.5-3 mm), each way of losing (long cushion,
no far cushion, far cushion twice, crossing the half line, pocketed; the red and a skittle
in 5-pin), a late start (5-pin), and a collision at the half line. Positions table mm,
directions radians in the table frame, speeds mm/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from contract.tables import TableSpec, load_table
from synth.clip import ClipSpec, Stroke
from synth.physics import simulate
from synth.planner import carom_balls, pyramid_balls
from synth.skittles import SkittleSet

GAMES = {"pyramid": ("pyramid-12ft", "pyramid-free"), "carom": ("carom-match", "carom-5pin")}


@dataclass(frozen=True)
class LagCase:
    """One lag: ``a``/``b`` each player's aim, a rest distance (mm, float) or a way to
    play it (``long``, ``soft``, ``twice``, ``cross``, ``pocket``, ``red``, ``skittle``,
    ``collide``); ``delay``: seconds B strikes after A (negative: before);
    ``a_fast``: A's ball reaches the far cushion early (the late-start case)."""

    name: str
    game: str
    a: float | str
    b: float | str
    delay: float = 0.1
    what: str = ""


CASES: tuple[LagCase, ...] = (
    LagCase("pyr-clean-300", "pyramid", 250.0, 550.0, 0.2, "clean lag, 300 mm apart"),
    LagCase("pyr-clean-40", "pyramid", 420.0, 380.0, -0.3, "clean lag, 40 mm apart"),
    LagCase("pyr-clean-5", "pyramid", 300.0, 305.0, 0.1, "clean lag, 5 mm apart"),
    LagCase("pyr-tie-1", "pyramid", 350.0, 351.0, 0.0, "near tie, 1 mm apart"),
    LagCase("pyr-long", "pyramid", "long", 500.0, 0.2, "A touches a long cushion"),
    LagCase("pyr-soft", "pyramid", 300.0, "soft", 0.1, "B never reaches the back cushion"),
    LagCase("pyr-twice", "pyramid", "twice", 400.0, 0.1, "A touches the back cushion twice"),
    LagCase("pyr-cross", "pyramid", 300.0, "cross", 0.1, "B crosses into A's half"),
    LagCase("pyr-pocket", "pyramid", "pocket", 300.0, 0.1, "A is pocketed"),
    LagCase("pyr-collide", "pyramid", "collide", "collide", 0.0, "the balls collide"),
    LagCase("car-clean-200", "carom", 300.0, 500.0, 0.2, "clean lag, 200 mm apart"),
    LagCase("car-clean-8", "carom", 358.0, 350.0, 0.3, "clean lag, 8 mm apart"),
    LagCase("car-tie-2", "carom", 400.0, 402.0, 0.1, "near tie, 2 mm apart"),
    LagCase("car-long", "carom", 300.0, "long", 0.1, "B touches a long cushion"),
    LagCase("car-red", "carom", 500.0, "red", 0.1, "B touches the red"),
    LagCase("car-skittle", "carom", "skittle", 400.0, 0.1, "A knocks a skittle"),
    LagCase("car-late", "carom", "fast", 300.0, 0.9, "B strikes after A reached the top"),
    LagCase("car-collide", "carom", "collide", "collide", 0.0, "the balls collide"),
)


def case(name: str) -> LagCase:
    for c in CASES:
        if c.name == name:
            return c
    raise ValueError(f"unknown lag case {name!r}; known: {', '.join(c.name for c in CASES)}")


def starts(game: str, table: TableSpec) -> dict[str, tuple[str, tuple[float, float]]]:
    """Player -> (ball, where it stands) for a lag of ``game``."""
    if game == "pyramid":
        return {"A": ("yellow", (600.0, 450.0)), "B": ("1", (600.0, table.W - 450.0))}
    x, mid = table.L / 4, table.W / 2
    return {"A": ("white", (x, mid - 300.0)), "B": ("yellow", (x, mid + 300.0))}


def _rest_x(table_name: str, x0: float, speed: float) -> float:
    t = load_table(table_name)
    res = simulate(t, {"b": (x0, t.W / 2 - 300.0)}, "b", 0.0, speed)
    return res.rest()["b"][0] if "b" in res.rest() else math.nan


BRACKET = {"pyramid-12ft": (2000.0, 4000.0), "carom-match": (1500.0, 3500.0)}
"""Speeds (mm/s) from a straight lag that just reaches the far cushion to one that comes
all the way back to the near cushion (measured on this physics)."""


@lru_cache(maxsize=8)
def _sweep(table_name: str, x0: float) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = BRACKET[table_name]
    v = np.linspace(lo, hi, 17)
    return v, np.array([_rest_x(table_name, x0, s) for s in v])


@lru_cache(maxsize=64)
def speed_for(table_name: str, x0: float, rest_x: float) -> float:
    """The speed (mm/s) that sends a straight ball from ``x0`` off the far cushion once to
    stop ``rest_x`` mm from the near one: interpolated on a sweep of the simulation, then
    three secant steps (to a fraction of a mm)."""
    v, x = _sweep(table_name, x0)
    ok = ~np.isnan(x)
    s = float(np.interp(rest_x, x[ok][::-1], v[ok][::-1]))  # rest falls as speed rises
    d = 5.0
    for _ in range(3):
        x1, x2 = _rest_x(table_name, x0, s), _rest_x(table_name, x0, s + d)
        slope = (x2 - x1) / d
        if abs(x1 - rest_x) < 0.2 or slope >= 0:
            break
        s -= (x1 - rest_x) / slope
        d = max(0.5, min(5.0, abs((x1 - rest_x) / slope)))
    return s


def _aim(game: str, table: TableSpec, p: tuple[float, float], how: float | str, who: str):
    """(direction, speed) for one ball's aim (see :class:`LagCase`)."""
    name = table.name
    mid = table.W / 2
    toward_mid = 1.0 if p[1] < mid else -1.0
    if isinstance(how, float):
        return 0.0, speed_for(name, p[0], how)
    base = speed_for(name, p[0], 400.0)
    if how == "long":  # drifts to its own long cushion
        return -toward_mid * math.radians(5.0), base
    if how == "soft":
        return 0.0, 0.4 * base
    if how in ("twice", "fast"):
        return 0.0, 2.2 * base if how == "twice" else 1.6 * base
    if how == "cross":
        return toward_mid * math.radians(5.5), base
    if how == "collide":
        far = table.L - table.ball_radius
        return toward_mid * math.atan2(abs(mid - p[1]), far - p[0] + (far - 600.0)), base
    if how == "pocket":
        pk = table.pocket("back-left" if p[1] < mid else "back-right").centre
        return math.atan2(pk[1] - p[1], pk[0] - p[0]), 2500.0
    if how == "red":
        r = (3 * table.L / 4, mid)
        return math.atan2(r[1] - p[1], r[0] - p[0]), base
    if how == "skittle":
        s = table.skittle_spots["centre"]
        return math.atan2(s[1] - p[1], s[0] - p[0]), base
    raise ValueError(f"lag aim {how!r} for player {who} is unknown")


def lag_spec(c: LagCase, seed: int = 0) -> ClipSpec:
    """The clip of lag case ``c``: both balls at their marks, A's stroke with B's as
    ``also`` (``delay`` s later; a negative delay strikes B first)."""
    table_name, game = GAMES[c.game]
    table = load_table(table_name)
    st = starts(c.game, table)
    (ba, pa), (bb, pb) = st["A"], st["B"]
    da, sa = _aim(c.game, table, pa, c.a, "A")
    db, sb = _aim(c.game, table, pb, c.b, "B")
    if c.delay >= 0:
        stroke = Stroke(ba, da, sa, player="A", also=((bb, db, sb, c.delay),))
    else:
        stroke = Stroke(bb, db, sb, player="B", also=((ba, da, sa, -c.delay),))
    pos = {ba: pa, bb: pb}
    if c.game == "carom":
        pos["red"] = (3 * table.L / 4, table.W / 2)
        balls = carom_balls()
    else:
        balls = tuple(b for b in pyramid_balls() if b.id in pos)
    return ClipSpec(scenario=f"lag-{c.name}", seed=seed, table=table_name, game=game,
                    balls=balls, start=pos, strokes=(stroke,), skittles=c.game == "carom",
                    description=f"lag: {c.what}")  # fmt: skip


def skittles_for(spec: ClipSpec) -> SkittleSet | None:
    return SkittleSet.for_table(load_table(spec.table)) if spec.skittles else None


def lag_noise(rng: np.random.Generator, sigma_mm: float) -> tuple[float, float]:
    """A calibration's error at each lag ball's rest (mm along x), one draw per ball."""
    return float(rng.normal(0, sigma_mm)), float(rng.normal(0, sigma_mm))


def lag_scenario(name: str):
    """Lag case ``name`` as a scenario ``(seed) -> ClipSpec`` (``tablemon synth lag-<name>``)."""
    c = case(name)

    def make(seed: int) -> ClipSpec:
        return lag_spec(c, seed)

    make.__doc__ = f"lag, {'pyramid' if c.game == 'pyramid' else '5-pin'}: {c.what}"
    return make
