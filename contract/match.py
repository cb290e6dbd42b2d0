"""MATCH.json (contract §8): shots, events, rest positions and verdicts.

Frozen pydantic models; ``read_match`` / ``write_match`` validate and turn every
problem into one :class:`ContractError` line. Positions are table mm.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from contract.errors import ContractError
from contract.events import Event, Events

MATCH_FORMAT = "tablemon-match/1"


class Game(StrEnum):
    FREE = "pyramid-free"
    COMBINED = "pyramid-combined"
    DYNAMIC = "pyramid-dynamic"
    CLASSIC = "pyramid-classic"
    CAROM_5PIN = "carom-5pin"


class Foul(StrEnum):
    """The contract's one fixed vocabulary of foul codes."""

    NO_CONTACT = "no_contact"
    ILLEGAL_BREAK = "illegal_break"
    INCOMPLETE_SHOT = "incomplete_shot"
    BALL_OFF_TABLE = "ball_off_table"
    CUE_BALL_POCKETED = "cue_ball_pocketed"
    EARLY_STRIKE = "early_strike"
    BALL_TOUCHED = "ball_touched"
    PUSH = "push"
    DOUBLE_HIT = "double_hit"
    WRONG_BALL = "wrong_ball"
    RED_FIRST = "red_first"
    SKITTLES_FIRST = "skittles_first"
    OWN_BALL_SKITTLES = "own_ball_skittles"
    NOT_CALLED = "not_called"
    FOOT = "foot"
    OTHER = "other"


