"""5-pin point values as data (carom rules 8, 11.2, 15.3), overridable per match.

The defaults are the seed's (WCBS 1997, rule 8): each side skittle 2, the centre
skittle knocked with side skittles 4, the centre alone 8; carom of the cue ball on
the red after the opponent's ball 4, the opponent's ball on the red ("рикошет") 3;
each 15.3 foul 2. Current international codes differ slightly (the centre alone 10;
some codes a fixed value for all five), so ``MatchSettings.carom_values`` may
override any key; ``all_five`` (0 = none) replaces the sum when all five fall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

SIDE_SKITTLES = ("front", "back", "left", "right")
CENTRE = "centre"
SKITTLES = (CENTRE, *SIDE_SKITTLES)

DEFAULT_VALUES: Mapping[str, int] = MappingProxyType(
    {
        "side": 2,  # rule 8.1: each side skittle
        "centre_with_sides": 4,  # rule 8.1: the centre knocked with a side skittle
        "centre_alone": 8,  # rule 8.1: the centre alone, figure complete or not
        "all_five": 0,  # not in the seed; 0 = the sum (4 * side + centre_with_sides)
        "carom_red": 4,  # rule 8.2 / 5.5: the cue ball on the red after the opponent's ball
        "kiss_red": 3,  # rule 8.2 / 5.6: the opponent's ball on the red
        "foul": 2,  # rules 11.2, 15.3: each foul that gives the opponent 2 points
        "red_first_extra": 2,  # rule 15.3b: touching the red first adds 2 ("carom")
        "target": 60,  # rule 2: set by the competition; 60 when the match does not say
    }
)


def values_for(overrides: Mapping[str, int] | None) -> Mapping[str, int]:
    """The default table with a match's overrides; an unknown key or a negative value
    raises one-line ``ValueError``."""
    if not overrides:
        return DEFAULT_VALUES
    out = dict(DEFAULT_VALUES)
    for k, v in overrides.items():
        if k not in DEFAULT_VALUES:
            raise ValueError(f"unknown carom value {k!r}; known: {', '.join(DEFAULT_VALUES)}")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"carom value {k!r} must be a non-negative integer, got {v!r}")
        out[k] = v
    return MappingProxyType(out)


def skittle_points(knocked: Iterable[str], values: Mapping[str, int] = DEFAULT_VALUES) -> int:
    """Points of the skittles knocked down in one shot (rule 8.1).

    Side skittles ``side`` each; the centre ``centre_with_sides`` when at least one
    side skittle fell too, else ``centre_alone``; ``all_five`` (when non-zero)
    replaces the sum when all five fell. Unknown ids raise ``ValueError``.
    """
    down = set(knocked)
    bad = down - set(SKITTLES)
    if bad:
        raise ValueError(f"unknown skittle {sorted(bad)[0]!r}; skittles: {', '.join(SKITTLES)}")
    sides = len(down) - (CENTRE in down)
    if len(down) == 5 and values["all_five"]:
        return values["all_five"]
    pts = sides * values["side"]
    if CENTRE in down:
        pts += values["centre_with_sides"] if sides else values["centre_alone"]
    return pts


def carom_points(
    cue_on_red: bool, object_on_red: bool, values: Mapping[str, int] = DEFAULT_VALUES
) -> int:
    """Carom points (rule 8.2): only one carom counts; when both happen (rule 5.7) the
    higher value is taken."""
    pts = 0
    if cue_on_red:
        pts = values["carom_red"]
    if object_on_red:
        pts = max(pts, values["kiss_red"])
    return pts
