"""Tracks as a tracker gives them (lost and re-started, spare ids, a ball seen falling
into a pocket, a detection hopping at rest) cut into the right shots and events."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import path_tracks

from contract.events import EventType
from contract.tables import load_table
from contract.tracks import Tracks
from vision.events.series import relink, series_from_tracks
from vision.events.shots import cut_tracks

FPS = 30.0
PYR = load_table("pyramid-12ft")
CAROM = load_table("carom-match")
R = PYR.ball_radius


def _rows(paths: dict[str, np.ndarray]) -> Tracks:
    return path_tracks(paths, FPS)


def _still(p, n: int) -> np.ndarray:
    return np.tile(np.asarray(p, float), (n, 1))


def _roll(p0, v, n_still: int, n_move: int, n_end: int = 40) -> np.ndarray:
    p0 = np.asarray(p0, float)
    moving = p0 + np.outer(np.arange(1, n_move + 1), v)
    return np.vstack([_still(p0, n_still), moving, _still(moving[-1], n_end)])


@pytest.mark.parametrize(
    ("gap", "jump_mm", "joined"),
    [
        (6, 0.0, True),  # lost for 6 frames in fast motion, found where it rolled to
        (6, 150.0, True),  # ... or off a bounce, within two diameters of that
        (6, 400.0, False),  # a new track far from anywhere the ball could be: a new ball
        (30, 0.0, False),  # too long a gap
    ],
)
def test_relink_joins_a_lost_track_to_the_one_that_takes_over(gap, jump_mm, joined):
    n = 80
    v = np.array([40.0, 0.0])
    path = _roll((500.0, 800.0), v, 10, 40, n - 50)
    a = path.copy()
    a[20:] = np.nan  # the tracker loses it at frame 20
    b = np.full_like(path, np.nan)
    b[20 + gap :] = path[20 + gap :] + (0.0, jump_mm)
    s = relink(series_from_tracks(_rows({"w1": a, "w9": b}), FPS), R)
    ia, ib = s.index("w1"), s.index("w9")
    assert (not np.isnan(s.xy[ia, -1, 0])) == joined
    assert np.isnan(s.xy[ib, :, 0]).all() == joined


def test_relink_keeps_a_pocketed_ball_ended():
    n = 60
    a = _roll((3400.0, 1650.0), (20.0, 20.0), 10, 6, 0)
    a = np.vstack([a, np.full((n - len(a), 2), np.nan)])
    b = np.full((n, 2), np.nan)
    b[20:] = (3450.0, 1700.0)  # something seen in the pocket's mouth afterwards
    pockets = [(p.x, p.y, p.mouth_mm + 2 * R) for p in PYR.pockets]
    s = relink(series_from_tracks(_rows({"w1": a, "w9": b}), FPS), R, pockets)
    assert np.isnan(s.xy[s.index("w1"), 30, 0])


def test_a_ball_still_seen_falling_into_the_pocket_is_pocketed_at_the_mouth():
    """The centre crosses the corner's mouth line at frame 19 + k; the camera still sees
    the ball inside the pocket for three frames after: the pocket is dated at the line."""
    p0 = np.array([3350.0, 1575.0])
    v = np.array([20.0, 20.0])
    c = PYR.corner_mouth_mm / 2**0.5  # mouth line: (L - x) + (W - y) = c
    k = ((PYR.L - p0[0]) + (PYR.W - p0[1]) - c) / (v[0] + v[1])
    n = int(k) + 4
    w1 = np.vstack(
        [_still(p0, 20), p0 + np.outer(np.arange(1, n + 1), v), np.full((40, 2), np.nan)]
    )
    cut = cut_tracks(_rows({"w1": w1, "w2": _still((1000.0, 900.0), len(w1))}), PYR, FPS)
    pockets = [e for s in cut.shots for e in s.events if e.type == EventType.POCKET]
    assert [(e.ball, e.pocket) for e in pockets] == [("w1", "back-right")]
    assert pockets[0].frame == round(19 + k)  # frame 19 + j shows p0 + j v


def test_a_detection_hopping_in_place_opens_no_shot():
    n = 80
    hop = _still((2000.0, 900.0), n)
    hop[30:33] += (20.0, 0.0)  # three frames on a neighbour's edge, then back
    hop[40:42] += (0.0, 20.0)
    cut = cut_tracks(_rows({"w1": hop, "w2": _still((1000.0, 500.0), n)}), PYR, FPS)
    assert cut.shots == ()


def test_spare_carom_track_beside_the_ball_is_no_ball():
    """A sleeve seen as a second red (``red1``) that moves while the white is played."""
    n = 90
    white = _roll((700.0, 400.0), (25.0, 0.0), 20, 20, n - 40)
    red = _still((2000.0, 1000.0), n)
    yellow = _still((2400.0, 300.0), n)
    red1 = np.full((n, 2), np.nan)
    red1[10:50] = np.c_[np.linspace(1200, 1500, 40), np.full(40, 900.0)]
    cut = cut_tracks(
        _rows({"white": white, "red": red, "yellow": yellow, "red1": red1}), CAROM, FPS
    )
    assert [s.cue_ball for s in cut.shots] == ["white"]
    assert all("red1" not in e.ids for s in cut.shots for e in s.events)


@pytest.mark.parametrize("white_stays", [False, True])
def test_a_carom_ball_read_in_a_taken_colour_is_the_ball_gone(white_stays):
    """The white, struck at 60 mm/frame, is lost after 5 frames and a second yellow
    (``yellow1``) appears 2 frames later where it rolled, while the yellow rests (a white
    smear read yellow under broadcast light). On a carom table (one ball of each colour)
    it is the white: one shot, the white's, ending where it stopped. When the white is
    seen at rest all along, ``yellow1`` is no ball: it is dropped and nothing was played."""
    n = 120
    white = _roll((700.0, 400.0), (60.0, 0.0), 20, 25, n - 45)
    y1 = np.full((n, 2), np.nan)
    y1[27:] = white[27:]
    if white_stays:
        white = _still((700.0, 400.0), n)
    else:
        white[25:] = np.nan
    rows = {"white": white, "red": _still((2600.0, 1000.0), n)}
    rows |= {"yellow": _still((2400.0, 1200.0), n), "yellow1": y1}
    shots = cut_tracks(_rows(rows), CAROM, FPS).shots
    if white_stays:
        assert shots == ()
    else:
        assert [s.cue_ball for s in shots] == ["white"]
        assert np.allclose(shots[0].rest["white"], (2200.0, 400.0), atol=1.0)
    assert all("yellow1" not in e.ids for s in shots for e in s.events)


@pytest.mark.parametrize(
    ("after", "v2", "cushions"),
    [
        # three samples on the cloth after the jaw turned it (the last in the throat)
        (3, (-1.0, -15.0), [("front", 29)]),
        # one sample after it, then gone: on from (32, 30) at (-1, -15) mm/frame it runs
        # 12 mm into the left cushion's nose end (51.6, 0) before it can drop, as ball 8 of
        # pyramid-pots seed 1 does at frame 169 (the simulator's truth: a left-front touch)
        (1, (-1.0, -15.0), [("front", 29), ("left-front", 30)]),
        # the next sample already past the mouth line (a tracker following the ball into
        # the hole): the bend is the fall, no jaw
        (1, (-20.0, -20.0), []),
    ],
)
def test_a_bounce_off_the_jaw_before_the_drop_is_a_cushion(after, v2, cushions):
    """The ball reaches the front jaw of the front-left pocket (centre 1 mm short of the
    nose line), is turned from (-26.7, -10.5) to ``v2`` mm/frame and drops: the x motion
    is not reversed, so no V against the nose, but the jaw pushed it along +x."""
    p0 = np.array([300.0, 150.0])
    v1, v2 = np.array([-26.7, -10.5]), np.asarray(v2)
    kink = p0 + 10 * v1  # (33, 45) at frame 29
    path = np.vstack(
        [
            _still(p0, 20),
            p0 + np.outer(np.arange(1, 11), v1),
            kink + np.outer(np.arange(1, after + 1), v2),
            np.full((40, 2), np.nan),
        ]
    )
    cut = cut_tracks(_rows({"w1": path, "w2": _still((2000.0, 900.0), len(path))}), PYR, FPS)
    ev = [e for s in cut.shots for e in s.events]
    found = [(e.ball, e.cushion, e.frame) for e in ev if e.type == EventType.CUSHION]
    assert found == [("w1", name, f) for name, f in cushions]
    assert [(e.ball, e.pocket) for e in ev if e.type == EventType.POCKET] == [("w1", "front-left")]


@pytest.mark.parametrize(("ball_y", "down"), [(710.0 + 30.0, True), (710.0 + 300.0, False)])
def test_a_skittle_track_that_ends_as_a_ball_passes_is_down(ball_y, down):
    """No state column (a detector that does not classify lying pins): the centre
    skittle's track ends at frame 40; the white passes its mark then (knocked) or far
    from it (the pin was only hidden by an arm)."""
    n = 100
    white = _roll((900.0, ball_y), (20.0, 0.0), 20, 40, n - 60)  # at x = 1420 at frame 46
    pins = {k: _still(p, n) for k, p in CAROM.skittle_spots.items()}
    pins["centre"][47:] = np.nan
    paths = {
        "white": white,
        "yellow": _still((2400.0, 300.0), n),
        "red": _still((2400.0, 1100.0), n),
        **pins,
    }
    cut = cut_tracks(_rows(paths), CAROM, FPS)
    ev = [e for s in cut.shots for e in s.events if e.type == EventType.SKITTLE_DOWN]
    assert [(e.skittle, e.by) for e in ev] == ([("centre", "white")] if down else [])


def test_a_track_lost_mid_table_during_a_shot_is_neither_pocket_nor_off_table():
    """w2's detection slides 20 mm toward the back and is lost (a tracker's fragment)
    while w1 is played: it vanished 600 mm from any edge, so it left nothing."""
    n = 90
    w1 = _roll((800.0, 500.0), (25.0, 0.0), 20, 30, n - 50)
    w2 = _still((2900.0, 1000.0), n)
    w2[30:32] = [(2920.0, 1010.0), (2940.0, 1020.0)]
    w2[32:] = np.nan
    cut = cut_tracks(_rows({"w1": w1, "w2": w2}), PYR, FPS)
    kinds = {e.type for s in cut.shots for e in s.events}
    assert EventType.OFF_TABLE not in kinds and EventType.POCKET not in kinds
    assert [s.cue_ball for s in cut.shots] == ["w1"]


def test_a_ball_hidden_at_the_pocket_and_seen_again_is_not_pocketed():
    """w1 rolls at the back-right pocket and is lost 50 mm from both rails (a body over
    the corner): a pocket, unless it is seen again there (50 mm back) 40 frames later."""
    n = 140
    p0 = np.array([3380.0, 1605.0])
    w1 = np.vstack([_still(p0, 20), p0 + np.outer(np.arange(1, 11), (12.0, 12.0))])
    lost = w1[-1].copy()
    gone = np.vstack([w1, np.full((n - len(w1), 2), np.nan)])
    back = np.vstack([w1, np.full((40, 2), np.nan), _still(lost - (50.0, 0.0), n - len(w1) - 40)])
    for path, pocketed in ((gone, True), (back, False)):
        cut = cut_tracks(_rows({"w1": path, "w2": _still((1000.0, 900.0), n)}), PYR, FPS)
        pockets = [e for s in cut.shots for e in s.events if e.type == EventType.POCKET]
        assert [(e.ball, e.pocket) for e in pockets] == ([("w1", "back-right")] if pocketed else [])


def test_relink_never_joins_two_colours():
    n = 60
    a = _roll((500.0, 800.0), (40.0, 0.0), 10, 40, n - 50)
    b = np.full_like(a, np.nan)
    b[26:] = a[26:]
    a[20:] = np.nan
    s = relink(series_from_tracks(_rows({"black1": a, "blue4": b}), FPS), R)
    assert np.isnan(s.xy[s.index("black1"), -1, 0])
    s = relink(series_from_tracks(_rows({"yellow": a, "w17": b}), FPS), R)
    assert not np.isnan(s.xy[s.index("yellow"), -1, 0])  # a blurred yellow read as white


@pytest.mark.parametrize(
    ("hit", "back", "off"),
    [
        (True, False, True),  # struck at rest by the rail and gone the next frame: flew off
        (False, False, False),  # gone with no ball near it: not this shot's doing
        (True, True, False),  # struck, lost, seen again there within a second: hidden
    ],
)
def test_a_ball_that_vanishes_from_rest_as_a_ball_reaches_it_flew_off(hit, back, off):
    """``w1`` rests 18 mm from the left cushion line at (3300, 52); the cue ball rolls
    at 40 mm/frame toward it (or toward a place 500 mm away) and reaches it at frame 30,
    where ``w1``'s rows end (``back``: it is seen again at frame 45)."""
    n = 80
    target = np.array([3300.0, 52.0]) if hit else np.array([2800.0, 52.0])
    d = np.array([-1.0, 1.0]) / np.sqrt(2.0)
    t = np.clip(np.arange(n, dtype=float) - 10.0, 0.0, 20.0)  # rolls 20 frames, stops
    cue = target + d * (2 * R + 800.0) - np.outer(t, d) * 40.0
    w1 = _still((3300.0, 52.0), n)
    w1[31:] = np.nan
    if back:
        w1[45:] = (3300.0, 52.0)
    cut = cut_tracks(_rows({"yellow": cue, "w1": w1}), PYR, FPS)
    ev = [e for s in cut.shots for e in s.events if e.type == EventType.OFF_TABLE]
    assert [(e.ball, e.frame) for e in ev] == ([("w1", 30)] if off else [])
    assert not any(e.type == EventType.POCKET for s in cut.shots for e in s.events)


