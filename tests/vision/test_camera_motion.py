"""A camera that swings and zooms mid-clip (a hand-held camera reframed): while the
picture moves, tablemon invents no strike and no ball, says ``camera_moved`` over the
motion, and the balls come back under the same ids once the camera settles."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scene import draw_scene, path_tracks, topdown_calib, write_video

from calibration.geometry import apply_h
from calibration.register import corner_motion
from contract.events import EventType
from contract.tables import load_table
from vision.base.camera_motion import CameraMotion, in_spans, merge_spans
from vision.events.shots import cut_tracks
from vision.replay import track_video

SIZE = (960, 540)
N = 85
MOVE = (30, 50)  # frames in which the picture moves (from rest to rest)
STILL = [(900.0, 600.0, "white"), (2500.0, 1100.0, "yellow"), (1800.0, 400.0, "white")]


def _rolling(k: int, start: int) -> tuple[float, float, str]:
    """A ball struck at frame ``start``, rolling 14 mm a frame and slowing (table mm)."""
    s = max(0, k - start)
    return (
        700.0 + 14.0 * s - 0.09 * s * s if s < 78 else 700.0 + 14.0 * 78 - 0.09 * 78**2,
        1300.0,
        "white",
    )


def _view(k: int, shift: tuple[float, float], zoom: float) -> np.ndarray:
    """The picture's homography (3x3, px) at frame ``k``: the identity before
    :data:`MOVE`, easing to a shift of ``shift`` px and a zoom of ``zoom`` about the centre
    during it, held after it."""
    a, b = MOVE
    e = 0.5 * (1 - np.cos(np.pi * min(1.0, max(0.0, (k - a) / (b - a)))))
    w, h = SIZE
    M = cv2.getRotationMatrix2D((w / 2, h / 2), 0.0, 1.0 + e * (zoom - 1.0))
    M[:, 2] += (e * shift[0], e * shift[1])
    return np.r_[M, [[0.0, 0.0, 1.0]]]


def _fast(shift, zoom) -> tuple[int, int]:
    """The first and last frames in which the picture moves more than 3 px (the eased
    swing starts and ends slowly)."""
    w, h = SIZE
    pts = np.array([[0.0, 0.0], [w, 0.0], [0.0, h], [w, h]])
    fast = [
        k
        for k in range(1, N)
        if corner_motion(_view(k - 1, shift, zoom), _view(k, shift, zoom), pts) > 3.0
    ]
    return fast[0], fast[-1]


def _clip(tmp_path, shift, zoom, struck: int | None):
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=110)  # the noses stay in view
    frames = []
    for k in range(N):
        balls = [*STILL] + ([_rolling(k, struck)] if struck is not None else [])
        img = draw_scene(calib, table, SIZE, balls, seed=k)
        frames.append(
            cv2.warpPerspective(img, _view(k, shift, zoom), SIZE, borderMode=cv2.BORDER_REPLICATE)
        )
    return write_video(tmp_path / "swing.avi", frames, fps=30.0), calib, table


def _ids_near(tracks, frame: int, balls) -> list[str | None]:
    """Per truth ball, the id of the track row within 30 mm of it at ``frame``."""
    sel = tracks.frame == frame
    xy, ids = np.c_[tracks.x[sel], tracks.y[sel]], tracks.id[sel].astype(str)
    out = []
    for x, y, _ in balls:
        d = np.hypot(xy[:, 0] - x, xy[:, 1] - y)
        out.append(str(ids[d.argmin()]) if len(d) and d.min() < 30.0 else None)
    return out


@pytest.mark.parametrize(
    "shift, zoom",
    [
        ((35.0, 12.0), 1.03),  # a swing along the table and a zoom in
        ((-30.0, -25.0), 0.97),  # a swing back and across, zooming out
    ],
)
def test_swing_makes_no_strike_no_ball_and_keeps_ids(tmp_path, shift, zoom) -> None:
    path, calib, table = _clip(tmp_path, shift, zoom, struck=None)
    res = track_video(str(path), calib, table)
    moved = [e for e in res.events if e.type == EventType.CAMERA_MOVED]
    a, b = _fast(shift, zoom)
    assert [e for e in moved if e.frame <= a and e.until >= b] == moved != [], (a, b, moved)
    assert any(x <= a and y >= b for x, y in res.moved), res.moved
    a, b = MOVE
    cut = cut_tracks(res.tracks, table, res.fps, moved=res.moved)
    assert cut.shots == ()  # no ball moved: nothing was struck
    assert len(set(res.tracks.id.astype(str))) == len(STILL)  # no ball born, none re-made
    before, after = _ids_near(res.tracks, a - 2, STILL), _ids_near(res.tracks, N - 1, STILL)
    assert None not in before and before == after


def test_shot_under_way_goes_on_through_the_swing(tmp_path) -> None:
    """A ball struck before the swing and rolling through it: one shot, struck where it
    was, no second strike after the camera settles."""
    path, calib, table = _clip(tmp_path, (35.0, 12.0), 1.03, struck=20)
    res = track_video(str(path), calib, table)
    cut = cut_tracks(res.tracks, table, res.fps, moved=res.moved)
    assert [abs(s.start.frame - 20) <= 2 for s in cut.shots] == [True]
    kinds = {e.type for s in cut.shots for e in s.events}
    assert EventType.BALL_TOUCHED not in kinds and EventType.POCKET not in kinds


def _G(dx: float) -> np.ndarray:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


CORNERS = np.array([[100.0, 100.0], [500.0, 100.0], [300.0, 250.0]])


@pytest.mark.parametrize(
    "shifts, moving",
    [
        ([0.0] * 12, []),  # a still camera
        ([0.0, 3.0, -2.0, 2.5, -3.0, 1.0, 0.0, 2.0, -2.5, 3.0], []),  # jitter (px) only
        ([0.0, 0.0, 0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 25.0, 25.0, 25.0, 25.0], [[2, 8]]),  # a pan
        ([0.0, 0.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0], [[1, 6]]),  # a knock
    ],
)
def test_motion_judged_over_a_window(shifts, moving) -> None:
    """1280 px wide: over 5 frames more than 19.2 px of picture motion is a move; the
    frames of the window that saw it are marked (a knock's jump stays in the window for
    its 5 frames)."""
    cm = CameraMotion(1280)
    for k, dx in enumerate(shifts):
        cm.registered(k, _G(dx) if dx else None, CORNERS)
    assert merge_spans(cm.spans) == moving


def test_unregistered_frames_are_moves_and_spans_merge() -> None:
    cm = CameraMotion(1280)
    cm.registered(0, None, CORNERS)
    for k in (1, 2, 3):
        cm.lost(k)
    cm.registered(4, _G(30.0), CORNERS)  # the first registration after: nothing to compare
    assert merge_spans(cm.spans) == [[1, 3]]
    assert merge_spans([[5, 6], [1, 3], [4, 4], [9, 9]]) == [[1, 6], [9, 9]]
    assert in_spans(8, [[1, 6]], after=2) and not in_spans(9, [[1, 6]], after=2)


@pytest.mark.parametrize("offset_mm", [40.0, 120.0])
def test_positions_sliding_with_a_move_open_no_shot(offset_mm) -> None:
    """Balls at rest whose measured positions slide during a camera move (frames 40-55)
    and settle ``offset_mm`` away (the new registration places them a little
    differently): cut with the move, no shot; cut without it, the slide is a strike
    (the protection is what keeps it out)."""
    table = load_table("pyramid-12ft")
    n, (a, b) = 120, (40, 55)
    ramp = np.clip((np.arange(n) - a) / (b - a), 0.0, 1.0)[:, None] * [offset_mm, 0.3 * offset_mm]
    paths = {
        name: np.asarray(at, float) + ramp
        for name, at in (
            ("w1", (900.0, 600.0)),
            ("w2", (2500.0, 1100.0)),
            ("yellow", (1800.0, 400.0)),
        )
    }
    rows = path_tracks(paths)
    assert cut_tracks(rows, table, 30.0, moved=[(a, b)]).shots == ()
    assert len(cut_tracks(rows, table, 30.0).shots) >= 1


@pytest.mark.parametrize(
    "steps, moving",
    [
        # a frame or two of a shaking hand's blur, the picture where it was: no move
        ([0.0, 0.0, None, None, 4.0, 4.0, 4.0], []),
        # the picture moved beyond the threshold across the unregistered frames: a move
        # (and, as a knock, the window's frames after it)
        ([0.0, 0.0, None, None, 30.0, 30.0, 30.0], [[1, 6]]),
        # unregistered for longer than the window: a move from its first frame
        ([0.0, 0.0, *[None] * 7, 0.0, 0.0], [[2, 8]]),
        # unregistered during a move: part of it at once (the picture then stands)
        ([0.0, 0.0, 25.0, None, None, 25.0, 25.0, 25.0], [[1, 4]]),
    ],
)
def test_unregistered_frames_judged_by_what_comes_after(steps, moving) -> None:
    """1280 px wide (threshold 19.2 px): ``None`` is a frame that cannot be registered
    (``sure=False``, as the drift watch reports it); a number is the picture's shift."""
    cm = CameraMotion(1280)
    for k, dx in enumerate(steps):
        if dx is None:
            cm.lost(k, sure=False)
        else:
            cm.registered(k, _G(dx) if dx else None, CORNERS)
    assert merge_spans(cm.spans) == moving


def test_only_the_table_points_in_view_measure_the_motion() -> None:
    """A registration that zooms 2 % about a point in view: the points in the 1280x720
    picture move under 19.2 px, a table point far out of view (the homography's
    extrapolation) moves about 60 px; only the ones in view count."""
    corners = np.array([[100.0, 100.0], [400.0, 300.0], [3100.0, 100.0]])
    S = np.array([[1.02, 0.0, -2.0], [0.0, 1.02, -2.0], [0.0, 0.0, 1.0]])  # about (100, 100)
    seen = np.linalg.norm(apply_h(np.linalg.inv(S), corners) - corners, axis=1)
    assert seen[:2].max() < 19.2 < seen[2]
    for size, moving in (((1280, 720), []), (None, [[1, 5]])):
        cm = CameraMotion(1280)
        for k in range(6):
            cm.registered(k, S if k == 5 else None, corners, size=size)
        assert merge_spans(cm.spans) == moving
