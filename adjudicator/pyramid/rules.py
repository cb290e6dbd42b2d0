"""The pyramid rules engine shared by the four disciplines: ``judge`` and ``apply``.

A discipline is a :class:`PyramidRules` with a few switches (which ball may be the cue
ball, whether a pocketed cue ball counts, the premium stroke, the call) and two hooks
(:meth:`PyramidRules.extra_fouls`, :meth:`PyramidRules.score_legal`). Pure: no I/O
beyond loading a table spec by name once. Positions are table mm.

Verdict extensions written here (all optional, read back by :meth:`PyramidRules.apply`):
``shelved`` (balls going onto the striker's shelf), ``taken`` (the premium ball taken
off), ``ball_in_hand`` (zone for the next stroke), ``premium``, ``owed`` (ball-form
debts added), ``rerack``, ``replay``, ``frame_over``, ``winner``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from adjudicator.base import MatchSettings, MatchState, Player, frozen_map, other
from adjudicator.lag_call import lag_balls, lag_verdict
from adjudicator.pyramid import predicates as P
from adjudicator.pyramid.geometry import (
    OBJECT_BALLS,
    rack_positions,
    respot_positions,
    table_for,
)
from adjudicator.pyramid.lag import judge_lag
from adjudicator.pyramid.ruling import Ruling, build_verdict, mm_point
from adjudicator.pyramid.texts import PATTERN_TEXT, choice_note, sentence
from adjudicator.pyramid.view import view
from contract.match import Foul, Shot, Verdict

Point = tuple[float, float]
Score = dict[str, int]
REF_FOUL = {  # referee-entered fouls: the clause they cite
    Foul.FOOT: "pyramid:16",
    Foul.DOUBLE_HIT: "pyramid:18",
    Foul.PUSH: "pyramid:19",
    Foul.BALL_TOUCHED: "pyramid:17",
    Foul.EARLY_STRIKE: "pyramid:14.2",
}


@dataclass(frozen=True)
class PyramidRules:
    """One pyramid discipline. ``key``: free/combined/dynamic/classic; ``target``: points
    to win a frame; ``any_cue_ball``: after the break any ball may be struck (free);
    ``cue_counts``: a cue ball pocketed on a legal shot scores; ``premium``: the zone of the
    premium stroke after a pocketed cue ball (``house`` combined, ``anywhere`` dynamic)."""

    name: str
    key: str
    target: int = 8
    any_cue_ball: bool = False
    cue_counts: bool = True
    premium: str | None = None

    # ------------------------------------------------------------ state
    def initial_state(self, settings: MatchSettings, breaker: Player = "A") -> MatchState:
        """A fresh frame: full pyramid on the back spot, the yellow in hand in the house."""
        table = table_for(settings.table)
        return MatchState(
            settings=settings,
            turn=breaker,
            breaker=breaker,
            on_table=frozen_map(rack_positions(table, OBJECT_BALLS)),
            ball_in_hand="house",
            cue_ball=P.BREAK_BALL,
            extra=frozen_map({"owed": frozen_map({"A": 0, "B": 0}), "offender": None}),
        )

    def frame_target(self, state: MatchState) -> int:
        return state.settings.target or self.target

    def value(self, ball: str) -> int:
        """Points a ball is worth (one a ball; classic overrides)."""
        return 1

    def ready(self, state: MatchState) -> MatchState:
        """The state to play from: after a finished frame, the next frame's rack with the
        break alternating (003 13); frames won carry over."""
        if not state.frame_over:
            return state
        nxt = other(state.breaker)
        fresh = self.initial_state(state.settings, nxt)
        return replace(
            fresh,
            frame_no=state.frame_no + 1,
            frames=state.frames,
            shot_no=state.shot_no,
            match_over=state.match_over,
            winner=state.winner,
        )

    def apply(self, state: MatchState, shot: Shot, verdict: Verdict) -> MatchState:
        """The state after ``shot`` under ``verdict`` (see :mod:`adjudicator.pyramid.apply`)."""
        from adjudicator.pyramid.apply import apply_verdict

        return apply_verdict(self, state, shot, verdict)

    # ------------------------------------------------------------ judge
    def judge(self, state: MatchState, shot: Shot) -> Verdict:
        """The verdict on one shot from its events, rest positions and referee input."""
        state = self.ready(state)
        ref = shot.referee
        if ref is not None and ref.verdict is not None:
            return ref.verdict
        if lag_balls(shot) is not None:
            return self.judge_lag(state, shot)
        striker: Player = shot.player or state.turn
        opp = other(striker)
        if ref is not None and ref.restore:
            if not state.on_table:  # 26.2: the positions cannot be restored
                return self._void(state, striker, "pyramid:26.2", "rerack")
            return self._void(state, striker, "pyramid:26.1", "restore")
        if P.hanging_replay(state, shot):
            return self._void(state, striker, "pyramid:22.2", "replay")
        cue = P.cue_of(state, shot)
        v = view(shot)
        r = Ruling([], [], [], [], [], [])
        if ref is None or not ref.annul:
            r.fouls.extend(self.camera_fouls(state, shot, cue, striker))
        if P.cue_placed_outside_house(state, shot):
            r.notes.append(
                sentence(
                    "Биток стоял вне дома; без предупреждения до удара введён правильно",
                    "The cue ball stood outside the house; unwarned, it counts as put in play",
                    "pyramid:11.3",
                )
            )
        if ref is not None:
            r.fouls.extend((f, REF_FOUL.get(f, "pyramid:27.1"), "") for f in ref.fouls)
        seen: set[Foul] = set()
        r.fouls = [f for f in r.fouls if not (f[0] in seen or seen.add(f[0]))]
        pocketed = v.pocketed()
        off = v.off_table()
        scored = {"A": 0, "B": 0}
        owed = {"A": 0, "B": 0}
        legal = not r.fouls
        if legal:
            self.score_legal(state, shot, cue, r)
            if state.is_break:
                r.refs.append("pyramid:12.1")
                why = sentence("Правильный начальный удар", "Legal break", "pyramid:12.1")
            else:
                pat = P.completion_pattern(state, shot) or "20"
                r.refs.append("pyramid:20.2" if pat == "20.2" else "pyramid:20")
                ru, en = PATTERN_TEXT.get(pat, ("", ""))
                why = sentence(
                    f"Удар завершён правильно: {ru}", f"Shot completed: {en}", f"pyramid:{pat}"
                )
            r.notes.insert(0, why)
            scored[striker] += sum(self.value(b) for b in r.counted) + r.bonus
            if r.counted:
                r.refs.append("pyramid:21.1")
                balls = ", ".join(r.counted)
                pts = scored[striker]
                r.notes.append(
                    sentence(
                        f"Засчитано: {balls} (+{pts})", f"Scored: {balls} (+{pts})", "pyramid:21.1"
                    )
                )
            self._pay_debt(state, striker, r, scored, owed)
        else:
            self._foul_balls(state, cue, pocketed, off, r)
            self._penalty(state, striker, r, scored, owed)
        # 22.1: hanging balls that fell by themselves go back where they were
        hang = P.hanging_restored(state, shot)
        resp = self._positions(state, shot, r, hang, pocketed, off)
        # turn, options, frame end
        options: tuple[str, ...] = ()
        rerack = False
        if legal:
            nxt = striker if r.counted or r.premium else opp
        else:
            options = ("play", "hand_back") + (("rerack", "rebreak") if state.is_break else ())
            choice = ref.choice if ref is not None else None
            nxt = opp  # contract §8: ``next`` is before the opponent's option (apply uses it)
            if choice in options:
                r.notes.append(choice_note(choice, opp))
            rerack = choice in ("rerack", "rebreak") and state.is_break
            if rerack:
                r.hand = "house"
        frame_over, winner = self._frame_end(state, shot, striker, scored, r, resp, legal)
        extra: dict[str, object] = {"ball_in_hand": r.hand, "rerack": rerack or None}
        if frame_over:
            extra.update(frame_over=True, winner=winner)
        if any(owed.values()):
            extra["owed"] = owed
        return build_verdict(legal, r, scored, pocketed, nxt, resp, options, extra)

    def judge_lag(self, state: MatchState, shot: Shot) -> Verdict:
        """Rule 8: the lag shot (before a frame's break). The winner breaks unless he
        concedes (8.3, ``RefereeInput.choice == "concede"``); nothing is scored."""
        if not state.is_break:
            raise ValueError(f"shot {shot.index}: a lag is played only before a frame's break")
        winner, call = judge_lag(shot, table_for(state.settings.table).W)
        breaker, options = state.turn, ()
        if winner is not None:
            give = shot.referee is not None and shot.referee.choice == "concede"
            breaker, options = (other(winner) if give else winner), ("break", "concede")
        losers = tuple(p for p, b in (call.info.get("balls") or {}).items() if b.get("lost"))
        return lag_verdict(winner, breaker, ("pyramid:8.1",), call.reasons, options, call,
                           losers if len(losers) == 1 else ())  # fmt: skip

    def camera_fouls(
        self, state: MatchState, shot: Shot, cue: str, striker: Player
    ) -> list[tuple[Foul, str, str]]:
        """Fouls read from the events (and the turn order), each with its clause."""
        v = view(shot)
        out: list[tuple[Foul, str, str]] = []
        if shot.player is not None and shot.player != state.turn:
            handed_back = state.options and shot.player == state.extra.get("offender")
            if not handed_back:
                out.append((Foul.OTHER, "pyramid:7.3", "out of turn"))
        if v.early:
            out.append((Foul.EARLY_STRIKE, "pyramid:14.2", ""))
        if v.touched:
            out.append((Foul.BALL_TOUCHED, "pyramid:17", ", ".join(v.touched)))
        if state.is_break and cue != P.BREAK_BALL:
            out.append((Foul.WRONG_BALL, "pyramid:11.2", cue))
        elif not self.any_cue_ball and cue != P.BREAK_BALL:
            out.append((Foul.WRONG_BALL, f"{self.key}:cue", cue))
        if not P.touched_object_ball(state, shot):
            out.append((Foul.NO_CONTACT, "pyramid:6.2", ""))
        elif state.is_break:
            side = self.key == "dynamic" and state.settings.dynamic_break_side_cushions
            if not P.legal_break(state, shot, side_cushions_only=side):
                out.append((Foul.ILLEGAL_BREAK, "pyramid:12.1", ""))
        elif not P.shot_completed(state, shot):
            out.append((Foul.INCOMPLETE_SHOT, "pyramid:20", ""))
        zone = state.ball_in_hand
        if zone in ("house", "temp_house") and P.first_object_in_zone(state, shot, zone):
            ref = "pyramid:11.2" if zone == "house" else f"{self.key}:temp_house"
            out.append((Foul.WRONG_BALL, ref, "a ball inside the house"))
        if v.off:
            out.append((Foul.BALL_OFF_TABLE, "pyramid:23.3", ", ".join(v.off_table())))
        out.extend(self.extra_fouls(state, shot, cue))
        return out

    def extra_fouls(self, state: MatchState, shot: Shot, cue: str) -> list[tuple[Foul, str, str]]:
        """Discipline fouls beyond the general rules (none by default)."""
        return []

    def score_legal(self, state: MatchState, shot: Shot, cue: str, r: Ruling) -> None:
        """Fill ``r.counted``/``r.shelved``/``r.respot`` for a legal shot: every pocketed ball
        counts (21.1); a pocketed cue ball counts where ``cue_counts`` and earns the premium
        ball and stroke where ``premium`` is set (rules.md combined / dynamic)."""
        pocketed = view(shot).pocketed()
        objects = [b for b in pocketed if b != cue]
        r.counted.extend(objects)
        r.shelved.extend(objects)
        if cue not in pocketed:
            return
        if self.any_cue_ball:
            r.counted.append(cue)
            r.shelved.append(cue)
            r.notes.append(sentence("Свояк засчитан", "Cue ball pocketed: it counts", "free:1"))
            return
        if state.premium_pending and self.premium == "anywhere":
            r.hand = "house"  # dynamic setting off: the cue ball just does not count
            return
        if not self.cue_counts:
            return
        taken = self._take_ball(state, shot, cue, objects)
        r.hand = self.premium or "house"
        if taken is None:
            return
        r.taken, r.premium = taken, True
        r.refs.append(f"{self.key}:premium")
        r.counted.append(taken)
        r.shelved.append(taken)
        r.notes.append(
            sentence(
                f"Свояк: снят шар {taken}, удар с руки",
                f"Cue ball pocketed: ball {taken} taken off, premium stroke from hand",
                f"{self.key}:premium",
            )
        )

    # ------------------------------------------------------------ helpers
    def _take_ball(self, state: MatchState, shot: Shot, cue: str, gone: list[str]) -> str | None:
        """The object ball the striker takes off after a pocketed cue ball: the referee's
        ``take_ball``; else the lowest-numbered object ball left on the table (documented
        default; the engine fills ``take_ball`` from the next shot's rest when it can)."""
        ref = shot.referee
        if ref is not None and ref.take_ball:
            return ref.take_ball
        left = [b for b in state.on_table if b != cue and b not in gone]
        left += [b for b in shot.rest if b != cue and b not in gone and b not in left]
        if not left:
            return None
        return min(left, key=lambda b: (0, int(b), b) if b.isdigit() else (1, 0, b))

    def _foul_balls(
        self, state: MatchState, cue: str, pocketed: tuple, off: tuple, r: Ruling
    ) -> None:
        """21.3 / 23.4: balls pocketed or off the table on a foul are re-spotted; outside
        free pyramid the cue ball is not re-spotted but played from hand from the house."""
        for b in (*pocketed, *off):
            if b in r.respot:
                continue
            if b == cue and not self.any_cue_ball:
                r.hand = "house"
                continue
            r.respot.append(b)
        if pocketed:
            r.refs.append("pyramid:21.3")
        if off:
            r.refs.append("pyramid:23.4")

    def _penalty(
        self, state: MatchState, striker: Player, r: Ruling, scored: Score, owed: Score
    ) -> None:
        """27.2: one penalty however many fouls. ``point``: +1 to the opponent; ``ball``: the
        offender's last shelf ball goes back on the table, or he owes one."""
        opp = other(striker)
        if state.settings.penalty == "point":
            scored[opp] += 1
            r.notes.append(
                sentence(f"Штраф: +1 игроку {opp}", f"Penalty: 1 point to {opp}", "pyramid:27.2")
            )
            return
        shelf = state.shelf.get(striker, ())
        if shelf:
            b = shelf[-1]
            r.respot.append(b)
            scored[striker] -= self.value(b)
            ru, en = (
                f"шар {b} с полки {striker} выставляется",
                f"ball {b} back from {striker}'s shelf",
            )
        else:
            owed[striker] += 1
            ru, en = (
                f"полка {striker} пуста: шар в долг",
                f"{striker}'s shelf is empty: owes a ball",
            )
        r.notes.append(sentence(f"Штраф: {ru}", f"Penalty: {en}", "pyramid:27.2"))

    def _pay_debt(
        self, state: MatchState, striker: Player, r: Ruling, scored: Score, owed: Score
    ) -> None:
        """Ball-form penalty owed from an empty shelf: paid with the next ball scored."""
        debt = state.extra.get("owed", {}).get(striker, 0)
        while debt > 0 and r.shelved:
            b = r.shelved.pop(0)
            r.respot.append(b)
            scored[striker] -= self.value(b)
            owed[striker] -= 1
            debt -= 1

    def _positions(
        self,
        state: MatchState,
        shot: Shot,
        r: Ruling,
        hang: tuple[str, ...],
        pocketed: tuple[str, ...],
        off: tuple[str, ...],
    ) -> dict[str, Point]:
        """Re-spot positions (rule 25 line; 22.1 hanging balls back to their spot), mm."""
        if not r.respot and not hang:
            return {}
        base = dict(shot.rest) if shot.rest else state.on_table.copy()
        for b in (*pocketed, *off, *r.respot, *hang):
            base.pop(b, None)
        if r.taken:
            base.pop(r.taken, None)
        out: dict[str, tuple[float, float]] = {}
        for b in hang:
            if b in state.on_table:
                out[b] = state.on_table[b]
                base[b] = out[b]
        table = table_for(state.settings.table)
        todo = [b for b in r.respot if b not in out]
        todo += [b for b in hang if b not in out]
        for b, p in respot_positions(table, todo, base).items():
            out[b] = mm_point(*p)
        return out

    def _frame_end(
        self,
        state: MatchState,
        shot: Shot,
        striker: Player,
        scored: Score,
        r: Ruling,
        resp: dict[str, Point],
        legal: bool,
    ) -> tuple[bool, Player | None]:
        """Frame over: a player reached the target, the referee ended it, or (setting)
        three fouls in a row; also when no object ball is left (the higher score wins)."""
        ref = shot.referee
        if ref is not None and ref.end_frame:
            return True, ref.end_frame
        target = self.frame_target(state)
        new = {p: state.score.get(p, 0) + scored[p] for p in ("A", "B")}
        for p in (striker, other(striker)):
            if new[p] >= target:
                return True, p
        three = state.settings.three_fouls_lose  # uncertain in the texts: a setting, off
        if not legal and three and state.consecutive_fouls.get(striker, 0) + 1 >= 3:
            return True, other(striker)
        left = self._objects_left(state, shot, r, resp)
        if left == 0:
            a, b = new["A"], new["B"]
            return True, ("A" if a > b else "B" if b > a else None)
        return False, None

    def _objects_left(
        self, state: MatchState, shot: Shot, r: Ruling, resp: dict[str, Point]
    ) -> int:
        """Balls still to play for after this shot, counted from the shelves (robust to
        missing rest positions): free needs two balls on the table, the others one object
        ball (the yellow never sits on a shelf there)."""
        return self.balls_left(state, r) - (1 if self.any_cue_ball else 0)

    def balls_left(self, state: MatchState, r: Ruling) -> int:
        """Object balls (free: all 16 balls) not on a shelf once this shot is settled."""
        shelves = [b for s in state.shelf.values() for b in s]
        back = sum(1 for b in r.respot if b in shelves)
        total = 16 if self.any_cue_ball else 15
        return total - len(shelves) - len(r.shelved) + back

    def _void(self, state: MatchState, striker: Player, ref: str, kind: str) -> Verdict:
        """A shot that does not count: balls back where they were, same player again."""
        extra: dict[str, object] = {}
        if kind == "rerack":
            why = sentence(
                "Внешнее вмешательство, позицию не восстановить: пирамида заново, биток в доме,"
                " счёт сохраняется; право удара — разбег",
                "Outside interference, positions unknown: balls re-racked, the yellow in the"
                " house, the score stands; a lag decides who breaks",
                ref,
            )
            extra = {"rerack": True, "ball_in_hand": "house"}
        elif kind == "restore":
            why = sentence(
                "Внешнее вмешательство: шары возвращены, без штрафа",
                "Outside interference: balls put back, no penalty",
                ref,
            )
        else:
            why = sentence(
                "Висячий шар упал от касания: шары возвращены, удар переигрывается",
                "A hanging ball fell when touched: balls put back, the shot is replayed",
                ref,
            )
        return Verdict.model_construct(
            legal=True,
            fouls=(),
            scored={"A": 0, "B": 0},
            pocketed=(),
            next=striker,
            respot=(),
            rule_refs=(ref,),
            reasons=(why,),
            options=(),
            replay=True,
            shelved=(),
            **extra,
        )
