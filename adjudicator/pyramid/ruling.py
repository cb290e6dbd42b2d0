"""One pyramid judgement's working values (:class:`Ruling`) and the contract verdict built
from them (:func:`build_verdict`), for :mod:`adjudicator.pyramid.rules`. Positions table mm."""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.base import Player
from adjudicator.pyramid.texts import foul_reason
from contract.match import Foul, Respot, Verdict

Point = tuple[float, float]


@dataclass
class Ruling:
    """Working values of one judgement (mutable scratch, never stored in a state)."""

    fouls: list[tuple[Foul, str, str]]  # (code, clause, detail)
    counted: list[str]  # balls that score for the striker
    shelved: list[str]  # balls that go onto the striker's shelf
    respot: list[str]  # balls to re-spot by rule 25
    notes: list[dict[str, str]]
    refs: list[str]
    bonus: int = 0
    taken: str | None = None
    hand: str | None = None
    premium: bool = False


def mm_point(x: float, y: float) -> tuple[float, float]:
    """A position (table mm) rounded to 0.1 mm, as a verdict writes it."""
    return (round(x, 1), round(y, 1))


def build_verdict(
    legal: bool,
    r: Ruling,
    scored: dict[str, int],
    pocketed: tuple[str, ...],
    nxt: Player,
    resp: dict[str, Point],
    options: tuple[str, ...],
    extra: dict[str, object],
) -> Verdict:
    """The contract verdict (built without validation: the inner loop) plus extensions."""
    reasons = [foul_reason(f, c, d) for f, c, d in r.fouls] + r.notes
    refs = [c for _, c, _ in r.fouls] + r.refs
    if not legal:
        refs.append("pyramid:27.2")
    if resp:
        refs.append("pyramid:25.2")
    ext = {k: v for k, v in extra.items() if v is not None}
    if r.taken:
        ext["taken"] = r.taken
    if r.premium:
        ext["premium"] = True
    return Verdict.model_construct(
        legal=legal,
        fouls=tuple(f for f, _, _ in r.fouls),
        scored=scored,
        pocketed=pocketed,
        next=nxt,
        respot=tuple(Respot.model_construct(id=b, at=p) for b, p in resp.items()),
        rule_refs=tuple(dict.fromkeys(refs)),
        reasons=tuple(reasons),
        options=options,
        shelved=tuple(r.shelved),
        **ext,
    )
