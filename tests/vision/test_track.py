"""The tracker: identities through crossings, occlusions, pockets, re-spots; own ids."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from contract.tracks import Tracks
from vision.detect.detector import Detections
from vision.track.tracker import Tracker

FPS = 30.0


def _run(tracker: Tracker, frames: list[tuple[list, list]], actors=None) -> Tracks:
    """frames: per frame (positions mm, classes); returns all rows."""
    rows = []
    for k, (xy, cls) in enumerate(frames):
        acts = actors(k) if actors else None
        det = Detections.from_xy(k, k / FPS, xy, cls, acts)
        out = tracker.update(det)
        rows += list(
            zip(
                *(getattr(out, f) for f in ("frame", "t", "id", "x", "y", "visible", "u", "v")),
                strict=True,
            )
        )
    out = tracker.finish()
    rows += list(
        zip(
            *(getattr(out, f) for f in ("frame", "t", "id", "x", "y", "visible", "u", "v")),
            strict=True,
        )
    )
    return Tracks.from_rows(rows)


def _ids_near(tracks: Tracks, frame: int, xy) -> str:
    f = tracks.at_frame(frame)
    d = np.hypot(f.x - xy[0], f.y - xy[1])
    return f.id[int(np.argmin(d))]


def test_crossing_balls_keep_their_ids():
    t = load_table("pyramid-12ft")
    n = 40
    a0, a1 = np.array([1000.0, 500.0]), np.array([2000.0, 1300.0])
    b0, b1 = np.array([1000.0, 1300.0]), np.array([2000.0, 500.0])
    frames = []
    for k in range(n):
        s = k / (n - 1)
        frames.append(([a0 + (a1 - a0) * s, b0 + (b1 - b0) * s], ["white", "yellow"]))
    tr = _run(Tracker(t), frames)
    assert set(tr.ids()) == {"w1", "yellow"}
    for k in range(n):
        s = k / (n - 1)
        assert _ids_near(tr, k, a0 + (a1 - a0) * s) == "w1"


def test_fast_break_five_diameters_per_frame_keeps_ids():
    t = load_table("pyramid-12ft")
    rest = [np.array([2000.0, 600.0 + 100 * i]) for i in range(4)]
    cue = np.array([600.0, 300.0])
    frames = []
    for k in range(20):
        pos = [cue + [5 * t.ball_mm * max(0, k - 5), 0.0]] if k < 10 else []
        frames.append((pos + rest, ["yellow"] * len(pos) + ["white"] * 4))
    tr = _run(Tracker(t), frames)
    ys = tr.of("yellow")
    assert ys.visible[:10].all() and np.allclose(
        ys.x[:10], [600 + 5 * t.ball_mm * max(0, k - 5) for k in range(10)], atol=1.0
    )
    for i, p in enumerate(rest):
        assert _ids_near(tr, 19, p) == f"w{i + 1}"


def test_short_occlusion_coasts_with_visible_zero():
    t = load_table("pyramid-12ft")
    p = np.array([1500.0, 800.0])
    q = np.array([2500.0, 400.0])
    frames = [
        ([p, q], ["white", "white"]) if not 10 <= k < 25 else ([q], ["white"]) for k in range(40)
    ]
    arm = lambda k: [[1400, 700, 1600, 900]] if 10 <= k < 25 else None  # noqa: E731
    tr = _run(Tracker(t), frames, actors=arm)
    w = tr.of(_ids_near(tr, 0, p))
    assert len(w) == 40  # a row every frame
    assert not w.visible[10:25].any() and w.visible[:10].all() and w.visible[25:].all()
    assert np.all(np.isnan(w.u[10:25]))
    assert np.allclose(w.x, p[0], atol=2.0) and set(tr.ids()) == {"w1", "w2"}


def test_ball_rolling_into_pocket_ends_there_and_is_respotted_with_its_name():
    t = load_table("pyramid-12ft")
    start = np.array([t.L - 600.0, t.W - 300.0])
    v = (np.array([t.L, t.W]) - start) / 20
    yellow = np.array([900.0, 900.0])
    frames = []
    for k in range(60):
        balls, cls = [yellow], ["yellow"]
        if k < 18:
            balls.append(start + v * k)
            cls.append("white")
        elif k >= 45:
            balls.append(np.array([3 * t.L / 4, t.W / 2]))
            cls.append("white")
        frames.append((balls, cls))
    tr = _run(Tracker(t), frames)
    w = tr.of("w1")
    assert w.frame.max() == 59 and not np.any((w.frame >= 18) & (w.frame < 45))
    assert set(tr.ids()) == {"w1", "yellow"}


def test_two_trackers_do_not_share_ids():
    t = load_table("carom-match")
    f = [([[500.0, 500.0], [900, 700]], ["white", "white"])] * 5
    a = _run(Tracker(t), f)
    b = _run(Tracker(t), f)
    assert a.ids() == b.ids() == ["white", "white1"]


@pytest.mark.parametrize(
    "table, classes, names",
    [
        ("pyramid-12ft", ["white", "yellow", "white"], {"w1", "yellow", "w2"}),
        ("carom-match", ["white", "yellow", "red"], {"white", "yellow", "red"}),
        ("pool-9ft", ["white", "red", "red"], {"cue", "red1", "red2"}),
    ],
)
def test_names_by_class(table, classes, names):
    t = load_table(table)
    xy = [[400.0 + 300 * i, 500.0] for i in range(len(classes))]
    tr = _run(Tracker(t), [(xy, classes)] * 4)
    assert set(tr.ids()) == names


def test_still_image_one_frame_is_confirmed_and_spurious_flicker_is_not():
    t = load_table("carom-match")
    one = _run(Tracker(t), [([[700.0, 700.0]], ["red"])])
    assert one.ids() == ["red"] and len(one) == 1
    frames = [
        (
            [[700.0, 700.0]] + ([[1500.0, 300.0]] if k == 3 else []),
            ["red"] + (["white"] if k == 3 else []),
        )
        for k in range(10)
    ]
    tr = _run(Tracker(t), frames)
    assert tr.ids() == ["red"]


def test_new_ball_vanishing_into_a_pocket_leaves_no_nameless_track():
    t = load_table("pool-9ft")
    p = t.pocket("back-right")
    c = np.array(p.centre)
    near = c - 70.0  # outside the drop circle (radius mouth/2), then just inside it
    inside = c - 25.0
    frames = [([near], ["red"]), ([inside], ["red"])]
    frames += [([[800.0, 600.0]], ["red"])] * 6
    tr = _run(Tracker(t), frames)
    assert all(isinstance(i, str) and i for i in tr.id)
    assert tr.ids() == ["red1"]


def test_cue_ball_stopping_on_impact_keeps_its_colour_and_name():
    t = load_table("pyramid-12ft")
    D = t.ball_mm
    hit = np.array([2000.0 - D, 900.0])
    frames = []
    for k in range(40):
        y = hit + [min(0.0, (k - 20) * 2.5 * D), 0.0]  # yellow arrives fast, stops at contact
        w = np.array([2000.0 + max(0, k - 20) * 1.2 * D, 900.0])  # the white leaves
        frames.append(([y, w], ["yellow", "white"]))
    tr = _run(Tracker(t), frames)
    assert set(tr.ids()) == {"yellow", "w1"}
    ys = tr.of("yellow")
    assert np.allclose(ys.x[20:], hit[0], atol=0.5)


def test_skittles_are_named_by_their_marks():
    t = load_table("carom-match")
    s = t.skittle_spots
    xy = [np.asarray(s["left"]) + 3.0, np.asarray(s["back"]) - 2.0, [600.0, 500.0]]
    tr = _run(Tracker(t), [(xy, ["skittle", "skittle", "white"])] * 4)
    assert set(tr.ids()) == {"left", "back", "white"}


def test_respotted_ball_takes_the_name_of_the_ball_that_left_last():
    t = load_table("pyramid-12ft")
    a0 = np.array([t.L - 300.0, t.W - 300.0])  # rolls into the back-right pocket first
    va = (np.array([t.L, t.W]) - a0) / 10
    b0 = np.array([1500.0, 300.0])  # later jumps off the table over the left cushion
    frames = []
    for k in range(70):
        balls, cls = [np.array([900.0, 900.0])], ["yellow"]
        if k < 9:
            balls.append(a0 + va * k)
            cls.append("white")
        if k < 30:
            balls.append(b0 - [0.0, 60.0 * max(0, k - 20)])
            cls.append("white")
        if k >= 50:  # a hand puts a white on the back spot
            balls.append(np.array([3 * t.L / 4, t.W / 2]))
            cls.append("white")
        frames.append((balls, cls))
    tr = _run(Tracker(t), frames)
    name_b = _ids_near(tr, 0, b0)
    assert _ids_near(tr, 69, [3 * t.L / 4, t.W / 2]) == name_b
    assert len(tr.ids()) == 3


# ------------------------------------------------------------ numbers (pyramid white balls)
class _FakeReader:
    """Reads the number set by the test for the ball nearest each centre (video px), with
    probability ``p``; a ball with no number set reads as "none readable"."""

    def __init__(self, numbers: dict, p: float = 0.6):
        self.numbers, self.p = numbers, p
        self.calls = 0

    def read(self, image, centres, radii):
        self.calls += len(centres)
        out = np.full((len(centres), 16), np.log(1e-6))
        for i, c in enumerate(centres):
            key = min(self.numbers, key=lambda k: np.hypot(k[0] - c[0], k[1] - c[1]))
            n = self.numbers[key] if np.hypot(key[0] - c[0], key[1] - c[1]) < 40 else 0
            if n == 0:
                out[i, 0] = np.log(0.9)
                out[i, 1:] = np.log(0.1 / 15)
            else:
                out[i, 1:] = np.log((1 - self.p) / 14)
                out[i, n] = np.log(self.p)
                out[i, 0] = np.log(1e-6)
        return out


def _pix_det(frame: int, xy, classes, px_per_mm: float = 0.5, blurred=None) -> Detections:
    """Detections with pixel centres (a plain scale of the table mm) and 16 px radii."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    n = len(xy)
    return Detections(
        frame,
        frame / FPS,
        xy * px_per_mm,
        xy,
        np.full(n, 16.0),
        np.asarray(list(classes), object),
        np.ones(n),
        np.zeros(n, bool) if blurred is None else np.asarray(blurred, bool),
        np.zeros((0, 4)),
    )


