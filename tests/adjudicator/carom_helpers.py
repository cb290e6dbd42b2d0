"""Builders for 5-pin test shots: events in the order given, frames counted up.

``shot(hit("white", "yellow"), down("centre", by="yellow"))`` is a shot by the player
to move whose white ball touches yellow, which knocks the centre skittle over.
Positions are table mm on the carom-match table (2840 x 1420).
"""

from __future__ import annotations

from adjudicator.base import MatchSettings, MatchState, rules_for
from contract.events import Event
from contract.match import Foul, RefereeInput, Shot

REST = {"white": (600.0, 700.0), "yellow": (1800.0, 400.0), "red": (2100.0, 1000.0)}


def hit(a: str, b: str, at: tuple[float, float] | None = None) -> dict:
    """A contact, the striking ball first."""
    return {"type": "contact", "balls": (a, b), "at": at}


def down(skittle: str, by: str | None) -> dict:
    return {"type": "skittle_down", "skittle": skittle, "by": by}


def off(ball: str) -> dict:
    return {"type": "off_table", "ball": ball}


def strike(ball: str, at: tuple[float, float] | None = None) -> dict:
    return {"type": "strike", "ball": ball, "at": at}


def cushion(ball: str, name: str) -> dict:
    return {"type": "cushion", "ball": ball, "cushion": name}


def ev(kind: str, **kw: object) -> dict:
    return {"type": kind, **kw}


def shot(
    *events: dict,
    cue: str | None = "white",
    rest: dict | None = None,
    index: int = 1,
    fouls: tuple[Foul, ...] = (),
    annul: bool = False,
    choice: str | None = None,
    player: str | None = None,
) -> Shot:
    """A Shot with the events numbered frame 1, 2, ...; ``rest`` merged over :data:`REST`
    (a value of None drops that ball)."""
    evs = [
        Event(frame=i + 1, t=(i + 1) / 30, **{k: v for k, v in e.items() if v is not None})
        for i, e in enumerate(events)
    ]
    pos = dict(REST)
    for k, v in (rest or {}).items():
        if v is None:
            pos.pop(k, None)
        else:
            pos[k] = v
    ref = (
        RefereeInput(fouls=fouls, annul=annul, choice=choice)
        if (fouls or annul or choice)
        else None
    )
    return Shot(
        index=index,
        player=player,
        start={"frame": 0, "t": 0.0},
        end={"frame": len(evs) + 1, "t": (len(evs) + 1) / 30},
        cue_ball=cue,
        events=tuple(evs),
        rest=pos,
        referee=ref,
    )


def rules():
    return rules_for("carom-5pin")


def state(target: int | None = 60, turn: str = "A", score=None, **settings: object) -> MatchState:
    """A mid-frame state (not the break, no ball in hand) with the balls at :data:`REST`."""
    from dataclasses import replace

    from adjudicator.base import frozen_map

    s = rules().initial_state(MatchSettings(game="carom-5pin", target=target, **settings), turn)
    return replace(
        s,
        is_break=False,
        ball_in_hand=None,
        on_table=frozen_map(REST),
        score=frozen_map(score or {"A": 0, "B": 0}),
        extra=frozen_map({**s.extra, "hand_half": None}),
    )


def play(s: MatchState, *shots: Shot) -> MatchState:
    r = rules()
    for sh in shots:
        s = r.apply(s, sh, r.judge(s, sh))
    return s
