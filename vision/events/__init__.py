"""In: tracks (table mm per frame), as a dense Series of each ball.
Out: shots cut at rest states, each with its events in order (strike, contact, cushion, pocket, ...).
"""
