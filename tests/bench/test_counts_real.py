"""The real-footage ball count: what counts as a ball on the table at a frame, and which
labelled states are compared (no footage needed)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.bench_counts_real import _states, on_table, span_end
from contract.tables import load_table
from contract.tracks import Tracks

T = load_table("pool-9ft")
R = T.ball_radius


def _tracks(rows: list[tuple[int, str, float, float, bool]]) -> Tracks:
    f, i, x, y, vis = zip(*rows, strict=True)
    n = len(rows)
    return Tracks(
        frame=np.array(f),
        t=np.array(f, float) / 25,
        id=np.array(i, object),
        x=np.array(x, float),
        y=np.array(y, float),
        visible=np.array(vis, bool),
        u=np.full(n, np.nan),
        v=np.full(n, np.nan),
    )


@pytest.mark.parametrize(
    ("x", "y", "visible", "counted"),
    [
        (500.0, 400.0, True, True),  # on the cloth
        (500.0, 400.0, False, True),  # hidden by a hand, predicted: still on the table
        (R * 0.5, 400.0, True, True),  # frozen to the front cushion
        (-2 * R, -2 * R, True, False),  # in the front-left pocket's hole
        (T.L + 3 * R, 400.0, True, False),  # off the table
    ],
)
def test_on_table_counts_balls_on_the_surface(x, y, visible, counted):
    tr = _tracks([(10, "b1", x, y, visible), (10, "b2", 800.0, 600.0, True)])
    assert on_table(tr, 10, T) == 1 + int(counted)


def test_on_table_counts_only_the_asked_frame_and_no_skittles():
    tr = _tracks([(9, "b1", 500.0, 400.0, True), (10, "skittle:centre", 1000.0, 500.0, True)])
    assert on_table(tr, 10, T) == 0 and on_table(tr, 9, T) == 1


def test_states_lists_rest_counts_and_the_last_frame():
    label = {
        "rest_counts": [{"frame": 0, "balls": 10}, {"frame": 222, "balls": 7}],
        "last_frame": {"frame": 244, "balls": 7, "moving": True},
    }
    assert _states(label) == [(0, 10, False), (222, 7, False), (244, 7, True)]


def test_span_end_is_the_frame_before_the_next_strike():
    label = {"frames": 245, "shots": [{"strike": 58}, {"strike": 230}]}
    assert span_end(label, 0) == 57 and span_end(label, 222) == 229 and span_end(label, 231) == 244
