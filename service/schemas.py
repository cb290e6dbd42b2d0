"""Request (``*In``) and response (``*Out``) schemas of the REST API.

Inputs forbid unknown fields and bound every size; outputs are what clients may rely on.
Positions are table mm (contract §1); times are Unix seconds.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contract.match import Foul, Game, Shot, Verdict

Player = Literal["A", "B"]
Name = Field(min_length=1, max_length=100)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- tables -------------------------------------------------------------------------------
class TableIn(_In):
    """``source``: a camera index (``0``), an ``rtsp://`` / ``http(s)://`` URL, or a video file
    under ``TABLEMON_VIDEO_DIR`` played as if live. ``calibration``: a CALIB.json object
    (contract §6); without it the table is calibrated automatically when the vision can."""

    name: str = Name
    source: str = Field(min_length=1, max_length=1000)
    spec: str = Field(default="pyramid-12ft", min_length=1, max_length=100)
    calibration: dict | None = None


class TableHealth(BaseModel):
    """Whether the table's vision keeps up with its camera (issue 29)."""

    state: Literal["ok", "behind", "blind"] = Field(
        default="ok",
        description="ok: keeping up; behind: frames wait over 1 s (shots come late, none "
        "lost); blind: frames lost within 10 s (the shots they touch are flagged unseen)",
    )
    since: float | None = Field(default=None, description="Unix seconds the state began")
    frames_in: int = Field(default=0, description="frames the camera delivered")
    processed: int = Field(default=0, description="frames the vision processed")
    dropped: int = Field(default=0, description="frames not processed: skipped_idle + lost")
    skipped_idle: int = Field(
        default=0, description="frames skipped while behind with every ball at rest"
    )
    lost: int = Field(default=0, description="frames never processed though play may go on")
    late: int = Field(
        default=0, description="of lost: a file played as live read too late (as a camera's)"
    )
    lag_s: float = Field(default=0.0, description="how long the oldest waiting frame waited")
    max_lag_s: float = 0.0
    buffered: int = Field(default=0, description="frames waiting for the vision")
    flagged: int = Field(default=0, description="shots flagged or recorded unseen")
    unseen: list[list[int]] = Field(
        default_factory=list, description="[from, to] stream frames lost, not yet settled"
    )


class TableStatus(BaseModel):
    running: bool = False
    connected: bool = False
    fps: float = 0.0
    frames: int = 0
    dropped: int = 0
    gaps: list[dict] = Field(default_factory=list, description="[{start, end}] Unix seconds")
    restarts: int = 0
    last_error: str | None = None
    last_calibration_check: float | None = None
    calibration: dict = Field(
        default_factory=dict, description="automatic calibration: state, at, error, rms_mm"
    )
    vision: str | None = Field(default=None, description="why no shots come, if none can")
    camera_moved: list[dict] = Field(
        default_factory=list,
        description="the camera's moves seen live, last 100: contract events "
        "{frame, t, type: camera_moved, until} (frames of the live stream, t in seconds)",
    )
    ended: bool = Field(default=False, description="a file source played to its end")
    health: TableHealth = Field(default_factory=TableHealth)
    flagged: int = Field(default=0, description="shots stored flagged unseen")


class TableOut(BaseModel):
    id: int
    name: str
    source: str
    spec: str
    calibrated: bool
    created: float
    status: TableStatus


# -- matches ------------------------------------------------------------------------------
class PlayersIn(_In):
    A: str = Name
    B: str = Name


class MatchIn(_In):
    """``breaker``: who breaks, or ``lag`` (the referee enters the lag's winner later);
    ``target``: points to win a frame (the game's default when omitted); ``race_to``: frames
    to win the match; ``penalty``: pyramid penalty form (``point`` +1 to the opponent,
    ``ball`` a ball back from the offender's shelf)."""

    game: Game
    players: PlayersIn
    table_id: int | None = Field(default=None, ge=1, le=2**62)
    table: str | None = Field(default=None, min_length=1, max_length=100, description="spec")
    race_to: int = Field(default=1, ge=1, le=99)
    penalty: Literal["point", "ball"] = "point"
    target: int | None = Field(default=None, ge=1, le=1000)
    breaker: Literal["A", "B", "lag"] = "A"
    start_score: dict[Player, int] | None = None


