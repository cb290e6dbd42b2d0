"""Doubt (contract §11): the readings a shot allows, and the contradictions between shots.

Pure, like the rest of the adjudicator. The engine judges every reading of a shot from the
same state; where they disagree as the shooter sees them, the verdict is ``uncertain`` and
a question goes to the referee. Three sources of doubt are read here:

- **events in doubt**: an event marked ``uncertain`` by the vision, and the fouls a camera
  reads from absence or timing (``early_strike``, ``ball_touched``): each is judged kept
  and dropped;
- **a ball lost** during the shot (``Shot.lost``): what it may have done unseen (a cushion,
  a contact with a ball that moved, a fall into the pocket it was lost near) is judged
  added;
- **contradictions** with what a table can do (:func:`contradictions`): a shot that starts
  with no rest after the one before, two strikes in one shot, balls that vanished or moved
  between shots, a shot that was not seen. These are questions even when the verdict reads
  the same either way, since what follows depends on them.

Frames are video frames; positions table mm (contract §1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from contract.events import Event, EventType
from contract.match import FrameTime, Shot, Verdict
from contract.tables import TURNED_SIDE

MIN_REST_S = 0.3
"""The shortest rest between two shots, seconds. The vision confirms a rest state only after
every ball has been still for its settle window (0.5 s), and a player needs longer than that
to address the next ball; a gap shorter than this is one shot cut in two."""

MOVED_MM = 30.0
"""A ball whose rest position differs between two shots by more than this, with no event of
the later shot naming it, was moved by something not recorded (about half a ball: far beyond
the few mm of rest noise and calibration error)."""

DOUBTFUL_TYPES = {
    EventType.EARLY_STRIKE: "a strike before every ball had stopped (or one shot cut in two)",
    EventType.BALL_TOUCHED: "a ball moved with no contact seen (or a contact not seen)",
}
"""Fouls the camera reads from absence or timing: never given as sure."""

MAX_TOGGLES = 6
"""Up to 6 doubts every combination is judged (64 readings); past that, up to three at once."""


@dataclass(frozen=True)
class Reading:
    """One way to read a shot: a stable ``key`` (stored as the referee's answer), a label for
    the referee, the shot as judged under it, and the frames that decide it."""

    key: str
    label: str
    shot: Shot
    frames: tuple[int, ...] = ()


@dataclass(frozen=True)
class Doubt:
    """What is in doubt about one shot: the readings to judge (the first is the shot as
    read) and, for contradictions, the reasons they were raised."""

    readings: tuple[Reading, ...]
    why: tuple[str, ...] = ()
    frames: tuple[int, ...] = field(default=())


def _name(e: Event) -> str:
    ids = "-".join(e.ids)
    return f"{e.type.value}@{e.frame}:{ids}"


def _label(e: Event) -> str:
    what = {
        EventType.CONTACT: "contact",
        EventType.POCKET: "pocket",
        EventType.CUSHION: "cushion",
        EventType.CROSS: "centre line",
        EventType.OFF_TABLE: "off the table",
        EventType.SKITTLE_DOWN: "skittle down",
        EventType.STRIKE: "strike",
        EventType.EARLY_STRIKE: "early strike",
        EventType.BALL_TOUCHED: "ball touched",
    }.get(e.type, e.type.value)
    return f"{what} {' '.join(e.ids)} at frame {e.frame}"


def doubtful_events(shot: Shot) -> list[tuple[Event, str]]:
    """The shot's events in doubt, with why: the vision's ``uncertain`` ones and the fouls a
    camera reads from absence or timing."""
    out: list[tuple[Event, str]] = []
    for e in shot.events:
        if e.uncertain:
            out.append((e, e.uncertain))
        elif e.type in DOUBTFUL_TYPES:
            out.append((e, DOUBTFUL_TYPES[e.type]))
    return out


def lost_hypotheses(shot: Shot) -> list[tuple[Event, str]]:
    """Events a lost ball (``Shot.lost``) may have had unseen: a cushion; a contact with the
    struck ball and with each ball whose first event falls while it was lost (a ball that
    starts with no contact seen was hit by the ball not seen); a fall into a pocket when it
    is not at rest after the shot (the pocket it was lost near, where known)."""
    out: list[tuple[Event, str]] = []
    fps = shot.end.frame / shot.end.t if shot.end.t > 0 else 30.0
    cue = next((e.ball for e in shot.events if e.type is EventType.STRIKE), None)
    first: dict[str, int] = {}
    for e in shot.events:
        for i in e.ids:
            first.setdefault(i, e.frame)
    for lost in shot.lost:
        f, t = lost.start, lost.start / fps
        why = f"{lost.ball} not seen from frame {lost.start} to {lost.stop}"
        out.append((Event(frame=f, t=t, type="cushion", ball=lost.ball, cushion="unseen"), why))
        late = lost.stop + int(fps / 2)
        partners = {b for b, f1 in first.items() if lost.start <= f1 <= late}
        partners |= {cue} if cue else set()
        for other in sorted(partners - {lost.ball, None}):
            pair = (other, lost.ball) if other == cue else (lost.ball, other)
            out.append((Event(frame=f, t=t, type="contact", balls=pair), why))
        if lost.ball not in shot.rest:  # not at rest after the shot, or rest not known
            pocket = lost.near or "unseen"
            out.append((Event(frame=f, t=t, type="pocket", ball=lost.ball, pocket=pocket), why))
    return out


def _toggled(shot: Shot, drop: Iterable[Event], add: Iterable[Event]) -> Shot:
    gone = {id(e) for e in drop}
    events = [e for e in shot.events if id(e) not in gone] + list(add)
    events.sort(key=lambda e: e.frame)
    rest = dict(shot.rest)
    for e in add:  # a ball that fell is not at rest on the table
        if e.type is EventType.POCKET and e.ball in rest:
            rest.pop(e.ball)
    return shot.model_copy(update={"events": tuple(events), "rest": rest})


def _subsets(n: int) -> Iterable[tuple[int, ...]]:
    """Every subset of the ``n`` doubts; past ``MAX_TOGGLES`` those of up to three."""
    most = n if n <= MAX_TOGGLES else 3
    for k in range(1, most + 1):
        yield from combinations(range(n), k)


def readings(shot: Shot) -> tuple[Reading, ...]:
    """Every reading of ``shot`` its doubts allow, the shot as read first. A doubtful event is
    dropped in the other readings; a lost ball's hypothesis is added."""
    doubts = [(e, False) for e, _ in doubtful_events(shot)]
    doubts += [(e, True) for e, _ in lost_hypotheses(shot)]
    out = [Reading("as_read", "as the camera read it", shot)]
    for pick in _subsets(len(doubts)):
        chosen = [doubts[i] for i in pick]
        drop = [e for e, added in chosen if not added]
        add = [e for e, added in chosen if added]
        key = ",".join(("+" if a else "-") + _name(e) for e, a in chosen)
        label = "; ".join(("with " if a else "without ") + _label(e) for e, a in chosen)
        frames = tuple(sorted({e.frame for e, _ in chosen}))
        out.append(Reading(key, label, _toggled(shot, drop, add), frames))
    return tuple(out)


# ----------------------------------------------------------------- ball numbers
NUMBERS = tuple(str(n) for n in range(1, 16))
MAX_NUMBER_READINGS = 40


def _renamed(shot: Shot, names: dict[str, str]) -> Shot:
    """``shot`` with ball ids renamed by ``names`` in every event and in the rest."""
    events = []
    for e in shot.events:
        upd = {}
        for f in ("ball", "by"):
            if getattr(e, f) in names:
                upd[f] = names[getattr(e, f)]
        if e.balls is not None and any(b in names for b in e.balls):
            upd["balls"] = tuple(names.get(b, b) for b in e.balls)
        events.append(e.model_copy(update=upd) if upd else e)
    rest = {names.get(k, k): v for k, v in shot.rest.items()}
    return shot.model_copy(update={"events": tuple(events), "rest": rest})


def number_readings(shot: Shot, known: set[str]) -> tuple[list[Reading], str | None]:
    """Classic pyramid, where a pocketed ball scores its number: the readings of the
    shot's pocketed balls whose number was not read (``wN``, contract §3), one per number
    still possible (not ``known`` to be elsewhere: shelved, at rest, or read in this shot).
    A ball whose number is the only one left is known by elimination: the second value
    says so, and its one reading is the shot to judge."""
    pocketed = [e.ball for e in shot.events if e.type is EventType.POCKET and e.ball]
    unread = [b for b in dict.fromkeys(pocketed) if b not in NUMBERS and b != "yellow"]
    if not unread:
        return [], None
    seen = known | {i for e in shot.events for i in e.ids if i in NUMBERS} | set(shot.rest)
    left = [n for n in NUMBERS if n not in seen]
    if len(unread) == 1 and len(left) == 1:
        names = {unread[0]: left[0]}
        why = f"{unread[0]} is ball {left[0]} by elimination: every other number is accounted for"
        return [Reading(f"number:{unread[0]}={left[0]}", why, _renamed(shot, names))], why
    out: list[Reading] = []
    pockets = [e.frame for e in shot.events if e.type is EventType.POCKET and e.ball in unread]
    looks = [f for b in unread for f in shot.looks.get(b, ())]  # where each was best seen
    frames = tuple(sorted({*looks, *pockets}))
    for combo in _assignments(unread, left):
        names = dict(zip(unread, combo, strict=True))
        key = "number:" + ",".join(f"{b}={n}" for b, n in names.items())
        label = "; ".join(f"{b} is ball {n}" for b, n in names.items())
        out.append(Reading(key, label, _renamed(shot, names), frames))
        if len(out) >= MAX_NUMBER_READINGS:
            break
    return out, None


def _assignments(unread: list[str], left: list[str]) -> Iterable[tuple[str, ...]]:
    """Distinct numbers for the unread balls, in order."""
    if not unread:
        yield ()
        return
    for n in left:
        rest = [m for m in left if m != n]
        for tail in _assignments(unread[1:], rest):
            yield (n, *tail)


# ----------------------------------------------------------------- contradictions
def no_rest_after(prev: Shot, nxt: Shot, fps: float) -> str | None:
    """Why ``prev`` and ``nxt`` look like one shot cut in two: the next began before the
    table could have come to rest (``MIN_REST_S``). Shots with no timeline (the next does not
    start after this one started: a hand-typed list) are not checked."""
    gap = nxt.start.frame - prev.end.frame
    if nxt.start.frame > prev.start.frame and gap < MIN_REST_S * fps:
        return (
            f"shot {nxt.index} began {gap} frames after shot {prev.index} ended, "
            "with no rest between: one shot may have been cut in two"
        )
    return None


def strikes(shot: Shot) -> list[Event]:
    """The shot's strike events at distinct frames (none for a lag, where two balls are
    struck together by rule)."""
    if any(e.type is EventType.LAG for e in shot.events):
        return []
    seen: dict[int, Event] = {}
    for e in shot.events:
        if e.type is EventType.STRIKE and e.frame not in seen:
            seen[e.frame] = e
    return list(seen.values())


def merged(shot: Shot, nxt: Shot) -> Shot:
    """``shot`` and ``nxt`` as one shot: the events of both, the next's end and rest. The
    next's strike was the start of a ball this shot set moving: it is read as a contact of
    this shot's cue ball with it (the ball that hit it was not seen)."""
    cue = next((e.ball for e in shot.events if e.type is EventType.STRIKE), shot.cue_ball)
    events = list(shot.events)
    for e in nxt.events:
        if e.type is not EventType.STRIKE:
            events.append(e)
        elif cue is not None and e.ball != cue:
            events.append(Event(frame=e.frame, t=e.t, type="contact", balls=(cue, e.ball)))
    events.sort(key=lambda e: e.frame)
    return shot.model_copy(
        update={"events": tuple(events), "end": nxt.end, "rest": dict(nxt.rest or shot.rest)}
    )


def split(shot: Shot, at: int) -> tuple[Shot, Shot]:
    """``shot`` as two shots, the second from its strike at frame ``at``."""
    first = tuple(e for e in shot.events if e.frame < at)
    second = tuple(e for e in shot.events if e.frame >= at)
    start = FrameTime(frame=second[0].frame, t=second[0].t) if second else shot.start
    cue = next((e.ball for e in second if e.type is EventType.STRIKE), None)
    return (
        shot.model_copy(update={"events": first}),
        shot.model_copy(update={"events": second, "start": start, "cue_ball": cue}),
    )


def between(
    prev: Shot | None, respot: Sequence[str], shot: Shot, *, pockets: bool = True
) -> str | None:
    """Why the table changed between ``prev`` and ``shot`` with no shot recorded: a ball
    resting after ``prev`` that ``shot`` neither names nor has at rest (vanished), or one that
    moved more than ``MOVED_MM`` with no event of ``shot`` naming it. ``respot``: the balls
    the rules put back after ``prev`` (their positions are the rules', not the camera's).
    ``pockets``: whether balls leave the table for good (not in carom, where a ball missing
    from a rest list only means the list names the balls that moved)."""
    if prev is None or not prev.rest or not shot.rest:
        return None
    prev = prev.model_copy(update={"rest": read_since(prev.rest, shot.rest)})
    named = {i for e in shot.events for i in e.ids} | {lost.ball for lost in shot.lost}
    vanished = sorted(b for b in prev.rest if b not in shot.rest and b not in named)
    vanished = vanished if pockets else []
    if vanished:
        return f"{', '.join(vanished)} vanished between shots {prev.index} and {shot.index}"
    moved = []
    for b, (x, y) in prev.rest.items():
        if b in named or b in respot or b not in shot.rest:
            continue
        x2, y2 = shot.rest[b]
        if ((x2 - x) ** 2 + (y2 - y) ** 2) ** 0.5 > MOVED_MM:
            moved.append(b)
    if moved:
        return (
            f"{', '.join(sorted(moved))} moved between shots {prev.index} and {shot.index} "
            "with no shot recorded"
        )
    return None


def read_since(before: dict, after: dict) -> dict:
    """``before`` (rest positions, table mm) with each ball named ``wN`` (a white ball whose
    number was not read yet, contract §3) under its number where ``after`` has it: the
    number is new in ``after``, the ``wN`` name is gone from it, and the numbered ball
    lies within ``MOVED_MM`` of where ``wN`` lay (live vision hands each shot out under the
    numbers read so far, so one ball may be ``w3`` in a shot and ``3`` in the next)."""
    gone = [b for b in before if b.startswith("w") and b not in after]
    new = [b for b in after if b in NUMBERS and b not in before]
    out = dict(before)
    for w in gone:
        x, y = before[w]
        near = [
            n
            for n in new
            if n not in out and ((after[n][0] - x) ** 2 + (after[n][1] - y) ** 2) ** 0.5 <= MOVED_MM
        ]
        if len(near) == 1:  # one candidate only: two would be a guess
            out[near[0]] = out.pop(w)
    return out


def unseen(shot: Shot) -> str | None:
    """Why a shot could not be judged from what was seen (``Shot.unseen``)."""
    if shot.unseen is None:
        return None
    return f"frames {shot.unseen.start}-{shot.unseen.stop} were not processed"


# ----------------------------------------------------------------- verdicts as compared
def as_shooter_sees(v: Verdict, shooter: str) -> tuple:
    """A verdict as the shooter sees it: legal, fouls, pocketed balls, what the shooter and
    the opponent gain, whether the shooter keeps the table. Player letters drop out, so two
    readings that differ only in who is called A compare equal."""
    opp = "B" if shooter == "A" else "A"
    return (
        v.legal,
        tuple(sorted(f.value for f in v.fouls)),
        tuple(sorted(v.pocketed)),
        int(v.scored.get(shooter, 0)),
        int(v.scored.get(opp, 0)),
        v.next == shooter,
    )


# ----------------------------------------------------------------- the table turned
def turned(shot: Shot, length: float, width: float) -> Shot:
    """``shot`` as seen on the table turned end for end (a calibration whose front end was
    assumed): positions (x, y) -> (L - x, W - y) mm, cushion and skittle sides swapped."""

    def pt(p):
        return None if p is None else (round(length - p[0], 1), round(width - p[1], 1))

    def ev(e: Event) -> Event:
        upd: dict = {}
        if e.at is not None:
            upd["at"] = pt(e.at)
        if e.cushion in TURNED_SIDE:
            upd["cushion"] = TURNED_SIDE[e.cushion]
        if e.skittle in TURNED_SIDE:
            upd["skittle"] = TURNED_SIDE[e.skittle]
        return e.model_copy(update=upd) if upd else e

    rest = {b: pt(p) for b, p in shot.rest.items()}
    return shot.model_copy(update={"events": tuple(ev(e) for e in shot.events), "rest": rest})
