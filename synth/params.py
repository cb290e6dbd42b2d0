"""The simulator's physical constants, below the simulator (:mod:`synth.physics`) and its
cushion and pocket geometry (:mod:`synth.rails`), which both read them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Params:
    """Physical constants (SI-like units in mm and s)."""

    mu_slide: float = 0.2
    mu_roll: float = 0.015
    drag: float = 0.25  # 1/s, cloth drag proportional to speed
    e_ball: float = 0.95
    e_cushion: float = 0.8
    v_rest: float = 8.0  # mm/s: a rolling ball slower than this is at rest
    jump_speed: float = 1500.0  # mm/s: a ``jump`` ball faster than this leaves the table
    substeps: int = 6  # per video frame
    max_time: float = 40.0
    corner_mouth_balls: float = 1.25
    middle_mouth_balls: float = 1.4
    drop_depth: float = 0.25
