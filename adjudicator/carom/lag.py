"""The lag for the break (rule 3): both players send their balls to the top cushion
from the lag line at about the same time; the ball that stops nearer the bottom
cushion (smaller ``x`` mm, contact §1) wins the choice to break or to concede.

A lag shot carries a ``lag`` event (contract §8). It is lost by touching the red or a
skittle, by touching a long cushion, or by crossing into the opponent's half (the long
halves ``y < W/2`` / ``y > W/2``) and touching his ball. Both balls must be moving before
either reaches the top cushion, or the lag is repeated; whoever breaks that twice
loses it. A collision with no culprit, or equal distances, repeats the lag: "equal" is the
referee's answer when the distances are too close to call (:mod:`adjudicator.lag_call`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from adjudicator.base import Player, other
from adjudicator.carom.fouls import reason
from adjudicator.carom.values import SKITTLES
from adjudicator.lag_call import LagBall, LagCall, call_lag
from contract.events import EventType
from contract.match import Shot
from contract.tables import TableSpec


@dataclass(frozen=True)
class LagResult:
    """``winner`` None: the lag is repeated. ``faults``: player -> late starts so far."""

    winner: Player | None
    faults: Mapping[str, int]
    reasons: tuple[dict[str, str], ...] = ()
    refs: tuple[str, ...] = ("carom:3",)
    losers: tuple[Player, ...] = field(default=())
    call: LagCall | None = None
    """The distances, their uncertainty and the question when too close (None: decided
    before any distance counted: a late start, a collision with no culprit)."""


def _long(cushion: str | None) -> bool:
    return bool(cushion) and cushion.startswith(("left", "right"))  # type: ignore[union-attr]


def judge_lag(
    shot: Shot, balls: Mapping[str, str], faults: Mapping[str, int], table: TableSpec
) -> LagResult:
    """Judge a lag shot. ``balls``: player -> ball id; ``faults``: late starts so far."""
    by_ball = {b: p for p, b in balls.items()}
    strike: dict[str, int] = {}
    start_y: dict[str, float] = {}
    top_at: dict[str, int] = {}
    lost: dict[Player, dict[str, str]] = {}
    for e in shot.events:
        if e.type == EventType.STRIKE and e.ball in by_ball and e.ball not in strike:
            strike[e.ball] = e.frame
            if e.at is not None:
                start_y[e.ball] = e.at[1]
        elif e.type == EventType.CUSHION and e.ball in by_ball:
            if e.cushion == "back":
                top_at.setdefault(e.ball, e.frame)
            elif _long(e.cushion):
                lost[by_ball[e.ball]] = reason(
                    "carom:3", f"Жребий проигран: шар {e.ball} коснулся длинного борта",
                    f"Lag lost: the {e.ball} ball touched a long cushion")  # fmt: skip
        elif e.type in (EventType.CONTACT, EventType.SKITTLE_DOWN):
            ids = e.balls if e.type == EventType.CONTACT else (e.by, e.skittle)
            pair = set(ids or ())
            for b in pair & set(by_ball):
                o = next(iter(pair - {b}), None)
                if o == "red" or o in SKITTLES:
                    lost[by_ball[b]] = reason(
                        "carom:3", f"Жребий проигран: шар {b} задел красный шар или фишку",
                        f"Lag lost: the {b} ball touched the red or a skittle")  # fmt: skip
            if pair == set(by_ball):
                culprit = _intruder(e.at, start_y, table)
                if culprit is None:
                    return LagResult(
                        None, faults, (_repeat("шары столкнулись", "the balls collided"),)
                    )
                lost[by_ball[culprit]] = reason(
                    "carom:3", f"Жребий проигран: шар {culprit} зашёл на половину соперника",
                    f"Lag lost: the {culprit} ball crossed into the opponent's half")  # fmt: skip

    late = [b for b in by_ball if _late(b, strike, top_at)]
    if late:
        nf = dict(faults)
        for b in late:
            nf[by_ball[b]] = nf.get(by_ball[b], 0) + 1
        twice = [by_ball[b] for b in late if nf[by_ball[b]] >= 2]
        if len(twice) == 1:
            p = twice[0]
            why = reason("carom:3", f"Игрок {p} дважды опоздал с ударом: жребий проигран",
                         f"Player {p} started late twice: lag lost")  # fmt: skip
            return LagResult(other(p), nf, (why,), losers=(p,))
        return LagResult(None, nf, (_repeat("шары не были в движении одновременно",
                                            "both balls were not moving together"),))  # fmt: skip
    dist = {}
    for p, b in balls.items():
        if b not in shot.rest and p not in lost:
            raise ValueError(f"shot {shot.index}: a lag needs the rest position of {b!r}")
        dist[p] = LagBall(b, shot.rest[b][0] if b in shot.rest else None, lost.get(p))  # type: ignore[index]
    answer = shot.referee.answers.get("lag") if shot.referee is not None else None
    call = call_lag(dist, shot, _say, ("нижнему", "bottom"), answer)
    losers = tuple(p for p in ("A", "B") if p in lost) if len(lost) == 1 else ()
    return LagResult(call.winner, faults, call.reasons, losers=losers, call=call)  # type: ignore[arg-type]


def _say(ru: str, en: str) -> dict[str, str]:
    return reason("carom:3", ru, en)


def _late(ball: str, strike: Mapping[str, int], top_at: Mapping[str, int]) -> bool:
    """The ball was not moving before the other ball reached the top cushion."""
    s = strike.get(ball)
    first_top = min((f for b, f in top_at.items() if b != ball), default=None)
    if s is None:
        return True
    return first_top is not None and s > first_top


def _intruder(
    at: tuple[float, float] | None, start_y: Mapping[str, float], table: TableSpec
) -> str | None:
    """The ball whose start side differs from the side of the contact (None: unknown)."""
    if at is None or len(start_y) != 2:
        return None
    mid = table.W / 2
    side = at[1] < mid
    wrong = [b for b, y in start_y.items() if (y < mid) != side]
    return wrong[0] if len(wrong) == 1 else None


def _repeat(ru: str, en: str) -> dict[str, str]:
    return reason("carom:3", f"Жребий повторяется: {ru}", f"The lag is repeated: {en}")
