"""Scoreboard words: one-line verdict texts and reasons in Russian and English."""

from __future__ import annotations

import pytest

from contract.match import Foul, Verdict
from service.texts import FOULS, verdict_reason, verdict_text

NAMES = {"A": "Ivanov", "B": "Petrov"}


@pytest.mark.parametrize(
    ("verdict", "lang", "text"),
    [
        (None, "en", ""),
        (Verdict(legal=True, next="A"), "en", "Legal shot"),
        (
            Verdict(legal=True, scored={"A": 1, "B": 0}, pocketed=("w3",), next="A"),
            "en",
            "Legal shot · w3 pocketed · Ivanov +1",
        ),
        (
            Verdict(legal=True, scored={"A": 1, "B": 0}, pocketed=("w3",), next="A"),
            "ru",
            "Удар засчитан · w3 забит · Ivanov +1",
        ),
        (
            Verdict(legal=False, fouls=(Foul.DOUBLE_HIT,), scored={"A": 0, "B": 1}, next="B"),
            "en",
            "Foul: double hit · Petrov +1",
        ),
        (
            Verdict(legal=False, fouls=(Foul.PUSH, Foul.FOOT), scored={"A": -1, "B": 0}, next="B"),
            "ru",
            "Фол: толчок, нет касания пола ногой · Ivanov -1",
        ),
        (Verdict(legal=False, next="B"), "en", "Foul"),
    ],
)
def test_verdict_text(verdict: Verdict | None, lang: str, text: str) -> None:
    assert verdict_text(verdict, lang, NAMES) == text


def test_reason_prefers_sentences() -> None:
    v = Verdict(
        legal=True,
        next="A",
        rule_refs=("pyramid:12.1",),
        reasons=({"ru": "Разбой (п. 12.1)", "en": "Break (rule 12.1)"},),
    )
    assert (
        verdict_reason(v, "ru") == "Разбой (п. 12.1)"
        and verdict_reason(v, "en") == "Break (rule 12.1)"
    )
    assert (
        verdict_reason(Verdict(legal=True, next="A", rule_refs=("carom:15.3b",)), "en")
        == "carom:15.3b"
    )
    assert verdict_reason(None, "ru") == ""


def test_every_foul_code_has_both_languages() -> None:
    assert set(FOULS) == {f.value for f in Foul}
    assert all(set(v) == {"ru", "en"} and all(v.values()) for v in FOULS.values())
