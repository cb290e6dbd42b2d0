"""Rack (rule 9 / 003 8), re-spotting (25.2), frozen balls (003 20) and the lag (8)."""

from __future__ import annotations

import math

import pytest
from pyramid_helpers import L, R, W

from adjudicator.pyramid.geometry import frozen_cushions, rack_positions, respot_positions
from adjudicator.pyramid.lag import LagBall, lag_lost, lag_winner
from contract.tables import load_table

T = load_table("pyramid-12ft")
BX, CY = 3 * L / 4, W / 2
IDS = [str(i) for i in range(1, 16)]


def _touching(a, b) -> bool:
    return abs(math.dist(a, b) - 2 * R) < 1e-6


def test_full_rack_pyramid_9_1():
    """pyramid:9.1 / 003 8.1: apex on the back spot, base parallel to the back cushion,
    every ball touching its neighbours, symmetric about the long axis."""
    pos = rack_positions(T, IDS)
    assert pos["1"] == pytest.approx((BX, CY))
    xs = sorted({round(p[0], 6) for p in pos.values()})
    assert len(xs) == 5
    base = [p for p in pos.values() if abs(p[0] - xs[-1]) < 1e-6]
    assert len(base) == 5  # base row parallel to the back cushion
    pts = list(pos.values())
    for p in pts:
        assert any(abs(q[0] - p[0]) < 1e-6 and abs(q[1] - (2 * CY - p[1])) < 1e-6 for q in pts)
        assert sum(_touching(p, q) for q in pts if q is not p) >= 2


@pytest.mark.parametrize("n", range(1, 15), ids=lambda n: f"pyramid:9.3 partial rack of {n}")
def test_partial_rack_symmetric(n):
    """003 8 note: filled from the apex toward the base; the last row from the middle
    outward, symmetric about the long axis; no two balls overlap."""
    pos = list(rack_positions(T, IDS[:n]).values())
    assert len(pos) == n
    for p in pos:  # symmetric
        assert any(abs(q[0] - p[0]) < 1e-6 and abs(q[1] - (2 * CY - p[1])) < 1e-6 for q in pos)
    for i, p in enumerate(pos):
        for q in pos[i + 1 :]:
            assert math.dist(p, q) >= 2 * R - 1e-6
    assert all(p[0] >= BX - 1e-6 for p in pos)


@pytest.mark.parametrize(
    "n, rows, apex",
    [
        pytest.param(1, [1], True, id="pyramid:9.3 one ball on the apex"),
        pytest.param(2, [2], False, id="pyramid:9.3 apex ball moved into the base for symmetry"),
        pytest.param(3, [1, 2], True, id="pyramid:9.3 two full rows"),
        pytest.param(4, [1, 2, 1], True, id="pyramid:9.3 base from the middle"),
        pytest.param(5, [2, 3], False, id="pyramid:9.3 two in a row of three: apex moves down"),
        pytest.param(8, [1, 2, 3, 2], True, id="pyramid:9.3 two in a row of four"),
        pytest.param(
            12, [2, 3, 4, 3], False, id="pyramid:9.3 two in a base of five: apex moves down"
        ),
    ],
)
def test_partial_rack_rows(n, rows, apex):
    pos = rack_positions(T, IDS[:n]).values()
    by_x: dict[float, int] = {}
    for x, _ in pos:
        by_x[round(x, 3)] = by_x.get(round(x, 3), 0) + 1
    assert [by_x[x] for x in sorted(by_x)] == rows
    assert any(p == pytest.approx((BX, CY)) for p in pos) is apex


@pytest.mark.parametrize(
    "ids, obstacles, expect_x",
    [
        pytest.param(["3"], {}, [BX], id="pyramid:25.2 one ball on the back spot"),
        pytest.param(
            ["3", "5", "7"],
            {},
            [BX, BX + 2 * R, BX + 4 * R],
            id="pyramid:25.2 several along the line touching",
        ),
        pytest.param(
            ["3"],
            {"9": (BX, CY)},
            [BX + 2 * R + 0.5],
            id="pyramid:25.2 spot taken: nearest without touching",
        ),
        pytest.param(
            ["3"],
            {"9": (BX + 100, CY + 40)},
            [BX],
            id="pyramid:25.2 obstacle off the line leaves the spot free",
        ),
        pytest.param(
            ["3", "5"],
            {"9": (BX + 3 * R, CY)},
            [BX + 5 * R + 0.5, BX + 7 * R + 0.5],
            id="pyramid:25.2 chain beyond an obstacle",
        ),
    ],
)
def test_respot_line(ids, obstacles, expect_x):
    pos = respot_positions(T, ids, obstacles)
    assert [pos[b][0] for b in ids] == pytest.approx(expect_x)
    assert all(pos[b][1] == pytest.approx(CY) for b in ids)
    for b in ids:
        for o in obstacles.values():
            assert math.dist(pos[b], o) >= 2 * R


