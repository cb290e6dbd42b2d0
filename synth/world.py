"""The synthetic world's value types: what the simulator produces and the renderer draws.

All positions are table mm (contract §1), heights mm above the cloth, times seconds
from the clip's first frame, velocities mm/s. One ``WorldFrame`` per video frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from synth.figures import FigureStyle

BallColour = Literal[
    "white",
    "yellow",
    "red",
    "black",
    "blue",
    "green",
    "pink",
    "brown",
    "orange",
    "purple",
    "maroon",
]


@dataclass(frozen=True)
class BallInfo:
    """A ball's identity and look. ``number`` is drawn on white pyramid balls (1..15)."""

    id: str
    colour: BallColour = "white"
    number: int | None = None
    stripe: bool = False
    figure: FigureStyle | None = None
    """How the number is printed (``synth.figures``); None: the house style."""


@dataclass(frozen=True)
class BallPose:
    """A ball at one instant. ``z``: centre height above the cloth (R on the cloth, less
    while dropping into a pocket, a parabola when flying off the table).
    ``rot``: 3x3 rotation matrix (row-major, 9 floats) of the ball's spin, for drawing its
    number; ``on_table`` False once pocketed or off the table (then not drawn, or drawn in
    the pocket's throat while ``z > -R``)."""

    x: float
    y: float
    z: float
    vx: float = 0.0
    vy: float = 0.0
    rot: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    on_table: bool = True


@dataclass(frozen=True)
class SkittlePose:
    """A skittle (5-pin). Standing: upright on (x, y). Fallen: lying, ``angle`` (radians,
    table frame) the direction from its base to its head."""

    x: float
    y: float
    fallen: bool = False
    angle: float = 0.0
    on_table: bool = True


@dataclass(frozen=True)
class Actor:
    """A person in the picture, as simple solids in table mm (drawn above the table).

    kind ``cue``: a cue stick from ``a`` (tip) to ``b`` (butt), ``height`` mm above the cloth
    at the tip; kind ``arm``: a forearm/hand capsule from ``a`` (hand) to ``b`` (elbow, may
    lie off the table); kind ``body``: a torso ellipse centred on ``a`` with half-axes
    ``size``; kind ``hand``: a hand holding a ball at ``a`` (re-spotting).
    ``height`` is the height above the cloth in mm (parallax applies to actors too).
    """

    kind: Literal["cue", "arm", "body", "hand"]
    a: tuple[float, float]
    b: tuple[float, float] = (0.0, 0.0)
    height: float = 100.0
    size: tuple[float, float] = (0.0, 0.0)
    colour_bgr: tuple[int, int, int] = (40, 40, 40)


@dataclass(frozen=True)
class WorldFrame:
    """The world at one video frame ``index`` (time ``t`` s)."""

    index: int
    t: float
    balls: Mapping[str, BallPose]
    skittles: Mapping[str, SkittlePose] = field(default_factory=dict)
    actors: tuple[Actor, ...] = ()
    camera: int = 0
    """Index into the clip's camera poses: 0 before a knock, 1 after the first, ..."""
