"""The events benchmark's summary lines and JSON pieces (reporting only): counts of
several videos added up, and the observable-contact / observable-cushion lines."""

from __future__ import annotations

from bench.score_events import TypeScores
from bench.score_impulse import IMPULSE_SIGMAS
from bench.score_util import Stats, fmt


def sum_types(name: str, items: list[TypeScores]) -> TypeScores:
    """Counts of several videos added up, frame errors merged."""
    return TypeScores(
        name,
        sum(t.truth for t in items),
        sum(t.pred for t in items),
        sum(t.tp for t in items),
        Stats.merge([t.frame_error for t in items]),
        order_right=sum(t.order_right or 0 for t in items),
    )


def obs_json(t: TypeScores, hidden: int, key: str = "hidden_truth_contacts") -> dict:
    keys = ("truth", "pred", "tp", "precision", "recall", "f1")
    return {**{k: getattr(t, k) for k in keys}, key: hidden}


def observable_line(t: TypeScores, hidden: int) -> str:
    return (
        f"  contact, observable truth only ({hidden} truth contacts of pairs pressed "
        f"together since their last contact left out): truth {t.truth} pred {t.pred} tp "
        f"{t.tp} precision {fmt(t.precision)} recall {fmt(t.recall)} F1 {fmt(t.f1)}"
    )


def impulse_line(t: TypeScores, faint: int, sigma: str) -> str:
    return (
        f"  contact, impulse observable only ({faint} truth contacts whose impulse is under "
        f"{IMPULSE_SIGMAS:g} x the velocity-change noise left out; noise {sigma}): "
        f"truth {t.truth} pred {t.pred} tp {t.tp} precision {fmt(t.precision)} recall "
        f"{fmt(t.recall)} F1 {fmt(t.f1)}"
    )


def impulse_json(t: TypeScores, faint: int, sigmas: dict, unknown: int) -> dict:
    return {
        **obs_json(t, faint, "faint_truth_contacts"),
        "sigmas_dv": IMPULSE_SIGMAS,
        "velocity_change_noise_mm_per_frame": sigmas,
        "truth_contacts_without_impulse": unknown,
    }


def cushion_line(t: TypeScores, hidden: int) -> str:
    return (
        f"  cushion, observable truth only ({hidden} truth cushions after the ball's last "
        f"frame on the cloth left out): truth {t.truth} pred {t.pred} tp {t.tp} precision "
        f"{fmt(t.precision)} recall {fmt(t.recall)} F1 {fmt(t.f1)}"
    )
