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


def _hold(s: float, ramp: float = 0.15) -> float:
    """0 -> 1 over the first ``ramp`` of ``s`` in [0, 1], 1 while held, 1 -> 0 at the end."""
    if s < ramp:
        return _ease(s / ramp)
    if s > 1 - ramp:
        return _ease((1 - s) / ramp)
    return 1.0


def reach_actors(
    tip: tuple[float, float],
    along: tuple[float, float],
    inward: tuple[float, float],
    s: float,
    sleeve: tuple[int, int, int],
) -> tuple[Actor, ...]:
    """A player aiming along a cushion, leaning over the table: the cue lies over the balls
    near that cushion with its tip at ``tip`` (mm), the bridge arm on the cloth behind it,
    the torso and head over the cushion 0.7 m back. ``along`` (unit) points from the player
    toward the tip, parallel to the cushion; ``inward`` (unit) into the table. ``s`` in
    [0, 1]: the player comes in, holds the aim (two slow practice strokes) and goes."""
    k = _hold(s)
    d, n = np.asarray(along, float), np.asarray(inward, float)
    sway = 40.0 * math.sin(2 * math.pi * 2 * s) if 0.15 < s < 0.85 else 0.0
    off = -d * (1 - k) * 1200.0 - n * (1 - k) * 400.0  # where the player comes from
    t = np.asarray(tip, float) + off - d * (40.0 - sway)
    butt = t - d * (CUE_LENGTH - 10.0) - n * 110.0
    cue = Actor("cue", tuple(t), tuple(butt), height=40.0, colour_bgr=(60, 110, 170))
    bridge = np.asarray(tip, float) + off - d * 260.0 + n * 15.0
    arm = Actor("arm", tuple(bridge), tuple(bridge - d * 230.0 - n * 260.0), 30.0, sleeve)
    grip = butt + d * 120.0
    back = Actor("arm", tuple(grip), tuple(grip - n * 60.0 + d * 260.0), 220.0, colour_bgr=sleeve)
    centre = np.asarray(tip, float) + off - d * 720.0 - n * 120.0
    torso = Actor(
        "body", tuple(centre), tuple(centre - n * 300.0), 400.0, (420.0, 230.0), colour_bgr=sleeve
    )
    return (cue, arm, back, torso)


def pocket_lean_actors(
    pocket: tuple[float, float],
    inward: tuple[float, float],
    s: float,
    sleeve: tuple[int, int, int],
) -> tuple[Actor, ...]:
    """A player bending over a pocket (``pocket`` mm on the cushion line, ``inward`` unit
    into the table) to look at a ball in its jaws: the torso over the pocket area, a hand
    on the rail beside it. ``s`` in [0, 1]: in, hold, out."""
    k = _hold(s)
    p, n = np.asarray(pocket, float), np.asarray(inward, float)
    side = np.array([-n[1], n[0]])
    centre = p + n * (-480.0 + 500.0 * k)
    torso = Actor("body", tuple(centre), tuple(centre - n * 300.0), 420.0, (420.0, 240.0), sleeve)
    hand = p + n * (-300.0 + 360.0 * k) + side * 170.0
    arm = Actor("arm", tuple(hand), tuple(hand - n * 320.0 + side * 60.0), 60.0, sleeve)
    return (torso, arm)
