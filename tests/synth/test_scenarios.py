"""Scenarios and the clip builder: what each scenario promises happens, frame by frame."""

from __future__ import annotations

import importlib.util
import math
from functools import cache

import numpy as np
import pytest

from contract.calib import Calibration
from contract.match import Match, match_from_json, match_to_json
from contract.tables import load_table
from synth.clip import ClipSpec, Stroke, build_clip
from synth.planner import GAP, rack
from synth.players import WITHDRAW
from synth.scenarios import SCENARIOS, scenario
from synth.truth import truth_match, truth_tracks
from synth.world import BallInfo

HAVE_CAMERA = importlib.util.find_spec("synth.camera") is not None


@cache
def clip_of(name: str):
    return build_clip(scenario(name)(0))


@cache
def match_of(name: str) -> Match:
    return truth_match(clip_of(name), judge=False)


def _events(name: str, kind: str) -> list:
    return [e for s in match_of(name).shots for e in s.events if e.type == kind]


def test_rack_is_a_touching_triangle_on_the_back_spot():
    t = load_table("pyramid-12ft")
    pos = rack(t, np.random.default_rng(1))
    assert sorted(pos, key=int) == [str(n) for n in range(1, 16)]
    xy = np.array(list(pos.values()))
    apex = xy[np.argmin(xy[:, 0])]
    assert np.allclose(apex, t.spots["back"])
    assert xy[:, 0].max() > apex[0] + 200  # the base lies toward the back cushion
    d = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1))
    d[np.eye(15, dtype=bool)] = np.inf
    assert d.min() == pytest.approx(t.ball_mm + GAP, abs=1e-6)
    assert ((d < t.ball_mm + 2 * GAP).sum(1) >= 2).all()  # every ball touches two or more


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_clip_is_consistent(name):
    clip = clip_of(name)
    R = clip.table.ball_radius
    assert [f.index for f in clip.frames] == list(range(len(clip.frames)))
    # no two balls on the cloth overlap in any frame
    for f in clip.frames:
        p = np.array([(b.x, b.y) for b in f.balls.values() if b.on_table and b.z == R])
        if len(p) > 1:
            d = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
            d[np.eye(len(p), dtype=bool)] = np.inf
            assert d.min() >= 2 * R - 1e-6, f.index
    m = match_of(name)
    assert match_from_json(match_to_json(m)) == m
    assert m.video.frames == len(clip.frames)
    prev_end = -1
    for s in m.shots:
        assert s.events[0].type == "strike" and s.events[0].frame == s.start.frame
        assert s.events[0].ball == s.cue_ball
        assert all(s.start.frame <= e.frame <= s.end.frame for e in s.events)
        assert s.start.frame > prev_end
        prev_end = s.end.frame
        end = clip.frames[s.end.frame]
        on = {b: (p.x, p.y) for b, p in end.balls.items() if p.on_table}
        assert set(on) == set(s.rest)
        for b, xy in s.rest.items():
            assert math.dist(xy, on[b]) < 0.1
        # the cue comes in before the strike and is gone within WITHDRAW s after it
        before = clip.frames[s.start.frame - 1]
        cue = [a for a in before.actors if a.kind == "cue"]
        assert cue and math.dist(cue[0].a, on_or_start(clip, s)) < 400
        after = clip.frames[min(s.start.frame + math.ceil(WITHDRAW * 30) + 1, len(clip.frames) - 1)]
        assert not [a for a in after.actors if a.kind == "cue"]


def on_or_start(clip, shot):
    p = clip.frames[shot.start.frame].balls[shot.cue_ball]
    return (p.x, p.y)


def _has_hand(clip) -> bool:
    return any(a.kind == "hand" for f in clip.frames for a in f.actors)


def test_break_hits_the_rack_first():
    c = _events("pyramid-break", "contact")[0]
    assert c.balls[0] == "yellow" and c.balls[1].isdigit()
    start = clip_of("pyramid-break").frames[0].balls["yellow"]
    assert start.x < load_table("pyramid-12ft").house_line_x


def test_pots_scenario_pots_three_object_balls_and_leans():
    pots = _events("pyramid-pots", "pocket")
    assert len(pots) >= 3 and all(e.ball != "yellow" for e in pots)
    clip = clip_of("pyramid-pots")
    lean = [
        f
        for f in clip.frames
        if any(a.kind == "body" for a in f.actors) and not any(a.kind == "cue" for a in f.actors)
    ]
    assert lean


def test_miss_has_a_shot_without_contact():
    m = match_of("pyramid-miss")
    assert not [e for e in m.shots[0].events if e.type == "contact"]


def test_cue_ball_pocketed_then_back_in_the_house_by_hand():
    pots = _events("pyramid-cue-pocketed", "pocket")
    assert any(e.ball == "yellow" for e in pots)
    m = match_of("pyramid-cue-pocketed")
    clip = clip_of("pyramid-cue-pocketed")
    y = clip.frames[m.shots[1].start.frame].balls["yellow"]
    assert y.on_table and y.x < clip.table.house_line_x
    assert _has_hand(clip)


