"""A frozen cluster whose struck member shows no start of its own (a rack's apex passes
the hit on and creeps under a mm a frame): the rack finder names the moving ball whose
straight path reached a member as the members set off and that stopped or turned there
(vision.events.contact_finders). Table mm, 30 fps, exact tracks."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from contract.tables import load_table
from tests.vision.vision_scene import path_tracks
from vision.events.impulse import slide_decel, slide_travel

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius
F0 = 10.4  # the frame ``b`` sets off
V = 30.0  # mm/frame: the cue ball's speed, and ``b``'s after the hit
A = np.array([1500.0, 700.0])  # the member hit; it stays put (Newton's cradle)
N = 40


def _cue(kind: str) -> np.ndarray:
    """The cue ball's path (N, 2): ``hit``: rolls along x into ``a`` and stops dead there
    at F0; ``late``: the same, reaching ``a`` six frames after ``b`` set off; ``pass``:
    rolls along y past ``a``'s side 2 mm clear of it (within the touching tolerance of
    measured centres), level with it at F0, and runs on straight."""
    t = np.arange(N, dtype=float)
    if kind == "pass":
        return np.c_[np.full(N, A[0] - 2 * R - 2.0), A[1] + V * (t - F0)]
    arrive = F0 + (6.0 if kind == "late" else 0.0)
    return np.c_[np.minimum(A[0] - 2 * R - V * (arrive - t), A[0] - 2 * R), np.full(N, A[1])]


def _finder(kind: str):
    """The cluster ``a``-``b`` (touching along x) and the cue ball ``c``; ``b`` slides off
    at V from F0, ``a`` never moves, so only ``c`` and ``b`` show starts."""
    from vision.events.finder import EventFinder
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    t = np.arange(N, dtype=float)
    b = A + [2 * R, 0.0]
    run_b = slide_travel(V, np.clip(t - F0, 0.0, None), slide_decel(30.0))
    paths = {"c": _cue(kind), "a": np.tile(A, (N, 1)), "b": b + np.c_[run_b, np.zeros(N)]}
    s = series_from_tracks(path_tracks(paths), 30.0)
    return EventFinder(s, TABLE, adapt(ShotSettings(), noise_mm(s)))


@pytest.mark.parametrize(
    ("kind", "pairs"),
    [
        # c stopped dead at a as b set off: c hit a, which handed the hit on to b
        ("hit", {("c", "a"), ("a", "b")}),
        # c came within the tolerance of a but kept its line: it touched nothing
        ("pass", None),
        # c reached a long after b set off: it did not set the cluster off
        ("late", None),
    ],
)
def test_rack_found_when_the_member_struck_shows_no_start(kind, pairs):
    fd = _finder(kind)
    starts = {"c": 0.0, "b": F0}  # a's start unseen
    got = fd._rack(SimpleNamespace(ball="b", start_f=F0), starts, "c")
    if pairs is None:
        assert got is None
        return
    assert got is not None
    comp, found = got
    assert comp == {"a", "b"}
    assert {(k.striker, k.struck) for k in found} == pairs
    assert all(abs(k.f - F0) < 0.5 for k in found)
