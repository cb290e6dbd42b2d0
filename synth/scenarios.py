"""The catalogue of synthetic scenarios: each is a function ``(seed) -> ClipSpec``.

Pyramid (``pyramid-12ft``, 15 numbered white balls and the yellow): the rack and the
break from the house, mid-game positions with pots, a miss, the cue ball pocketed (and
put back in the house by hand), a ball off the table re-spotted by hand on the back spot,
a camera knocked between strokes. 5-pin (``carom-match``): the break and play with
skittles falling. All positions table mm; see :mod:`synth.planner`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from contract.tables import load_table
from synth.clip import ClipSpec, Cover, pocket_inward
from synth.planner import (
    Planner,
    carom_balls,
    events_of,
    next_player,
    potted,
    pyramid_balls,
    rack,
    scatter,
)

Scenario = Callable[[int], ClipSpec]
Point = tuple[float, float]


def _midgame(
    name: str, seed: int, game: str = "pyramid-combined", n: tuple[int, int] = (6, 10)
) -> Planner:

    table = load_table("pyramid-12ft")
    rng = np.random.default_rng([seed, 5])
    k = int(rng.integers(n[0], n[1] + 1))
    numbers = [str(b) for b in sorted(rng.choice(np.arange(1, 16), k, replace=False))]
    pos = scatter(table, numbers + ["yellow"], rng)
    return Planner(name, seed, table.name, game, pyramid_balls(), pos)


def _pots(p: Planner, strokes: int, player: str = "A", first_lean: bool = False) -> str:
    for i in range(strokes):
        st, res = p.search(
            lambda r, i=i, pl=player: p.pot_stroke(r, "yellow", pl, lean=first_lean and i == 0),
            lambda res: potted(res, "yellow"),
        )
        player = next_player(player, res, "yellow", carom=False)
    return player


def _pot_or_play(p: Planner, player: str) -> None:
    """A pot if the position offers one within 40 tries, else a plain stroke at a ball."""
    try:
        p.search(lambda r: p.pot_stroke(r, "yellow", player), lambda res: potted(res, "yellow"), 40)
    except ValueError:

        def any_ball(r):
            pos = p.on_table()
            objs = [b for b in pos if b != "yellow"]
            return p.direct_stroke(
                r,
                "yellow",
                pos[objs[int(r.integers(len(objs)))]],
                player,
                (900, 2000),
                spread_deg=1.0,
            )

        p.search(any_ball, lambda res: bool(events_of(res, "contact")) and not res.gone)


def pyramid_break(seed: int) -> ClipSpec:
    """The rack, the break from the house with the yellow, then one more stroke."""

    table = load_table("pyramid-12ft")
    rng = np.random.default_rng([seed, 1])
    pos = rack(table, rng)
    pos["yellow"] = (
        float(rng.uniform(300, table.L / 4 - 100)),
        float(rng.uniform(400, table.W - 400)),
    )
    p = Planner("pyramid-break", seed, table.name, "pyramid-free", pyramid_balls(), pos)
    apex = table.spots["back"]
    st, res = p.search(
        lambda r: p.direct_stroke(r, "yellow", apex, "A", (5000, 7500), spread_deg=0.6),
        lambda res: bool(events_of(res, "contact")) and not events_of(res, "off_table"),
    )
    player = next_player("A", res, "yellow", carom=False)
    _pot_or_play(p, player)
    return p.spec("pyramid rack, break from the house with the yellow, then a stroke")


def pyramid_pots(seed: int) -> ClipSpec:
    """A mid-game position and three strokes that each pot a ball."""
    p = _midgame("pyramid-pots", seed)
    _pots(p, 3, first_lean=True)
    return p.spec("pyramid mid-game: three strokes, each pots a ball; a player leans in first")


def pyramid_miss(seed: int) -> ClipSpec:
    """A stroke that touches no ball (a foul: no contact), then the opponent pots."""
    p = _midgame("pyramid-miss", seed)

    def miss(r):
        c = p.on_table()["yellow"]
        return p.direct_stroke(
            r,
            "yellow",
            (c[0] + 1000 * math.cos(r.uniform(0, 6.3)), c[1] + 1000 * math.sin(r.uniform(0, 6.3))),
            "A",
            (700, 1600),
        )

    p.search(miss, lambda res: not events_of(res, "contact") and not events_of(res, "pocket"))
    _pots(p, 1, player="B")
    return p.spec("pyramid mid-game: a miss (no contact), then the opponent pots")


def pyramid_cue_pocketed(seed: int) -> ClipSpec:
    """The yellow goes into a pocket; a hand puts it back in the house; the next stroke."""
    p = _midgame("pyramid-cue-pocketed", seed)

    def scratch(r):
        names = list(p.targets)
        t = p.targets[names[int(r.integers(len(names)))]]
        return p.direct_stroke(r, "yellow", t, "A", (900, 2200))

    p.search(scratch, lambda res: "yellow" in res.gone and res.gone["yellow"][1] != "off_table")

    rng = np.random.default_rng([seed, 9])
    at = scatter(p.table, ["yellow"], rng, p.on_table(), box=(0, p.table.L / 4 - 60, 0, p.table.W))
    p.respot("yellow", at["yellow"])
    _pots(p, 1, player="B")
    return p.spec("pyramid: the cue ball pocketed, put back in the house by hand, a pot")


def pyramid_off_table(seed: int) -> ClipSpec:
    """An object ball jumps off the table; a hand re-spots it on the back spot; a pot."""
    p = _midgame("pyramid-off-table", seed)
    _off_table(p, "A")
    _pots(p, 1, player="B")
    return p.spec("pyramid: a ball off the table, re-spotted by hand (rule 25), then a pot")


def _off_table(p: Planner, player: str) -> None:
    def hard(r):
        pos = p.on_table()
        objs = [b for b in pos if b != "yellow"]
        ob = objs[int(r.integers(len(objs)))]
        return p.direct_stroke(r, "yellow", pos[ob], player, (5500, 7000), jump=(ob,))

    st, res = p.search(
        hard, lambda res: len(events_of(res, "off_table")) == 1 and "yellow" not in res.gone
    )
    p.respot(events_of(res, "off_table")[0]["ball"])


def pyramid_respot(seed: int) -> ClipSpec:
    """A pot, then a ball off the table, re-spotted by hand on the back spot at the end."""
    p = _midgame("pyramid-respot", seed, n=(5, 7))
    player = _pots(p, 1)
    _off_table(p, player)
    return p.spec("pyramid mid-game: a pot, then a ball off the table re-spotted by hand")


def pyramid_knock(seed: int) -> ClipSpec:
    """Two pots with the camera knocked a few pixels between them."""
    p = _midgame("pyramid-knock", seed, n=(5, 8))
    _pots(p, 1)
    st, res = p.search(
        lambda r: p.pot_stroke(r, "yellow", "A", knock=True), lambda res: potted(res, "yellow")
    )
    return p.spec("pyramid: a pot, the camera knocked, another pot")


def _carom_aim(
    p: Planner, r, cue: str, target: str, player: str, pins: bool = True, banks=(0, 1, 2, 3, 4)
):
    """A 5-pin stroke at the opponent's ball ``target``: with ``pins``, a ghost-ball aim
    sending it at a pin directly or off one cushion (its mirror image); else a direct or
    one-cushion aim at the ball itself."""
    R = p.R
    L, W = p.table.L, p.table.W
    if pins and r.random() < 0.85:
        spots = list(p.table.skittle_spots.values())
        px, py = spots[int(r.integers(len(spots)))]
        px += r.normal(0, 15)
        py += r.normal(0, 15)
        mirrors = [
            (px, py),
            (2 * (L - R) - px, py),
            (2 * R - px, py),
            (px, 2 * R - py),
            (px, 2 * (W - R) - py),
        ]
        bank = mirrors[banks[int(r.integers(len(banks)))]]
        return p.ghost_stroke(r, cue, target, (px, py), player, (1200, 2600), bank=bank)
    tx, ty = p.on_table()[target]
    mode = int(r.integers(3))
    if mode == 1:
        ty = 2 * R - ty  # mirror in the left cushion
    elif mode == 2:
        ty = 2 * (W - R) - ty
    return p.direct_stroke(r, cue, (tx, ty), player, (1800, 4000), spread_deg=1.5)


def _pins_by(res, cue: str) -> bool:
    """Pins fell and none by the striker's own ball (carom rules: own ball skittles)."""
    return bool(res.skittle_down) and all(by != cue for _, by, _ in res.skittle_down.values())


