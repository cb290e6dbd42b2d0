"""Combined pyramid ("Moscow"), rules.md: only the yellow is the cue ball; nothing is
called; a pocketed cue ball counts: the striker takes an object ball of his choice off
onto his shelf (the point for the cue ball; llb.su "Комбинированная пирамида" 2) and plays
the premium stroke from hand from the house at balls beyond the house line (the back end
through the back spot serves as a temporary house when none is there). On a foul in
which the cue ball left the table or was pocketed, the opponent plays from the house.
First to 8."""

from __future__ import annotations

from adjudicator.base import register
from adjudicator.pyramid.rules import PyramidRules

RULES = register(PyramidRules(name="pyramid-combined", key="combined", premium="house"))
