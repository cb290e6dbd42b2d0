"""The lag called from measured rest positions, with their doubt (pyramid 8, carom 3).

Both games decide the lag the same way once each ball's automatic losses are known: a
ball that lost gives the lag to the other (both lost: the lag is repeated); otherwise the
ball that stopped nearer the near short cushion (``x = 0``, the pyramid's front cushion,
the 5-pin's bottom cushion, contract §1) wins. "Nearer" is a measurement, so:

- each ball's distance to the near cushion is its rest centre's ``x`` (table mm; the gap
  between ball and cushion is that less the radius, the same for both balls) with a
  standard uncertainty ``sigma`` (mm, one ball, one axis);
- ``sigma`` comes from the lag event's extension field ``uncertainty_mm`` (contract §8: the
  vision writes the calibration's ``uncertainty.rms_mm`` combined with its rest noise) and
  is :data:`DEFAULT_UNCERTAINTY_MM` when the shot does not carry it;
- the difference of two distances has the combined uncertainty ``sqrt(2) * sigma``; the
  winner is declared only when the difference exceeds :data:`SURE_SIGMAS` times it;
- otherwise the lag is a question for the referee (contract §11, ``about: "lag"``) with the
  options "A wins", "B wins" and "replay the lag" (both rule texts repeat the lag when the
  balls stop at the same distance: pyramid 8.2 "невозможно определить победителя", carom 3
  "останавливаются на одинаковом расстоянии"). "Equal" is the referee's call: tablemon
  never reads a difference as equal from its own measurement.

Pure; positions in table mm.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from adjudicator.base import Player, other
from contract.events import EventType
from contract.match import Shot, Verdict

SURE_SIGMAS = 3.0
"""A lag is called without asking only when the distances differ by more than this many
combined standard uncertainties: a wrong sure call then needs a 3-sigma error (0.13 % of
draws at a true tie), where 2 sigmas called a true tie sure about 5 % of the time and
wrongly 2.3 % (bench lag). Issue 32 asks the winner right beyond 3 sigmas: this is that."""

DEFAULT_UNCERTAINTY_MM = 1.5
"""One ball's rest ``x`` standard uncertainty when the shot does not say (mm). The rest
detection alone is well under a mm (the median of the still frames); the calibration
dominates, and 1.5 mm is the best that tablemon's calibration reaches today on a table it
never saw (issue 32: 1.5-18 mm). A vision that knows its calibration writes its own."""

REPLAY = "replay"


@dataclass(frozen=True)
class LagBall:
    """One player's lag ball as judged: its id, distance to the near cushion (mm; None when
    it is off the table or pocketed) and the reason it lost automatically (None: it stands)."""

    ball: str
    distance_mm: float | None
    lost: dict[str, str] | None = None


@dataclass(frozen=True)
class LagCall:
    """The lag's outcome. ``winner`` None: repeated (or, while ``ask`` is open and the
    referee has not answered, the most likely reading says so). ``sure``: no question is
    open. ``ask``: the question's spec (why, options ``[(key, label), ...]``, frames) when
    the call was too close, answered or not. ``reasons``: human sentences."""

    winner: Player | None
    sure: bool
    reasons: tuple[dict[str, str], ...]
    info: dict = field(default_factory=dict)
    ask: dict | None = None


def uncertainty_mm(shot: Shot) -> tuple[float, str]:
    """One ball's rest standard uncertainty (mm) and where it came from (``shot`` or
    ``default``): the lag event's ``uncertainty_mm`` when given and positive."""
    for e in shot.events:
        if e.type is EventType.LAG:
            u = (e.__pydantic_extra__ or {}).get("uncertainty_mm")
            if isinstance(u, int | float) and u > 0:
                return float(u), "shot"
    return DEFAULT_UNCERTAINTY_MM, "default"


def lag_balls(shot: Shot) -> tuple[str, str] | None:
    """The two balls the shot's lag event names (None: not a lag shot)."""
    for e in shot.events:
        if e.type is EventType.LAG and e.balls:
            return e.balls
    return None


Say = Callable[[str, str], dict[str, str]]
"""A game's sentence maker: (ru, en) -> ``{"ru": ..., "en": ...}`` citing its lag clause."""