def _first_contact(res, cue: str, target: str) -> bool:
    c = events_of(res, "contact")
    return bool(c) and set(c[0]["balls"]) == {cue, target}


def carom_break(seed: int) -> ClipSpec:
    """5-pin break (carom rules 4): white anywhere in the bottom half, yellow on the top
    spot, red on the red spot; the white hits the yellow first (pins fall where the seed's
    position gives a way to drop them); then B plays."""

    table = load_table("carom-match")
    rng = np.random.default_rng([seed, 3])
    pos = {"yellow": table.spots["top"], "red": table.spots["red"]}
    pos.update(scatter(table, ["white"], rng, pos, box=(200, table.L / 2 - 200, 0, table.W)))
    p = Planner("carom-5pin-break", seed, table.name, "carom-5pin", carom_balls(), pos, True)

    def legal(res, pins: bool) -> bool:
        ok = _first_contact(res, "white", "yellow") and not res.gone
        return ok and (_pins_by(res, "white") if pins else not res.skittle_down)

    try:  # pins down if the seed's position allows it within 40 tries, else a clean break
        p.search(
            lambda r: _carom_aim(p, r, "white", "yellow", "A"),
            lambda res: legal(res, True),
            tries=40,
            screen=lambda res: _first_contact(res, "white", "yellow"),
        )
    except ValueError:
        p.search(
            lambda r: _carom_aim(p, r, "white", "yellow", "A", pins=False),
            lambda res: legal(res, False),
            tries=150,
            screen=lambda res: _first_contact(res, "white", "yellow"),
        )
    p.search(
        lambda r: _carom_aim(p, r, "yellow", "white", "B", pins=False),
        lambda res: _first_contact(res, "yellow", "white") and not res.gone,
        tries=150,
        screen=lambda res: _first_contact(res, "yellow", "white"),
    )
    return p.spec("5-pin break: white hits yellow first (pins fall on most seeds); then B plays")


