"""A cheap, pre-digested view of one shot's events (no pydantic in the inner loop).

Events are read once per shot into plain tuples indexed by their position in the
frame-sorted event list; "after" in every rule means a larger index (events of the
same frame keep the file's order). Positions are table mm.
"""

from __future__ import annotations

from dataclasses import dataclass

from contract.events import EventType
from contract.match import Shot

_LONG = {"left-front": "left", "left-back": "left", "right-front": "right", "right-back": "right"}


def norm_cushion(name: str) -> str:
    """Cushion name as front/back/left/right (contract §1: halves count as their side)."""
    return _LONG.get(name, name)


@dataclass(slots=True)
class ShotView:
    """Events of one shot by kind. Every list holds ``(index, ...)`` tuples, index ascending.

    ``contacts``: (i, a, b) with ``a`` the striking ball; ``cushions``: (i, ball, cushion);
    ``pockets``: (i, ball, pocket); ``crosses``: (i, ball) of the centre line;
    ``off``: (i, ball); ``hanging``: (i, ball, pocket) of hanging-ball drops (rule 22);
    ``touched``/``early``: balls named by ``ball_touched`` / ``early_strike`` events.
    Read-only by convention (a plain slots class: built once per shot, in the inner loop).
    """

    strike: str | None
    contacts: tuple[tuple[int, str, str], ...]
    cushions: tuple[tuple[int, str, str], ...]
    pockets: tuple[tuple[int, str, str], ...]
    crosses: tuple[tuple[int, str], ...]
    off: tuple[tuple[int, str], ...]
    hanging: tuple[tuple[int, str, str], ...]
    touched: tuple[str, ...]
    early: tuple[str, ...]
    n: int
    moved: frozenset[str] = frozenset()
    pocketed_ids: tuple[str, ...] = ()
    off_ids: tuple[str, ...] = ()
    strike_at: tuple[float, float] | None = None

    def first_contact(self, cue: str) -> tuple[int, str] | None:
        """(index, object ball) of the cue ball's first contact with another ball (rule 6)."""
        for i, a, b in self.contacts:
            if a == cue and b != cue:
                return i, b
            if b == cue and a != cue:
                return i, a
        return None

    def pocketed(self) -> tuple[str, ...]:
        """Balls that fell in a pocket during the shot, in order, each once."""
        return self.pocketed_ids

    def off_table(self) -> tuple[str, ...]:
        """Balls that left the table during the shot, in order, each once."""
        return self.off_ids


_CACHE: dict[int, tuple[Shot, ShotView]] = {}


def view(shot: Shot) -> ShotView:
    """The shot's :class:`ShotView` (memoised on the shot object; cheap to call often)."""
    hit = _CACHE.get(id(shot))
    if hit is not None and hit[0] is shot:
        return hit[1]
    contacts, cushions, pockets, crosses, off, hanging = [], [], [], [], [], []
    touched, early = [], []
    moved: set[str] = set()
    strike = None
    strike_at = None
    for i, e in enumerate(shot.events):
        t = e.type
        if t is EventType.CONTACT:
            a, b = e.balls  # type: ignore[misc]
            contacts.append((i, a, b))
            moved.update((a, b))
        elif t is EventType.CUSHION:
            cushions.append((i, e.ball, norm_cushion(e.cushion or "")))
            moved.add(e.ball)
        elif t is EventType.POCKET:
            pockets.append((i, e.ball, e.pocket))
            moved.add(e.ball)
        elif t is EventType.CROSS:
            if e.line in (None, "centre"):
                crosses.append((i, e.ball))
            moved.add(e.ball)
        elif t is EventType.OFF_TABLE:
            off.append((i, e.ball))
        elif t is EventType.HANGING_DROP:
            hanging.append((i, e.ball, e.pocket))
        elif t is EventType.STRIKE:
            if strike is None:
                strike, strike_at = e.ball, e.at
            moved.add(e.ball)
        elif t is EventType.BALL_TOUCHED:
            touched.append(e.ball)
        elif t is EventType.EARLY_STRIKE:
            early.append(e.ball)
    v = ShotView(
        strike=strike,
        contacts=tuple(contacts),
        cushions=tuple(cushions),
        pockets=tuple(pockets),
        crosses=tuple(crosses),
        off=tuple(off),
        hanging=tuple(hanging),
        touched=tuple(touched),
        early=tuple(early),
        n=len(shot.events),
        moved=frozenset(moved),
        pocketed_ids=tuple(dict.fromkeys(b for _, b, _ in pockets)),
        off_ids=tuple(dict.fromkeys(b for _, b in off)),
        strike_at=strike_at,
    )
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[id(shot)] = (shot, v)
    return v
