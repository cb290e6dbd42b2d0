"""The one seam to the adjudicator: stored shots -> judged match and its current state.

Calls :func:`adjudicator.engine.judge_match`, which recomputes every verdict from the shot
list (referee input included). Where the engine is not importable yet the state is folded
from the verdicts the shots carry (``judged_by = "recorded"``), never invented.
Positions are table mm (contract §1).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from contract.match import Match, MatchStart, Shot, Verdict, VideoInfo


@dataclass(frozen=True)
class StateView:
    """The match state the service shows. ``on_table``: id -> (x, y) mm of balls at rest;
    ``shelf``: player -> pocketed ids kept; ``ball_in_hand``: the zone (``house``, ``anywhere``
    ...) or None; ``judged_by``: ``adjudicator`` or ``recorded`` (verdicts as the shots
    carry them, when the engine is not available)."""

    game: str
    frame: int = 1
    score: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    frames: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    turn: str = "A"
    breaker: str = "A"
    shot_no: int = 0
    ball_in_hand: str | None = None
    on_table: dict[str, tuple[float, float]] = field(default_factory=dict)
    shelf: dict[str, tuple[str, ...]] = field(default_factory=lambda: {"A": (), "B": ()})
    options: tuple[str, ...] = ()
    call: dict | None = None
    last_verdict: Verdict | None = None
    frame_over: bool = False
    frame_winner: str | None = None
    match_over: bool = False
    winner: str | None = None
    judged_by: str = "adjudicator"
    score_as_read: dict[str, int] | None = None
    """The score with every open question read the most likely way (``score`` counts only
    settled shots, contract §11); None when nothing is pending."""
    pending: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    """Open question id -> option key -> what each player gains under it."""
    lag: dict | None = None
    """The lag (pyramid 8, 5-pin 3): see :func:`lag_view`; None when the match has none."""

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "frame": self.frame,
            "score": dict(self.score),
            "frames": dict(self.frames),
            "turn": self.turn,
            "breaker": self.breaker,
            "shot_no": self.shot_no,
            "ball_in_hand": self.ball_in_hand,
            "on_table": {k: [float(v[0]), float(v[1])] for k, v in self.on_table.items()},
            "shelf": {k: list(v) for k, v in self.shelf.items()},
            "options": list(self.options),
            "call": self.call,
            "last_verdict": None
            if self.last_verdict is None
            else self.last_verdict.model_dump(mode="json", exclude_none=True),
            "frame_over": self.frame_over,
            "frame_winner": self.frame_winner,
            "match_over": self.match_over,
            "winner": self.winner,
            "judged_by": self.judged_by,
            "score_as_read": None if self.score_as_read is None else dict(self.score_as_read),
            "pending": self.pending,
            "lag": self.lag,
        }


@dataclass(frozen=True)
class Judged:
    match: Match  # shots with the verdicts in force
    state: StateView


def build_match(settings: dict, shots: list[dict]) -> Match:
    """A contract Match from a stored match's settings and its shots' JSON."""
    start = MatchStart(
        score=settings.get("start_score") or {"A": 0, "B": 0},
        target=settings.get("target"),
        breaker=settings.get("breaker_player") or "A",
    )
    # a table whose calibration could not tell its ends apart: the match says so, as a
    # replay's MATCH.json does (``video.ends``), and the adjudicator asks what hangs on it
    # a table found by its cloth's outline alone (``video.calibration``): every verdict asked
    doubts = {"ends": "assumed"} if settings.get("ends") else {}
    doubts |= {"calibration": "rough"} if settings.get("calibration") == "rough" else {}
    video = VideoInfo(fps=30.0, frames=0, **doubts) if doubts else None
    return Match(
        game=settings["game"],
        table=settings.get("table") or "pyramid-12ft",
        video=video,
        shots=tuple(Shot.model_validate(s) for s in shots),
        start=start,
    )


def _engine() -> Any | None:
    try:
        from adjudicator import engine
    except ImportError:
        return None
    return engine if hasattr(engine, "judge_match") else None


def judge(settings: dict, shots: list[dict]) -> Judged:
    """Judge a stored match. Raises ValueError (one line) when the adjudicator refuses it."""
    match = build_match(settings, shots)
    eng = _engine()
    if eng is None:
        return Judged(match, _fold_recorded(match))
    from adjudicator.base import MatchSettings

    ms = MatchSettings(
        game=settings["game"],
        table=settings.get("table") or "pyramid-12ft",
        target=settings.get("target"),
        race_to=settings.get("race_to", 1),
        penalty=settings.get("penalty", "point"),
    )
    judged, states = eng.judge_match(match, ms)
    if states:
        st = states[-1]
    elif hasattr(eng, "start_state"):
        st = eng.start_state(match, eng.settings_for(match, ms))
    else:
        from adjudicator.base import rules_for

        st = rules_for(ms.game).initial_state(ms, match.start.breaker if match.start else "A")
    view = replace(_from_state(st), lag=lag_view(settings, judged))
    if judged.pending or any(q.answer is None for q in judged.questions):
        view = replace(
            view,
            score=dict(judged.score),
            score_as_read=dict(view.score),
            pending=dict(judged.pending),
        )
    return Judged(judged, view)


def lag_view(settings: dict, match: Match) -> dict | None:
    """The lag as the scoreboard shows it: ``status`` ``waiting`` (a ``breaker: "lag"``
    match before any shot), ``asked`` (too close to call: question ``question`` is open),
    ``repeat`` (to be played again), ``choose`` (the winner is to choose: break or concede,
    ``RefereeInput.choice`` on shot ``shot``) or ``decided``; with the adjudicator's
    ``lag`` extension (each ball's distance to the near cushion and its uncertainty in mm,
    the reason a ball lost), ``winner``, ``breaker`` and the verdict's ``reasons``. None
    when the match has no lag."""
    shots = match.shots
    at = [i for i, sh in enumerate(shots) if any(e.type == "lag" for e in sh.events)]
    if not at:
        waiting = settings.get("breaker") == "lag" and not shots
        return {"status": "waiting", "winner": None} if waiting else None
    i = at[-1]
    sh = shots[i]
    v = sh.verdict
    if v is None:
        return None
    ext = dict((v.__pydantic_extra__ or {}).get("lag") or {})
    ext.pop("ask", None)
    winner = (v.__pydantic_extra__ or {}).get("lag_winner")
    q = next((q for q in match.questions
              if q.shot == sh.index and q.about == "lag" and q.answer is None), None)  # fmt: skip
    choice = sh.referee.choice if sh.referee is not None else None
    if q is not None:
        status = "asked"
    elif winner is None:
        status = "repeat"
    elif choice in ("break", "concede") or i < len(shots) - 1:
        status = "decided"
    else:
        status = "choose"
    return {
        **ext,
        "shot": sh.index,
        "status": status,
        "winner": winner,
        "breaker": v.next if winner is not None else None,
        "choice": choice,
        "question": q.id if q is not None else None,
        "uncertain": v.uncertain,
        "reasons": list(v.reasons),
    }


def _from_state(st: Any) -> StateView:
    return StateView(
        game=st.settings.game,
        frame=st.frame_no,
        score=dict(st.score),
        frames=dict(st.frames),
        turn=st.turn,
        breaker=st.breaker,
        shot_no=st.shot_no,
        ball_in_hand=st.ball_in_hand,
        on_table={k: (float(v[0]), float(v[1])) for k, v in st.on_table.items()},
        shelf={k: tuple(v) for k, v in st.shelf.items()},
        options=tuple(st.options),
        call=None if st.call is None else st.call.model_dump(mode="json"),
        last_verdict=st.last_verdict,
        frame_over=st.frame_over,
        frame_winner=st.frame_winner,
        match_over=st.match_over,
        winner=st.winner,
        judged_by="adjudicator",
    )


def _fold_recorded(match: Match) -> StateView:
    """The state from the verdicts the shots carry (referee's replacement first)."""
    start = match.start or MatchStart()
    score = dict(start.score)
    shelf: dict[str, list[str]] = {"A": [], "B": []}
    turn, last, on_table = start.breaker, None, {}
    frame, frames = 1, {"A": 0, "B": 0}
    for shot in match.shots:
        v = shot.referee.verdict if shot.referee and shot.referee.verdict else shot.verdict
        on_table = dict(shot.rest) or on_table
        if v is not None:
            for p in ("A", "B"):
                score[p] = score.get(p, 0) + int(v.scored.get(p, 0))
            if shot.player in shelf:
                shelf[shot.player].extend(v.pocketed)
            turn, last = v.next, v
        if shot.referee and shot.referee.end_frame:
            frames[shot.referee.end_frame] += 1
            frame += 1
            score = {"A": 0, "B": 0}
    return StateView(
        game=str(match.game),
        frame=frame,
        score=score,
        frames=frames,
        turn=turn,
        breaker=start.breaker,
        shot_no=len(match.shots),
        on_table=on_table,
        shelf={k: tuple(v) for k, v in shelf.items()},
        last_verdict=last,
        judged_by="recorded",
    )
