"""Planning strokes for scenarios: positions, aims and a seeded search for strokes whose
simulated outcome is what the scenario wants (a pot, a miss, a ball off the table ...).

Table mm, radians in the table frame, mm/s. Everything is drawn from one seeded
``numpy.random.Generator``, so a scenario is the same on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from contract.tables import TableSpec, load_table
from synth.clip import ClipSpec, Stroke
from synth.params import Params
from synth.physics import SimResult, pocket_targets, simulate
from synth.skittles import SkittleSet
from synth.world import BallInfo

Point = tuple[float, float]
GAP = 0.001  # mm between touching balls of a rack (1 um)


def pyramid_balls() -> tuple[BallInfo, ...]:
    """Fifteen numbered white balls ``1`` .. ``15`` and the yellow cue ball."""
    return tuple(BallInfo(str(n), "white", n) for n in range(1, 16)) + (
        BallInfo("yellow", "yellow"),
    )


def carom_balls() -> tuple[BallInfo, ...]:
    return (BallInfo("white", "white"), BallInfo("yellow", "yellow"), BallInfo("red", "red"))


def rack(table: TableSpec, rng: np.random.Generator) -> dict[str, Point]:
    """The pyramid rack (rules 8/9): 15 balls in a triangle, apex on the back spot, the
    base toward the back cushion, neighbours 1 um apart; numbers shuffled."""
    R = table.ball_radius
    ax, ay = table.spots["back"]
    d = 2 * R + GAP
    order = [str(n) for n in rng.permutation(np.arange(1, 16))]
    out: dict[str, Point] = {}
    k = 0
    for row in range(5):
        for j in range(row + 1):
            out[order[k]] = (ax + row * d * math.sqrt(3) / 2, ay + (j - row / 2) * d)
            k += 1
    return out


def scatter(
    table: TableSpec,
    ids: list[str],
    rng: np.random.Generator,
    taken: dict[str, Point] | None = None,
    box: tuple[float, float, float, float] | None = None,
) -> dict[str, Point]:
    """Random non-touching positions (>= 15 mm apart, >= 10 mm off the cushions, clear of
    pocket mouths) for ``ids``, optionally inside ``box`` = (x0, x1, y0, y1) mm."""
    R = table.ball_radius
    placed = dict(taken or {})
    x0, x1, y0, y1 = box or (0.0, table.L, 0.0, table.W)
    x0, y0 = max(x0, R + 10), max(y0, R + 10)
    x1, y1 = min(x1, table.L - R - 10), min(y1, table.W - R - 10)
    mouths = [np.array([p.x, p.y]) for p in table.pockets]
    out: dict[str, Point] = {}
    for b in ids:
        for _ in range(2000):
            p = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
            if any(np.hypot(*(p - np.array(q))) < 2 * R + 15 for q in placed.values()):
                continue
            if any(np.hypot(*(p - m)) < 3 * R for m in mouths):
                continue
            if table.skittle_spots and any(
                np.hypot(*(p - np.array(s))) < R + 40 for s in table.skittle_spots.values()
            ):
                continue
            out[b] = placed[b] = (float(p[0]), float(p[1]))
            break
        else:
            raise ValueError(f"no room on {table.name} for ball {b}")
    return out


def _clear(a: np.ndarray, b: np.ndarray, others: list[np.ndarray], width: float) -> bool:
    """True when no point of ``others`` lies within ``width`` mm of segment a-b."""
    d = b - a
    n = float(d @ d)
    for q in others:
        s = 0.0 if n == 0 else float(np.clip((q - a) @ d / n, 0, 1))
        if np.hypot(*(a + d * s - q)) < width:
            return False
    return True


class Planner:
    """Builds a :class:`ClipSpec` stroke by stroke, simulating each stroke as it goes."""

    def __init__(
        self,
        scenario: str,
        seed: int,
        table: str,
        game: str,
        balls: tuple[BallInfo, ...],
        start: dict[str, Point],
        skittles: bool = False,
        params: Params | None = None,
    ) -> None:
        self.scenario, self.seed, self.game = scenario, seed, game
        self.table = load_table(table)
        self.R = self.table.ball_radius
        self.balls = balls
        self.start = dict(start)
        self.pos = dict(start)
        self.skittles = skittles
        self.params = params
        self.rng = np.random.default_rng([seed, 23])
        self.looks = np.random.default_rng([seed, 29])  # cosmetic choices only (leans)
        self.strokes: list[Stroke] = []
        self.results: list[SimResult] = []
        self.pending: list[tuple[str, Point]] = []
        self.targets = pocket_targets(self.table, params)

    # ------------------------------------------------------------ simulation
    def simulate(self, st: Stroke, max_time: float | None = None) -> SimResult:
        pos = dict(self.pos)
        for b, at in self.pending:
            pos[b] = at
        sk = SkittleSet.for_table(self.table) if self.skittles else None
        params = self.params or Params()
        if max_time is not None:
            params = replace(params, max_time=max_time)
        return simulate(
            self.table, pos, st.cue, st.direction, st.speed, st.spin, 30.0, st.jump, sk, params
        )

    def commit(self, st: Stroke, res: SimResult) -> None:
        """Keep ``st`` and its outcome; a body leans in before about one stroke in four."""
        if not st.lean and self.strokes and self.looks.random() < 0.25:
            st = Stroke(**{**st.__dict__, "lean": True})
        if self.pending:
            st = Stroke(**{**st.__dict__, "respot": tuple(self.pending)})
            self.pending = []
        self.strokes.append(st)
        self.results.append(res)
        self.pos = res.rest()

    def respot(self, ball: str, at: Point | None = None) -> Point:
        """Have a hand put ``ball`` back before the next stroke: on ``at``, or by general
        rules 25 on the back spot, else the nearest free point behind it on the spotting
        line toward the back cushion."""
        if at is None:
            x, y = self.table.spots["back"]
            while any(math.hypot(x - p[0], y - p[1]) < 2 * self.R + 1 for p in self.pos.values()):
                x += 1.0
            at = (x, y)
        self.pending.append((ball, at))
        return at

    def search(
        self,
        make: Callable[[np.random.Generator], Stroke | None],
        accept: Callable[[SimResult], bool],
        tries: int = 60,
        screen: Callable[[SimResult], bool] | None = None,
    ) -> tuple[Stroke, SimResult]:
        """Try candidate strokes from ``make`` until ``accept`` likes the outcome; commit it.

        ``screen`` judges the first 1.5 s of a candidate (cheap) before the full run."""
        for _ in range(tries):
            st = make(self.rng)
            if st is None:
                continue
            if screen is not None and not screen(self.simulate(st, max_time=1.5)):
                continue
            res = self.simulate(st)
            if accept(res):
                self.commit(st, res)
                return st, res
        raise ValueError(f"{self.scenario} seed {self.seed}: no stroke found after {tries} tries")

    def spec(self, description: str, size: tuple[int, int] = (1280, 720)) -> ClipSpec:
        return ClipSpec(
            scenario=self.scenario,
            seed=self.seed,
            table=self.table.name,
            game=self.game,
            balls=self.balls,
            start=self.start,
            strokes=tuple(self.strokes),
            size=size,
            skittles=self.skittles,
            description=description,
            after=tuple(self.pending),
            results=tuple(self.results),
        )

    # ------------------------------------------------------------ aims
    def on_table(self) -> dict[str, Point]:
        """Positions (mm) of the balls on the cloth, with any pending re-spots placed."""
        pos = dict(self.pos)
        for b, at in self.pending:
            pos[b] = at
        return pos

    def pot_stroke(self, rng: np.random.Generator, cue: str, player: str, **kw) -> Stroke | None:
        """A ghost-ball aim that sends a random object ball to a random pocket, or None when
        the cut is too thin or a ball is in the way."""
        pos = self.on_table()
        objs = [b for b in pos if b != cue]
        if not objs or cue not in pos:
            return None
        ob = objs[int(rng.integers(len(objs)))]
        pk = list(self.targets)[int(rng.integers(len(self.targets)))]
        return self.ghost_stroke(rng, cue, ob, self.targets[pk], player, (1200, 2600), **kw)

    def ghost_stroke(
        self,
        rng: np.random.Generator,
        cue: str,
        ob: str,
        target: Point,
        player: str,
        speed: tuple[float, float],
        bank: Point | None = None,
        **kw,
    ) -> Stroke | None:
        """Strike ``cue`` so that ``ob`` heads for ``target`` (mm; ``bank``: the point it
        aims at instead, e.g. the target's mirror image in a cushion). None when the cut is
        thinner than 50 degrees or a ball or standing pin is in the way."""
        pos = self.on_table()
        if cue not in pos or ob not in pos:
            return None
        c, o = np.array(pos[cue]), np.array(pos[ob])
        t = np.array(bank if bank is not None else target)
        u = t - o
        if np.hypot(*u) < 1e-6:
            return None
        u /= np.hypot(*u)
        ghost = o - u * 2 * self.R
        v = ghost - c
        dist = np.hypot(*v)
        if dist < 2 * self.R + 5 or (v / dist) @ u < math.cos(math.radians(50)):
            return None
        others = [np.array(p) for b, p in pos.items() if b not in (cue, ob)]
        pins = [np.array(p) for p in self.table.skittle_spots.values()]
        wide = 2 * self.R + 2
        if not _clear(c, ghost, others, wide) or not _clear(c, ghost, pins, self.R + 8):
            return None
        if bank is None and not _clear(o, t, others, wide):
            return None
        lo, hi = speed
        sp = float(rng.uniform(lo, hi) + 0.4 * np.hypot(*(t - o)))
        spin = float(rng.uniform(-0.3, 0.3))
        return Stroke(cue, float(math.atan2(v[1], v[0])), sp, spin, player, **kw)

    def direct_stroke(
        self,
        rng: np.random.Generator,
        cue: str,
        target: Point,
        player: str,
        speed: tuple[float, float],
        spread_deg: float = 0.0,
        **kw,
    ) -> Stroke:
        c = np.array(self.on_table()[cue])
        d = np.array(target) - c
        ang = math.atan2(d[1], d[0]) + math.radians(rng.uniform(-spread_deg, spread_deg))
        return Stroke(
            cue, ang, float(rng.uniform(*speed)), float(rng.uniform(-0.2, 0.3)), player, **kw
        )


def events_of(res: SimResult, kind: str) -> list[dict]:
    return [e for e in res.events if e["type"] == kind]


def potted(res: SimResult, cue: str) -> bool:
    """An object ball pocketed, the cue ball still on the table, nothing off it."""
    pk = events_of(res, "pocket")
    return (
        bool(pk)
        and all(e["ball"] != cue for e in pk)
        and not events_of(res, "off_table")
        and cue not in res.gone
    )


def next_player(player: str, res: SimResult, cue: str, carom: bool) -> str:
    """Who plays next in the scenario's story: a pyramid player keeps the table after a clean
    pot; in 5-pin the players take turns."""
    if not carom and potted(res, cue) and events_of(res, "contact"):
        return player
    return "B" if player == "A" else "A"
