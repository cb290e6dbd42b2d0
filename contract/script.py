"""A compact notation for writing a shot's events by hand (tests, whole-frame scenarios).

``script_events(["yellow>3", "3|back", "3@back-left"])`` reads: the yellow strikes and
touches 3; 3 touches the back cushion; 3 falls in the back-left pocket. Tokens:
``a>b`` contact (a striking), ``a|cushion`` cushion, ``a@pocket`` pocket, ``a/`` crosses
the centre line, ``a!`` off the table, ``a~pocket`` hanging ball drops, ``a^`` ball
touched, ``*a`` early strike, ``strike:a`` a strike alone. The first ``a>b`` also emits
the strike of ``a``. Events come ``step`` frames apart after ``first_frame``.
"""

from __future__ import annotations


def script_events(
    tokens: list[str] | tuple[str, ...], first_frame: int = 0, step: int = 1, fps: float = 30.0
) -> list[dict]:
    """Contract §8 event objects for the tokens; ValueError (one line) for a bad token."""
    out: list[dict] = []
    f = first_frame

    def add(**kw) -> None:
        nonlocal f
        f += step
        out.append({"frame": f, "t": round(f / fps, 3), **kw})

    struck = False
    for tok in tokens:
        if ">" in tok:
            a, b = tok.split(">")
            if not struck:
                add(type="strike", ball=a)
                struck = True
            add(type="contact", balls=[a, b])
        elif "|" in tok:
            a, c = tok.split("|")
            add(type="cushion", ball=a, cushion=c)
        elif "@" in tok:
            a, p = tok.split("@")
            add(type="pocket", ball=a, pocket=p)
        elif "~" in tok:
            a, p = tok.split("~")
            add(type="hanging_drop", ball=a, pocket=p)
        elif tok.endswith("/"):
            add(type="cross", ball=tok[:-1], line="centre")
        elif tok.endswith("!"):
            add(type="off_table", ball=tok[:-1])
        elif tok.endswith("^"):
            add(type="ball_touched", ball=tok[:-1])
        elif tok.startswith("*"):
            add(type="early_strike", ball=tok[1:])
        elif tok.startswith("strike:"):
            add(type="strike", ball=tok[7:])
            struck = True
        else:
            raise ValueError(f"bad event token {tok!r}")
    return out
