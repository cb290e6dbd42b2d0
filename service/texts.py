"""Human words for scoreboards: foul names and one-line verdict texts, Russian and English."""

from __future__ import annotations

from contract.match import Verdict

FOULS: dict[str, dict[str, str]] = {
    "no_contact": {
        "ru": "биток не коснулся прицельного шара",
        "en": "no contact with an object ball",
    },
    "illegal_break": {"ru": "неправильный разбой", "en": "illegal break"},
    "incomplete_shot": {"ru": "удар не выполнен", "en": "incomplete shot"},
    "ball_off_table": {"ru": "шар вылетел за борт", "en": "ball off the table"},
    "cue_ball_pocketed": {"ru": "свой шар в лузе", "en": "cue ball pocketed"},
    "early_strike": {"ru": "удар до остановки шаров", "en": "struck before the balls stopped"},
    "ball_touched": {"ru": "касание шара", "en": "ball touched"},
    "push": {"ru": "толчок", "en": "push shot"},
    "double_hit": {"ru": "двойное касание", "en": "double hit"},
    "wrong_ball": {"ru": "не тот шар", "en": "wrong ball"},
    "red_first": {"ru": "первым задет красный", "en": "red ball hit first"},
    "skittles_first": {"ru": "первыми сбиты кегли", "en": "skittles hit first"},
    "own_ball_skittles": {"ru": "кегли сбиты своим шаром", "en": "skittles knocked by own ball"},
    "not_called": {"ru": "сыгран не заказанный шар", "en": "ball not called"},
    "foot": {"ru": "нет касания пола ногой", "en": "foot off the floor"},
    "other": {"ru": "нарушение", "en": "foul"},
}

WORDS: dict[str, dict[str, str]] = {
    "legal": {"ru": "Удар засчитан", "en": "Legal shot"},
    "foul": {"ru": "Фол", "en": "Foul"},
    "pocketed": {"ru": "забит", "en": "pocketed"},
    "points": {"ru": "очк.", "en": "pt"},
    "next": {"ru": "следующий удар", "en": "next"},
    "player": {"ru": "игрок", "en": "player"},
}

LANGS = ("ru", "en")


def foul_name(code: str, lang: str) -> str:
    return FOULS.get(code, {}).get(lang, code)


def verdict_text(v: Verdict | None, lang: str, names: dict[str, str] | None = None) -> str:
    """One line: ``Foul: double hit · B +1`` / ``Legal shot · w3 pocketed · A +1``."""
    if v is None:
        return ""
    names = names or {}
    parts = []
    if v.legal and not v.fouls:
        parts.append(WORDS["legal"][lang])
    else:
        fouls = ", ".join(foul_name(str(f), lang) for f in v.fouls)
        parts.append(f"{WORDS['foul'][lang]}: {fouls}" if fouls else WORDS["foul"][lang])
    if v.pocketed:
        parts.append(f"{', '.join(v.pocketed)} {WORDS['pocketed'][lang]}")
    for p in ("A", "B"):
        n = int(v.scored.get(p, 0))
        if n:
            parts.append(f"{names.get(p, p)} {n:+d}")
    return " · ".join(parts)


def verdict_reason(v: Verdict | None, lang: str) -> str:
    """The adjudicator's reasons in one language (they cite their rules); the bare rule
    references when it gave no sentence; empty without a verdict."""
    if v is None:
        return ""
    texts = [r.get(lang) or next(iter(r.values()), "") for r in v.reasons]
    text = "; ".join(t for t in texts if t)
    return text or ", ".join(v.rule_refs)
