"""A moving ball's detection that hops off its path for a frame or two and back (a
pressed ball pulled to a neighbour) is no velocity change (vision.events.impulse_scan.hops):
the scan reads no contact from it, while a real change of motion (a hit, a start from
rest) is no hop. Table mm, frames at 30 fps."""

from __future__ import annotations

import numpy as np
import pytest

from vision.events.impulse_scan import hops, impulse_scan
from vision.events.series import Series

R = 34.0
N = 30


def _roll(p0, v, f0: float = 0.0, decel: float = 0.18) -> np.ndarray:
    """(N, 2) mm: at rest at ``p0`` until ``f0``, then rolling at ``v`` mm/frame slowing by
    ``decel`` mm/frame^2."""
    t = np.clip(np.arange(N, dtype=float) - f0, 0.0, None)
    v = np.asarray(v, float)
    speed = float(np.linalg.norm(v))
    run = speed * t - 0.5 * decel * t * t
    return np.asarray(p0, float) + np.outer(run, v / speed)


def _hopped(path: np.ndarray, frames: tuple[int, ...], off) -> np.ndarray:
    out = path.copy()
    out[list(frames)] += np.asarray(off, float)
    return out


@pytest.mark.parametrize(
    ("case", "want"),
    [
        ("pulled 4 mm for one frame", {14}),
        ("pulled 4 mm for two frames", {14, 15}),
        ("pulled 2 mm for two frames", set()),  # under the threshold (3 mm)
        ("hit: turned by 20 degrees", set()),
        ("hit: slowed from 6 to 2 mm/frame", set()),
        ("set off from rest at 3 mm/frame", set()),
        ("rolling on", set()),
    ],
)
def test_hops_are_samples_off_an_unchanged_motion(case, want):
    rng = np.random.default_rng(0)
    base = _roll((1000.0, 600.0), (3.0, 0.0))
    if case.startswith("pulled"):
        size = 4.0 if "4 mm" in case else 2.0
        frames = (14,) if "one" in case else (14, 15)
        path = _hopped(base, frames, (0.0, size))
    elif case == "hit: turned by 20 degrees":
        a = np.radians(20.0)
        path = np.vstack(
            [base[:15], base[14] + _roll((0.0, 0.0), (3 * np.cos(a), 3 * np.sin(a)))[1:16]]
        )
    elif case == "hit: slowed from 6 to 2 mm/frame":
        fast = _roll((1000.0, 600.0), (6.0, 0.0))
        path = np.vstack([fast[:15], fast[14] + _roll((0.0, 0.0), (2.0, 0.0))[1:16]])
    elif case.startswith("set off"):
        path = _roll((1000.0, 600.0), (3.0, 0.0), f0=14.3)
    else:
        path = base
    path = path + rng.normal(0.0, 0.15, path.shape)
    got = set(np.nonzero(hops(path[None], 3.0)[0])[0].tolist())
    assert got == want


def test_the_scan_reads_no_contact_from_a_hop():
    """``b`` rolls 1.5 mm behind ``a`` at the same speed (no impulse passes); its
    detection is pulled 4.5 mm toward ``a`` for two frames. Read as is, the fits that
    straddle the hop see ``b`` speed up and slow down against ``a``: contacts. With the
    hops left out, none."""
    a = _roll((1000.0 + 2 * R + 1.5, 600.0), (3.0, 0.0))
    b = _hopped(_roll((1000.0, 600.0), (3.0, 0.0)), (14, 15), (4.5, 0.0))
    xy = np.stack([a, b])
    s = Series(("a", "b"), 0, np.arange(N) / 30.0, xy, np.ones((2, N), bool), 30.0)
    args = (s, R, 0, N, 0.4, 4.0, ["a", "b"], None, {}, 0.18)
    assert impulse_scan(*args)  # the hop read as impulses
    assert impulse_scan(*args, hop_mm=3.0) == []


def _kinked(hop: float) -> list[str]:
    """Contacts the event finder reads from a kink the motion finder put at frame 34 of
    ball ``1`` rolling along x at 3 mm/frame, ``2`` at rest 8 mm beyond touching beside
    frame 34's position; ``1``'s detection pulled ``hop`` mm toward ``2`` at frames 33
    and 34 (the pull makes the kink, and the approach to ``2``)."""
    from contract.tables import load_table
    from tests.vision.vision_scene import path_tracks
    from vision.events.finder import EventFinder
    from vision.events.motion import Kink, Movement
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    table = load_table("pyramid-12ft")
    r = table.ball_radius
    n = 60
    one = np.c_[1000.0 + 3.0 * np.clip(np.arange(n) - 10.0, 0.0, None), np.full(n, 700.0)]
    one[33:35, 1] += hop
    two = np.tile([one[34, 0], 700.0 + 2 * r + 8.0], (n, 1))
    s = series_from_tracks(path_tracks({"1": one, "2": two}), 30.0)
    fd = EventFinder(s, table, adapt(ShotSettings(), noise_mm(s)))
    kink = Kink(34.0, (float(one[34, 0]), 700.0), (3.0, 0.0), (3.0, 0.0))
    move = Movement(
        "1", 10.0, 59.0, (1000.0, 700.0), tuple(one[59]), (3.0, 0.0), (3.0, 0.0),
        (kink,), False, False, 10, 59,
    )  # fmt: skip
    events, _ = fd.shot_events([move])
    return [e.balls for e in events if e.type == "contact"]


def test_a_kink_where_the_detection_hopped_is_no_contact():
    assert _kinked(4.5) == []