def _run_numbers(tracker: Tracker, positions, classes, frames: int) -> Tracks:
    """positions(k) -> list of mm centres; returns all live rows."""
    img = np.zeros((8, 8, 3), np.uint8)
    parts = [tracker.update(_pix_det(k, positions(k), classes), img) for k in range(frames)]
    parts.append(tracker.finish())
    rows = [
        r
        for p in parts
        for r in zip(p.frame, p.t, p.id, p.x, p.y, p.visible, p.u, p.v, strict=True)
    ]
    return Tracks.from_rows(rows)


def test_rolling_white_ball_takes_its_number_and_keeps_it_in_later_rows():
    t = load_table("pyramid-12ft")
    tracker = Tracker(t)
    # one white ball rolling 20 mm a frame (a new view every frame at 16 px radius), a yellow
    tracker._reader = _FakeReader({(500.0 + 10 * k, 400.0): 7 for k in range(40)})
    pos = lambda k: [(1000.0 + 20 * k, 800.0), (2000.0, 800.0)]  # noqa: E731
    rows = _run_numbers(tracker, pos, ["white", "yellow"], 40)
    assert "7" in set(rows.id), "the number was never read"
    first = int(rows.of("7").frame.min())
    assert 3 <= first < 20  # read after a few views, not from one look
    assert set(rows.id[rows.frame > first]) == {"7", "yellow"}
    full = tracker.renamed(rows)
    assert set(full.id) == {"7", "yellow"}  # the whole video under the number
    assert tracker.renames() == {"w1": "7"}


