"""Figures of a benchmark set split into subsets (reporting only; the matching rule is
:mod:`bench.score_events`'): per group of scenarios (pyramid break, pyramid mid-game,
5-pin carom), per picture size and for a named subset of clips (the old set), so that
no weak part hides behind the larger denominator of the whole set.

Every subset is summed from the per-clip reports with :func:`bench.score.combine` (counts
added, ratios recomputed), the same way as the whole set.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bench.score import Report, combine
from bench.score_events import TypeScores
from bench.score_sum import _combine_type
from bench.score_util import fmt

GROUPS = ("break", "pyramid mid-game", "carom")
# the event types of the compact table, in the order
TYPES = ("strike", "contact", "cushion", "pocket", "cross", "skittle_down", "off_table")
SHORT = {"skittle_down": "skittle"}  # column heads


def group_of(scenario: str) -> str:
    """The group of a synth scenario name: ``break`` (the pyramid rack broken),
    ``carom`` (every 5-pin scenario, break and play) or ``pyramid mid-game``."""
    if scenario == "pyramid-break":
        return "break"
    if scenario.startswith("carom-"):
        return "carom"
    if scenario.startswith("pyramid-"):
        return "pyramid mid-game"
    raise ValueError(f"scenario {scenario!r} belongs to no group (pyramid-* or carom-*)")


def subsets(
    clips: Sequence[tuple[str, str, str]], old: Collection[str] = (), old_label: str = "old set"
) -> dict[str, list[int]]:
    """Indices into ``clips`` (``(name, scenario, size)`` each, size ``"1080"``/``"720"``)
    of every subset: ``all``, each group of :data:`GROUPS`, each size (``1080p``...),
    and ``old_label`` (the clips named in ``old``). Empty subsets are left out."""
    out: dict[str, list[int]] = {"all": list(range(len(clips)))}
    for g in GROUPS:
        out[g] = [i for i, (_, scen, _) in enumerate(clips) if group_of(scen) == g]
    for size in sorted({s for *_, s in clips}, key=lambda s: -int(s)):
        out[f"{size}p"] = [i for i, (*_, s) in enumerate(clips) if s == size]
    out[old_label] = [i for i, (name, *_) in enumerate(clips) if name in old]
    return {k: v for k, v in out.items() if v}


def combine_subsets(reports: Sequence[Report], sets: dict[str, list[int]]) -> dict[str, Report]:
    """One combined report per subset (``sets`` from :func:`subsets`)."""
    return {k: combine([reports[i] for i in idx]) for k, idx in sets.items()}


def sum_subsets(
    items: Sequence[TypeScores], sets: dict[str, list[int]], name: str
) -> dict[str, TypeScores]:
    """Per-clip scores of one kind (an observable-contact score, say) summed per subset."""
    return {k: _combine_type(name, [items[i] for i in idx]) for k, idx in sets.items()}


def _f1(r: Report, kind: str) -> str:
    t = r.events.get(kind)
    return "-" if t is None or t.truth + t.pred == 0 else fmt(t.f1)


def summary_table(reps: dict[str, Report], extra: dict[str, TypeScores] | None = None) -> str:
    """A compact table, one row per subset: clips, shots (truth, recall, precision, both
    ends within 2 frames), first contact right, the F1 of each event type of
    :data:`TYPES` ("-" where the subset has none on either side), ``extra``'s F1 (the
    impulse-observable contacts) and the pockets invented."""
    head = (
        f"  {'subset':<18}{'clips':>5}{'shots':>6}{'recall':>7}{'prec':>6}{'<=2f':>6}"
        f"{'1st-contact':>14}"
        + "".join(f"{SHORT.get(t, t):>10}" for t in TYPES)
        + ("  contact obs" if extra else "")
        + "  pockets invented"
    )
    lines = [head]
    for k, r in reps.items():
        s, e = r.shots, r.events
        first = f"{e.first_contact_right}/{e.first_contact_total}"
        row = (
            f"  {k:<18}{r.videos:>5}{s.truth:>6}{fmt(s.recall):>7}{fmt(s.precision):>6}"
            f"{fmt(s.within_2):>6}{first:>14}" + "".join(f"{_f1(r, t):>10}" for t in TYPES)
        )
        if extra:
            row += f"{fmt(extra[k].f1) if k in extra else '-':>13}"
        lines.append(f"{row}{e.pockets_invented:>18}")
    return "\n".join(lines)


def summary_json(
    reps: dict[str, Report], extra: dict[str, TypeScores] | None = None, extra_key: str = ""
) -> dict:
    """Each subset's whole report (``Report.to_json``), with ``extra_key``: the extra
    score's counts and ratios where given."""
    out = {}
    for k, r in reps.items():
        d = {"videos": r.videos, "report": r.to_json()}
        if extra and k in extra:
            t = extra[k]
            keys = ("truth", "pred", "tp", "precision", "recall", "f1")
            d[extra_key] = {x: getattr(t, x) for x in keys}
        out[k] = d
    return out
