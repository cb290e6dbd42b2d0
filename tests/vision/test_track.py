"""The tracker: identities through crossings, occlusions, pockets, re-spots; own ids."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from contract.tracks import Tracks
from vision.detect import Detections
from vision.track import Tracker

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