def test_ball_at_rest_is_one_view_and_an_unsure_vote_reads_nothing():
    from vision.numbers.reader import REST_LOOKS

    t = load_table("pyramid-12ft")
    tracker = Tracker(t)
    tracker._reader = _FakeReader({(500.0, 400.0): 9}, p=0.5)
    rows = _run_numbers(tracker, lambda k: [(1000.0, 800.0)], ["white"], 60)
    assert set(rows.id) == {"w1"}  # one look at one face is not enough at p = 0.5
    # a ball at rest is looked at a few times only: the frames its combined reading needs
    assert tracker._reader.calls <= REST_LOOKS


@pytest.mark.parametrize("blurred, cls", [(True, "white"), (False, "yellow")])
def test_smeared_and_yellow_balls_are_not_read(blurred, cls):
    t = load_table("pyramid-12ft")
    tracker = Tracker(t)
    tracker._reader = _FakeReader({(500.0 + 10 * k, 400.0): 3 for k in range(30)}, p=0.9)
    img = np.zeros((8, 8, 3), np.uint8)
    for k in range(30):
        tracker.update(_pix_det(k, [(1000.0 + 20 * k, 800.0)], [cls], blurred=[blurred]), img)
    assert tracker._reader.calls == 0 and tracker.renames() == {}


