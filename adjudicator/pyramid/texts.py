"""Human sentences for verdicts, in Russian and English, each ending with its clause.

Clause numbers: ``pyramid:N`` cites the general rules; clauses 8–20 cite seed 003's
fuller wording (numbered one lower than seed 000: 003 12 = 000 13 "legal break",
003 20 = 000 20 "completion"), the others seed 000. ``free:``, ``combined:``,
``dynamic:``, ``classic:`` cite the discipline rules summarised in ``shared/rules.md``.
"""

from __future__ import annotations

from contract.match import Foul

# foul -> (default clause, ru, en)
FOUL_TEXT: dict[Foul, tuple[str, str, str]] = {
    Foul.NO_CONTACT: (
        "pyramid:6.2",
        "биток не коснулся прицельного шара",
        "the cue ball touched no object ball",
    ),
    Foul.ILLEGAL_BREAK: (
        "pyramid:12.1",
        "неправильный начальный удар",
        "illegal break",
    ),
    Foul.INCOMPLETE_SHOT: (
        "pyramid:20",
        "удар не завершён правильно",
        "the shot was not completed correctly",
    ),
    Foul.BALL_OFF_TABLE: ("pyramid:23.3", "шар вылетел за пределы стола", "a ball left the table"),
    Foul.CUE_BALL_POCKETED: ("classic:cue", "биток забит в лузу", "the cue ball was pocketed"),
    Foul.EARLY_STRIKE: (
        "pyramid:14.2",
        "удар до остановки всех шаров",
        "struck before all balls stopped",
    ),
    Foul.BALL_TOUCHED: ("pyramid:17", "запрещённое касание шара", "a ball was touched"),
    Foul.PUSH: ("pyramid:19", "пропих", "push shot"),
    Foul.DOUBLE_HIT: ("pyramid:18", "двойной удар", "double hit"),
    Foul.WRONG_BALL: ("pyramid:11.2", "удар не тем шаром", "the wrong ball was struck"),
    Foul.NOT_CALLED: ("classic:call", "забит незаказанный шар", "an uncalled ball was pocketed"),
    Foul.FOOT: ("pyramid:16", "ни одна нога не касалась пола", "no foot on the floor"),
    Foul.OTHER: ("pyramid:27.1", "нарушение правил", "a breach of the rules"),
    Foul.RED_FIRST: ("pyramid:27.1", "нарушение правил", "a breach of the rules"),
    Foul.SKITTLES_FIRST: ("pyramid:27.1", "нарушение правил", "a breach of the rules"),
    Foul.OWN_BALL_SKITTLES: ("pyramid:27.1", "нарушение правил", "a breach of the rules"),
}

_DISC_RU = {
    "free": "свободная пирамида",
    "combined": "комбинированная пирамида",
    "dynamic": "динамичная пирамида",
    "classic": "классическая пирамида",
}


def clause_label(ref: str) -> tuple[str, str]:
    """``pyramid:6.2`` -> ("п. 6.2", "rule 6.2"); ``classic:call`` -> a discipline label."""
    book, _, num = ref.partition(":")
    if book == "pyramid":
        return f"п. {num}", f"rule {num}"
    ru = _DISC_RU.get(book, book)
    return f"{ru}, {num}", f"{book} pyramid, {num}"


def sentence(ru: str, en: str, ref: str | None = None) -> dict[str, str]:
    """One reason in both languages, the clause in brackets at the end."""
    if ref is None:
        return {"ru": ru, "en": en}
    lr, le = clause_label(ref)
    return {"ru": f"{ru} ({lr})", "en": f"{en} ({le})"}


def foul_reason(foul: Foul, ref: str | None = None, detail: str = "") -> dict[str, str]:
    """``{"ru": "Фол: биток не коснулся прицельного шара (п. 6.2)", "en": ...}``."""
    dref, ru, en = FOUL_TEXT[foul]
    ru_d, en_d = (f": {detail}", f": {detail}") if detail else ("", "")
    r = ref or dref
    return sentence(f"Фол: {ru}{ru_d}", f"Foul: {en}{en_d}", r)


# 003 rule 20 completion patterns -> (ru, en)
PATTERN_TEXT: dict[str, tuple[str, str]] = {
    "20(1)": ("шар забит в лузу", "a ball was pocketed"),
    "20(2а)": ("шар от борта коснулся другого борта", "a ball off a cushion touched another"),
    "20(2б)": (
        "шар от борта довёл шар до другого борта",
        "a ball off a cushion drove a ball to another cushion",
    ),
    "20(2в)": (
        "шар от борта коснулся шара у другого борта",
        "a ball off a cushion touched a ball frozen to another cushion",
    ),
    "20(3а)": (
        "шар пересёк центральную линию и коснулся борта",
        "a ball crossed the centre line, then touched a cushion",
    ),
    "20(3б)": (
        "шар пересёк центральную линию и довёл шар до борта",
        "a ball crossed the centre line, then drove a ball to a cushion",
    ),
    "20(3в)": (
        "шар пересёк центральную линию и коснулся шара у борта",
        "a ball crossed the centre line, then touched a ball frozen to a cushion",
    ),
    "20(4а)": (
        "шар от борта пересёк центральную линию",
        "a ball off a cushion crossed the centre line",
    ),
    "20(4б)": (
        "шар от борта перекатил шар через центральную линию",
        "a ball off a cushion rolled a ball over the centre line",
    ),
    "20.2": (
        "прицельный шар у борта вернул биток (два соударения или предупреждение)",
        "a frozen object ball sent the cue ball on (two contacts, or the referee warned)",
    ),
}

_CHOICE = {
    "play": ("играет из сложившейся позиции", "plays on from the position", "pyramid:7.4"),
    "hand_back": ("передаёт ход нарушителю", "hands the turn back to the offender", "pyramid:7.4"),
    "rerack": ("расставляет шары заново и разбивает сам", "re-racks and breaks", "pyramid:12.2"),
    "rebreak": (
        "расставляет шары заново, разбивает нарушитель",
        "re-racks; the offender breaks again",
        "pyramid:12.2",
    ),
}


def choice_note(choice: str, opp: str) -> dict[str, str]:
    """The opponent's option after a foul, as a sentence (7.4 / 003 12.2)."""
    ru, en, ref = _CHOICE[choice]
    return sentence(f"Выбор {opp}: {ru}", f"{opp}'s choice: {en}", ref)
