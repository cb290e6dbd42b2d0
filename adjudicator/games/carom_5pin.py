"""5-pin carom ("carom-5pin"): ``judge(state, shot) -> Verdict`` and ``apply``.

Seed 002 (WCBS, 1997). Every shot passes the turn (rule 2: strokes alternate). On a
valid shot (the striker's own ball touches the opponent's ball first, rules 4.3, 5)
the striker scores the skittles and the carom (rule 8); on a foul every point of the
shot and of each foul goes to the opponent (rules 7, 15.1), who plays from hand
unless the only foul is the own ball's skittles (13.1, 15.2). A score passing the
target is capped at it (rule 2); the break alternates by frame (4.5). Positions mm.

Verdict extensions: ``hand_half`` (``bottom``/``top``: where the incoming ball may be
placed, rule 13), ``uncapped`` (the points before the cap), ``frame_over``/``winner``,
``lag_winner`` (a lag shot). Referee choices (``RefereeInput.choice``): on the shot
after a foul ``respot_offender`` (rule 13.5); on a lag shot ``concede`` (the winner
gives the break away, rule 3). Players' balls: A white, B yellow unless
``initial_state(..., balls=...)`` says otherwise (rule 3: by agreement or lot).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

from adjudicator.base import MatchSettings, MatchState, Player, frozen_map, other, register
from adjudicator.carom import facts as F
from adjudicator.carom.fouls import DETECTED, MISPLACED, FoulRule, reason, rule_for
from adjudicator.carom.lag import judge_lag
from adjudicator.carom.placement import (
    break_position,
    hand_half,
    in_half,
    off_table_spots,
    respot_offender,
)
from adjudicator.carom.skittles import skittle_plan
from adjudicator.carom.values import carom_points, skittle_points, values_for
from adjudicator.lag_call import lag_verdict
from contract.match import Foul, Respot, Shot, Verdict
from contract.tables import TableSpec, load_table

GENERIC_TABLE = "pyramid-12ft"  # MatchSettings' default: means "the game's table"
TABLE = "carom-match"
RESPOT_OFFENDER = "respot_offender"  # rule 13.5: the incoming player's request
SCORING: tuple[F.Predicate, ...] = (  # rules 5.1–5.7: at most one fits a valid shot
    F.object_ball_skittles,
    F.carom_then_skittles,
    F.kiss_then_skittles,
    F.double_carom_skittles,
    F.cue_ball_carom,
    F.object_ball_carom,
    F.double_carom,
)


@lru_cache(maxsize=16)
def _load(name: str) -> TableSpec:
    t = load_table(name)
    if t.kind != "carom" or not t.skittle_spots:
        raise ValueError(f"table {name!r} is not a 5-pin carom table (it has no skittle marks)")
    return t


SKITTLE_RU = {"centre": "центральная", "front": "передняя", "back": "задняя",
              "left": "левая", "right": "правая"}  # fmt: skip


def _names(ids: tuple[str, ...], ru: bool = False) -> str:
    return ", ".join(SKITTLE_RU[i] if ru else i for i in ids)


@dataclass(frozen=True)
class _After:
    """After a shot: ball positions for the next (mm), the referee's re-spots (balls,
    rule 11.3; skittles, rule 12), and the skittles left off (12.7)."""

    balls: dict[str, tuple[float, float]]
    respot: tuple[Respot, ...]
    removed: tuple[str, ...]


class Carom5Pin:
    """The 5-pin rules. ``state.extra`` keys: ``balls`` (player -> own ball),
    ``hand_half`` (``bottom``/``top`` while a ball is in hand), ``skittles_removed``
    (rule 12.7), ``lag_faults`` (late starts in the lag, rule 3)."""

    name = "carom-5pin"
    _cache: tuple | None = None

    # ---------------------------------------------------------------- settings
    @staticmethod
    def table(settings: MatchSettings) -> TableSpec:
        return _load(TABLE if settings.table == GENERIC_TABLE else settings.table)

    @staticmethod
    def values(settings: MatchSettings) -> Mapping[str, int]:
        return values_for(settings.carom_values)

    def target(self, settings: MatchSettings) -> int:
        """Rule 2: the points to win a frame (the match's, else the values table's 60)."""
        return settings.target or self.values(settings)["target"]

    def initial_state(
        self,
        settings: MatchSettings,
        breaker: Player = "A",
        balls: Mapping[str, str] | None = None,
    ) -> MatchState:
        """The break position (rule 4.1); ``balls``: player -> own ball (A white, B yellow)."""
        table = self.table(settings)
        self.values(settings)  # validate overrides early
        own = dict(balls or F.DEFAULT_BALLS)
        if sorted(own.values()) != ["white", "yellow"] or set(own) != {"A", "B"}:
            raise ValueError(f"players' balls must be white and yellow, got {own}")
        return MatchState(
            settings=settings,
            turn=breaker,
            breaker=breaker,
            on_table=frozen_map(break_position(table, own[other(breaker)])),
            ball_in_hand="carom_hand",
            cue_ball=own[breaker],
            extra=frozen_map(
                {
                    "balls": frozen_map(own),
                    "hand_half": "bottom",
                    "skittles_removed": (),
                    "lag_faults": frozen_map({"A": 0, "B": 0}),
                }
            ),
        )

    def _new_frame(self, state: MatchState) -> MatchState:
        """Rule 4.5: the next frame, broken by the other player, from the break position."""
        own = F.balls_of(state)
        breaker = other(state.breaker)
        table = self.table(state.settings)
        return replace(
            state,
            frame_no=state.frame_no + 1,
            score=frozen_map({"A": 0, "B": 0}),
            turn=breaker,
            breaker=breaker,
            is_break=True,
            on_table=frozen_map(break_position(table, own[other(breaker)])),
            ball_in_hand="carom_hand",
            cue_ball=own[breaker],
            options=(),
            frame_over=False,
            frame_winner=None,
            extra=frozen_map(
                {
                    **state.extra,
                    "hand_half": "bottom",
                    "skittles_removed": (),
                    "lag_faults": frozen_map({"A": 0, "B": 0}),
                }
            ),
        )

    def _prepare(self, state: MatchState, shot: Shot) -> MatchState:
        """The state the shot is played from: a new frame after a finished one, and the
        incoming player's rule-13.5 request applied."""
        if state.match_over:
            raise ValueError(f"shot {shot.index}: the match is already over")
        if state.frame_over:
            state = self._new_frame(state)
        ref = shot.referee
        if ref is not None and ref.choice == RESPOT_OFFENDER and state.ball_in_hand:
            offender = F.balls_of(state)[other(state.turn)]
            table = self.table(state.settings)
            at = respot_offender(state.on_table, offender, table)
            state = replace(
                state,
                on_table=frozen_map({**state.on_table, offender: at}),
                extra=frozen_map({**state.extra, "hand_half": hand_half(at, table)}),
            )
        return state

    # ------------------------------------------------------------------- judge
    def judge(self, state: MatchState, shot: Shot) -> Verdict:
        """The verdict on one shot (rules 2, 5–8, 11–13, 15); ``scored`` capped at the target."""
        state = self._prepare(state, shot)
        ref = shot.referee
        if ref is not None and ref.verdict is not None:
            return ref.verdict
        f = F.facts(state, shot)
        if f.is_lag:
            return self._judge_lag(state, shot)
        fouls = self._fouls(state, shot, f)
        pts, gainer, refs, reasons = self._points(state, shot, f, fouls)
        if any(b is None for _, b in f.knocked):
            reasons.append(reason("carom:12.3", "Не определено, чем сбита фишка",
                                  "The ball that knocked a skittle is unknown"))  # fmt: skip
        if shot.player is not None and shot.player != state.turn:
            reasons.append(reason("carom:2", f"Очередь удара игрока {state.turn}",
                                  f"It was player {state.turn}'s turn"))  # fmt: skip
        target = self.target(state.settings)
        had = state.score.get(gainer, 0)
        extra: dict[str, object] = {}
        if had + pts > target:  # rule 2: the winner's total is brought down to the target
            refs.append("carom:2")
            reasons.append(reason("carom:2", f"Очки сведены к пределу {target} (было бы {had + pts})",
                                  f"Score capped at the target {target} (would be {had + pts})"))  # fmt: skip
            extra["uncapped"] = pts
            pts = max(0, target - had)
        if pts and had + pts >= target:
            extra.update(frame_over=True, winner=gainer)
        hand = any(r.hand for r in fouls)
        after = self._after(state, shot, f, hand)
        options: tuple[str, ...] = ()
        if hand:
            options = ("hand", RESPOT_OFFENDER)
            extra["hand_half"] = hand_half(after.balls.get(f.own), self.table(state.settings))
        return Verdict(
            legal=not fouls,
            fouls=tuple(r.code for r in fouls),
            scored={"A": 0, "B": 0} | {gainer: pts},
            next=other(state.turn),
            respot=after.respot,
            rule_refs=tuple(dict.fromkeys(refs)),
            reasons=tuple(reasons),
            options=options,
            **extra,
        )

    def _points(
        self, state: MatchState, shot: Shot, f: F.ShotFacts, fouls: list[FoulRule]
    ) -> tuple[int, Player, list[str], list[dict[str, str]]]:
        """The shot's points, who gains them, the clauses and the sentences. Valid: the
        skittles and the carom to the striker (5, 8). Foul: every foul's points, the
        skittles and the carom to the opponent (7, 15.1); red first: 2 + 2, no carom."""
        values = self.values(state.settings)
        skit = skittle_points(f.knocked_ids, values)
        red_first = any(r.code == Foul.RED_FIRST for r in fouls)
        carom = 0 if red_first else carom_points(f.cue_on_red, f.object_on_red, values)
        if not fouls:
            pts = skit + carom
            refs = [p.ref for p in SCORING if p(state, shot)] or ["carom:8" if pts else "carom:6"]
            return pts, state.turn, refs, self._score_reasons(f, skit, carom)
        opp = other(state.turn)
        pen = sum(values[k] for r in fouls for k in r.points)
        pts = pen + skit + carom
        refs = [c for r in fouls for c in r.refs] + ["carom:7"]
        if len(fouls) > 1 or skit or carom:
            refs.append("carom:15.1")
        reasons = [r.reason() for r in fouls]
        reasons.append(reason("carom:15.1",
                              f"Игроку {opp}: штраф {pen} + фишки {skit} + карамболь {carom} = {pts}",
                              f"To player {opp}: penalty {pen} + skittles {skit} + carom {carom} = {pts}"))  # fmt: skip
        return pts, opp, refs, reasons

    def _fouls(self, state: MatchState, shot: Shot, f: F.ShotFacts) -> list[FoulRule]:
        """The camera's fouls (unless the referee annulled them) and the referee's, each once."""
        ref = shot.referee
        out: list[FoulRule] = []
        if ref is None or not ref.annul:
            out = [r for r in DETECTED if r.detect(state, shot)]  # type: ignore[misc]
            if self._misplaced(state, shot, f):
                out.append(MISPLACED)
        for code in ref.fouls if ref is not None else ():
            r = rule_for(code)
            if all(r.code != o.code for o in out):
                out.append(r)
        return out

    def _misplaced(self, state: MatchState, shot: Shot, f: F.ShotFacts) -> bool:
        """Rule 13.3 / 4.2: the ball in hand struck from outside its half (needs the
        strike event's ``at``; without it nothing is assumed)."""
        if not state.ball_in_hand or f.cue != f.own:
            return False
        at = next((e.at for e in shot.events if e.type == "strike" and e.ball == f.cue), None)
        if at is None:
            return False
        table = self.table(state.settings)
        half = state.extra.get("hand_half", "bottom")
        others = [p for b, p in state.on_table.items() if b != f.own]
        return not in_half(at, half, table, others)  # type: ignore[arg-type]

    @staticmethod
    def _score_reasons(f: F.ShotFacts, skit: int, carom: int) -> list[dict[str, str]]:
        out = []
        if skit:
            n, rn = _names(f.knocked_ids), _names(f.knocked_ids, ru=True)
            out.append(
                reason(
                    "carom:8.1",
                    f"Сбиты фишки ({rn}): {skit} очк.",
                    f"Skittles down ({n}): {skit} points",
                )
            )
        if carom:
            if f.cue_on_red:
                out.append(reason("carom:8.2", f"Карамболь битка в красный шар: {carom} очк.",
                                  f"Carom of the cue ball on the red: {carom} points"))  # fmt: skip
            else:
                out.append(reason("carom:8.2", f"Карамболь рикошетом в красный шар: {carom} очк.",
                                  f"Kiss carom of the opponent's ball on the red: {carom} points"))  # fmt: skip
        if not out:
            out.append(reason("carom:6", "Правильный удар без очков", "Valid shot, no points"))
        return out

    # --------------------------------------------------------- next positions
    def _after(self, state: MatchState, shot: Shot, f: F.ShotFacts, hand: bool) -> _After:
        """Positions for the next shot; judge and apply of one shot share it (identity cache)."""
        c = self._cache
        if c is not None and c[0] is state and c[1] is shot and c[2] == hand:
            return c[3]
        table = self.table(state.settings)
        incoming = F.balls_of(state)[other(state.turn)]
        pos = {b: p for b, p in state.on_table.items() if b in F.BALLS}
        pos.update({b: tuple(p) for b, p in shot.rest.items() if b in F.BALLS})  # type: ignore[misc]
        for b in f.off_table:
            pos.pop(b, None)
        spots = off_table_spots(f.off_table, pos, f.own, incoming, table) if f.off_table else {}
        pos.update(spots)
        if hand:
            pos.pop(incoming, None)
        rest = {k: v for k, v in shot.rest.items() if k not in F.BALLS}
        removed = state.extra.get("skittles_removed", ())
        sk, gone = skittle_plan(table, pos, f.knocked_ids, removed, rest)  # type: ignore[arg-type]
        out = _After(pos, tuple(Respot(id=b, at=p) for b, p in spots.items()) + sk, gone)
        self._cache = (state, shot, hand, out)
        return out

    # ------------------------------------------------------------------- apply
    def apply(self, state: MatchState, shot: Shot, verdict: Verdict) -> MatchState:
        state = self._prepare(state, shot)
        f = F.facts(state, shot)
        if f.is_lag:
            return self._apply_lag(state, shot, verdict)
        target = self.target(state.settings)
        score = {
            p: min(target, state.score.get(p, 0) + verdict.scored.get(p, 0)) for p in ("A", "B")
        }
        hand = any(rule_for(c).hand for c in verdict.fouls)
        after = self._after(state, shot, f, hand)
        balls = after.balls
        table = self.table(state.settings)
        extra = {**state.extra, "skittles_removed": after.removed, "hand_half": None}
        if hand:
            extra["hand_half"] = hand_half(balls.get(f.own), table)
        nxt = verdict.next
        reached = [p for p in (state.turn, other(state.turn)) if score[p] >= target]
        frames = dict(state.frames)
        winner: Player | None = None
        if reached:
            winner = (
                other(state.turn) if verdict.fouls and other(state.turn) in reached else reached[0]
            )
            frames[winner] = frames.get(winner, 0) + 1
        match_over = bool(winner) and frames[winner] >= state.settings.race_to  # type: ignore[index]
        return replace(
            state,
            score=frozen_map(score),
            frames=frozen_map(frames),
            turn=nxt,
            shot_no=state.shot_no + 1,
            is_break=False,
            on_table=frozen_map(balls),
            ball_in_hand="carom_hand" if hand else None,
            cue_ball=F.balls_of(state)[nxt],
            options=verdict.options,
            last_verdict=verdict,
            frame_over=winner is not None,
            frame_winner=winner,
            match_over=match_over,
            winner=winner if match_over else None,
            extra=frozen_map(extra),
        )

    # --------------------------------------------------------------------- lag
    def _lag(self, state: MatchState, shot: Shot):
        if not state.is_break:
            raise ValueError(f"shot {shot.index}: a lag is played only before a frame's break")
        faults = state.extra.get("lag_faults", {"A": 0, "B": 0})
        return judge_lag(shot, F.balls_of(state), faults, self.table(state.settings))  # type: ignore[arg-type]

    def _judge_lag(self, state: MatchState, shot: Shot) -> Verdict:
        res = self._lag(state, shot)
        breaker = state.turn
        options: tuple[str, ...] = ()
        if res.winner is not None:
            give = shot.referee is not None and shot.referee.choice == "concede"
            breaker = other(res.winner) if give else res.winner
            options = ("break", "concede")
        return lag_verdict(
            res.winner, breaker, res.refs, res.reasons, options, res.call, res.losers
        )

    def _apply_lag(self, state: MatchState, shot: Shot, verdict: Verdict) -> MatchState:
        res = self._lag(state, shot)
        extra = {**state.extra, "lag_faults": frozen_map(res.faults)}
        if res.winner is None:
            return replace(
                state, shot_no=state.shot_no + 1, last_verdict=verdict, extra=frozen_map(extra)
            )
        breaker = verdict.next
        own = F.balls_of(state)
        table = self.table(state.settings)
        extra.update(hand_half="bottom", lag_faults=frozen_map({"A": 0, "B": 0}))
        return replace(
            state,
            turn=breaker,
            breaker=breaker,
            shot_no=state.shot_no + 1,
            on_table=frozen_map(break_position(table, own[other(breaker)])),
            ball_in_hand="carom_hand",
            cue_ball=own[breaker],
            options=(),
            last_verdict=verdict,
            extra=frozen_map(extra),
        )


RULES = register(Carom5Pin())