def test_two_tracks_never_hold_the_same_number():
    t = load_table("pyramid-12ft")
    tracker = Tracker(t)
    # both balls read as 5 (a misreading net): only one may take it
    numbers = {(500.0 + 10 * k, 400.0): 5 for k in range(40)}
    numbers.update({(500.0 + 10 * k, 600.0): 5 for k in range(40)})
    tracker._reader = _FakeReader(numbers, p=0.9)
    _run_numbers(
        tracker,
        lambda k: [(1000.0 + 20 * k, 800.0), (1000.0 + 20 * k, 1200.0)],
        ["white", "white"],
        40,
    )
    assert sorted(tracker.renames().values()) == ["5"]


def test_a_read_number_is_kept_when_later_looks_disagree():
    t = load_table("pyramid-12ft")
    tracker = Tracker(t)
    reader = _FakeReader({(500.0 + 10 * k, 400.0): 11 for k in range(20)}, p=0.9)
    tracker._reader = reader
    img = np.zeros((8, 8, 3), np.uint8)
    for k in range(40):
        if k == 20:
            reader.numbers = {(500.0 + 10 * j, 400.0): 12 for j in range(20, 40)}
        tracker.update(_pix_det(k, [(1000.0 + 20 * k, 800.0)], ["white"]), img)
    assert tracker.renames() == {"w1": "11"}


# ------------------------------------------------------------ coverage and false rows
def test_ball_sinking_past_the_corner_mouth_line_leaves_the_table():
    """A ball rolling into the back-right corner is seen sinking past the mouth line (the
    line between the cushion nose ends) before it reaches the drop circle: it has left."""
    t = load_table("pyramid-12ft")
    d = np.array([1.0, 1.0]) / np.sqrt(2)
    corner = np.array([t.L, t.W])
    frames = [([corner - d * (400 - 25 * k)], ["white"]) for k in range(16)]
    tr = _run(Tracker(t), frames)
    w = tr.of("w1")
    depth = (w.x - t.L + w.y - t.W) / np.sqrt(2) + 51.6 / np.sqrt(2)  # mm past the mouth line
    assert depth.max() <= 0.25 * t.ball_radius + 25  # no row a frame after it sank past
    assert len(w) < 16


def test_fallen_skittle_missed_by_the_detector_lies_where_it_fell():
    t = load_table("carom-match")
    spot = np.array(t.skittle_spots["right"])
    frames = [([spot], ["skittle"]) for _ in range(10)] + [([], []) for _ in range(60)]
    frames += [([spot], ["skittle"]) for _ in range(5)]
    tr = _run(Tracker(t), frames)
    r = tr.of("right")
    assert len(r) == 75 and not r.visible[10:70].any()
    assert np.allclose(r.x, spot[0]) and np.allclose(r.y, spot[1])


def test_ball_at_rest_half_covered_then_hidden_stays_where_it_was():
    """Long at rest; an arm covers half of it (the centre seems to jump 10 mm), then all
    of it: the hidden ball is predicted at rest, not carried off by the apparent motion."""
    t = load_table("pyramid-12ft")
    p = np.array([1500.0, 1000.0])
    frames = [([p], ["white"]) for _ in range(30)]
    frames += [([p + [0.0, -10.0]], ["white"]), ([p + [0.0, -20.0]], ["white"])]
    frames += [([], []) for _ in range(20)] + [([p], ["white"]) for _ in range(3)]
    tr = _run(Tracker(t), frames)
    w = tr.of("w1")
    assert len(w) == 55
    assert np.hypot(w.x - p[0], w.y - p[1]).max() < 30


