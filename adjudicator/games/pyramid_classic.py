"""Classic pyramid ("Russian", 71), rules.md: only the yellow is the cue ball; every
stroke calls a ball and a pocket (``shot.referee.call``: the camera cannot hear it).
A called ball pocketed as called: every ball pocketed on the stroke counts; an uncalled
ball pocketed alone is re-spotted and the turn passes (a foul only with the setting
``classic_uncalled_foul``). Points are ball numbers, ball 1 = 11; the last ball on the
table earns 10 more; first to 71. Pocketing the cue ball is a foul; the opponent then
plays from hand from the house. Without a call the stroke is scored as if the balls had
been called and marked "uncalled" in the reasons."""

from __future__ import annotations

from adjudicator.base import MatchState, register
from adjudicator.pyramid import predicates as P
from adjudicator.pyramid.rules import PyramidRules
from adjudicator.pyramid.ruling import Ruling
from adjudicator.pyramid.texts import sentence
from adjudicator.pyramid.view import view
from contract.match import Foul, Shot

LAST_BALL_BONUS = 10


def ball_value(ball: str) -> int:
    """Points of a ball by its number; ball 1 = 11. An unnumbered tracker id (``w7``)
    is worth 1 (the camera could not read the number; the referee may correct it)."""
    if not ball.isdigit():
        return 1
    n = int(ball)
    return 11 if n == 1 else n


def call_made(shot: Shot) -> bool | None:
    """True when the called ball fell in the called pocket; None when nothing was called."""
    ref = shot.referee
    if ref is None or ref.call is None:
        return None
    c = ref.call
    return any(b == c.ball and p == c.pocket for _, b, p in view(shot).pockets)


class ClassicRules(PyramidRules):
    def value(self, ball: str) -> int:
        return ball_value(ball)

    def extra_fouls(self, state: MatchState, shot: Shot, cue: str) -> list[tuple[Foul, str, str]]:
        out: list[tuple[Foul, str, str]] = []
        if P.cue_ball_pocketed(state, shot):
            out.append((Foul.CUE_BALL_POCKETED, "classic:cue", ""))
        objects = [b for b in view(shot).pocketed() if b != cue]
        if state.settings.classic_uncalled_foul and objects and call_made(shot) is False:
            out.append((Foul.NOT_CALLED, "classic:call", ", ".join(objects)))
        return out

    def score_legal(self, state: MatchState, shot: Shot, cue: str, r: Ruling) -> None:
        objects = [b for b in view(shot).pocketed() if b != cue]
        made = call_made(shot)
        if made is False:
            r.respot.extend(objects)
            r.refs.append("classic:call")
            if objects:
                r.notes.append(
                    sentence(
                        "Заказанный шар не забит: шары выставляются",
                        "The called ball was not pocketed as called: balls re-spotted",
                        "classic:call",
                    )
                )
            return
        if made is None and objects:
            r.refs.append("classic:call")
            r.notes.append(
                sentence(
                    "Удар без заказа (uncalled): засчитано всё забитое",
                    "Uncalled stroke: every pocketed ball scored",
                    "classic:call",
                )
            )
        r.counted.extend(objects)
        r.shelved.extend(objects)
        if objects and self.balls_left(state, r) == 0:
            r.bonus += LAST_BALL_BONUS
            r.refs.append("classic:last")
            r.notes.append(
                sentence(
                    "Последний шар: +10 очков",
                    "Last ball on the table: 10 more points",
                    "classic:last",
                )
            )


RULES = register(ClassicRules(name="pyramid-classic", key="classic", target=71, cue_counts=False))
