"""What happened in one 5-pin shot, read once from its events, and the named predicates.

``analyse(state, shot)`` reads the events in order (contract §8: contact ``balls`` list
the striking ball first; ``skittle_down.by`` is the ball or the skittle that knocked it)
and returns :class:`ShotFacts`. Each predicate ``(state, shot) -> bool`` cites its clause
of the 5-pin rules (seed 002, WCBS 1997) in ``.ref``; they share one cached analysis,
so calling several on the same shot costs one pass over the events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from adjudicator.base import MatchState, Player, other
from adjudicator.carom.values import SKITTLES
from contract.events import EventType
from contract.match import Shot

BALLS = ("white", "yellow", "red")
RED = "red"
DEFAULT_BALLS: Mapping[str, str] = {"A": "white", "B": "yellow"}


@dataclass(frozen=True)
class ShotFacts:
    """The shot as the rules see it.

    ``cue``: the ball the striker struck; ``own``: his own ball (rule 4.4); ``obj``: the
    players' ball that is not ``cue`` (the opponent's ball on a legal stroke);
    ``first_touch``: what the cue ball touched first: ``object``, ``red``, ``skittle`` (knocked
    one over), ``ball`` (the other players' ball when the red was struck) or None; ``knocked``: skittle -> the ball that started its fall (None when unknown), in
    falling order; ``cue_on_red`` / ``object_on_red``: the caroms of rules 5.5 / 5.6
    (after the cue ball's first contact with ``obj``); ``off_table``: balls that left
    the table; ``early`` / ``touched``: the camera saw an early strike / a touched ball.
    """

    striker: Player
    own: str
    cue: str
    obj: str
    first_touch: str | None
    object_touched: bool
    knocked: tuple[tuple[str, str | None], ...]
    cue_on_red: bool
    object_on_red: bool
    off_table: tuple[str, ...]
    early: bool
    touched: bool
    is_lag: bool

    @property
    def knocked_ids(self) -> tuple[str, ...]:
        return tuple(s for s, _ in self.knocked)

    def knocked_by(self, *balls: str | None) -> tuple[str, ...]:
        return tuple(s for s, b in self.knocked if b in balls)


def balls_of(state: MatchState) -> Mapping[str, str]:
    """Player -> own ball id (``state.extra['balls']``; A white, B yellow by default)."""
    return state.extra.get("balls", DEFAULT_BALLS)  # type: ignore[return-value]


def _check_id(ident: str, shot: Shot) -> None:
    if ident not in BALLS and ident not in SKITTLES:
        raise ValueError(
            f"shot {shot.index}: unknown id {ident!r} in a 5-pin match "
            f"(balls {', '.join(BALLS)}; skittles {', '.join(SKITTLES)})"
        )


def analyse(state: MatchState, shot: Shot) -> ShotFacts:
    """Read a shot's events once (cheap: one pass). Unknown ids raise one-line ValueError."""
    striker = state.turn
    balls = balls_of(state)
    own = balls[striker]
    cue = shot.cue_ball or next(
        (e.ball for e in shot.events if e.type == EventType.STRIKE and e.ball), own
    )
    _check_id(cue, shot)
    obj = balls[other(striker)] if cue in (own, RED) else own
    removed = set(state.extra.get("skittles_removed", ()))  # rule 12.7: not on the table

    first: str | None = None
    obj_at: int | None = None  # index of the cue ball's first contact with obj
    cue_red = obj_red = early = touched = is_lag = False
    knocked: dict[str, str | None] = {}
    last_hit: dict[str, str] = {}  # skittle -> the last ball seen touching it
    off: list[str] = []
    for i, e in enumerate(shot.events):
        t = e.type
        if t == EventType.CONTACT:
            a, b = e.balls  # type: ignore[misc]
            _check_id(a, shot)
            _check_id(b, shot)
            pair = {a, b}
            for s in pair & set(SKITTLES):
                ball = next(iter(pair - {s}), None)
                if ball in BALLS:
                    last_hit[s] = ball
            if cue in pair and not pair & set(SKITTLES):  # a skittle merely touched: 12.5
                o = next(iter(pair - {cue}), cue)
                kind = "object" if o == obj else "red" if o == RED else "ball"
                if first is None:
                    first = kind
                if kind == "object" and obj_at is None:
                    obj_at = i
                elif kind == "red" and obj_at is not None:
                    cue_red = True
            if pair == {obj, RED} and obj_at is not None:
                obj_red = True
        elif t == EventType.SKITTLE_DOWN:
            s = e.skittle or ""
            _check_id(s, shot)
            if s not in SKITTLES:
                raise ValueError(f"shot {shot.index}: skittle_down names a ball {s!r}")
            if s in removed or s in knocked:
                continue
            by = e.by if e.by is not None else last_hit.get(s)
            if by is not None:
                _check_id(by, shot)
            root = knocked.get(by) if by in SKITTLES else by  # rule 12.3: a chain
            knocked[s] = root
            if root == cue and first is None:
                first = "skittle"
        elif t == EventType.OFF_TABLE and e.ball and e.ball not in off:
            _check_id(e.ball, shot)
            off.append(e.ball)
        elif t == EventType.EARLY_STRIKE:
            early = True
        elif t == EventType.BALL_TOUCHED:
            touched = True
        elif t == EventType.LAG:
            is_lag = True
    return ShotFacts(
        striker=striker,
        own=own,
        cue=cue,
        obj=obj,
        first_touch=first,
        object_touched=obj_at is not None,
        knocked=tuple(knocked.items()),
        cue_on_red=cue_red,
        object_on_red=obj_red,
        off_table=tuple(off),
        early=early,
        touched=touched,
        is_lag=is_lag,
    )


_cache: list = [None, None, None]  # (state, shot, facts): one entry, held by identity


def facts(state: MatchState, shot: Shot) -> ShotFacts:
    """``analyse`` with a one-entry identity cache (predicates on one shot share it)."""
    if _cache[0] is state and _cache[1] is shot:
        return _cache[2]
    f = analyse(state, shot)
    _cache[:] = [state, shot, f]
    return f


Predicate = Callable[[MatchState, Shot], bool]


def clause(ref: str) -> Callable[[Callable[[ShotFacts], bool]], Predicate]:
    """Make a predicate ``(state, shot) -> bool`` from a test on the facts; ``.ref`` cites
    the clause (``carom:7.2``), ``.test`` is the test on :class:`ShotFacts`."""

    def wrap(test: Callable[[ShotFacts], bool]) -> Predicate:
        def pred(state: MatchState, shot: Shot) -> bool:
            return test(facts(state, shot))

        pred.__name__ = test.__name__
        pred.__doc__ = test.__doc__
        pred.ref = ref  # type: ignore[attr-defined]
        pred.test = test  # type: ignore[attr-defined]
        return pred

    return wrap


# ---------------------------------------------------------------- valid shots (4.3, 5, 6)
@clause("carom:5")
def opponent_ball_first(f: ShotFacts) -> bool:
    """Rules 4.3 / 5: the striker's own ball touches the opponent's ball before anything."""
    return f.cue == f.own and f.first_touch == "object"


def _scores_skittles(f: ShotFacts) -> bool:
    return opponent_ball_first.test(f) and bool(f.knocked_by(f.obj, RED, None))


@clause("carom:5.1")
def object_ball_skittles(f: ShotFacts) -> bool:
    """Rule 5.1: after a valid contact the opponent's ball knocks skittles (no carom)."""
    return _scores_skittles(f) and not f.cue_on_red and not f.object_on_red


@clause("carom:5.2")
def carom_then_skittles(f: ShotFacts) -> bool:
    """Rule 5.2: the cue ball touches the opponent's ball, then the red; the opponent's
    ball and/or the red knock skittles."""
    return _scores_skittles(f) and f.cue_on_red and not f.object_on_red


@clause("carom:5.3")
def kiss_then_skittles(f: ShotFacts) -> bool:
    """Rule 5.3: the opponent's ball touches the red; it and/or the red knock skittles."""
    return _scores_skittles(f) and f.object_on_red and not f.cue_on_red


@clause("carom:5.4")
def double_carom_skittles(f: ShotFacts) -> bool:
    """Rule 5.4: the cue ball touches the red, which the opponent's ball also hits; then
    skittles fall to the opponent's ball and/or the red."""
    return _scores_skittles(f) and f.cue_on_red and f.object_on_red


@clause("carom:5.5")
def cue_ball_carom(f: ShotFacts) -> bool:
    """Rule 5.5: the cue ball touches the opponent's ball and then the red (no skittles)."""
    return opponent_ball_first.test(f) and f.cue_on_red and not f.object_on_red and not f.knocked


@clause("carom:5.6")
def object_ball_carom(f: ShotFacts) -> bool:
    """Rule 5.6 ("рикошет"): after the contact the opponent's ball touches the red."""
    return opponent_ball_first.test(f) and f.object_on_red and not f.cue_on_red and not f.knocked


@clause("carom:5.7")
def double_carom(f: ShotFacts) -> bool:
    """Rule 5.7: both caroms on one shot, no skittles (only one is scored, rule 8.2)."""
    return opponent_ball_first.test(f) and f.cue_on_red and f.object_on_red and not f.knocked


@clause("carom:6")
def valid_no_score(f: ShotFacts) -> bool:
    """Rule 6: the cue ball touches only the opponent's ball, which neither knocks a
    skittle nor touches the red: valid, no points."""
    return (
        opponent_ball_first.test(f)
        and not f.knocked
        and not f.cue_on_red
        and not f.object_on_red
        and not f.off_table
    )


# ------------------------------------------------------------ invalid shots (7, 11, 15)
@clause("carom:15.3g")
def no_contact(f: ShotFacts) -> bool:
    """Rules 7.1 / 15.3g: the cue ball touches neither the opponent's ball nor anything
    else first (the red first and skittles first are their own fouls)."""
    return f.first_touch is None


@clause("carom:15.3b")
def red_first(f: ShotFacts) -> bool:
    """Rules 7.2 / 15.3b: the cue ball touches the red before the opponent's ball."""
    return f.first_touch == "red"


@clause("carom:15.3v")
def skittles_first(f: ShotFacts) -> bool:
    """Rule 15.3v: the cue ball knocks skittles before touching the opponent's ball."""
    return f.first_touch == "skittle"


@clause("carom:15.2")
def own_ball_skittles(f: ShotFacts) -> bool:
    """Rules 7.3 / 15.2: after a valid contact the striker's own ball knocks skittles."""
    return f.first_touch == "object" and bool(f.knocked_by(f.cue))


@clause("carom:15.3a")
def wrong_ball(f: ShotFacts) -> bool:
    """Rules 7.4 / 15.3a: the striker plays a ball that is not his own."""
    return f.cue != f.own


@clause("carom:15.3d")
def ball_off_table(f: ShotFacts) -> bool:
    """Rules 11.1–11.2 / 15.3d: one or more balls leave the table (one foul however many)."""
    return bool(f.off_table)


@clause("carom:15.3e")
def early_strike(f: ShotFacts) -> bool:
    """Rule 15.3e: struck before all three balls stopped (seen by the camera)."""
    return f.early


@clause("carom:15.3p")
def ball_touched(f: ShotFacts) -> bool:
    """Rules 15.3i/k/p: a ball or skittle touched other than by the stroke (camera)."""
    return f.touched