@pytest.mark.parametrize(
    ("xy", "v", "inside"),
    [
        ((1000.0, 800.0), None, False),  # open cloth
        ((10.0, 10.0), None, True),  # in the front-left corner's drop circle
        ((1775.0, 5.0), None, True),  # in the middle-left pocket's drop circle
        ((23.7, 23.7), None, False),  # 3 mm past the corner mouth line, at rest
        ((23.7, 23.7), (-500.0, -500.0), True),  # ... rolling on into the pocket
        ((23.7, 23.7), (500.0, 500.0), False),  # ... rolling back out
        ((23.7, 23.7), (-20.0, -20.0), False),  # ... too slow to be moving
        ((3540.0, 1765.0), None, True),  # the back-right corner
    ],
)
def test_pocket_test_of_many_centres_at_once(xy, v, inside):
    tr = Tracker(load_table("pyramid-12ft"))
    pts = np.array([xy, (1500.0, 900.0)])  # a second centre on open cloth in the same call
    vel = None if v is None else np.array([v, (0.0, 0.0)])
    assert tr._in_pockets(pts, vel).tolist() == [inside, False]


def test_batched_kalman_equals_the_four_by_four_filter():
    """Predict and correct of several tracks at once give the textbook 4x4 Kalman
    filter's state and covariance (both axes share one 2x2 block)."""
    t = load_table("pyramid-12ft")
    tracker = Tracker(t)
    tracker._frame = 0
    rng = np.random.default_rng(3)
    tracks = [tracker._new_track(rng.uniform(100, 1500, 2), "white", 0, 0.0) for _ in range(4)]
    ref = [(tr.x.copy(), np.diag([4.0, 4.0, 4000.0**2, 4000.0**2])) for tr in tracks]
    q = tracker.cfg.accel_mm_s2**2
    H = np.eye(2, 4)
    for step in range(5):
        dt = 1 / 30 + 0.01 * step
        tracker._frame = step
        for tr in tracks:
            tr.last_seen = step  # seen every frame: no coasting
        tracker._predict(tracks, dt)
        z = np.array([tr.x[:2] for tr in tracks]) + rng.normal(0, 3, (4, 2))
        sigma = np.array([1.5, 8.0, 1.5, 8.0])
        tracker._correct(tracks, z, sigma)
        F = np.eye(4)
        F[0, 2] = F[1, 3] = dt
        G = np.array([[dt * dt / 2, 0], [0, dt * dt / 2], [dt, 0], [0, dt]])
        for k, (x, P) in enumerate(ref):
            x, P = F @ x, F @ P @ F.T + G @ G.T * q
            K = P @ H.T @ np.linalg.inv(H @ P @ H.T + np.eye(2) * sigma[k] ** 2)
            x, P = x + K @ (z[k] - H @ x), (np.eye(4) - K @ H) @ P
            ref[k] = (x, P)
            tr = tracks[k]
            np.testing.assert_allclose(tr.x, x, rtol=1e-9, atol=1e-9)
            blocks = [P[0, 0], P[0, 2], P[2, 2], P[1, 1], P[1, 3], P[3, 3]]
            np.testing.assert_allclose([tr.pa, tr.pb, tr.pc] * 2, blocks, rtol=1e-9)
            assert abs(P[0, 1]) < 1e-9 and abs(P[0, 3]) < 1e-9


@pytest.mark.parametrize(
    ("step_mm", "one_track"),
    [
        (40.0, True),  # 1.2 m/s: within the near gate anyway
        (150.0, True),  # 4.5 m/s, a rack ball off a break: born moving, followed at once
        (300.0, True),  # 9 m/s
        (450.0, False),  # 13.5 m/s: faster than any ball, not one ball
    ],
)
def test_a_ball_first_seen_moving_fast_is_one_track(step_mm, one_track):
    """A white ball at rest at (500, 400), and a second white first seen moving at
    ``step_mm`` a frame (it was hidden at rest, or lost in a break): a young track has no
    velocity, yet it takes its next detection where a ball can travel in a frame, so the
    ball is confirmed and followed as one track (not born anew each frame)."""
    t = load_table("pyramid-12ft")
    rest = np.array([500.0, 400.0])
    frames = [([rest], ["white"]) for _ in range(5)]
    for k in range(8):
        frames.append(([rest, np.array([3300.0 - step_mm * k, 900.0])], ["white", "white"]))
    tr = _run(Tracker(t), frames)
    moving = [i for i in tr.ids() if i != _ids_near(tr, 0, rest)]
    rows = [int(np.sum(tr.id == i)) for i in moving]  # frames each moving track covers
    assert (rows == [8]) == one_track
