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


LAG_WORDS = {
    "waiting": {"ru": "Разбег: ждём удара", "en": "Lag: waiting"},
    "asked": {"ru": "Разбег: слишком близко, решает судья", "en": "Lag: too close to call, the referee decides"},
    "repeat": {"ru": "Разбег повторяется", "en": "Lag to be replayed"},
    "choose": {"ru": "выбирает: разбивать или уступить", "en": "to choose: break or concede"},
    "decided": {"ru": "разбивает", "en": "breaks"},
    "won": {"ru": "Разбег выиграл", "en": "Lag won by"},
    "lost": {"ru": "проиграл", "en": "lost"},
}  # fmt: skip


def lag_text(lag: dict | None, lang: str, names: dict[str, str] | None = None) -> str:
    """One line on the lag: who won and each ball's distance to the near cushion with its
    uncertainty (mm), or why a ball lost; ``Lag: too close to call`` while asked."""
    if not lag:
        return ""
    names = names or {}
    status = lag.get("status", "")
    if status in ("waiting", "asked", "repeat"):
        head = LAG_WORDS[status][lang]
    else:
        w = lag.get("winner")
        head = f"{LAG_WORDS['won'][lang]} {names.get(w, w)}"
        if status == "choose":
            head += f" · {names.get(w, w)} {LAG_WORDS['choose'][lang]}"
        elif lag.get("breaker"):
            b = lag["breaker"]
            head += f" · {names.get(b, b)} {LAG_WORDS['decided'][lang]}"
    parts = [head]
    for p, ball in sorted((lag.get("balls") or {}).items()):
        who = names.get(p, p)
        if ball.get("lost"):
            parts.append(f"{who}: {ball['lost'].get(lang, '')}")
        elif ball.get("distance_mm") is not None:
            parts.append(
                f"{who}: {ball['distance_mm']:.1f} ± {ball.get('uncertainty_mm') or 0:.1f} mm"
            )
    return " · ".join(parts)
