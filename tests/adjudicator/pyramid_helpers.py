"""Builders for pyramid test shots: compact event scripts -> contract Shots and states.

``S("yellow>3", "3|back", "3@back-left")`` reads: the yellow strikes and touches 3;
3 touches the back cushion; 3 falls in the back-left pocket. Tokens:
``a>b`` contact (a striking), ``a|cushion`` cushion, ``a@pocket`` pocket, ``a/`` crosses
the centre line, ``a!`` off the table, ``a~pocket`` hanging ball drops, ``a^`` ball
touched, ``*a`` early strike. The first ``a>b`` also emits the strike of ``a``.
"""

from __future__ import annotations

from dataclasses import replace

from adjudicator.base import MatchSettings, MatchState, frozen_map, rules_for
from contract.match import Call, RefereeInput, Shot
from contract.script import script_events

L, W, R = 3550.0, 1775.0, 34.0  # pyramid-12ft (contract §2)


def events(*tokens: str) -> list[dict]:
    """Event objects one frame apart (:func:`contract.script.script_events`)."""
    return script_events(tokens)


def S(*tokens: str, index: int = 1, player=None, rest=None, cue=None, **ref) -> Shot:
    """A shot from event tokens; keyword args go to the RefereeInput (``call=("3","back-left")``)."""
    if "call" in ref and isinstance(ref["call"], tuple):
        ref["call"] = Call(ball=ref["call"][0], pocket=ref["call"][1])
    data = {
        "index": index,
        "start": {"frame": 0, "t": 0.0},
        "end": {"frame": 100, "t": 3.3},
        "events": events(*tokens),
    }
    if player:
        data["player"] = player
    if cue:
        data["cue_ball"] = cue
    if rest is not None:
        data["rest"] = rest
    if ref:
        data["referee"] = RefereeInput(**ref).model_dump(mode="json", exclude_none=True)
    return Shot.model_validate(data)


def state(game: str = "pyramid-free", *, on_table=None, **kw) -> MatchState:
    """A mid-frame state (not the break) of ``game``; ``kw`` replaces MatchState fields, and
    ``penalty``/``three_fouls_lose``/... keys go to the settings."""
    skeys = set(MatchSettings.__dataclass_fields__)
    sk = {k: kw.pop(k) for k in list(kw) if k in skeys and k not in ("game",)}
    settings = MatchSettings(game=game, **sk)
    st = rules_for(game).initial_state(settings)
    st = replace(st, is_break=False, ball_in_hand=None)
    if on_table is not None:
        st = replace(st, on_table=frozen_map(on_table))
    for k in ("score", "shelf", "consecutive_fouls"):
        if k in kw:
            kw[k] = frozen_map(kw[k])
    return replace(st, **kw)


def break_state(game: str = "pyramid-free", **kw) -> MatchState:
    return state(game, is_break=True, ball_in_hand="house", **kw)


def judge(st: MatchState, shot: Shot):
    return rules_for(st.settings.game).judge(st, shot)


def play(st: MatchState, shot: Shot):
    """(verdict, next state)."""
    rules = rules_for(st.settings.game)
    v = rules.judge(st, shot)
    return v, rules.apply(st, shot, v)