Player = Literal["A", "B"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")


class FrameTime(_Frozen):
    frame: int = Field(ge=0)
    t: float = Field(ge=0)


class Respot(_Frozen):
    id: str
    at: tuple[float, float]


class Verdict(_Frozen):
    """The adjudicator's ruling on one shot. ``scored`` includes penalty points.

    Extensions: ``reasons`` (human sentences, ``{"ru": ..., "en": ...}``), ``options``
    (what the rules let the opponent choose after a foul), ``frame_over``/``winner``.
    """

    legal: bool
    fouls: tuple[Foul, ...] = ()
    scored: dict[str, int] = Field(default_factory=lambda: {"A": 0, "B": 0})
    pocketed: tuple[str, ...] = ()
    next: Player
    respot: tuple[Respot, ...] = ()
    rule_refs: tuple[str, ...] = ()
    reasons: tuple[dict[str, str], ...] = ()
    options: tuple[str, ...] = ()
    uncertain: str | None = None
    """Contract §11: why tablemon is not sure of this verdict (None: sure)."""
    player: Player | None = None
    """Who played the shot, as the adjudicator judged it (the shot's ``player`` when given,
    else whose turn it was)."""
    readings: tuple[Verdict, ...] = ()
    """Contract §11: the other ways the shot could be judged, most likely first (the verdict
    itself is the most likely reading and is not repeated here)."""


class Call(_Frozen):
    """A classic-pyramid call: the ball and the pocket."""

    ball: str
    pocket: str


class RefereeInput(_Frozen):
    """What the referee entered for a shot (extension of contract §8).

    ``fouls``: fouls the camera cannot see; ``annul``: discard the camera's verdict
    and judge as if the shot had no fouls beyond the referee's; ``verdict``: a full
    replacement verdict; ``call``: the classic call; ``choice``: the opponent's option
    after a foul (``play``, ``hand_back``, ``rerack``, ``rebreak``).
    """

    fouls: tuple[Foul, ...] = ()
    annul: bool = False
    verdict: Verdict | None = None
    call: Call | None = None
    choice: str | None = None
    restore: bool = False
    end_frame: Player | None = None
    take_ball: str | None = None
    answers: dict[str, str] = Field(default_factory=dict)
    """Contract §11: the referee's answers to this shot's questions, ``about`` -> option key
    (``{"verdict": "no_contact:yellow-w3"}``); the adjudicator judges the chosen reading."""


class Span(_Frozen):
    """A stretch of video frames, ``from`` and ``to`` inclusive (contract §11 ``unseen``)."""

    model_config = ConfigDict(
        frozen=True, extra="allow", populate_by_name=True, serialize_by_alias=True
    )

    start: int = Field(ge=0, alias="from")
    stop: int = Field(ge=0, alias="to")


class Lost(_Frozen):
    """A ball the vision did not see from frame ``from`` to ``to`` during a shot (extension
    of contract §11): what it did meanwhile is unknown, so its events there are missing."""

    model_config = ConfigDict(
        frozen=True, extra="allow", populate_by_name=True, serialize_by_alias=True
    )

    ball: str
    start: int = Field(ge=0, alias="from")
    stop: int = Field(ge=0, alias="to")
    near: str | None = None
    """The pocket it was lost near, when it was (a ball lost at a mouth may have fallen)."""


QuestionAbout = Literal["verdict", "event", "number", "lag", "unseen", "calibration"]


class Option(_Frozen):
    """One answer the referee may give to a question: a stable ``key`` (what is stored as the
    answer), a ``label`` to show, and the verdict the shot gets under it (where it has one)."""

    key: str
    label: str
    verdict: Verdict | None = None


class Question(_Frozen):
    """Contract §11: one doubt the referee must settle. ``frames`` are the decisive stills;
    ``answer`` is the chosen option's key (None while open), ``by``/``at`` who and when."""

    id: str
    shot: int | None = None
    about: QuestionAbout
    why: str
    options: tuple[Option, ...] = ()
    frames: tuple[int, ...] = ()
    answer: str | None = None
    by: str | None = None
    at: str | None = None


class Shot(_Frozen):
    index: int = Field(ge=1)
    player: Player | None = None
    start: FrameTime
    end: FrameTime
    cue_ball: str | None = None
    events: tuple[Event, ...] = ()
    rest: dict[str, tuple[float, float]] = Field(default_factory=dict)
    verdict: Verdict | None = None
    referee: RefereeInput | None = None
    unseen: Span | None = None
    """Contract §11: the shot's motion fell in frames that were not processed (from, to)."""
    lost: tuple[Lost, ...] = ()
    looks: dict[str, tuple[int, ...]] = Field(default_factory=dict)
    """Extension of contract §11: for a pocketed ball whose number was not read, the frames
    where the camera saw it best (still, before the shot moved it): the stills a referee
    asked its number is shown."""

    @field_validator("events")
    @classmethod
    def _sorted(cls, v: tuple[Event, ...]) -> tuple[Event, ...]:
        frames = [e.frame for e in v]
        if frames != sorted(frames):
            raise ValueError("events must be sorted by frame")
        return v

    @property
    def ev(self) -> Events:
        return Events(self.events)


class VideoInfo(_Frozen):
    fps: float = Field(gt=0)
    frames: int = Field(ge=0)


class MatchStart(_Frozen):
    score: dict[str, int] = Field(default_factory=lambda: {"A": 0, "B": 0})
    target: int | None = None
    breaker: Player = "A"


class Match(_Frozen):
    format: Literal["tablemon-match/1"] = MATCH_FORMAT
    game: Game
    table: str
    video: VideoInfo | None = None
    shots: tuple[Shot, ...] = ()
    score: dict[str, int] = Field(default_factory=lambda: {"A": 0, "B": 0})
    start: MatchStart | None = None
    events: tuple[Event, ...] = ()  # video-level events outside shots (camera_moved ...)
    questions: tuple[Question, ...] = ()
    """Contract §11: one per doubt; ``score`` counts what is settled, ``pending`` the rest."""
    pending: dict[str, dict[str, dict[str, int]]] = Field(default_factory=dict)
    """Contract §11: open question id -> option key -> what each player gains under it."""


def _first_error(e: ValidationError) -> tuple[str, str]:
    err = e.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = err["msg"]
    if err["type"] == "missing":
        msg = "missing"
    return loc, msg


def match_from_json(data: object, source: str = "<json>") -> Match:
    """Validate a parsed MATCH.json object; raise one-line :class:`ContractError`."""
    if not isinstance(data, dict):
        raise ContractError(source, "", "MATCH.json must be a JSON object")
    fmt = data.get("format")
    if fmt != MATCH_FORMAT:
        raise ContractError(source, "format", f"expected {MATCH_FORMAT!r}, got {fmt!r}")
    try:
        return Match.model_validate(data)
    except ValidationError as e:
        loc, msg = _first_error(e)
        raise ContractError(source, loc, msg) from None


def read_json(path: str | Path) -> object:
    p = Path(path)
    if not p.is_file():
        raise ContractError(str(path), "", "no such file")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ContractError(str(path), "", "not a UTF-8 text file") from None
    except json.JSONDecodeError as e:
        raise ContractError(str(path), "", f"not valid JSON: {e.msg} at line {e.lineno}") from None


def read_match(path: str | Path) -> Match:
    return match_from_json(read_json(path), str(path))


def match_to_json(match: Match) -> dict:
    """The file's JSON; the doubt keys of contract §11 only where they hold something."""
    data = match.model_dump(mode="json", exclude_none=True)
    _prune(data, ("questions", "pending"))
    for shot in data.get("shots", ()):
        _prune(shot, ("lost", "looks"))
        _prune(shot.get("verdict") or {}, ("readings",))
        _prune(shot.get("referee") or {}, ("answers",))
    return data


def _prune(d: dict, keys: tuple[str, ...]) -> None:
    """Drop the §11 keys that are empty, so a file with no doubt reads as before them."""
    for key in keys:
        if key in d and not d[key]:
            d.pop(key)


def write_json_atomic(path: str | Path, data: object) -> None:
    """Write JSON through a temporary file and rename, so a crash never leaves half a file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(p)


def write_match(path: str | Path, match: Match) -> None:
    write_json_atomic(path, match_to_json(match))
