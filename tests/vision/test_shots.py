"""Shots and events cut from tracks (issue: shots and events; contract §8)."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scene import path_tracks

from contract.events import EventType
from contract.tables import load_table
from contract.tracks import Tracks
from vision.events.shots import cut_tracks
from vision.events.shots_live import LiveShotCutter

FPS = 30.0
T = load_table("pyramid-12ft")
R = T.ball_radius


def _rows(paths: dict[str, np.ndarray], hidden: dict[str, range] | None = None) -> Tracks:
    """TRACKS rows from per-ball (F, 2) arrays (NaN = not on the table)."""
    return path_tracks(paths, FPS, hidden)


def _still(p: tuple[float, float], n: int) -> np.ndarray:
    return np.tile(np.asarray(p, float), (n, 1))


def _roll(p0, v, n_still, n_move, stop_after: bool = True, n_end: int = 40) -> np.ndarray:
    """Still for n_still frames, then constant velocity v (mm/frame) for n_move frames."""
    p0 = np.asarray(p0, float)
    moving = p0 + np.outer(np.arange(1, n_move + 1), v)
    tail = _still(moving[-1], n_end) if stop_after else np.empty((0, 2))
    return np.vstack([_still(p0, n_still), moving, tail])


def test_cushion_bounce_is_one_cushion_event_at_the_right_frame() -> None:
    # yellow rolls toward the back cushion at 30 mm/frame from x=3300: it reaches
    # x = L - R = 3516 after 7.2 frames, then comes back.
    p0 = np.array([3300.0, 600.0])
    f_hit = (T.L - R - p0[0]) / 30.0
    out = [
        p0 + [30.0 * k, 0] if k <= f_hit else p0 + [2 * 30 * f_hit - 30.0 * k, 0]
        for k in range(1, 15)
    ]
    path = np.vstack([_still(p0, 20), np.array(out), _still(np.array(out)[-1], 40)])
    cut = cut_tracks(_rows({"yellow": path}), T, FPS)
    assert len(cut.shots) == 1
    shot = cut.shots[0]
    # at rest through frame 19, 30 mm on at frame 20: the strike is at frame 19
    assert shot.cue_ball == "yellow" and shot.start.frame == 19
    cushions = shot.ev.of_type(EventType.CUSHION)
    assert [(e.ball, e.cushion) for e in cushions] == [("yellow", "back")]
    assert cushions[0].frame == round(19 + f_hit)


def test_pocket_and_no_pocket_under_a_hand() -> None:
    # w1 rolls into the back-right pocket and vanishes; w2 is covered by an arm (rows
    # predicted, visible=0) and reappears: that is no pocket.
    p0 = np.array([3350.0, 1560.0])
    v = np.array([20.0, 20.0])
    n = int((T.L - p0[0]) / 20.0) + 1
    w1 = np.vstack(
        [_still(p0, 20), p0 + np.outer(np.arange(1, n + 1), v), np.full((40, 2), np.nan)]
    )
    w2 = _still((1000.0, 900.0), len(w1))
    cut = cut_tracks(_rows({"w1": w1, "w2": w2}, hidden={"w2": range(25, 50)}), T, FPS)
    pockets = [e for s in cut.shots for e in s.events if e.type == EventType.POCKET]
    assert [(e.ball, e.pocket) for e in pockets] == [("w1", "back-right")]
    assert "w1" not in cut.shots[0].rest and "w2" in cut.shots[0].rest


def test_ball_carried_by_a_hand_is_not_a_shot() -> None:
    w1 = _roll((1000.0, 500.0), (10.0, 0.0), 20, 30)
    hidden = {"w1": range(15, 60)}
    cut = cut_tracks(_rows({"w1": w1}, hidden=hidden), T, FPS)
    assert cut.shots == ()


def test_contact_names_the_striking_ball_first_and_the_cross() -> None:
    # yellow at 40 mm/frame hits w5 resting ahead on the same line; w5 takes the speed.
    y0 = np.array([1500.0, 887.5])
    w0 = np.array([1900.0, 887.5])
    f_c = (w0[0] - 2 * R - y0[0]) / 40.0  # frames after the strike until contact
    n = 30
    ks = np.arange(1, n + 1)
    yx = np.where(ks <= f_c, y0[0] + 40 * ks, y0[0] + 40 * f_c)
    wx = np.where(ks <= f_c, w0[0], w0[0] + 38 * (ks - f_c))
    pre = 20
    yellow = np.vstack([_still(y0, pre), np.c_[yx, np.full(n, 887.5)], _still((yx[-1], 887.5), 40)])
    w5 = np.vstack([_still(w0, pre), np.c_[wx, np.full(n, 887.5)], _still((wx[-1], 887.5), 40)])
    cut = cut_tracks(_rows({"yellow": yellow, "w5": w5}), T, FPS)
    assert len(cut.shots) == 1
    evs = cut.shots[0].ev
    contacts = evs.of_type(EventType.CONTACT)
    assert [e.balls for e in contacts] == [("yellow", "w5")]
    assert contacts[0].frame == round(pre - 1 + f_c)
    # yellow stops at x = 1832 (before the centre line at 1775? no: it crosses it)
    crosses = evs.of_type(EventType.CROSS)
    assert [e.ball for e in crosses] == ["yellow"]
    assert crosses[0].frame == round(pre - 1 + (T.centre_line_x - y0[0]) / 40.0)


def test_two_shots_are_cut_at_the_rest_state() -> None:
    a = _roll((1000.0, 500.0), (15.0, 0.0), 10, 10, n_end=30)
    b = _roll(a[-1], (0.0, 15.0), 0, 10, n_end=40)
    cut = cut_tracks(_rows({"yellow": np.vstack([a, b])}), T, FPS)
    assert [s.index for s in cut.shots] == [1, 2]
    assert cut.shots[0].end.frame < cut.shots[1].start.frame


def test_live_cutter_gives_the_shot_within_half_a_second_of_rest() -> None:
    a = _roll((1000.0, 500.0), (15.0, 0.0), 10, 10, n_end=60)
    live = LiveShotCutter(T, FPS)
    got = []
    for f, (x, y) in enumerate(a):
        for s in live.update(f, {"yellow": (float(x), float(y), True)}):
            got.append((f, s))
    assert len(got) == 1
    f_emit, shot = got[0]
    assert (f_emit - shot.end.frame) / FPS <= 0.5 + 2 / FPS
    assert shot.cue_ball == "yellow"


SCENARIOS = [
    ("pyramid-pots", ("strike", "contact", "cushion", "pocket", "cross")),
    ("pyramid-miss", ("strike", "contact", "cushion", "pocket", "cross")),
    ("pyramid-cue-pocketed", ("strike", "contact", "cushion", "pocket", "cross")),
    ("pyramid-off-table", ("strike", "contact", "cushion", "pocket", "off_table", "cross")),
    ("carom-5pin-play", ("strike", "contact", "cushion", "cross", "skittle_down")),
    ("carom-5pin-break", ("strike", "contact", "cushion", "cross", "skittle_down")),
]


@pytest.mark.parametrize(("name", "kinds"), SCENARIOS)
def test_events_from_exact_tracks_match_the_simulated_truth(name: str, kinds: tuple) -> None:
    """On the simulator's exact tracks every shot is found within 2 frames and the
    strike, contact, pocket, off_table and cross events all match (±3 frames)."""
    from bench.score import score_match
    from contract.match import Match
    from synth.clip import build_clip
    from synth.scenarios import scenario
    from synth.truth import truth_match, truth_tracks

    clip = build_clip(scenario(name)(0))
    truth = truth_match(clip, judge=False)
    cut = cut_tracks(truth_tracks(clip, None, None), clip.table, clip.spec.fps)
    pred = Match(game=truth.game, table=truth.table, video=truth.video, shots=cut.shots)
    rep = score_match(pred, truth).to_json()
    assert rep["shots"]["recall"] == 1.0 and rep["shots"]["precision"] == 1.0
    per_type = {t["type"]: t for t in rep["events"]["types"]}
    for kind in kinds:
        if kind in per_type and per_type[kind]["truth"]:
            assert per_type[kind]["f1"] == 1.0, (kind, per_type[kind])
    if "skittle_down" in per_type and per_type["skittle_down"]["truth"]:
        sk = per_type["skittle_down"]
        assert sk["by_right"] == sk["by_total"] == sk["truth"]  # the knocker named right


def test_the_video_ending_while_balls_roll_is_no_pocket_and_no_off_table() -> None:
    # yellow still rolling in the last frame of the recording
    path = np.vstack(
        [_still((1000.0, 500.0), 10), (1000.0, 500.0) + np.outer(np.arange(1, 21), (12.0, 0.0))]
    )
    cut = cut_tracks(_rows({"yellow": path}), T, FPS)
    kinds = [e.type for s in cut.shots for e in s.events]
    assert kinds == [EventType.STRIKE]


def _braking(t_stop: float, a: float, n: int, x0: float = 1000.0) -> np.ndarray:
    """A ball rolling along x that stops at fractional frame ``t_stop`` under a constant
    deceleration ``a`` (mm/frame^2): distance still to go ``a/2 (t_stop - t)^2``."""
    t = np.arange(n, dtype=float)
    togo = 0.5 * a * np.clip(t_stop - t, 0.0, None) ** 2
    return np.c_[x0 - togo, np.full(n, 500.0)]


@pytest.mark.parametrize(
    ("noise_mm", "lag", "decel_known"),
    [
        (0.0, 0, True),  # exact positions
        (0.0, 0, False),  # exact, deceleration fitted per ball
        (0.5, 0, True),  # a 720p tracker's noise on a moving ball
        (0.5, 1, True),  # and a one-frame lag of its last samples (smoothing)
    ],
)
def test_stop_time_within_a_frame_of_the_true_stop(noise_mm, lag, decel_known) -> None:
    from vision.events.motion import stop_time

    rng = np.random.default_rng(3)
    t_stop, a = 40.3, 0.19
    xy = _braking(t_stop, a, 60)
    xy[:, 0] += rng.normal(0.0, noise_mm, 60) * (np.arange(60) < t_stop)
    if lag:  # a smoothing tracker: each sample halfway to the one before
        xy[1:41] = 0.5 * (xy[1:41] + xy[0:40])
    rest = xy[-1]
    got = stop_time(xy, 0, 50, rest, 0.6, floor=20 * 0.15, decel=a if decel_known else None)
    assert abs(got - t_stop) <= 1.0


def test_rolling_decel_is_measured_from_slow_rolling_balls() -> None:
    from vision.events.motion import rolling_decel

    balls = np.stack([_braking(40.0 + k, 0.19, 60, 500.0 + 100 * k) for k in range(3)])
    assert rolling_decel(balls) == pytest.approx(0.19, abs=0.01)
    assert rolling_decel(balls[:, :8]) is None  # too few frames to tell


@pytest.mark.parametrize("noise_mm", [0.0, 0.5])
def test_a_shot_ends_where_the_last_ball_stops_though_noise_hides_its_creep(noise_mm) -> None:
    """A ball struck at frame 20 rolls to a stop at frame 90.4 (0.2 mm/frame^2); with
    0.5 mm of noise on every row its last ~9 frames move less than the motion threshold,
    yet the shot ends within a frame of the stop."""
    rng = np.random.default_rng(5)
    n, t_stop, a = 140, 90.4, 0.2
    t = np.arange(n, dtype=float)
    togo = 0.5 * a * np.clip(t_stop - t, 0.0, None) ** 2
    togo[t < 20] = togo[20]
    ball = np.c_[2500.0 - togo, np.full(n, 800.0)]
    other = _still((900.0, 400.0), n)
    paths = {k: p + rng.normal(0.0, noise_mm, p.shape) for k, p in (("w1", ball), ("w2", other))}
    cut = cut_tracks(_rows(paths), T, FPS)
    assert len(cut.shots) == 1
    assert abs(cut.shots[0].end.frame - t_stop) <= 1.0


@pytest.mark.parametrize(
    ("creep", "touched"),
    [
        (0.0, True),  # still, far from every ball, then moves: touched (rule 16)
        (0.7, False),  # it was creeping all along (below the motion threshold): no touch
    ],
)
def test_a_ball_that_starts_with_nothing_near_is_touched_unless_it_never_stopped(creep, touched):
    n = 120
    cue = _roll((800.0, 500.0), (20.0, 0.0), 10, 20, n_end=90)
    w2 = _still((2500.0, 1400.0), n)
    w2[20:40] += np.outer(np.arange(1, 21), (creep, 0.0))
    w2[40:] = w2[39]
    w2[40:60] += np.outer(np.arange(1, 21), (3.0, 0.0))
    w2[60:] = w2[59]
    cut = cut_tracks(_rows({"yellow": cue, "w2": w2}), T, FPS)
    kinds = [(e.type, e.ball) for s in cut.shots for e in s.events]
    assert ((EventType.BALL_TOUCHED, "w2") in kinds) is touched


@pytest.mark.parametrize(
    ("back", "touched"),
    [
        (True, False),  # pulled 11 mm aside under a cue, back on its spot: never moved
        (False, True),  # rolled 11 mm from its spot to a new one: touched (rule 16)
    ],
)
def test_a_ball_whose_detections_come_back_to_its_spot_was_not_touched(back, touched):
    n = 200
    rng = np.random.default_rng(3)
    cue = _roll((800.0, 500.0), (20.0, 0.0), 100, 20, n_end=80)
    home = np.array([2500.0, 1400.0])
    w2 = _still(tuple(home), n)
    w2[40:100] += (0.0, 11.0) + rng.normal(0.0, 0.3, (60, 2))  # a cue over its edge
    w2[100:106] = home + np.outer(np.linspace(1.0, 0.0, 6), (0.0, 11.0))  # it leaves
    if not back:  # the same path, but it stood 11 mm aside all along: a real move
        w2[:40] = home + (0.0, 11.0)
    cut = cut_tracks(_rows({"yellow": cue, "w2": w2}), T, FPS)
    kinds = [(e.type, e.ball) for s in cut.shots for e in s.events]
    kinds += [(e.type, e.ball) for e in cut.loose_events]
    assert ((EventType.BALL_TOUCHED, "w2") in kinds) is touched
