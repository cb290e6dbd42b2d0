"""The 5-pin fouls as data: code, clause, penalty, ball in hand, and the sentence.

Rule 15.1: the points of every foul of one shot add up and go to the opponent, with
the points of the skittles knocked and any carom (rules 7, 15.2). Rule 15.2: the
striker's own ball knocking skittles after a valid contact gives only those points
(no 2, no ball in hand). Rule 15.3: the other fouls give 2 more each (touching the
red first 2 + 2) and ball in hand (rule 13.1). A foul counts once per shot.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.carom import facts as F
from contract.match import Foul

_CYR = {"a": "а", "b": "б", "v": "в", "g": "г", "d": "д", "e": "е", "zh": "ж", "z": "з",
        "i": "и", "k": "к", "l": "л", "m": "м", "n": "н", "o": "о", "p": "п", "r": "р"}  # fmt: skip


def clause_text(ref: str) -> tuple[str, str]:
    """``carom:15.3b`` -> (``п. 15.3б``, ``rule 15.3b``)."""
    num = ref.split(":", 1)[-1]
    head = num.rstrip("abcdefghijklmnopqrstuvwxyz")
    letter = num[len(head) :]
    return f"п. {head}{_CYR.get(letter, letter)}", f"rule {num}"


def reason(ref: str, ru: str, en: str, see: str | None = None) -> dict[str, str]:
    """A verdict's human sentence in both languages, the clause (and ``see``) appended."""
    r, e = clause_text(ref)
    if see:
        r2, e2 = clause_text(see)
        r, e = f"{r}, {r2[3:]}", f"{e}, {e2[5:]}"
    return {"ru": f"{ru} ({r})", "en": f"{en} ({e})"}


@dataclass(frozen=True)
class FoulRule:
    """One foul: ``points`` value keys (summed from the values table), ``hand``: the
    opponent plays from hand (rule 13.1)."""

    code: Foul
    ref: str
    points: tuple[str, ...]
    hand: bool
    ru: str
    en: str
    detect: F.Predicate | None = None
    see: str | None = None  # the rule-7 clause naming the same invalid shot

    @property
    def refs(self) -> tuple[str, ...]:
        return (self.ref, self.see) if self.see else (self.ref,)

    def reason(self) -> dict[str, str]:
        return reason(self.ref, self.ru, self.en, self.see)


FOULS: tuple[FoulRule, ...] = (
    FoulRule(Foul.WRONG_BALL, "carom:15.3a", ("foul",), True,
             "Фол: удар не своим шаром", "Foul: the player struck a ball not his own",
             F.wrong_ball, "carom:7.4"),
    FoulRule(Foul.NO_CONTACT, "carom:15.3g", ("foul",), True,
             "Фол: биток не коснулся шара соперника",
             "Foul: the cue ball did not touch the opponent's ball", F.no_contact, "carom:7.1"),
    FoulRule(Foul.RED_FIRST, "carom:15.3b", ("foul", "red_first_extra"), True,
             "Фол: первым задет красный шар", "Foul: the red ball was hit first",
             F.red_first, "carom:7.2"),
    FoulRule(Foul.SKITTLES_FIRST, "carom:15.3v", ("foul",), True,
             "Фол: биток сбил фишки до касания шара соперника",
             "Foul: the cue ball knocked skittles before the opponent's ball", F.skittles_first),
    FoulRule(Foul.OWN_BALL_SKITTLES, "carom:15.2", (), False,
             "Фол: свой шар сбил фишки; сопернику только очки фишек и карамболя",
             "Foul: the player's own ball knocked skittles; the opponent gets only the "
             "skittle and carom points", F.own_ball_skittles, "carom:7.3"),
    FoulRule(Foul.BALL_OFF_TABLE, "carom:15.3d", ("foul",), True,
             "Фол: шар выскочил за пределы бильярда", "Foul: a ball left the table",
             F.ball_off_table),
    FoulRule(Foul.EARLY_STRIKE, "carom:15.3e", ("foul",), True,
             "Фол: удар до остановки всех шаров", "Foul: struck before all balls stopped",
             F.early_strike),
    FoulRule(Foul.BALL_TOUCHED, "carom:15.3p", ("foul",), True,
             "Фол: касание шара или фишки", "Foul: a ball or skittle was touched",
             F.ball_touched),
    # fouls only the referee can see (RefereeInput.fouls)
    FoulRule(Foul.DOUBLE_HIT, "carom:15.3z", ("foul",), True,
             "Фол: двойное касание битка", "Foul: the cue tip touched the ball twice"),
    FoulRule(Foul.PUSH, "carom:15.3r", ("foul",), True,
             "Фол: пропих", "Foul: push stroke"),
    FoulRule(Foul.FOOT, "carom:15.3m", ("foul",), True,
             "Фол: нога не касалась пола или вне зоны",
             "Foul: no foot on the floor or outside the zone"),
    FoulRule(Foul.OTHER, "carom:15.3", ("foul",), True,
             "Фол, отмеченный судьёй", "Foul called by the referee"),
)  # fmt: skip

BY_CODE: dict[Foul, FoulRule] = {r.code: r for r in FOULS}
DETECTED: tuple[FoulRule, ...] = tuple(r for r in FOULS if r.detect is not None)
MISPLACED = FoulRule(
    Foul.OTHER, "carom:13.3", ("foul",), True,
    "Фол: шар с руки установлен вне разрешённой половины",
    "Foul: the ball in hand was placed outside the allowed half",
)  # fmt: skip


def rule_for(code: Foul | str) -> FoulRule:
    """The rule of a foul code (one-line ValueError for a code outside the contract)."""
    try:
        return BY_CODE[Foul(code)]
    except ValueError:
        raise ValueError(f"unknown foul code {code!r}") from None
    except KeyError:
        raise ValueError(f"foul {Foul(code).value!r} is not a 5-pin carom foul") from None
