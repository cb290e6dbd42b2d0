"""A live table that falls behind (issue 29): the frame buffer, the spans of frames lost
and the shots they flag or make, the table's health."""

from __future__ import annotations

import numpy as np
import pytest

from contract.match import Shot
from service.live_flow import (
    BLIND_S,
    JOIN_FRAMES,
    LAG_BEHIND_S,
    MOVED_MM,
    Captured,
    FrameBuffer,
    Health,
    Unseen,
)

FPS = 30.0
REST = {"yellow": (1000.0, 800.0), "w1": (2000.0, 900.0), "w2": (2100.0, 700.0)}


def frame(n: int, at: float = 0.0) -> Captured:
    return Captured(n, n / FPS, at, np.zeros((4, 4, 3), np.uint8))  # 48 bytes


def live_shot(start: int, end: int, events: list[tuple[int, str]] = ()) -> dict:
    return {
        "start": {"frame": start, "t": start / FPS},
        "end": {"frame": end, "t": end / FPS},
        "events": [{"frame": f, "t": f / FPS, "type": "cushion", "ball": b, "cushion": "back"}
                   for f, b in events],
        "rest": {k: list(v) for k, v in REST.items()},
    }  # fmt: skip


def test_buffer_refuses_past_its_bytes_and_lets_stale_frames_go() -> None:
    buf = FrameBuffer(max_bytes=3 * 48, max_s=1.0)
    assert [buf.put(frame(n, at=n / FPS)) for n in range(4)] == [True, True, True, False]
    assert len(buf) == 3 and buf.lag(now=1.0) == pytest.approx(1.0)
    item, stale = buf.take(now=0.5)
    assert item.n == 0 and stale == 0
    item, stale = buf.take(now=1.0 + 2 / FPS + 0.01)  # frame 1 waited over 1 s: let go
    assert (item.n, stale) == (2, 1) and buf.take(now=2.0) == (None, 0)


@pytest.mark.parametrize(
    ("lost", "shot", "flagged"),
    [
        ((60, 70), (50, 120), True),  # inside the shot
        ((30, 48), (50, 120), True),  # just before its start: its strike was lost
        ((122, 130), (50, 120), True),  # just after its end: its rest
        ((30, 50 - JOIN_FRAMES - 2), (50, 120), False),  # balls seen at rest after it
        ((200, 210), (50, 120), False),
    ],
)
def test_a_shot_touching_lost_frames_is_flagged(lost, shot, flagged) -> None:
    u = Unseen(FPS)
    u.lost(*lost, dict(REST))
    s = u.on_shot(live_shot(*shot, events=[(55, "w1"), (71, "w1"), (110, "w2")]))
    assert ("unseen" in s) is flagged and ("uncertain" in s) is flagged
    if flagged:
        assert s["unseen"] == {"from": lost[0], "to": lost[1]} and not u.spans
        assert f"frames {lost[0]}–{lost[1]}" in s["uncertain"]
        Shot.model_validate({**s, "index": 1})  # a contract shot
        near = [e["frame"] for e in s["events"] if e.get("uncertain")]
        assert near == [e for e in (55, 71, 110) if lost[0] - 3 <= e <= lost[1] + 15]
    else:
        assert s == live_shot(*shot, events=[(55, "w1"), (71, "w1"), (110, "w2")])


def test_a_span_followed_by_motion_goes_to_the_shot_under_way() -> None:
    u = Unseen(FPS)
    u.lost(100, 170, None)  # the rest of shot 1 and the strike of shot 2
    assert u.due(171, None) == [] and u.spans[0].busy
    first = u.on_shot(live_shot(57, 96))  # over before the span: not its shot
    assert "unseen" not in first and len(u.spans) == 1
    second = u.on_shot(live_shot(178, 197))
    assert second["unseen"] == {"from": 100, "to": 170} and not u.spans


def test_lost_frames_close_together_are_one_span() -> None:
    u = Unseen(FPS)
    u.lost(10, 20, None)
    u.lost(24, 30, None)  # a frame or two processed between: the same gap
    u.lost(80, 90, None)
    assert [(s.a, s.b) for s in u.spans] == [(10, 30), (80, 90)]


def moved(dx: float = 0.0, gone: str | None = None, new: str | None = None) -> dict:
    rest = {k: (x + dx if k == "w1" else x, y) for k, (x, y) in REST.items() if k != gone}
    return {**rest, new: (500.0, 500.0)} if new else rest


@pytest.mark.parametrize(
    ("after", "shot"),
    [
        (moved(), False),  # nothing moved: a player's arm, no shot
        (moved(dx=MOVED_MM / 2), False),  # within the noise
        (moved(new="w9"), False),  # a ball put back by hand is no shot
        (moved(dx=3 * MOVED_MM), True),
        (moved(gone="w2"), True),  # pocketed while unseen
    ],
)
def test_a_span_no_shot_took_is_a_shot_when_balls_moved(after, shot) -> None:
    u = Unseen(FPS)
    u.lost(100, 160, dict(REST))
    assert u.due(150, after) == [] and len(u.spans) == 1  # not over yet
    assert u.due(170, None) == []  # a shot under way: it may take the span
    assert u.due(175, after) == [] and len(u.spans) == 1  # the tracker finds the balls
    out = u.due(176, after)  # no shot took it: at rest REST_WAIT_S after it
    assert not u.spans and len(out) == int(shot) and u.flagged == int(shot)
    if shot:
        s = Shot.model_validate({**out[0], "index": 3})
        assert (s.unseen.start, s.unseen.stop, s.start.frame, s.end.frame) == (100, 160, 100, 176)
        assert s.events == () and "frames 100–160" in out[0]["uncertain"]
        assert ("w2 gone" if "w2" not in after else "w1") in out[0]["uncertain"]
    else:
        assert u.quiet == [(100, 160)]


def test_at_the_end_a_span_that_may_hide_play_is_a_shot() -> None:
    u = Unseen(FPS)
    u.lost(300, 370, dict(REST))
    out = u.flush(375, None)  # play under way when the video ended
    assert len(out) == 1 and out[0]["unseen"] == {"from": 300, "to": 370}
    assert "rest" not in out[0] and "under way" in out[0]["uncertain"]
    u.lost(400, 410, dict(REST))
    assert u.flush(420, dict(REST)) == [] and u.quiet[-1] == (400, 410)


def test_health_falls_behind_goes_blind_and_recovers() -> None:
    h = Health()
    assert h.update(0.0, 0.2) == "ok"
    assert h.update(1.0, LAG_BEHIND_S + 0.5) == "behind"
    assert h.update(2.0, 0.8) == "behind"  # not yet caught up (hysteresis)
    h.lost_at = 3.0
    assert h.update(3.0, 0.1) == "blind"
    assert h.update(3.0 + BLIND_S - 0.1, 0.1) == "blind"
    assert h.update(3.0 + BLIND_S + 0.1, 0.1) == "ok"
    assert h.max_lag_s == pytest.approx(LAG_BEHIND_S + 0.5)