def carom_play(seed: int) -> ClipSpec:
    """5-pin play from a random position: three strokes, players taking turns; at least
    one knocks skittles over (re-stood by hand before the next stroke)."""

    table = load_table("carom-match")
    rng = np.random.default_rng([seed, 4])
    pos = scatter(table, ["white", "yellow", "red"], rng)
    p = Planner(
        "carom-5pin-play", seed, table.name, "carom-5pin", carom_balls(), pos, skittles=True
    )
    players = [("white", "yellow", "A"), ("yellow", "white", "B"), ("white", "yellow", "A")]
    for i, (cue, obj, pl) in enumerate(players):
        want_pins = i == 0
        p.search(
            lambda r, cue=cue, obj=obj, pl=pl, w=want_pins: _carom_aim(p, r, cue, obj, pl, w),
            lambda res, cue=cue, obj=obj, w=want_pins: (
                _first_contact(res, cue, obj) and (_pins_by(res, cue) or not w) and not res.gone
            ),
            tries=300,
            screen=lambda res, cue=cue, obj=obj: _first_contact(res, cue, obj),
        )
    return p.spec("5-pin play: three strokes, skittles knocked down and re-stood by hand")


def _row_on_cushion(seed: int) -> tuple[dict[str, Point], Point, float]:
    """Three to four balls resting along a long cushion (each 1 to 45 mm off it) behind a
    point ``tip`` 70 mm off that cushion; (positions, tip, along: +1 the row lies at
    smaller x than the tip, -1 at larger)."""
    table = load_table("pyramid-12ft")
    R = table.ball_radius
    rng = np.random.default_rng([seed, 31])
    along = 1.0 if rng.random() < 0.5 else -1.0
    x0 = float(rng.uniform(1100, table.L - 1100))
    right = bool(rng.random() < 0.5)
    numbers = [str(b) for b in rng.choice(np.arange(1, 16), 4, replace=False)]
    pos: dict[str, Point] = {}
    for k, back in enumerate((150.0, 400.0, 640.0, 880.0)[: 3 + int(rng.random() < 0.5)]):
        off = R + float(rng.uniform(1.0, 45.0))
        pos[numbers[k]] = (x0 - along * back, table.W - off if right else off)
    tip = (x0, table.W - 70.0 if right else 70.0)
    return pos, tip, along