def test_respot_no_room_goes_toward_centre():
    """pyramid:25.2: no room between the back spot and the back cushion: the balls go on
    the line from the back spot toward the centre of the table."""
    wall = {
        f"w{k}": (BX + 2 * R * (k + 1) + 1.0, CY)
        for k in range(13)
        if BX + 2 * R * (k + 1) + 1 < L - R
    }
    wall["w_spot"] = (BX + 10.0, CY)
    pos = respot_positions(T, ["3", "5"], wall)
    xs = [pos["3"][0], pos["5"][0]]
    assert xs[0] < BX and xs[1] < xs[0]  # toward the centre
    assert xs[0] - xs[1] == pytest.approx(2 * R)  # touching each other
    for p in pos.values():
        assert all(math.dist(p, o) >= 2 * R for o in wall.values())


@pytest.mark.parametrize(
    "p, cushions",
    [
        pytest.param((2000.0, R), {"left"}, id="pyramid:20(2в) frozen to the left cushion"),
        pytest.param((2000.0, R + 1.5), {"left"}, id="pyramid:20(2в) within the tolerance"),
        pytest.param((2000.0, R + 3.0), set(), id="pyramid:20(2в) a gap is not frozen"),
        pytest.param(
            (L - R, W - R), {"back", "right"}, id="pyramid:20(2в) in a corner: two cushions"
        ),
    ],
)
def test_frozen(p, cushions):
    assert frozen_cushions(T, p, 2.0) == cushions


GOOD = LagBall(cushions=("back",), rest_x=300.0)


@pytest.mark.parametrize(
    "a, b, winner",
    [
        pytest.param(
            GOOD,
            LagBall(cushions=("back",), rest_x=500.0),
            "A",
            id="pyramid:8.1 nearer the front cushion wins",
        ),
        pytest.param(
            LagBall(cushions=("back", "front"), rest_x=40.0),
            GOOD,
            "A",
            id="pyramid:8.1 touching the front cushion is allowed",
        ),
        pytest.param(
            LagBall(cushions=("back",), rest_x=300.0, crossed_half=True),
            GOOD,
            "B",
            id="pyramid:8.1 crossed into the opponent's half",
        ),
        pytest.param(
            LagBall(rest_x=100.0), GOOD, "B", id="pyramid:8.1 did not touch the back cushion"
        ),
        pytest.param(
            LagBall(cushions=("back",), pocketed=True), GOOD, "B", id="pyramid:8.1 pocketed"
        ),
        pytest.param(
            LagBall(cushions=("back",), off_table=True), GOOD, "B", id="pyramid:8.1 off the table"
        ),
        pytest.param(
            LagBall(cushions=("back", "left"), rest_x=50.0),
            GOOD,
            "B",
            id="pyramid:8.1 touched a long cushion",
        ),
        pytest.param(
            LagBall(cushions=("back", "front", "back"), rest_x=50.0),
            GOOD,
            "B",
            id="pyramid:8.1 back cushion twice",
        ),
        pytest.param(
            LagBall(rest_x=1.0), LagBall(rest_x=2.0), None, id="pyramid:8.2 both lost: repeat"
        ),
        pytest.param(GOOD, GOOD, None, id="pyramid:8.2 no winner: repeat"),
    ],
)
def test_lag(a, b, winner):
    assert lag_winner(a, b) == winner
    assert (lag_lost(a) is None) or winner != "A"


@pytest.mark.parametrize(
    "tokens, rest_y, player, lost",
    [
        pytest.param(
            ("a|back", "a|front"), 400.0, "A", None, id="pyramid:8.1 a good lag (left half)"
        ),
        pytest.param(
            ("a|back",),
            1400.0,
            "A",
            "crossed into the opponent's half",
            id="pyramid:8.1 rests in the other half",
        ),
        pytest.param(
            ("a|back", "a|right-back"),
            1400.0,
            "B",
            "touched a long cushion",
            id="pyramid:8.1 long cushion half counts",
        ),
        pytest.param(
            ("a|front",),
            1400.0,
            "B",
            "did not touch the back cushion",
            id="pyramid:8.1 no back cushion",
        ),
    ],
)
def test_lag_from_events(tokens, rest_y, player, lost):
    from adjudicator.pyramid.lag import lag_ball
    from contract.events import Event

    evs = []
    for f, tok in enumerate(tokens, 1):
        b, c = tok.split("|")
        evs.append(Event(frame=f, t=f / 30, type="cushion", ball=b, cushion=c))
    ball = lag_ball(evs, "a", {"a": (300.0, rest_y)}, W, player)
    assert lag_lost(ball) == lost


def test_respot_more_than_fit_behind_the_spot():
    """pyramid:25.2: 14 balls do not fit between the back spot and the back cushion (13 do
    on a 12 ft table): the chain runs from the back spot toward the centre instead."""
    ids13 = [str(i) for i in range(1, 14)]
    pos13 = respot_positions(T, ids13, {})
    assert all(p[0] >= BX for p in pos13.values())
    pos = respot_positions(T, IDS[:14], {})
    xs = [pos[b][0] for b in IDS[:14]]
    assert xs[0] == pytest.approx(BX) and all(b < a for a, b in zip(xs, xs[1:], strict=False))
