"""Dynamic pyramid ("Nevskaya"), rules.md: as combined, except that the premium stroke
after a pocketed cue ball is from hand from ANY point of the table, and on it only an
object ball may be pocketed (billiardclub.od.ua dynamic rules 5.2). Pocketing the cue
ball on the premium stroke is a foul by default (``MatchSettings.dynamic_premium_cue_
pocket_foul``); the after-break reading of some club texts is the setting
``dynamic_break_side_cushions`` (uncertain, off). First to 8."""

from __future__ import annotations

from adjudicator.base import MatchState, register
from adjudicator.pyramid import predicates as P
from adjudicator.pyramid.rules import PyramidRules
from contract.match import Foul, Shot


class DynamicRules(PyramidRules):
    def extra_fouls(self, state: MatchState, shot: Shot, cue: str) -> list[tuple[Foul, str, str]]:
        """The premium stroke may pocket only an object ball (setting, default on)."""
        if (
            state.premium_pending
            and state.settings.dynamic_premium_cue_pocket_foul
            and P.cue_ball_pocketed(state, shot)
        ):
            return [(Foul.CUE_BALL_POCKETED, "dynamic:premium", "")]
        return []


RULES = register(DynamicRules(name="pyramid-dynamic", key="dynamic", premium="anywhere"))
