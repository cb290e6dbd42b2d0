"""Vision errors made on purpose from true events, to test that one misread shot is asked, not
judged wrong with confidence (issue 31), and the comparison of judged shots with the truth.

Each perturbation returns the shot list as a vision that made that error would hand it over,
and the index (0-based) of the first shot it touches. Pure functions of ``Match`` values;
frames are video frames, positions table mm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from adjudicator.doubt import as_shooter_sees
from contract.events import Event, EventType
from contract.match import FrameTime, Lost, Match, Shot, Verdict

Perturb = Callable[[Match], list[tuple[str, Match, int]]]


def _renumber(shots: Sequence[Shot]) -> tuple[Shot, ...]:
    return tuple(s.model_copy(update={"index": i}) for i, s in enumerate(shots, 1))


def _with(match: Match, shots: Sequence[Shot]) -> Match:
    return match.model_copy(update={"shots": _renumber(shots)})


def cut_at_contact(match: Match) -> list[tuple[str, Match, int]]:
    """The first contact of the first shot that has one made into a new shot of the struck
    ball: the shot ends at the contact and the struck ball's start is read as a strike."""
    for k, shot in enumerate(match.shots):
        c = next((e for e in shot.events if e.type is EventType.CONTACT), None)
        if c is None or c.balls is None:
            continue
        before = tuple(e for e in shot.events if e.frame < c.frame)
        after = tuple(e for e in shot.events if e.frame > c.frame)
        at = FrameTime(frame=c.frame, t=c.t)
        hit = Event(frame=c.frame, t=c.t, type="strike", ball=c.balls[1])
        a = shot.model_copy(update={"events": before, "end": at})
        b = shot.model_copy(
            update={"events": (hit, *after), "start": at, "player": None, "cue_ball": hit.ball}
        )
        shots = [*match.shots[:k], a, b, *match.shots[k + 1 :]]
        return [(f"cut shot {shot.index} at its contact", _with(match, shots), k)]
    return []


def dropped(match: Match) -> list[tuple[str, Match, int]]:
    """Each shot but the first dropped in turn (the last one too: a frame's last shot)."""
    out = []
    for k in range(1, len(match.shots)):
        shots = [s for i, s in enumerate(match.shots) if i != k]
        out.append((f"shot {k + 1} dropped", _with(match, shots), k))
    return out


def merged_pairs(match: Match) -> list[tuple[str, Match, int]]:
    """Each pair of neighbouring shots read as one (events of both, the second's end)."""
    out = []
    for k in range(len(match.shots) - 1):
        a, b = match.shots[k], match.shots[k + 1]
        events = tuple(sorted((*a.events, *b.events), key=lambda e: e.frame))
        one = a.model_copy(update={"events": events, "end": b.end, "rest": b.rest})
        shots = [*match.shots[:k], one, *match.shots[k + 2 :]]
        out.append((f"shots {k + 1} and {k + 2} merged", _with(match, shots), k))
    return out


def lost_ball(match: Match, fps: float = 30.0) -> list[tuple[str, Match, int]]:
    """In each shot with a contact, the struck ball lost for a second from 5 frames before
    its first contact: its events in that second are gone and the shot says it was lost."""
    out = []
    for k, shot in enumerate(match.shots):
        c = next((e for e in shot.events if e.type is EventType.CONTACT), None)
        if c is None or c.balls is None:
            continue
        ball, f0 = c.balls[1], max(shot.start.frame, c.frame - 5)
        f1 = f0 + int(round(fps))
        kept = tuple(e for e in shot.events if not (e.involves(ball) and f0 <= e.frame <= f1))
        lost = (Lost.model_validate({"ball": ball, "from": f0, "to": f1}),)
        one = shot.model_copy(update={"events": kept, "lost": lost})
        shots = [*match.shots[:k], one, *match.shots[k + 1 :]]
        out.append((f"{ball} lost for a second in shot {k + 1}", _with(match, shots), k))
    return out


PERTURBATIONS: dict[str, Perturb] = {
    "cut": cut_at_contact,
    "dropped": dropped,
    "merged": merged_pairs,
    "lost": lost_ball,
}


def true_shot(truth: Match, shot: Shot) -> Shot | None:
    """The true shot a judged shot stands for: the one whose span holds its start."""
    for t in truth.shots:
        if t.start.frame <= shot.start.frame <= t.end.frame:
            return t
    return None


def asked(shot: Shot) -> bool:
    """Contract §11 scoring: a shot is asked when its verdict or one of its events is
    uncertain."""
    v = shot.verdict
    return bool((v is not None and v.uncertain) or any(e.uncertain for e in shot.events))


def _seen(v: Verdict, shot: Shot) -> tuple:
    return as_shooter_sees(v, v.player or shot.player or "A")


def agrees(shot: Shot, truth: Shot) -> bool:
    """The shot's verdict equals the true one as the shooter sees it (each verdict read for
    the player it was judged for: player letters drop out)."""
    if shot.verdict is None or truth.verdict is None:
        return False
    return _seen(shot.verdict, shot) == _seen(truth.verdict, truth)


def right_if_asked(shot: Shot, truth: Shot) -> bool:
    """Contract §11: an asked shot is right when its verdict or a reading is the true one."""
    if agrees(shot, truth):
        return True
    v = shot.verdict
    if v is None or truth.verdict is None:
        return False
    want = _seen(truth.verdict, truth)
    return any(_seen(r.model_copy(update={"player": v.player}), shot) == want for r in v.readings)


def wrong_before_first_question(judged: Match, truth: Match) -> list[int]:
    """Indices of judged shots that are wrong and sure before the first asked shot."""
    wrong = []
    for shot in judged.shots:
        if asked(shot):
            break
        t = true_shot(truth, shot)
        if t is None or not agrees(shot, t):
            wrong.append(shot.index)
    return wrong