def call_lag(
    balls: Mapping[Player, LagBall],
    shot: Shot,
    say: Say,
    near: tuple[str, str],
    answer: str | None = None,
) -> LagCall:
    """Call the lag from each player's judged ball. ``say``: the game's sentence maker
    (citing pyramid 8 or carom 3); ``near``: the near cushion's name (ru, en); ``answer``: the referee's
    answer to the lag question (``A``, ``B`` or ``replay``), if any."""
    sigma, source = uncertainty_mm(shot)
    comb = math.sqrt(2.0) * sigma
    info: dict = {
        "balls": {
            p: {
                "ball": b.ball,
                "distance_mm": _r(b.distance_mm),
                "uncertainty_mm": _r(sigma),
                "lost": b.lost,
            }
            for p, b in balls.items()
        },  # fmt: skip
        "uncertainty_mm": _r(comb),
        "uncertainty_from": source,
        "near_cushion": near[1],
    }
    lost = [p for p in ("A", "B") if balls[p].lost]
    if len(lost) == 2:
        why = say("Жребий повторяется: проиграли оба", "The lag is repeated: both lost")
        reasons = (*(balls[p].lost for p in lost), why)  # type: ignore[misc]
        return LagCall(None, True, reasons, info | {"winner": None, "repeat": True, "why": why})
    if len(lost) == 1:
        win = other(lost[0])
        why = say(f"Жребий выиграл игрок {win}: шар соперника проиграл",
                   f"Player {win} wins the lag: the opponent's ball lost")  # fmt: skip
        reasons = (balls[lost[0]].lost, why)  # type: ignore[assignment]
        return LagCall(win, True, reasons, info | {"winner": win, "repeat": False, "why": why})
    da, db = balls["A"].distance_mm, balls["B"].distance_mm
    if da is None or db is None:
        raise ValueError(f"shot {shot.index}: a lag needs both balls' rest positions")
    diff = db - da
    info["difference_mm"] = _r(abs(diff))
    nearer: Player = "A" if diff >= 0 else "B"
    if abs(diff) > SURE_SIGMAS * comb:
        why = _win_text(say, nearer, near)
        return LagCall(nearer, True, (why,), info | {"winner": nearer, "repeat": False, "why": why})
    text = (
        f"the lag balls stopped {abs(diff):.1f} mm apart, within {SURE_SIGMAS:g} x the "
        f"measurement's uncertainty ({comb:.1f} mm): too close to call"
    )
    options = [(nearer, f"{nearer} wins"), (other(nearer), f"{other(nearer)} wins"),
               (REPLAY, "replay the lag (equal distances)")]  # fmt: skip
    ask = {"why": text, "options": options, "frames": [shot.end.frame]}
    if answer in ("A", "B"):
        win: Player = answer  # type: ignore[assignment]
        why = _win_text(say, win, near)
        note = {"ru": "Решение судьи", "en": "Settled by the referee"}
        return LagCall(win, True, (why, note), info | {"winner": win, "repeat": False,
                       "why": why, "asked": True}, ask)  # fmt: skip
    if answer == REPLAY:
        why = say("Жребий повторяется: равное расстояние (решение судьи)",
                   "The lag is repeated: equal distances (the referee's call)")  # fmt: skip
        return LagCall(None, True, (why,), info | {"winner": None, "repeat": True, "why": why,
                       "asked": True}, ask)  # fmt: skip
    why = _win_text(say, nearer, near)
    doubt = {"ru": f"Не уверен: {abs(diff):.1f} мм в пределах погрешности {comb:.1f} мм",
             "en": f"Not sure: {text}"}  # fmt: skip
    return LagCall(nearer, False, (why, doubt), info | {"winner": nearer, "repeat": False,
                   "why": why, "asked": True, "uncertain": text}, ask)  # fmt: skip


def _win_text(say: Say, win: Player, near: tuple[str, str]) -> dict[str, str]:
    return say(f"Жребий выиграл игрок {win}: его шар ближе к {near[0]} борту",
                f"Player {win} wins the lag: his ball stopped nearer the {near[1]} cushion")  # fmt: skip


def _r(v: float | None) -> float | None:
    return None if v is None else round(float(v), 1)


def lag_verdict(
    winner: Player | None,
    breaker: Player,
    refs: tuple[str, ...],
    reasons: tuple[dict[str, str], ...],
    options: tuple[str, ...],
    call: LagCall | None,
    losers: tuple[Player, ...] = (),
) -> Verdict:
    """A lag shot's verdict: nothing scored, ``next`` the breaker, the extensions
    ``lag_winner`` and ``lag`` (distances, uncertainty, winner, why, the losers' reasons and
    the question's spec, :class:`LagCall`), and ``uncertain`` while the call is open."""
    lag = dict(call.info) if call is not None else {"winner": winner, "repeat": winner is None,
                                                    "why": reasons[-1] if reasons else None}  # fmt: skip
    lag["losers"] = list(losers)
    if call is not None and call.ask is not None:
        lag["ask"] = call.ask
    return Verdict(
        legal=True,
        next=breaker,
        rule_refs=refs,
        reasons=reasons,
        options=options,
        lag_winner=winner,
        lag=lag,
        uncertain=None if call is None or call.sure else lag.get("uncertain"),
    )


def ask_keys(ask: Mapping) -> tuple[str, ...]:
    """The option keys of a lag question's spec."""
    return tuple(k for k, _ in ask.get("options", ()))
