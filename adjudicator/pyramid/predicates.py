"""Pyramid general rules as named pure predicates ``(state, shot) -> bool``.

Each cites its clause (seed 000 numbering, except 8–20 which cite seed 003, numbered
one lower; see :mod:`adjudicator.pyramid.texts`). "After" means later in the shot's
frame-sorted event list. Ball positions before the shot come from ``state.on_table``
(table mm).
"""

from __future__ import annotations

from adjudicator.base import MatchState
from adjudicator.pyramid.geometry import frozen_cushions, table_for
from adjudicator.pyramid.view import ShotView, view
from contract.match import Shot

BREAK_BALL = "yellow"
"""The coloured ball: always the cue ball on the break (003 11.2)."""


def cue_of(state: MatchState, shot: Shot) -> str:
    """The ball struck with the cue: the shot's ``cue_ball``, else the strike event's ball,
    else the state's cue ball, else the coloured ball."""
    return shot.cue_ball or view(shot).strike or state.cue_ball or BREAK_BALL


def warned_frozen(shot: Shot) -> bool:
    """003 20.2: the player told the referee before the shot that the object ball is frozen
    to a cushion (RefereeInput extension field ``warned_frozen``)."""
    ref = shot.referee
    return bool(ref is not None and (ref.model_extra or {}).get("warned_frozen"))


# ----------------------------------------------------------------- rule 6: contact
def touched_object_ball(state: MatchState, shot: Shot) -> bool:
    """Rule 6.1: the cue ball touched at least one object ball (directly or off cushions, 6.3).

    003 19.2 note: playing away from a frozen ball without moving it is no contact; the
    camera emits no contact event then, so this reads the events as they are.
    """
    return view(shot).first_contact(cue_of(state, shot)) is not None


# ------------------------------------------------------------ 003 12: legal break
def legal_break(state: MatchState, shot: Shot, side_cushions_only: bool = False) -> bool:
    """003 12.1: after the cue ball's contact with an object ball (1) a ball is pocketed,
    or (2) at least three different object balls touch a cushion, or (3) two different
    object balls touch a cushion and any object ball crosses the centre line."""
    v = view(shot)
    cue = cue_of(state, shot)
    fc = v.first_contact(cue)
    if fc is None:
        return False
    c = fc[0]
    if any(i > c for i, _, _ in v.pockets):
        return True
    side = ("left", "right")
    hit = {
        b
        for i, b, cu in v.cushions
        if i > c and b != cue and (not side_cushions_only or cu in side)
    }
    if len(hit) >= 3:
        return True
    return len(hit) >= 2 and any(i > c and b != cue for i, b in v.crosses)


# ------------------------------------------------------- 003 20: completed shot
def _frozen_at_start(state: MatchState, ball: str) -> frozenset[str]:
    p = state.on_table.get(ball)
    if p is None:
        return frozenset()
    return frozen_cushions(table_for(state.settings.table), p, state.settings.frozen_tol_mm)


_LAST: list = [None, None, None]  # (state, shot, pattern) of the last call: judge asks twice


def completion_pattern(state: MatchState, shot: Shot) -> str | None:
    """The first 003 rule 20 pattern the shot meets after the cue ball's first contact, or
    None. Returns "20(1)", "20(2а)" … "20(4б)" or "20.2". Events count only in the order
    the rule gives them (20.1)."""
    if _LAST[0] is state and _LAST[1] is shot:
        return _LAST[2]
    pat = _completion(state, shot)
    _LAST[:] = [state, shot, pat]
    return pat


def _completion(state: MatchState, shot: Shot) -> str | None:
    v = view(shot)
    cue = cue_of(state, shot)
    fc = v.first_contact(cue)
    if fc is None:
        return None
    c = fc[0]
    if any(i > c for i, _, _ in v.pockets):
        return "20(1)"
    cush = [(i, b, cu) for i, b, cu in v.cushions if i > c]
    cross = [(i, b) for i, b in v.crosses if i > c]
    contacts = [(i, a, b) for i, a, b in v.contacts if i > c]
    for i, x, c1 in cush:  # (2): off a cushion, then ...
        if any(j > i and b == x and cu != c1 for j, b, cu in cush):
            return "20(2а)"
        for j, y in _hits_after(contacts, x, i):
            if any(k > j and b == y and cu != c1 for k, b, cu in cush):
                return "20(2б)"
            if _frozen_untouched(state, v, y, j) - {c1}:
                return "20(2в)"
    for i, x in cross:  # (3): over the centre line, then ...
        if any(j > i and b == x for j, b, _ in cush):
            return "20(3а)"
        for j, y in _hits_after(contacts, x, i):
            if any(k > j and b == y for k, b, _ in cush):
                return "20(3б)"
            if _frozen_untouched(state, v, y, j):
                return "20(3в)"
    for i, x, _ in cush:  # (4): off a cushion, then ...
        if any(j > i and b == x for j, b in cross):
            return "20(4а)"
        for j, y in _hits_after(contacts, x, i):
            if any(k > j and b == y for k, b in cross):
                return "20(4б)"
    if frozen_rebound(state, shot):
        return "20.2"
    return None


