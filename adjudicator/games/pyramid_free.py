"""Free pyramid ("American"), rules.md: after the break (yellow from hand in the house)
any ball may be the cue ball; nothing is called; every ball pocketed on a legal shot
counts, the cue ball too (свояк); one point a ball; first to 8. Pocketed and jumped
balls on a foul, cue ball included, are re-spotted by general rule 25 (25 note)."""

from __future__ import annotations

from adjudicator.base import register
from adjudicator.pyramid.rules import PyramidRules

RULES = register(PyramidRules(name="pyramid-free", key="free", target=8, any_cue_ball=True))
