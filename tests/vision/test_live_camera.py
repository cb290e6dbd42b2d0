"""A club camera knocked during a live session: the live processor says ``camera_moved``
(once per move, with ``until`` where the move spans frames), takes no strike from the
knock, carries a shot under way through it, and measures the balls after it where they
are (the frames are registered back onto the first frame's picture)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib

from contract.events import Event, EventType
from contract.tables import load_table
from vision.base.camera_motion import AFTER_FRAMES
from vision.capture.source import Frame
from vision.detect.detector import Detector
from vision.events.shots_live import LIVE_BUFFER_S, LiveShotCutter
from vision.live import FINAL_FRAMES, LiveWatch, make_processor
from vision.register import DriftWatch

SIZE = (960, 540)
FPS = 30.0
STILL = [(900.0, 600.0, "white"), (2500.0, 1100.0, "yellow"), (1800.0, 400.0, "white")]


def _rolling(k: int, start: int) -> tuple[float, float, str]:
    """A ball struck at frame ``start`` rolling along the table at 20 mm a frame, slowing
    by 1 mm a frame each frame (stops 20 frames later, 200 mm on), table mm."""
    s = min(max(0, k - start), 20)
    return (700.0 + 20.0 * s - 0.5 * s * s, 1300.0, "white")


def _knock(k: int, at: int, shift: tuple[float, float], turn: float) -> np.ndarray:
    """The picture's homography (3x3, px) at frame ``k``: the identity before ``at``, a
    sudden shift of ``shift`` px and a turn of ``turn`` degrees about the centre from it."""
    if k < at:
        return np.eye(3)
    M = cv2.getRotationMatrix2D((SIZE[0] / 2, SIZE[1] / 2), turn, 1.0)
    M[:, 2] += shift
    return np.r_[M, [[0.0, 0.0, 1.0]]]


def _run(at: int, shift, turn, struck: int | None, frames: int):
    """Render the clip frame by frame through the live processor; (frame fed, item)
    for every item it handed out, and the truth balls at the last frame. Still frames
    repeat one of four renders (their noise differs; rendering is the slow part)."""
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=110)  # the noses stay in view
    proc = make_processor(table.name, calib, fps=FPS)
    out, seen = [], {}
    for k in range(frames):
        balls = [*STILL] + ([_rolling(k, struck)] if struck is not None else [])
        key = (tuple(balls), k % 4)
        if key not in seen:
            seen[key] = draw_scene(calib, table, SIZE, balls, seed=k % 4)
        V = _knock(k, at, shift, turn)
        img = cv2.warpPerspective(seen[key], V, SIZE, borderMode=cv2.BORDER_REPLICATE)
        out += [(k, item) for item in proc(img, k / FPS)]
    return out, balls


def _split(out):
    shots = [(k, i) for k, i in out if "type" not in i]
    moves = [(k, i) for k, i in out if i.get("type") == "camera_moved"]
    return shots, moves


TAP, KNOCK = ((16.0, -8.0), 0.4), ((30.0, -14.0), 0.8)  # (shift px, turn degrees)


@pytest.mark.parametrize(
    "knock_at, knock, beyond",
    [
        (25, TAP, False),  # a tap before the strike: followed by registration
        (52, TAP, False),  # ... while the struck ball rolls
        (52, KNOCK, True),  # a knock too far to follow while it rolls: recalibrated
    ],
)
def test_knock_is_told_and_the_shot_measured_right(knock_at, knock, beyond) -> None:
    """One shot, struck where it was (none from the knock), no ball touched; the knock
    told once near its frame (a move the registration cannot follow spans the frames up
    to the recalibration: ``until``), and inside the shot when it came during it; the
    rest positions within 2 mm of the truth (the ball stopped 200 mm on, the still balls
    where they lie), measured after the knock."""
    struck = 45
    out, balls = _run(knock_at, *knock, struck=struck, frames=110 if beyond else 95)
    shots, moves = _split(out)
    assert [abs(s["start"]["frame"] - struck) <= 2 for _, s in shots] == [True], shots
    shot = shots[0][1]
    kinds = [e["type"] for e in shot["events"]]
    assert kinds[0] == "strike" and "ball_touched" not in kinds
    assert kinds.count("camera_moved") == (1 if knock_at > struck else 0)
    assert [abs(ev["frame"] - knock_at) <= 3 for _, ev in moves] == [True], moves
    told, ev = moves[0]
    assert ("until" in ev) == beyond
    assert told - ev.get("until", ev["frame"]) <= 20  # told within ~0.7 s of its end
    if beyond:  # the shot goes on through the move: it ends after it
        assert shot["end"]["frame"] >= ev["until"]
    rest = np.array(list(shot["rest"].values()))
    truth = np.array([b[:2] for b in balls])
    assert len(rest) == len(truth)
    err = np.linalg.norm(rest[:, None, :] - truth[None, :, :], axis=2).min(axis=0)
    assert err.max() <= 2.0, err


@pytest.mark.parametrize("offset_mm", [40.0, 120.0])
def test_live_cutter_takes_no_strike_from_a_move(offset_mm) -> None:
    """Balls at rest whose positions slide while the camera moves (frames 40-55) and
    settle ``offset_mm`` away: fed with the move (and ``moving`` over it), the live cutter
    hands out no shot; fed without it, the slide is a strike."""
    table = load_table("pyramid-12ft")
    a, b = 40, 55
    at = {"w1": (900.0, 600.0), "w2": (2500.0, 1100.0), "yellow": (1800.0, 400.0)}

    def run(told: bool) -> list:
        cut, out = LiveShotCutter(table, FPS), []
        for k in range(120):
            f = min(max((k - a) / (b - a), 0.0), 1.0)
            pos = {
                n: (x + f * offset_mm, y + 0.3 * f * offset_mm, True) for n, (x, y) in at.items()
            }
            moves = [[a, min(k, b)]] if told and k >= a else []
            out += cut.update(k, pos, moves, moves, told and a <= k <= b + AFTER_FRAMES)
        return out

    assert run(True) == []
    assert len(run(False)) >= 1


def test_moves_told_once_when_over_and_forgotten_later() -> None:
    """A move is told once, when no later motion can join it (``FINAL_FRAMES`` after its
    last frame); a knock without a span likewise; what was told and lies a minute back
    is dropped (a worker runs all day)."""
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=110)
    img = draw_scene(calib, table, SIZE, STILL, seed=0)
    live = LiveWatch(DriftWatch(calib, table, None, first=[img], fps=FPS))
    w = live.watch
    w.motion.spans.append([100, 110])
    w.jumps.append(Event(frame=300, t=10.0, type=EventType.CAMERA_MOVED))
    assert live.told(110 + FINAL_FRAMES - 1) == []  # a motion could still join it
    assert live.moving(112) and not live.moving(110 + AFTER_FRAMES + 1)
    told = live.told(110 + FINAL_FRAMES)
    assert [(e.frame, getattr(e, "until", None)) for e in told] == [(100, 110)]
    assert live.told(200) == []  # told once
    assert [e.frame for e in live.told(300 + FINAL_FRAMES)] == [300]
    live.forget(200)
    assert w.motion.spans == [] and [e.frame for e in w.jumps] == [300]
    assert live.told(400) == []


def test_live_cutter_never_settled_stays_bounded_and_hands_out_the_shot() -> None:
    """A picture that never comes to rest (a detection flickering 20 mm every frame, as
    between two balls of a jittery hand-held view) keeps the live cutter from confirming
    a rest state: it still hands out the shot struck meanwhile once its buffer spans
    ``LIVE_BUFFER_S``, and keeps no more than that."""
    table = load_table("pyramid-12ft")
    cut, got, most = LiveShotCutter(table, FPS), [], 0
    struck = 300
    for k in range(int((LIVE_BUFFER_S + 15) * FPS)):
        pos = {n: (x, y, True) for n, (x, y, _) in zip(("w1", "w2", "yellow"), STILL, strict=True)}
        pos["w3"] = (*_rolling(k, struck)[:2], True)
        pos["w4"] = (3000.0 + 20.0 * (k % 2), 300.0, True)
        got += [(k, s) for s in cut.update(k, pos)]
        most = max(most, len(cut._rows))
    assert [(abs(s.start.frame - struck) <= 2, s.cue_ball) for _, s in got] == [(True, "w3")]
    assert got[0][0] <= (LIVE_BUFFER_S + 1) * FPS
    assert most <= 5 * (LIVE_BUFFER_S + 1) * FPS


def test_one_image_fed_twice_is_seen_at_each_frame() -> None:
    """A feed that hands the same image object on two frames (a frozen camera, a reused
    buffer): the registered frame the detector sees carries each frame's own number."""
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=110)
    img = draw_scene(calib, table, SIZE, STILL, seed=0)
    w = DriftWatch(calib, table, None, first=[img], fps=FPS)
    det = Detector(calib, table, SIZE)
    det.fit_background([img])
    w.follower.G = np.array([[1.0, 0.0, 4.0], [0.0, 1.0, -3.0], [0.0, 0.0, 1.0]])
    seen = [w._warped(Frame(k, k / FPS, img), det) for k in (7, 8)]
    assert [f.index for f in seen] == [7, 8]
    assert np.array_equal(seen[0].image, seen[1].image)
