"""5-pin carom rules (seed 002, WCBS 1997) in small pure parts.

``values``: point values as data; ``facts``: one pass over a shot's events and the
named predicates (each cites its clause); ``fouls``: the fouls as data and the
verdict sentences; ``placement``: ball in hand, balls off the table, the break;
``skittles``: set up again or left off; ``lag``: the lag for the break. The game
module ``adjudicator.games.carom_5pin`` combines them into ``judge`` and ``apply``.
"""
