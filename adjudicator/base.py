"""The adjudicator's shared core: match settings, match state, the game registry.

Pure: no vision imports, no I/O. A game module registers one ``Game`` with a
``judge(state, shot) -> Verdict`` and an ``apply(state, shot, verdict) -> MatchState``;
state changes by returning new values (``dataclasses.replace``), never in place.
Positions are table mm (contract §1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Protocol

from contract.match import Call, Shot, Verdict

Player = Literal["A", "B"]
PenaltyForm = Literal["point", "ball"]
BallInHand = Literal["house", "anywhere", "temp_house", "carom_hand"]


def other(p: Player) -> Player:
    return "B" if p == "A" else "A"


def frozen_map(d: Mapping | None = None) -> Mapping:
    """A read-only mapping (the state never changes in place). A mapping that is already
    read-only is returned as is; anything else is copied first."""
    if type(d) is MappingProxyType:
        return d
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class MatchSettings:
    """Match-level settings. ``target`` is points to win a frame (game default when None);
    ``race_to`` frames to win the match; ``penalty`` the pyramid penalty form
    (``point``: +1 to the opponent, current official; ``ball``: a ball back from the
    offender's shelf); ``three_fouls_lose`` is uncertain in the texts and off by default.
    ``carom_values`` overrides the 5-pin point table (rules.md: keep values as data).
    """

    game: str
    table: str = "pyramid-12ft"
    target: int | None = None
    race_to: int = 1
    penalty: PenaltyForm = "point"
    three_fouls_lose: bool = False
    carom_values: Mapping[str, int] = field(default_factory=frozen_map)
    # --- pyramid options (all default to the reading of the current official texts)
    frozen_tol_mm: float = 2.0
    """A ball whose surface is within this many mm of a cushion nose is "frozen" to it
    (003 rule 20 (2в)/(3в), 20.2); the camera's rest positions carry about a mm of noise."""
    classic_uncalled_foul: bool = False
    """Classic: pocketing only uncalled balls is a foul (``not_called``, +1 penalty) when on;
    off by default: the balls are re-spotted and the turn passes (rules.md)."""
    dynamic_break_side_cushions: bool = False
    """Dynamic: some club texts read the break's cushion conditions as the side (long)
    cushions only. Uncertain in the texts (rules.md), so off by default."""
    dynamic_premium_cue_pocket_foul: bool = True
    """Dynamic: pocketing the cue ball on the premium stroke is a foul (``cue_ball_pocketed``):
    "only an object ball may be pocketed" (billiardclub.od.ua dynamic rules 5.2). When off,
    the cue ball just does not count and returns to hand from the house."""


@dataclass(frozen=True)
class MatchState:
    """Everything the rules need between shots. Frozen; build the next with ``replace``.

    ``score``: points in the current frame (партия); ``frames``: frames won;
    ``on_table``: ball id -> (x, y) mm of balls on the table at rest;
    ``shelf``: player -> ids pocketed and kept; ``ball_in_hand``: where the cue ball may
    be placed (None when not in hand); ``options``: what the player to move may choose
    after the opponent's foul (``play``, ``hand_back``, ``rerack``, ``rebreak``);
    ``extra``: game-specific values (a game module owns its keys).
    """

    settings: MatchSettings
    frame_no: int = 1
    score: Mapping[str, int] = field(default_factory=lambda: frozen_map({"A": 0, "B": 0}))
    frames: Mapping[str, int] = field(default_factory=lambda: frozen_map({"A": 0, "B": 0}))
    turn: Player = "A"
    breaker: Player = "A"
    shot_no: int = 0
    is_break: bool = True
    on_table: Mapping[str, tuple[float, float]] = field(default_factory=frozen_map)
    shelf: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: frozen_map({"A": (), "B": ()})
    )
    ball_in_hand: BallInHand | None = "house"
    cue_ball: str | None = None
    premium_pending: bool = False
    options: tuple[str, ...] = ()
    call: Call | None = None
    consecutive_fouls: Mapping[str, int] = field(
        default_factory=lambda: frozen_map({"A": 0, "B": 0})
    )
    last_verdict: Verdict | None = None
    frame_over: bool = False
    frame_winner: Player | None = None
    match_over: bool = False
    winner: Player | None = None
    extra: Mapping[str, object] = field(default_factory=frozen_map)


class GameRules(Protocol):
    """What a game module provides (registered by game name)."""

    name: str

    def initial_state(self, settings: MatchSettings, breaker: Player = "A") -> MatchState: ...

    def judge(self, state: MatchState, shot: Shot) -> Verdict: ...

    def apply(self, state: MatchState, shot: Shot, verdict: Verdict) -> MatchState: ...


_REGISTRY: dict[str, GameRules] = {}


def register(rules: GameRules) -> GameRules:
    _REGISTRY[rules.name] = rules
    return rules


def rules_for(game: str) -> GameRules:
    """The registered rules of a game (contract §4 names)."""
    import adjudicator.games  # noqa: F401  (imports every game module, which register)

    try:
        return _REGISTRY[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(sorted(_REGISTRY))}") from None


Predicate = Callable[[MatchState, Shot], bool]
