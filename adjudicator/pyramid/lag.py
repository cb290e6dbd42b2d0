"""The lag for the break (rule 8 of seed 000): who breaks first.

Both players strike from the house at the same time, each on his own half of the table
(player A on the left ``y < W/2``, B on the right), off the back cushion, trying to stop
nearest the front cushion. Positions are table mm.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from adjudicator.base import Player
from adjudicator.lag_call import LagBall as Measured
from adjudicator.lag_call import LagCall, call_lag, lag_balls
from adjudicator.pyramid.texts import sentence
from adjudicator.pyramid.view import norm_cushion
from contract.events import Event, EventType
from contract.match import Shot


@dataclass(frozen=True)
class LagBall:
    """One player's lag ball, from its events and rest position (table mm).

    ``cushions``: the cushions it touched, in order (front/back/left/right);
    ``crossed_half``: it crossed into the opponent's half (across ``y = W/2``);
    ``pocketed`` / ``off_table``: it fell or left the table; ``rest_x``: its rest
    position along the table (None when it is not on the table).
    """

    cushions: tuple[str, ...] = ()
    crossed_half: bool = False
    pocketed: bool = False
    off_table: bool = False
    rest_x: float | None = None


def lag_lost(ball: LagBall) -> str | None:
    """Rule 8.1: the reason a lag ball loses automatically, or None when it stands."""
    if ball.crossed_half:
        return "crossed into the opponent's half"
    if "back" not in ball.cushions:
        return "did not touch the back cushion"
    if ball.pocketed:
        return "pocketed"
    if ball.off_table:
        return "left the table"
    if any(c in ("left", "right") for c in ball.cushions):
        return "touched a long cushion"
    if ball.cushions.count("back") > 1:
        return "touched the back cushion twice"
    if ball.rest_x is None:
        return "not on the table"
    return None


def lag_winner(a: LagBall, b: LagBall, tie_mm: float = 1.0) -> Player | None:
    """Rule 8.1–8.2: the lag's winner, or None when it is repeated (both lost, or no
    difference within ``tie_mm``). The winner then chooses who breaks (8.3)."""
    la, lb = lag_lost(a), lag_lost(b)
    if la and lb:
        return None
    if la:
        return "B"
    if lb:
        return "A"
    assert a.rest_x is not None and b.rest_x is not None
    if abs(a.rest_x - b.rest_x) <= tie_mm:
        return None
    return "A" if a.rest_x < b.rest_x else "B"


def lag_ball(
    events: Iterable[Event],
    ball: str,
    rest: Mapping[str, tuple[float, float]],
    width_mm: float,
    player: Player,
) -> LagBall:
    """A :class:`LagBall` from a lag's events and rest positions (table mm). ``player`` A
    lags on the left half (``y < W/2``), B on the right; the ball crossed into the
    opponent's half when any of its events but a contact places it there (``at``) or it
    rests there."""
    mine = (lambda y: y < width_mm / 2) if player == "A" else (lambda y: y > width_mm / 2)
    cushions: list[str] = []
    pocketed = off = crossed = False
    for e in events:
        if not e.involves(ball):
            continue
        if e.type is EventType.CUSHION and e.ball == ball:
            cushions.append(norm_cushion(e.cushion or ""))
        elif e.type is EventType.POCKET and e.ball == ball:
            pocketed = True
        elif e.type is EventType.OFF_TABLE and e.ball == ball:
            off = True
        # a contact's ``at`` is the touching point, a radius from each centre: not a place
        if e.at is not None and e.type is not EventType.CONTACT and not mine(e.at[1]):
            crossed = True
    p = rest.get(ball)
    if p is not None and not mine(p[1]):
        crossed = True
    return LagBall(
        cushions=tuple(cushions),
        crossed_half=crossed,
        pocketed=pocketed,
        off_table=off,
        rest_x=None if (p is None or pocketed or off) else p[0],
    )


LOST_RU = {
    "crossed into the opponent's half": "шар пересёк половину стола соперника",
    "did not touch the back cushion": "шар не коснулся заднего борта",
    "pocketed": "шар попал в лузу",
    "left the table": "шар выскочил за пределы стола",
    "touched a long cushion": "шар коснулся длинного борта",
    "touched the back cushion twice": "шар дважды коснулся заднего борта",
    "not on the table": "шара нет на столе",
}


def players_of(shot: Shot, width_mm: float) -> dict[Player, str]:
    """Player -> lag ball: A lags on the left half (``y < W/2``), B on the right, read from
    each ball's strike position (``at``); without positions, the lag event's order (A's
    ball first)."""
    balls = lag_balls(shot)
    if balls is None:
        raise ValueError(f"shot {shot.index}: not a lag shot")
    ys = {}
    for e in shot.events:
        if e.type is EventType.STRIKE and e.ball in balls and e.at is not None:
            ys.setdefault(e.ball, e.at[1])
    if len(ys) == 2 and (ys[balls[0]] < width_mm / 2) != (ys[balls[1]] < width_mm / 2):
        left = balls[0] if ys[balls[0]] < width_mm / 2 else balls[1]
        return {"A": left, "B": balls[1] if left == balls[0] else balls[0]}
    return {"A": balls[0], "B": balls[1]}


def _collided(shot: Shot, a: str, b: str) -> bool:
    return any(e.type is EventType.CONTACT and set(e.balls or ()) == {a, b} for e in shot.events)


def _say(ru: str, en: str) -> dict[str, str]:
    return sentence(ru, en, "pyramid:8.1")


def judge_lag(shot: Shot, width_mm: float) -> tuple[Player | None, LagCall]:
    """Rules 8.1-8.2 on a lag shot (events and rest positions, table mm): each ball's
    automatic loss (:func:`lag_lost`, also a ``cross`` event of the ``half`` line y = W/2),
    then the nearer to the front cushion, asked when too close (:func:`call_lag`). A
    collision of the two balls with neither across the half line repeats the lag (8.2: the
    winner cannot be told)."""
    who = players_of(shot, width_mm)
    judged: dict[Player, Measured] = {}
    for p, b in who.items():
        lb = lag_ball(shot.events, b, shot.rest, width_mm, p)
        if any(e.type is EventType.CROSS and e.ball == b and e.line == "half" for e in shot.events):
            lb = LagBall(lb.cushions, True, lb.pocketed, lb.off_table, lb.rest_x)
        why = lag_lost(lb)
        lost = None
        if why is not None:
            lost = sentence(f"Разбег проигран: {LOST_RU[why]} ({b})",
                            f"Lag lost: the {b} ball {why}", "pyramid:8.1")  # fmt: skip
        judged[p] = Measured(b, lb.rest_x, lost)
    if not any(j.lost for j in judged.values()) and _collided(shot, who["A"], who["B"]):
        why = sentence("Разбег повторяется: шары столкнулись, победителя определить нельзя",
                       "The lag is repeated: the balls collided, no winner can be told",
                       "pyramid:8.2")  # fmt: skip
        return None, LagCall(None, True, (why,), {"winner": None, "repeat": True, "why": why})
    answer = shot.referee.answers.get("lag") if shot.referee is not None else None
    call = call_lag(judged, shot, _say, ("переднему", "front"), answer)
    return call.winner, call
