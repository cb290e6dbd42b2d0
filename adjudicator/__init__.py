"""tablemon adjudicator: a pure rules engine, ``(state, shot) -> verdict -> next state``.

- :mod:`adjudicator.base`: ``MatchSettings``, the frozen ``MatchState``, the game registry.
- :mod:`adjudicator.engine`: ``judge_match(match, settings)`` re-judges a whole MATCH.json
  from its shot list (referee input included), so a correction re-judges what follows.
- :mod:`adjudicator.pyramid`: the pyramid general rules (seeds 000/003) as named
  predicates, rack and re-spot geometry, the lag; ``games/pyramid_*.py`` the four
  disciplines (free, combined, dynamic, classic) of ``shared/rules.md``.
- :mod:`adjudicator.cli`: ``tablemon adjudicate SHOTS.json --game GAME --out MATCH.json``.

Never imports vision, never does I/O (beyond loading a table spec by name once).
"""
