"""Events of a shot (contract §8): the types, one frozen value per event, and filters.

Ids compare with ``==`` only (never substring matching). Positions in table mm.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, model_validator


class EventType(StrEnum):
    """Event type names, exactly the contract's strings."""

    STRIKE = "strike"
    CONTACT = "contact"
    CUSHION = "cushion"
    POCKET = "pocket"
    OFF_TABLE = "off_table"
    CROSS = "cross"
    SKITTLE_DOWN = "skittle_down"
    HANGING_DROP = "hanging_drop"
    CAMERA_MOVED = "camera_moved"
    BALL_TOUCHED = "ball_touched"
    EARLY_STRIKE = "early_strike"
    LAG = "lag"


# Fields each event type must carry (besides frame, t, type).
REQUIRED: dict[EventType, tuple[str, ...]] = {
    EventType.STRIKE: ("ball",),
    EventType.CONTACT: ("balls",),
    EventType.CUSHION: ("ball", "cushion"),
    EventType.POCKET: ("ball", "pocket"),
    EventType.OFF_TABLE: ("ball",),
    EventType.CROSS: ("ball",),
    EventType.SKITTLE_DOWN: ("skittle",),
    EventType.HANGING_DROP: ("ball", "pocket"),
    EventType.CAMERA_MOVED: (),
    EventType.BALL_TOUCHED: ("ball",),
    EventType.EARLY_STRIKE: ("ball",),
    EventType.LAG: ("balls",),
}


class Event(BaseModel):
    """One event. ``frame`` is the nearest video frame, ``t`` seconds from the first frame.

    ``balls`` (contact) lists the striking ball first; ``at`` is a position in table mm;
    ``by`` (skittle_down) is the ball or skittle that knocked the skittle over.
    ``impulse`` (contact, ground truth only, optional): the velocity each ball took from
    the contact (equal masses: the same size for both), mm per video frame.
    ``until`` (camera_moved, optional): the last frame of the move; ``frame`` is its first.
    """

    model_config = ConfigDict(frozen=True, extra="allow", use_enum_values=False)

    frame: int
    t: float
    type: EventType
    ball: str | None = None
    balls: tuple[str, str] | None = None
    cushion: str | None = None
    pocket: str | None = None
    line: str | None = None
    skittle: str | None = None
    by: str | None = None
    at: tuple[float, float] | None = None
    impulse: float | None = None
    uncertain: str | None = None
    """Contract §8/§11: why the vision is not sure this event happened as read (None: sure).
    The adjudicator judges the shot both with and without it; where the verdicts differ the
    referee is asked."""

    @model_validator(mode="after")
    def _required(self) -> Event:
        missing = [f for f in REQUIRED[self.type] if getattr(self, f) is None]
        if missing:
            raise ValueError(f"{self.type.value} event needs {', '.join(missing)}")
        if self.frame < 0:
            raise ValueError("frame must be >= 0")
        return self

    @property
    def ids(self) -> tuple[str, ...]:
        """Every ball or skittle id this event names (exact ids)."""
        out: list[str] = []
        for v in (self.ball, self.skittle, self.by):
            if v is not None:
                out.append(v)
        if self.balls:
            out.extend(self.balls)
        return tuple(out)

    def involves(self, ident: str) -> bool:
        return ident in self.ids  # tuple membership: exact equality, never substrings

    def to_json(self) -> dict:
        return self.model_dump(mode="json", exclude_none=True)


EventFilter = Callable[[Event], bool]


def by_type(*types: EventType | str) -> EventFilter:
    """Filter: events of any of the given types."""
    wanted = {EventType(t) for t in types}
    return lambda e: e.type in wanted


def by_ball(*ids: str) -> EventFilter:
    """Filter: events that name any of the given ids (exact equality)."""
    wanted = set(ids)
    return lambda e: any(i in wanted for i in e.ids)


def after_frame(frame: int) -> EventFilter:
    return lambda e: e.frame > frame


class Events(tuple):
    """An ordered, immutable sequence of events with composable filters.

    ``events.filter(by_type("cushion"), by_ball("yellow"))`` keeps events matching all.
    """

    def __new__(cls, items: Iterable[Event] = ()) -> Events:
        return super().__new__(cls, sorted(items, key=lambda e: (e.frame, e.t)))

    def filter(self, *preds: EventFilter) -> Events:
        return Events(e for e in self if all(p(e) for p in preds))

    def of_type(self, *types: EventType | str) -> Events:
        return self.filter(by_type(*types))

    def of_ball(self, *ids: str) -> Events:
        return self.filter(by_ball(*ids))

    def first(self, *preds: EventFilter) -> Event | None:
        return next(iter(self.filter(*preds)), None)

    def __iter__(self) -> Iterator[Event]:
        return super().__iter__()
