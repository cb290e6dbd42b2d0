"""A club camera knocked during a live session: the live processor says ``camera_moved``
(once per move, with ``until`` where the move spans frames), takes no strike from the
knock, carries a shot under way through it, and measures the balls after it where they
are (the frames are registered back onto the first frame's picture)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib

from contract.tables import load_table
from vision.live import make_processor

SIZE = (960, 540)
FPS = 30.0
STILL = [(900.0, 600.0, "white"), (2500.0, 1100.0, "yellow"), (1800.0, 400.0, "white")]


def _rolling(k: int, start: int) -> tuple[float, float, str]:
    """A ball struck at frame ``start`` rolling along the table at 14 mm a frame, slowing
    by 0.2 mm a frame each frame (stops 70 frames later, 490 mm on), table mm."""
    s = min(max(0, k - start), 70)
    return (700.0 + 14.0 * s - 0.1 * s * s, 1300.0, "white")


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
    for every item it handed out, and the truth balls at the last frame."""
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=110)  # the noses stay in view
    proc = make_processor(table.name, calib, fps=FPS)
    out = []
    for k in range(frames):
        balls = [*STILL] + ([_rolling(k, struck)] if struck is not None else [])
        img = draw_scene(calib, table, SIZE, balls, seed=k)
        V = _knock(k, at, shift, turn)
        img = cv2.warpPerspective(img, V, SIZE, borderMode=cv2.BORDER_REPLICATE)
        out += [(k, item) for item in proc(img, k / FPS)]
    return out, balls


def _split(out):
    shots = [(k, i) for k, i in out if "type" not in i]
    moves = [(k, i) for k, i in out if i.get("type") == "camera_moved"]
    return shots, moves


@pytest.mark.parametrize(
    "shift, turn, spans",
    [
        ((30.0, -14.0), 0.8, True),  # a hard knock: the picture jumps 30 px and turns
        ((8.0, 5.0), 0.0, False),  # a tap: 9 px, under a move's threshold, still a knock
    ],
)
def test_knock_is_told_and_makes_no_strike(shift, turn, spans) -> None:
    at = 30
    out, _ = _run(at, shift, turn, struck=None, frames=75)
    shots, moves = _split(out)
    assert shots == []  # nothing was struck: the balls only moved in the picture
    assert len(moves) == 1, moves
    k, ev = moves[0]
    assert abs(ev["frame"] - at) <= 3
    assert ("until" in ev) == spans
    if spans:
        assert at <= ev["until"] <= at + 10
    assert k - ev.get("until", ev["frame"]) <= 20  # told within ~0.7 s of the move's end


@pytest.mark.parametrize("knock_at, struck", [(25, 50), (70, 50)])
def test_shot_after_or_through_a_knock_is_measured_right(knock_at, struck) -> None:
    """A knock before the strike, or while the struck ball rolls: one shot, struck
    where it was, the rest positions within 2 mm of the truth (the ball stopped 490 mm
    on, the still balls where they lie) and, for a knock during the shot, the
    ``camera_moved`` event in the shot as well as told on its own."""
    out, balls = _run(knock_at, (30.0, -14.0), 0.8, struck=struck, frames=150)
    shots, moves = _split(out)
    assert [abs(s["start"]["frame"] - struck) <= 2 for _, s in shots] == [True], shots
    shot = shots[0][1]
    kinds = [e["type"] for e in shot["events"]]
    assert kinds[0] == "strike" and "ball_touched" not in kinds
    assert kinds.count("camera_moved") == (1 if knock_at > struck else 0)
    assert [abs(ev["frame"] - knock_at) <= 3 for _, ev in moves] == [True]
    rest = np.array(list(shot["rest"].values()))
    truth = np.array([b[:2] for b in balls])
    assert len(rest) == len(truth)
    err = np.linalg.norm(rest[:, None, :] - truth[None, :, :], axis=2).min(axis=0)
    assert err.max() <= 2.0, err