def pyramid_reach(seed: int) -> ClipSpec:
    """Balls resting along a long cushion; a player aims along it, leaning over them (cue,
    bridge arm and torso hide them for 3 s), then pots; the same before a second pot."""
    table = load_table("pyramid-12ft")
    row, tip, along = _row_on_cushion(seed)
    rng = np.random.default_rng([seed, 32])
    rest = [str(b) for b in range(1, 16) if str(b) not in row]
    more = [str(b) for b in rng.choice(rest, int(rng.integers(3, 6)), replace=False)]
    far = (0.0, table.W / 2) if tip[1] > table.W / 2 else (table.W / 2, table.W)
    pos = dict(row)
    pos.update(scatter(table, more + ["yellow"], rng, row, box=(0.0, table.L, *far)))
    p = Planner("pyramid-reach", seed, table.name, "pyramid-combined", pyramid_balls(), pos)
    cover = (Cover("reach", tip, 3.0, along),)
    player = "A"
    for _ in range(2):
        st, res = p.search(
            lambda r, pl=player: p.pot_stroke(r, "yellow", pl, cover=cover),
            lambda res: potted(res, "yellow"),
        )
        player = next_player(player, res, "yellow", carom=False)
    return p.spec("pyramid: a player leans over balls resting along a cushion, then pots; twice")


def _jaws(seed: int) -> tuple[dict[str, Point], Point]:
    """A ball hanging in the jaws of a pocket (its centre 4 to 8 mm past the cushion line on
    a middle pocket, 3 to 6 mm past both on a corner one) and a second ball resting near it;
    (positions, the pocket's point)."""
    table = load_table("pyramid-12ft")
    R = table.ball_radius
    rng = np.random.default_rng([seed, 37])
    pk = table.pockets[int(rng.integers(len(table.pockets)))]
    n = pocket_inward(table, pk)
    side = np.array([-n[1], n[0]])
    depth = float(rng.uniform(4.0, 8.0))
    # a corner mouth's line lies 36.5 mm from the corner point along the diagonal
    hang = np.array([pk.x, pk.y]) + n * (R * math.sqrt(2) - depth if pk.corner else R - depth)
    near = hang + n * (2 * R + float(rng.uniform(20, 70))) + side * float(rng.uniform(-60, 60))
    a, b = (str(v) for v in rng.choice(np.arange(1, 16), 2, replace=False))
    return {a: (float(hang[0]), float(hang[1])), b: (float(near[0]), float(near[1]))}, (pk.x, pk.y)


def pyramid_jaws(seed: int) -> ClipSpec:
    """A ball hangs in a pocket's jaws with another resting near it; a player bends over
    that pocket for 3 s (the body hides both), then pots elsewhere; the same again."""
    table = load_table("pyramid-12ft")
    pos, pocket = _jaws(seed)
    rng = np.random.default_rng([seed, 38])
    rest = [str(b) for b in range(1, 16) if str(b) not in pos]
    more = [str(b) for b in rng.choice(rest, int(rng.integers(4, 7)), replace=False)]
    pos.update(scatter(table, more + ["yellow"], rng, pos))
    p = Planner("pyramid-jaws", seed, table.name, "pyramid-combined", pyramid_balls(), pos)
    cover = (Cover("pocket", pocket, 3.0),)
    hanging = next(iter(pos))
    player = "A"
    for _ in range(2):
        st, res = p.search(
            lambda r, pl=player: p.pot_stroke(r, "yellow", pl, cover=cover),
            lambda res: potted(res, "yellow") and hanging not in res.gone,
        )
        player = next_player(player, res, "yellow", carom=False)
    return p.spec("pyramid: a ball in a pocket's jaws, a player bends over it, then pots; twice")


SCENARIOS: dict[str, Scenario] = {
    "pyramid-break": pyramid_break,
    "pyramid-pots": pyramid_pots,
    "pyramid-miss": pyramid_miss,
    "pyramid-cue-pocketed": pyramid_cue_pocketed,
    "pyramid-off-table": pyramid_off_table,
    "pyramid-respot": pyramid_respot,
    "pyramid-knock": pyramid_knock,
    "carom-5pin-break": carom_break,
    "carom-5pin-play": carom_play,
    "pyramid-reach": pyramid_reach,
    "pyramid-jaws": pyramid_jaws,
}


def scenario(name: str) -> Scenario:
    """A scenario by name: the catalogue's, or a lag case ``lag-<case>`` (:mod:`synth.lag`)."""
    if name.startswith("lag-"):
        from synth.lag import lag_scenario

        return lag_scenario(name[4:])
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    return SCENARIOS[name]