@pytest.mark.parametrize(
    ("gap", "dist_mm", "speed_mm_f", "joined"),
    [
        (7, 2200.0, 15.0, True),  # a break's cue ball lost in its blur, seen again at the rack
        (7, 3500.0, 15.0, False),  # farther than 12 m/s could carry it in 8 frames
        (7, 2200.0, 0.0, False),  # seen again at rest: a ball put there, not one struck
        (25, 2200.0, 15.0, False),  # too long a gap
    ],
)
def test_a_ball_struck_out_of_sight_is_the_track_that_appears_moving(
    gap, dist_mm, speed_mm_f, joined
):
    """A resting ball vanishes and a track appears already moving ``gap`` frames later:
    the same ball, struck unseen, when a struck ball could have got there (the shot then
    starts with it, not with the ball it hit)."""
    n = 120
    rest = np.array([400.0, 540.0])
    a = np.vstack([_still(rest, 60), np.full((n - 60, 2), np.nan)])
    b = np.full((n, 2), np.nan)
    start = rest + (dist_mm, 0.0)
    steps = np.arange(n - 60 - gap)[:, None] * np.array([0.0, speed_mm_f])
    b[60 + gap :] = start + np.minimum(steps, 40 * speed_mm_f)
    s = relink(series_from_tracks(_rows({"yellow": a, "w16": b}), FPS), R)
    assert (not np.isnan(s.xy[s.index("yellow"), -1, 0])) == joined
    if joined:
        shots = cut_tracks(_rows({"yellow": a, "w16": b}), PYR, FPS).shots
        assert shots and shots[0].cue_ball == "yellow"
        assert shots[0].start.frame <= 61