class MatchOut(BaseModel):
    id: int
    table_id: int | None
    game: str
    table: str
    players: dict[str, str]
    race_to: int
    penalty: str
    target: int | None
    breaker: str
    created: float
    rev: int


# -- questions (contract §11) ---------------------------------------------------------------
class OptionOut(BaseModel):
    """One answer the referee may give: ``key`` (what to POST), ``label``, ``gains`` (what
    each player gains from the shot under it; null: no verdict), ``text`` the verdict in
    words (ru, en)."""

    key: str
    label: str
    gains: dict[str, int] | None
    text: dict[str, str]


class QuestionBrief(BaseModel):
    """A question of the referee's. ``id`` (``q3``) is renumbered on every change; ``ref``
    (``7-verdict``: shot and about) names it stably; routes accept either. ``why``: the
    adjudicator's words; ``doubts``: the vision's, event by event. ``frames``: the
    decisive stills' frame numbers; ``stills``: their URLs where the match's table plays a
    video file; ``answer``: the chosen option's key (null while open)."""

    id: str
    ref: str
    shot: int | None
    about: str
    why: str
    doubts: list[dict] = Field(
        description="what the vision was unsure of in the shot: [{frame, event, why}]"
    )
    frames: list[int]
    stills: list[str]
    options: list[OptionOut]
    answer: str | None


class OptionFull(OptionOut):
    verdict: Verdict | None = Field(description="the shot's verdict under this option")


class QuestionOut(QuestionBrief):
    """A question with each option's full verdict and who answered it, when."""

    options: list[OptionFull]  # type: ignore[assignment]
    by: str | None
    at: str | None = Field(description="when it was answered, ISO 8601 UTC")


class QuestionsOut(BaseModel):
    """Every question of the match (open and answered) with ``score`` (settled shots only)
    and ``pending`` (open question id -> option key -> gains)."""

    match_id: int
    rev: int
    open: int
    score: dict[str, int]
    score_as_read: dict[str, int] | None
    pending: dict[str, dict[str, dict[str, int]]]
    questions: list[QuestionOut]


class AnswerIn(_In):
    option: str = Field(min_length=1, max_length=300, description="an option's key")


class AnswerOut(BaseModel):
    """The answered question as judged now, and the match's state."""

    question: QuestionOut
    state: StateOut


class StateOut(BaseModel):
    """The current state: ``score`` points in this frame, ``frames`` frames won, ``turn`` who
    plays, ``ball_in_hand`` its zone or null, ``on_table`` id -> [x, y] mm, ``shelf`` the
    pocketed balls each player keeps, ``last_verdict`` with its reasons; ``rev`` grows on
    every change; ``judged_by`` is ``adjudicator`` (or ``recorded`` without one)."""

    match_id: int
    rev: int
    game: str
    frame: int
    score: dict[str, int]
    frames: dict[str, int]
    turn: str
    breaker: str
    shot_no: int
    ball_in_hand: str | None
    on_table: dict[str, tuple[float, float]]
    shelf: dict[str, list[str]]
    options: list[str]
    call: dict | None
    pending_call: dict | None = None
    last_verdict: Verdict | None
    last_verdict_text: dict[str, str]
    frame_over: bool
    frame_winner: str | None
    match_over: bool
    winner: str | None
    judged_by: str
    score_as_read: dict[str, int] | None = Field(
        default=None,
        description="the score with every open question read the most likely way; "
        "null when nothing is pending (``score`` counts only settled shots)",
    )
    pending: dict[str, dict[str, dict[str, int]]] = Field(
        default_factory=dict,
        description="open question id -> option key -> what each player gains under it",
    )
    questions_open: int = 0
    questions: list[QuestionBrief] = Field(
        default_factory=list, description="the open questions (GET .../questions for all)"
    )
    lag: dict | None = Field(
        default=None,
        description="the lag: status (waiting, asked, repeat, choose, decided), winner, "
        "breaker, balls (player -> ball, distance_mm to the near cushion, uncertainty_mm, "
        "lost: the reason it lost), difference_mm, uncertainty_mm (of the difference), "
        "question (the open lag question's id), reasons; null when the match has no lag",
    )