def _hits_after(contacts: list, x: str, i: int) -> list[tuple[int, str]]:
    """(index, other ball) of contacts of ball ``x`` after index ``i``."""
    out = []
    for j, a, b in contacts:
        if j > i and (a == x or b == x):
            out.append((j, b if a == x else a))
    return out


def _frozen_untouched(state: MatchState, v: ShotView, ball: str, j: int) -> frozenset[str]:
    """Cushions ``ball`` was frozen to, if it had not moved before event index ``j``."""
    for i, a, b in v.contacts:
        if i >= j:
            break
        if ball in (a, b):
            return frozenset()
    return _frozen_at_start(state, ball)


def frozen_rebound(state: MatchState, shot: Shot) -> bool:
    """003 20.2: the cue ball strikes an object ball frozen to a cushion, which sends it to
    another cushion or over the centre line. Legal when there were two separate contacts
    (cue–object, then object–cue); with one contact only when the player warned the
    referee (:func:`warned_frozen`)."""
    v = view(shot)
    cue = cue_of(state, shot)
    fc = v.first_contact(cue)
    if fc is None:
        return False
    c, obj = fc
    frozen = _frozen_at_start(state, obj)
    if not frozen:
        return False
    start = c
    second = [j for j, a, b in v.contacts if j > c and {a, b} == {cue, obj}]
    if second:
        start = second[0]
    elif not warned_frozen(shot):
        return False
    to_cushion = any(i > start and b == cue and cu not in frozen for i, b, cu in v.cushions)
    return to_cushion or any(i > start and b == cue for i, b in v.crosses)


def shot_completed(state: MatchState, shot: Shot) -> bool:
    """003 rule 20 (every shot but the break): one of the four patterns, in order."""
    return completion_pattern(state, shot) is not None


# --------------------------------------------------------------- 21–23: balls
def ball_off_table(state: MatchState, shot: Shot) -> bool:
    """Rule 23.1/23.3: a ball came to rest off the playing surface (a foul). A ball that
    touched the top of the rail and came back (23.2) yields no ``off_table`` event."""
    return bool(view(shot).off)


def cue_ball_pocketed(state: MatchState, shot: Shot) -> bool:
    """The cue ball fell in a pocket (a свояк in free/combined/dynamic, a foul in classic)."""
    return cue_of(state, shot) in view(shot).pocketed()


def early_strike(state: MatchState, shot: Shot) -> bool:
    """003 14.2: struck before the previous shot was complete (all balls at rest)."""
    return bool(view(shot).early)


def ball_touched(state: MatchState, shot: Shot) -> bool:
    """003 17.1: a ball moved with no contact to explain it (body, clothes, chalk …)."""
    return bool(view(shot).touched)


def hanging_replay(state: MatchState, shot: Shot) -> bool:
    """Rule 22.2: a hanging ball fell because another ball touched it: restore and replay."""
    v = view(shot)
    if not v.hanging:
        return False
    return any(any(b in (x, y) for _, x, y in v.contacts) for _, b, _ in v.hanging)


def hanging_restored(state: MatchState, shot: Shot) -> tuple[str, ...]:
    """Rule 22.1: hanging balls that fell by themselves (no contact): put back in place."""
    if not view(shot).hanging or hanging_replay(state, shot):
        return ()
    return tuple(dict.fromkeys(b for _, b, _ in view(shot).hanging))


def in_zone(state: MatchState, zone: str, p: tuple[float, float]) -> bool:
    """Whether ``p`` lies inside a ball-in-hand zone: ``house`` (x < L/4, rule 11) or the
    temporary house beyond the line through the back spot (x > 3L/4, rules.md combined).
    A centre on the line is outside (rule 11.2, by analogy for the temporary house)."""
    t = table_for(state.settings.table)
    if zone == "house":
        return p[0] < t.house_line_x
    if zone == "temp_house":
        return p[0] > t.spots["back"][0]
    return False


def first_object_in_zone(state: MatchState, shot: Shot, zone: str) -> bool:
    """Combined/dynamic from hand in the house (rules.md): only balls beyond the house line
    may be struck. True when the first ball the cue ball touched stood inside ``zone``
    before the shot. A ball on the house line is outside (11.2). Unknown position: False."""
    fc = view(shot).first_contact(cue_of(state, shot))
    if fc is None:
        return False
    p = state.on_table.get(fc[1])
    return p is not None and in_zone(state, zone, p)


def any_ball_outside(state: MatchState, zone: str, cue: str) -> bool:
    """True when some object ball stands outside ``zone`` (may be struck from it)."""
    return any(not in_zone(state, zone, p) for b, p in state.on_table.items() if b != cue)


def cue_placed_outside_house(state: MatchState, shot: Shot) -> bool:
    """003 11.3: the cue ball in hand from the house stood outside it (on the house line
    counts as outside, 10.2) at the strike. Not a foul: unless the referee or the opponent
    warned before the stroke, the cue ball counts as correctly put in play. Needs the
    strike event's ``at`` (table mm); False when unknown."""
    at = view(shot).strike_at
    return state.ball_in_hand == "house" and at is not None and not in_zone(state, "house", at)