@pytest.mark.parametrize(
    ("ghost", "dist_mm", "joined"),
    [
        (True, 2200.0, True),  # the cue tip read as the ball behind it, then the ball lost
        (False, 2200.0, True),  # lost in its blur while moving, no ghost
        (True, 3500.0, False),  # farther than 12 m/s could carry it in the gap
    ],
)
def test_a_fast_ball_lost_moving_is_the_track_that_appears_moving(ghost, dist_mm, joined):
    """A cue ball struck at 290 mm/frame is seen once moving, then (``ghost``) one sample
    300 mm back near where it rested (a cue tip taken for it), then never again; 6 frames
    later a white track appears ``dist_mm`` ahead of its rest, moving. Joined where a ball
    could have got there; no cushion is read from the ghost's turn 330 mm from any cushion
    (to the nose and back in a frame is faster than any ball)."""
    n, f0 = 120, 60
    rest = np.array([400.0, 900.0])
    a = np.full((n, 2), np.nan)
    a[:f0] = rest
    a[f0] = rest + (290.0, 0.0)
    if ghost:
        a[f0 + 1] = rest - (30.0, 0.0)
    b = np.full((n, 2), np.nan)
    s0 = f0 + 8
    b[s0:] = rest + (dist_mm, 0.0) + np.minimum(np.arange(n - s0), 20)[:, None] * (0.0, 12.0)
    rows = _rows({"yellow": a, "w16": b})
    s = relink(series_from_tracks(rows, FPS), R)
    assert (not np.isnan(s.xy[s.index("yellow"), -1, 0])) == joined
    if joined:
        shots = cut_tracks(rows, PYR, FPS).shots
        assert shots and shots[0].cue_ball == "yellow"
        cushions = [e for e in shots[0].events if e.type == EventType.CUSHION]
        assert cushions == []
