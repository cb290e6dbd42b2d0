"""Players in the synthetic world: the cue and bridge arm of a stroke, a body leaning over
the table, a hand that re-spots a ball or re-stands a skittle.

Every function returns :class:`synth.world.Actor` values for one instant; positions are
table mm, heights mm above the cloth, times seconds relative to the event they animate.
"""

from __future__ import annotations

import math

import numpy as np

from synth.world import Actor

CUE_LENGTH = 1450.0  # mm
APPROACH = 1.4  # s from the cue entering the picture to the strike
WITHDRAW = 0.45  # s from the strike until the cue has left the table
SLEEVES = ((40, 40, 40), (90, 60, 40), (120, 40, 30), (60, 60, 90), (30, 30, 30))


def _ease(s: float) -> float:
    s = min(1.0, max(0.0, s))
    return s * s * (3 - 2 * s)


def _tip_gap(tau: float, follow: float) -> float:
    """Distance (mm) from the cue tip to the cue ball's surface at ``tau`` s from the strike
    (negative: the tip has followed through past where the ball stood)."""
    if tau < -APPROACH:
        return math.inf
    if tau < -0.9:  # entering along the line of aim
        return 1300.0 - 1180.0 * _ease((tau + APPROACH) / (APPROACH - 0.9))
    if tau < -0.3:  # two practice strokes
        return 80.0 + 60.0 * math.cos((tau + 0.9) / 0.6 * 4 * math.pi)
    if tau < -0.12:  # back swing
        return 140.0 + 80.0 * _ease((tau + 0.3) / 0.18)
    if tau < 0.0:  # the stroke
        return 220.0 * (1 - _ease((tau + 0.12) / 0.12))
    if tau < 0.08:  # follow through
        return -follow * _ease(tau / 0.08)
    if tau < WITHDRAW:
        return -follow + (1400.0 + follow) * _ease((tau - 0.08) / (WITHDRAW - 0.08))
    return math.inf


def stroke_actors(
    cue_ball: tuple[float, float],
    direction: float,
    tau: float,
    radius: float,
    ball_speed: float,
    sleeve: tuple[int, int, int],
    left_handed: bool = False,
    edge: float = 0.0,
) -> tuple[Actor, ...]:
    """The cue, bridge arm, cue hand and torso ``tau`` s from a strike of the ball at
    ``cue_ball`` (mm) in ``direction`` (radians). ``edge``: mm from the ball back along the
    cue to the table's edge; the torso stays behind it (a player stands beside the table
    and leans over it). Empty before the approach and after the withdrawal."""
    follow = min(60.0, 0.4 * ball_speed * 0.08)
    gap = _tip_gap(tau, follow)
    if not math.isfinite(gap):
        return ()
    d = np.array([math.cos(direction), math.sin(direction)])
    side = np.array([-d[1], d[0]]) * (-1.0 if left_handed else 1.0)
    c = np.asarray(cue_ball, float)
    tip = c - d * (radius + gap)
    butt = tip - d * CUE_LENGTH
    cue = Actor("cue", tuple(tip), tuple(butt), height=radius + 4.0, colour_bgr=(60, 110, 170))
    # the bridge hand rests ~220 mm behind the ball while aiming, comes and goes with the cue
    enter = max(0.0, gap - 120.0) if tau < 0 else max(0.0, gap - 20.0)
    bridge = c - d * (radius + 230.0 + enter)
    elbow = bridge - d * 260.0 + side * 170.0
    arm = Actor("arm", tuple(bridge), tuple(elbow), height=30.0, colour_bgr=sleeve)
    grip = butt + d * 120.0
    back = Actor(
        "arm", tuple(grip), tuple(grip - side * 60.0 + d * 260.0), 220.0, colour_bgr=sleeve
    )
    back_off = max(radius + 780.0, edge + 150.0) + enter
    torso = Actor(
        "body",
        tuple(c - d * back_off + side * 120.0),
        tuple(c - d * (back_off + 420.0)),
        height=380.0,
        size=(420.0, 230.0),
        colour_bgr=sleeve,
    )
    return (cue, arm, back, torso)


def lean_actor(
    edge_point: tuple[float, float],
    inward: tuple[float, float],
    s: float,
    sleeve: tuple[int, int, int],
) -> tuple[Actor, ...]:
    """A body leaning over the table at ``edge_point`` (mm on a cushion line), ``s`` in
    [0, 1] of the lean (in, hold, out)."""
    k = math.sin(math.pi * min(1.0, max(0.0, s)))
    p = np.asarray(edge_point, float)
    n = np.asarray(inward, float)
    centre = p + n * (-420.0 + 560.0 * k)
    return (Actor("body", tuple(centre), tuple(centre - n * 300), 420.0, (420.0, 240.0), sleeve),)


def hand_path(
    start: tuple[float, float], target: tuple[float, float], s: float, sleeve: tuple[int, int, int]
) -> tuple[tuple[Actor, ...], tuple[float, float], float]:
    """A hand carrying something from ``start`` (off the table) to ``target`` (mm) and
    back: ``s`` in [0, 1]; the hand arrives at s = 0.5. Returns the actors, the hand
    position and its height above the cloth (mm)."""
    a = np.asarray(start, float)
    b = np.asarray(target, float)
    k = _ease(s / 0.5) if s < 0.5 else 1 - _ease((s - 0.5) / 0.5)
    p = a + (b - a) * k
    h = 20.0 + 90.0 * (1 - k)
    away = a - b
    n = np.hypot(*away)
    elbow = p + (away / n if n > 0 else np.array([1.0, 0.0])) * 330.0
    return (
        (
            Actor("hand", tuple(p), tuple(elbow), height=h),
            Actor("arm", tuple(p), tuple(elbow), h + 20, colour_bgr=sleeve),
        ),
        (float(p[0]), float(p[1])),
        h,
    )
