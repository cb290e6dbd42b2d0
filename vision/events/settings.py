"""The thresholds of shot cutting and event finding (table mm, seconds), shared by the shot
cutter (:mod:`vision.events.shots`) and the finders it calls, below both."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ShotSettings:
    """Thresholds (mm, seconds). ``move_mm``: two-frame displacement that counts as
    motion; ``rest_mm``: distance from the rest position within which a ball is at
    rest; ``settle_s``: stillness that ends a shot; ``hang_s``: how long after the
    rest state a ball in a pocket mouth may still drop (rule 22)."""

    move_mm: float = 1.5
    rest_mm: float = 0.6
    settle_s: float = 0.5
    kink_abs_mm: float = 3.0
    kink_rel: float = 0.12
    hang_s: float = 3.0
    early_strike_mm_per_frame: float = 12.0
    sigma_mm: float = 0.0  # measurement noise, set by :func:`adapt`
    decel: float | None = None  # rolling deceleration (mm/frame^2), measured per video


def seen_step_mm(s: ShotSettings) -> float:
    """A step (mm per frame) of a ball seen rolling: half the two-frame motion threshold,
    and at least 3 noise sigmas (:func:`vision.events.motion.seen_moving`)."""
    return max(0.5 * s.move_mm, 3.0 * s.sigma_mm)


def adapt(s: ShotSettings, sigma: float) -> ShotSettings:
    """Thresholds raised to stay well above the measurement noise ``sigma`` (mm)."""
    return replace(
        s,
        move_mm=max(s.move_mm, 7.0 * sigma),
        rest_mm=max(s.rest_mm, 4.5 * sigma),
        kink_abs_mm=max(s.kink_abs_mm, 9.0 * sigma),
        sigma_mm=sigma,
    )
