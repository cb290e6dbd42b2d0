"""Russian pyramid: the general rules (seeds 000 and 003) shared by the four disciplines.

``predicates`` (named clause predicates), ``geometry`` (rack, re-spotting, frozen balls),
``lag`` (who breaks), ``rules`` (judge) and ``apply`` (next state).
"""
