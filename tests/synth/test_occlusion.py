"""Players that really occlude (synth.clip.Cover): a player reaching along a cushion over
the balls resting there, a body bent over a pocket with a ball in its jaws. The balls
rest while covered, the renderer reports them hidden, they show again afterwards, and the
ball in the jaws stays on the table (no pocket in the truth)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from contract.tables import load_table
from synth.clip import Cover, Stroke, build_clip, pocket_inward, replace_size
from synth.render import Renderer
from synth.scenarios import scenario
from synth.truth import cameras_for, truth_match

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius
HOLD0 = 15  # frames of the clip's first still (0.5 s at 30 fps) before the first cover
COVER = 90  # frames of a 3 s cover


@cache
def _clip(name: str, seed: int):
    return build_clip(replace_size(scenario(name)(seed), (1280, 720)))


@cache
def _renderer(name: str, seed: int) -> Renderer:
    clip = _clip(name, seed)
    return Renderer(clip.table, cameras_for(clip), {b.id: b for b in clip.spec.balls}, seed)


def _covered_ids(name: str, seed: int) -> list[str]:
    """The balls the scenario puts under the player (its first placed ones)."""
    start = _clip(name, seed).spec.start
    if name == "pyramid-jaws":
        return list(start)[:2]
    return [b for b, (_, y) in start.items() if min(y, TABLE.W - y) < R + 46.0]


@pytest.mark.parametrize(
    "pk, inward",
    [
        ("front-left", (1, 1)),
        ("front-right", (1, -1)),
        ("middle-left", (0, 1)),
        ("middle-right", (0, -1)),
        ("back-left", (-1, 1)),
        ("back-right", (-1, -1)),
    ],
)
def test_pocket_inward_points_into_the_table(pk, inward):
    n = pocket_inward(TABLE, TABLE.pocket(pk))
    assert np.allclose(n, np.asarray(inward, float) / np.linalg.norm(inward))


def test_a_stroke_has_no_cover_unless_asked():
    assert Stroke("yellow", 0.0, 1000.0).cover == ()
    assert Cover("reach", (1.0, 2.0)).seconds == 3.0


@pytest.mark.parametrize("name, seed", [("pyramid-reach", 0), ("pyramid-jaws", 1)])
def test_balls_rest_under_the_cover_and_the_player_is_there(name, seed):
    clip = _clip(name, seed)
    start = clip.spec.start
    for f in clip.frames[HOLD0 : HOLD0 + COVER]:
        assert any(a.kind == "body" for a in f.actors)
        for b, (x, y) in start.items():
            p = f.balls[b]
            assert p.on_table and (p.x, p.y) == (x, y) and (p.vx, p.vy) == (0.0, 0.0)
    assert not clip.frames[HOLD0 - 1].actors


@pytest.mark.parametrize(
    "name, seed, least",
    [("pyramid-reach", 0, 2), ("pyramid-jaws", 1, 2), ("pyramid-jaws", 4, 2)],
)
def test_covered_balls_are_hidden_mid_cover_and_seen_before(name, seed, least):
    clip = _clip(name, seed)
    ids = _covered_ids(name, seed)
    r = _renderer(name, seed)
    _, before = r.render(clip.frames[HOLD0 - 1])
    _, during = r.render(clip.frames[HOLD0 + COVER // 2])
    assert all(before[b] for b in ids)
    hidden = [b for b in ids if not during[b]]
    assert len(hidden) >= least, (ids, during)
    assert all(v for b, v in during.items() if b not in ids)  # only those


@pytest.mark.parametrize("seed", [1, 4])
def test_the_ball_in_the_jaws_is_past_the_cushion_line_and_never_pocketed(seed):
    clip = _clip("pyramid-jaws", seed)
    hang = next(iter(clip.spec.start))
    x, y = clip.spec.start[hang]
    past_x = max(R - x, x - (TABLE.L - R))
    past_y = max(R - y, y - (TABLE.W - R))
    pk = min(TABLE.pockets, key=lambda q: math.hypot(q.x - x, q.y - y))
    if pk.corner:  # 3 to 6 mm past both cushion lines, on the corner's diagonal
        assert 2.5 < past_x < 6.5 and 2.5 < past_y < 6.5
    else:  # 4 to 8 mm into the middle pocket's throat
        assert 4.0 <= past_y <= 8.0 and x == pk.x
    assert all(f.balls[hang].on_table for f in clip.frames)
    m = truth_match(clip, judge=False)
    pockets = [e for s in m.shots for e in s.events if e.type == "pocket"]
    assert pockets and all(e.ball != hang for e in pockets)