@pytest.mark.parametrize("name", ["pyramid-off-table", "pyramid-respot"])
def test_ball_off_the_table_is_respotted_by_hand(name):
    off = _events(name, "off_table")
    assert len(off) == 1
    ball = off[0].ball
    clip, m = clip_of(name), match_of(name)
    assert ball not in next(s for s in m.shots if off[0] in s.events).rest
    back = [f.balls[ball] for f in clip.frames[off[0].frame + 1 :] if ball in f.balls]
    later = next(p for p in back if p.on_table and p.z == clip.table.ball_radius)
    t = clip.table
    assert later.on_table and later.y == pytest.approx(t.W / 2) and later.x >= t.L * 0.75
    assert _has_hand(clip)
    carried = [f.balls[ball] for f in clip.frames if ball in f.balls and not f.balls[ball].on_table]
    assert any(p.z > t.ball_radius for p in carried)  # in the hand above the cloth


def test_camera_knock_switches_pose_and_is_reported():
    clip, m = clip_of("pyramid-knock"), match_of("pyramid-knock")
    cams = [f.camera for f in clip.frames]
    k = cams.index(1)
    assert set(cams[:k]) == {0} and set(cams[k:]) == {1}
    assert [(e.type, e.frame) for e in m.events] == [("camera_moved", k)]
    assert m.shots[0].end.frame < k < m.shots[1].start.frame


def test_5pin_break_position_and_first_contact():
    clip = clip_of("carom-5pin-break")
    t = clip.table
    f0 = clip.frames[0]
    assert (f0.balls["yellow"].x, f0.balls["yellow"].y) == t.spots["top"]
    assert (f0.balls["red"].x, f0.balls["red"].y) == t.spots["red"]
    assert f0.balls["white"].x < t.L / 2
    assert set(_events("carom-5pin-break", "contact")[0].balls) == {"white", "yellow"}
    assert set(f0.skittles) == set(t.skittle_spots)


def test_5pin_play_knocks_pins_and_restands_them():
    downs = _events("carom-5pin-play", "skittle_down")
    assert downs and all(e.by in ("white", "yellow", "red", *SKITTLES) for e in downs)
    clip, m = clip_of("carom-5pin-play"), match_of("carom-5pin-play")
    first = m.shots[0]
    end = clip.frames[first.end.frame].skittles
    assert {n for n, s in end.items() if s.fallen} == {
        e.skittle for e in first.events if e.type == "skittle_down"
    }
    nxt = clip.frames[m.shots[1].start.frame].skittles
    assert not any(s.fallen for s in nxt.values())
    assert _has_hand(clip)


SKITTLES = ("centre", "front", "back", "left", "right")


def test_numbers_turn_as_balls_roll():
    """Rolling without slipping: per frame the ball turns by distance / R, and the point on
    its top moves the way the ball goes (rot maps body -> table frame x, y, z up)."""
    spec = ClipSpec(
        "roll",
        0,
        "pyramid-12ft",
        "pyramid-free",
        (BallInfo("1", "white", 1),),
        {"1": (500.0, 900.0)},
        (Stroke("1", 0.2, 1200.0),),
    )
    clip = build_clip(spec)
    R = clip.table.ball_radius
    s = clip.shots[0]
    checked = 0
    assert not [e for e in s.events if e["type"] == "cushion"]
    for k in range(s.start_frame + 15, s.end_frame - 1):  # rolling by then (slides 0.2 s)
        a, b = clip.frames[k].balls["1"], clip.frames[k + 1].balls["1"]
        step = math.dist((a.x, a.y), (b.x, b.y))
        if step < 3.0:
            continue
        ra, rb = np.reshape(a.rot, (3, 3)), np.reshape(b.rot, (3, 3))
        assert np.allclose(rb @ rb.T, np.eye(3), atol=1e-9)
        turned = math.acos(np.clip((np.trace(ra.T @ rb) - 1) / 2, -1, 1))
        assert turned == pytest.approx(step / R, rel=0.05, abs=0.01)
        top = ra.T @ np.array([0.0, 0.0, 1.0])  # the body point on top at frame k
        went = rb @ top  # ... and where it is one frame later, relative to the centre
        assert went[:2] @ np.array([b.x - a.x, b.y - a.y]) > 0
        checked += 1
    assert checked >= 20


def test_tracks_rows_follow_the_balls_on_the_cloth():
    clip = clip_of("pyramid-respot")
    tr = truth_tracks(clip, None, None)
    f = clip.frames[len(clip.frames) // 2]
    rows = tr.at_frame(f.index)
    on = sorted(b for b, p in f.balls.items() if p.on_table)
    assert sorted(rows.id.tolist()) == on
    assert np.isnan(rows.u).all() and rows.visible.all()


@pytest.mark.skipif(not HAVE_CAMERA, reason="synth.camera not present")
def test_tracks_pixels_agree_with_the_truth_calibration():
    from synth.truth import cameras_for

    clip = clip_of("pyramid-knock")
    cams = cameras_for(clip)
    tr = truth_tracks(clip, cams, None)
    R = clip.table.ball_radius
    for cam_i, frame in ((0, 5), (1, len(clip.frames) - 2)):
        rows = tr.at_frame(frame)
        cal = Calibration(cams[cam_i].to_calibration(clip.table))
        uv = cal.table_to_pixel(np.c_[rows.x, rows.y], height=R)
        assert np.abs(uv - np.c_[rows.u, rows.v]).max() < 0.5


def test_unknown_scenario_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown scenario 'nope'"):
        scenario("nope")