class ShotIn(Shot):
    """A contract §8 shot (events, rest, optionally a verdict the engine will recompute).
    ``index`` may be omitted: the next index is taken."""

    index: int | None = Field(default=None, ge=1, le=2**62)  # type: ignore[assignment]


class ShotsOut(BaseModel):
    match_id: int
    shots: list[dict] = Field(description="contract §8 shots with the verdicts in force")
    next_since: int | None = Field(description="pass as ?since= for the next page; null: end")


class ShotAdded(BaseModel):
    index: int
    verdict: Verdict | None
    state: StateOut


# -- referee ------------------------------------------------------------------------------
class _OnShot(_In):
    shot: int | None = Field(
        default=None, ge=1, le=2**62, description="shot index; default the last"
    )


class CallIn(_In):
    """A classic-pyramid call; without ``shot`` it applies to the next shot played."""

    ball: str = Field(min_length=1, max_length=20)
    pocket: str = Field(min_length=1, max_length=20)
    shot: int | None = Field(default=None, ge=1, le=2**62)


class FoulIn(_OnShot):
    foul: Foul


class AnnulIn(_OnShot):
    annul: bool = True


class RestoreIn(_OnShot):
    restore: bool = Field(default=True, description="false undoes an earlier restore")


class VerdictIn(_OnShot):
    verdict: Verdict | None = Field(description="the replacement verdict; null removes it")


class ChoiceIn(_OnShot):
    choice: Literal["play", "hand_back", "rerack", "rebreak", "break", "concede"]
    """After a foul: the opponent's option; on a lag shot: the winner's (break or concede)."""


class EndFrameIn(_OnShot):
    winner: Player


class LagIn(_In):
    winner: Player


class AuditOut(BaseModel):
    id: int
    match_id: int
    shot: int | None
    at: float
    who: str
    action: str
    before: dict | None
    after: dict | None


# -- scoreboard ---------------------------------------------------------------------------
class ScoreboardOut(BaseModel):
    """A flat object for overlays (CueScore-like names where they fit)."""

    matchId: int
    tableId: int | None
    tableName: str | None
    game: str
    playerA: str
    playerB: str
    scoreA: int
    scoreB: int
    framesA: int
    framesB: int
    raceTo: int
    frame: int
    turn: str
    turnName: str
    ballInHand: str | None
    lastVerdict: str
    lastVerdictReason: str
    lastFoul: bool
    shots: int
    status: Literal["playing", "frame_over", "finished"]
    winner: str | None
    lang: str
    rev: int
    awaitingReferee: bool = Field(default=False, description="a question is open")
    openQuestions: int = 0
    pendingA: int = Field(default=0, description="A's points as read, not yet settled")
    pendingB: int = 0
    questions: list[dict] = Field(
        default_factory=list,
        description="open questions: ref, shot, why, options [{key, label, gains, text}] "
        "(text in ``lang``)",
    )
    lag: dict | None = None
    """The lag as ``GET /matches/{id}/state`` reports it (null: no lag)."""
    lagText: str = ""


# -- replays ------------------------------------------------------------------------------
class ReplayIn(_In):
    """``video``: a path relative to (or inside) ``TABLEMON_VIDEO_DIR``; ``calibration``: a
    CALIB.json object, else the registered table's (``table_id``), else automatic."""

    video: str = Field(min_length=1, max_length=1000)
    game: Game
    table: str | None = Field(default=None, min_length=1, max_length=100)
    table_id: int | None = Field(default=None, ge=1, le=2**62)
    calibration: dict | None = None


class ReplayOut(BaseModel):
    id: int
    video: str
    game: str
    table: str | None
    status: Literal["queued", "running", "done", "failed"]
    progress: float
    error: str | None
    has_result: bool
    has_annotated: bool
    created: float
    updated: float


class ErrorOut(BaseModel):
    detail: str
