"""The match judged shot by shot with its doubts: uncertain verdicts and the referee's questions.

For each shot the :class:`Asker` judges every reading its doubts allow
(:mod:`adjudicator.doubt`) from the same state. Readings that agree as the shooter sees them
are one verdict, given as sure; readings that disagree make the verdict ``uncertain`` with
the others as ``readings`` and one question (contract §11). A contradiction (no rest between
two shots, two strikes in one, balls changed between shots, frames not seen) is always a
question. The referee's answer (``RefereeInput.answers``) picks a reading; the state goes on
from it, so every later verdict is judged again from the corrected state. While a question
is open the state goes on from the most likely reading (the shot as read).

Classic pyramid: a pocketed ball whose number was not read (``wN``) scores an unknown
number: one reading per number still possible, asked ``about: "number"``, unless only one
number is left (known by elimination, said in the verdict).

Carom: the ball a player strikes names the player (white is A's, yellow B's by default): a
shot struck with the other player's ball is played by its owner, said in the verdict, and
the shot before, whose verdict gave the turn to the wrong player, is asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from adjudicator.base import GameRules, MatchState, frozen_map, other
from adjudicator.doubt import (
    Reading,
    as_shooter_sees,
    between,
    merged,
    no_rest_after,
    number_readings,
    readings,
    split,
    strikes,
    turned,
    unseen,
)
from adjudicator.lag_call import ask_keys, lag_balls
from contract.events import EventType
from contract.match import Option, Question, RefereeInput, Shot, Verdict

Infer = Callable[[Shot, Shot | None], Shot]


def _reason(en: str, ru: str) -> dict[str, str]:
    return {"en": en, "ru": ru}


@dataclass(frozen=True)
class _Judged:
    """One reading judged: its verdict and the state after it."""

    reading: Reading
    verdict: Verdict
    after: MatchState
    skip_next: bool = False


STRUCTURAL = ("merge", "missed")


def _distinct(judged: list[_Judged], shooter: str) -> list[_Judged]:
    """The readings that differ as the shooter sees them (the first of each), and every
    structural one (a merge, a split, a missed shot: what follows depends on them)."""
    out: list[_Judged] = []
    seen: list[tuple] = []
    for j in judged:
        key = as_shooter_sees(j.verdict, shooter)
        if key not in seen or j.reading.key in STRUCTURAL or j.reading.key.startswith("split@"):
            out.append(j)
            seen.append(key)
    return out


def _known(state: MatchState, prev: Shot | None) -> set[str]:
    """Ball ids known to be elsewhere than a pocketed unread ball: shelved, or seen at rest
    after the shot before (the camera's reading, not the rules' model of the rack)."""
    return {b for s in state.shelf.values() for b in s} | set(prev.rest if prev else ())


def _noted(v: Verdict, why: str | None) -> Verdict:
    """``v`` with ``why`` (a number known by elimination) among its reasons."""
    if why is None:
        return v
    return v.model_copy(update={"reasons": (*v.reasons, _reason(why, why))})


def _last(j: _Judged, v: Verdict) -> MatchState:
    """The state after ``j`` with ``v`` (its verdict as finally given) as the last verdict."""
    if j.after.last_verdict is j.verdict or j.after.last_verdict == j.verdict:
        return replace(j.after, last_verdict=v)
    return j.after


ROUGH_WHY = "the table was found by its cloth's outline only: every position is rough"


class Asker:
    """Judges a shot list with its doubts. ``fps``: the video's frame rate (the rest check);
    ``premium``: combined/dynamic (the taken ball is inferred from the next shot);
    ``carom``: 5-pin (the struck ball names the player)."""

    def __init__(
        self,
        rules: GameRules,
        fps: float,
        *,
        premium: bool,
        carom: bool,
        infer: Infer | None,
        numbered: bool = False,
        ends_assumed: bool = False,
        rough: bool = False,
    ) -> None:
        self.rules = rules
        self.ends_assumed = ends_assumed
        self.rough = rough
        self.fps = fps
        self.infer = infer if premium else None
        self.carom = carom
        self.numbered = numbered

    # ------------------------------------------------------------------ one reading
    def _judge(self, state: MatchState, reading: Reading, kind: str, nxt: Shot | None) -> _Judged:
        shot = reading.shot
        if kind == "split":
            first, second = split(shot, reading.frames[0])
            v1 = self._verdict(state, first)
            mid = self.rules.apply(state, first, v1)
            v2 = self._verdict(mid, second)
            after = self.rules.apply(mid, second, v2)
            then = v2.model_dump(mode="json", exclude_none=True)
            return _Judged(reading, v1.model_copy(update={"then": then}), after)
        if self.infer is not None:
            shot = self.infer(shot, nxt)
        v = self._verdict(state, shot)
        return _Judged(reading, v, self.rules.apply(state, shot, v), skip_next=kind == "merge")

    def _verdict(self, state: MatchState, shot: Shot) -> Verdict:
        """The rules' verdict, saying whom it was judged for."""
        v = self.rules.judge(state, shot)
        return v.model_copy(update={"player": shot.player or state.turn})

    def _structural(
        self, state: MatchState, shot: Shot, prev: Shot | None, respot: Sequence[str], nxt
    ) -> tuple[list[str], list[tuple[Reading, str, MatchState]]]:
        """Contradictions of ``shot`` and the readings that would resolve them:
        (reading, kind, state to judge it from)."""
        why: list[str] = []
        out: list[tuple[Reading, str, MatchState]] = []
        if nxt is not None and (w := no_rest_after(shot, nxt, self.fps)):
            why.append(w)
            label = f"one shot with shot {nxt.index} (cut in two by mistake)"
            out.append(
                (Reading("merge", label, merged(shot, nxt), (nxt.start.frame,)), "merge", state)
            )
        hits = strikes(shot)
        if len(hits) > 1:
            f = hits[1].frame
            why.append(f"two strikes in one shot (frames {hits[0].frame} and {f})")
            label = f"two shots, the second from frame {f}"
            out.append((Reading(f"split@{f}", label, shot, (f,)), "split", state))
        for w in (between(prev, respot, shot, pockets=not self.carom), unseen(shot)):
            if w:
                why.append(w)
        if len(why) > len(out):  # a shot missed or not seen: the turn may have passed
            flip = other(state.turn)
            label = f"a shot was missed before: player {flip} is at the table"
            out.append((Reading("missed", label, shot), "as_read", replace(state, turn=flip)))
        if self.ends_assumed and self.carom and state.is_break and state.extra.get("hand_half"):
            turned = "top" if state.extra.get("hand_half") == "bottom" else "bottom"
            label = "the table the other way round (its front end was not read)"
            st = replace(state, extra=frozen_map({**state.extra, "hand_half": turned}))
            out.append((Reading("ends", label, shot), "as_read", st))
        return why, out

    # ------------------------------------------------------------------ one shot
    def shot(
        self,
        state: MatchState,
        shot: Shot,
        prev: Shot | None,
        respot: Sequence[str],
        nxt: Shot | None,
    ) -> tuple[Verdict, MatchState, Question | None, bool]:
        """The verdict of ``shot``, the state after it, its question (None when sure) and
        whether the next shot was merged into it by the referee's answer."""
        if lag_balls(shot) is not None:
            return self._lag(state, shot)
        why, structural = self._structural(state, shot, prev, respot, nxt)
        if self.rough:  # every position within a cushion's width: the referee confirms
            why = [*why, ROUGH_WHY]
        known = _known(state, prev)
        numbered, elim = number_readings(shot, known) if self.numbered else ([], None)
        if elim is not None:  # the one number left: the ball is judged as that number
            shot, numbered = numbered[0].shot, []
        judged = self._judge_all(state, shot, nxt, structural, numbered)
        distinct = _distinct(judged, shot.player or state.turn)
        first = judged[0]
        if len(distinct) == 1 and not why:
            return _noted(first.verdict, elim), first.after, None, False
        options = [j for j in distinct if not (numbered and j.reading.key == "as_read")]
        doubts = [j.reading for j in options if j.reading.key != "as_read"]
        text = "; ".join(why) or "the verdict depends on " + " or ".join(
            r.label for r in doubts[:3]
        )
        frames = tuple(sorted({f for r in doubts for f in r.frames})) or (shot.start.frame,)
        about = "unseen" if shot.unseen is not None else "verdict"
        if why == [ROUGH_WHY] and len(options) == 1:
            about = "calibration"
        if numbered and not why and all(r.key.startswith("number:") for r in doubts):
            about, text = (
                "number",
                "the number of a pocketed ball was not read: "
                + ", ".join(dict.fromkeys(r.label.split(" is ")[0] for r in doubts)),
            )
        answer = shot.referee.answers.get(about) if shot.referee else None
        chosen = next((j for j in options if j.reading.key == answer), None)
        q = Question(
            id="",
            shot=shot.index,
            about=about,
            why=text,
            options=tuple(
                Option(key=j.reading.key, label=j.reading.label, verdict=j.verdict) for j in options
            ),
            frames=frames,
            answer=chosen.reading.key if chosen else None,
        )
        if chosen is not None:
            note = _reason(
                f"Settled by the referee: {chosen.reading.label}",
                f"Решение судьи: {chosen.reading.label}",
            )
            v = chosen.verdict.model_copy(update={"reasons": (*chosen.verdict.reasons, note)})
            return _noted(v, elim), _last(chosen, v), q, chosen.skip_next
        others = tuple(j.verdict for j in options if j is not first)
        v = first.verdict.model_copy(update={"uncertain": text, "readings": others})
        return _noted(v, elim), _last(first, v), q, False

    def _judge_all(
        self,
        state: MatchState,
        shot: Shot,
        nxt: Shot | None,
        structural: list[tuple[Reading, str, MatchState]],
        numbered: list[Reading],
    ) -> list[_Judged]:
        """Every reading judged, the shot as read first; readings the rules refuse are
        left out (the shot as read never is)."""
        judged: list[_Judged] = []
        plain = [(r, "as_read", state) for r in (*readings(shot), *numbered)]
        for r, kind, st in plain + structural:
            try:
                judged.append(self._judge(st, r, kind, nxt))
            except ValueError:
                if r.key == "as_read":
                    raise
        return judged

    def _lag(
        self, state: MatchState, shot: Shot
    ) -> tuple[Verdict, MatchState, Question | None, bool]:
        """A lag shot: the rules call it; when the distances were too close to call (the
        verdict's ``lag.ask``), one question ``about: "lag"`` whose options are the verdicts
        under each answer; unanswered, the verdict is the nearer ball's win, ``uncertain``,
        with the other answers as its readings."""
        v = self._verdict(state, shot)
        ask = ((v.__pydantic_extra__ or {}).get("lag") or {}).get("ask")
        if self.ends_assumed and (q := self._lag_ends(state, shot, v)) is not None:
            return q
        if not ask:
            return v, self.rules.apply(state, shot, v), None, False
        ref = shot.referee or RefereeInput()
        opts = []
        for key, label in ask["options"]:
            alt = ref.model_copy(update={"answers": {**ref.answers, "lag": key}})
            ov = self._verdict(state, shot.model_copy(update={"referee": alt}))
            opts.append(Option(key=key, label=label, verdict=ov))
        answer = ref.answers.get("lag")
        q = Question(id="", shot=shot.index, about="lag", why=ask["why"], options=tuple(opts),
                     frames=tuple(ask["frames"]), answer=answer if answer in ask_keys(ask) else None)  # fmt: skip
        if q.answer is None:
            v = v.model_copy(update={"readings": tuple(o.verdict for o in opts[1:] if o.verdict)})
        return v, self.rules.apply(state, shot, v), q, False

    def _lag_ends(
        self, state: MatchState, shot: Shot, v: Verdict
    ) -> tuple[Verdict, MatchState, Question | None, bool] | None:
        """A lag on a table whose front end was assumed: judged the other way round too
        (:func:`adjudicator.doubt.turned`); when the winner differs, one question ``about:
        "calibration"`` (contract §11: as read, or turned); None when both agree."""
        table = getattr(self.rules, "table", None)
        if table is None:
            return None
        spec = table(state.settings)
        tv = self._verdict(state, turned(shot, spec.L, spec.W))
        if tv.model_extra.get("lag_winner") == v.model_extra.get("lag_winner"):
            return None
        opts = (
            Option(key="as_read", label="the table as the camera assumed it", verdict=v),
            Option(key="ends", label="the table the other way round", verdict=tv),
        )
        answer = (shot.referee.answers.get("calibration") if shot.referee else None) or None
        q = Question(
            id="", shot=shot.index, about="calibration", options=opts, frames=(shot.end.frame,),
            why="the table's front end was not read: the lag's near cushion cannot be told",
            answer=answer if answer in ("as_read", "ends") else None,
        )  # fmt: skip
        if q.answer == "ends":
            return tv, self.rules.apply(state, shot, tv), q, False
        if q.answer is None:
            v = v.model_copy(update={"uncertain": q.why, "readings": (tv,)})
        return v, self.rules.apply(state, shot, v), q, False

    # ------------------------------------------------------------------ the match
    def _carom_player(self, state: MatchState, shot: Shot) -> tuple[MatchState, str | None]:
        """Carom: a shot struck with the other player's ball is that player's."""
        if not self.carom or state.frame_over or state.match_over or lag_balls(shot):
            return state, None
        balls = state.extra.get("balls") or {"A": "white", "B": "yellow"}
        hit = next((e.ball for e in shot.events if e.type is EventType.STRIKE), None)
        owner = next((p for p, b in balls.items() if b == hit), None)
        if owner is None or owner == state.turn:
            return state, None
        why = f"shot {shot.index} was struck with {hit}, player {owner}'s ball"
        return replace(state, turn=owner, cue_ball=hit), why

    def run(
        self, state: MatchState, shots: Sequence[Shot]
    ) -> tuple[tuple[Shot, ...], tuple[MatchState, ...], tuple[Question, ...]]:
        """Judge ``shots`` in order from ``state``."""
        out: list[Shot] = []
        states: list[MatchState] = []
        questions: list[Question] = []
        prev: Shot | None = None
        respot: tuple[str, ...] = ()
        skip = False
        for i, shot in enumerate(shots):
            nxt = shots[i + 1] if i + 1 < len(shots) else None
            if skip:  # the referee made this shot part of the one before
                note = _reason(
                    f"Part of shot {prev.index if prev else '?'} (the referee's answer)",
                    f"Часть удара {prev.index if prev else '?'} (решение судьи)",
                )
                v = Verdict(legal=True, next=state.turn, reasons=(note,))
                out.append(shot.model_copy(update={"verdict": v}))
                states.append(state)
                skip = False
                continue
            if state.match_over:  # a shot after the end: something was misread before
                why = f"shot {shot.index} was played after the match was over"
                v = Verdict(legal=True, next=state.turn, uncertain=why)
                q = Question(id=f"q{len(questions) + 1}", shot=shot.index, about="verdict",
                             why=why, frames=(shot.start.frame,))  # fmt: skip
                questions.append(q)
                out.append(shot.model_copy(update={"verdict": v}))
                states.append(state)
                continue
            state, named = self._carom_player(state, shot)
            if named and out:
                self._ask_before(out, questions, named)
            v, state, q, skip = self.shot(state, shot, prev, respot, nxt)
            if named:
                note = _reason(
                    f"The struck ball names the player: {named}",
                    f"Игрока определяет битый шар: {named}",
                )
                v = v.model_copy(update={"reasons": (*v.reasons, note)})
            if q is not None:
                questions.append(q.model_copy(update={"id": f"q{len(questions) + 1}"}))
            out.append(shot.model_copy(update={"verdict": v}))
            states.append(state)
            prev, respot = shot, tuple(r.id for r in v.respot)
        return tuple(out), tuple(states), tuple(questions)

    @staticmethod
    def _ask_before(out: list[Shot], questions: list[Question], why: str) -> None:
        """The shot before gave the turn to the wrong player: its verdict is asked (unless
        it already is)."""
        last = out[-1]
        v = last.verdict
        if v is None or v.uncertain or any(q.shot == last.index for q in questions):
            return
        text = f"{why}, so this shot's turn was read wrong"
        answer = last.referee.answers.get("verdict") if last.referee else None
        if answer is None:
            v2 = v.model_copy(update={"uncertain": text})
            out[-1] = last.model_copy(update={"verdict": v2})
        opt = Option(key="as_read", label="as the camera read it", verdict=v)
        questions.append(
            Question(
                id=f"q{len(questions) + 1}",
                shot=last.index,
                about="verdict",
                why=text,
                options=(opt,),
                frames=(last.end.frame,),
                answer=answer,
            )
        )
