"""A contact needs the two balls closing in on each other (vision.events.contact_checks): the
approach speed along the line of centres, the motion noise it is weighed against, and
through the event finder a pair spreading side by side, read touching, whose jitter
kinks a path (no contact) beside a ball caught up from behind (a contact). Hand-built
paths in table mm, frames at 30 fps."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from tests.vision.vision_scene import path_tracks
from vision.events.contact_checks import approach_speed, motion_noise_mm
from vision.events.finder import _latest
from vision.events.series import Series

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius


def _series(paths: dict[str, np.ndarray]) -> Series:
    ids = tuple(sorted(paths))
    xy = np.stack([paths[i] for i in ids]).astype(float)
    n = xy.shape[1]
    return Series(ids, 0, np.arange(n) / 30.0, xy, ~np.isnan(xy[..., 0]), 30.0)


def _line(p0, v, n: int = 12) -> np.ndarray:
    return np.asarray(p0, float) + np.outer(np.arange(n, dtype=float), np.asarray(v, float))


@pytest.mark.parametrize(
    ("va", "pb", "vb", "want"),
    [
        ((5.0, 0.0), (1200.0, 500.0), (0.0, 0.0), 5.0),  # a rolls straight at b at rest
        ((4.0, 0.0), (1000.0, 500.0 + 2 * R), (4.0, 0.0), 0.0),  # side by side
        ((4.0, 0.0), (1000.0, 500.0 + 2 * R), (4.0, 0.3), -0.3),  # ... spreading
        ((6.0, 0.0), (1186.0, 650.0), (0.0, 0.0), 6.0 / np.sqrt(2.0)),  # at 45 degrees
        ((-3.0, 0.0), (1200.0, 500.0), (2.0, 0.0), -5.0),  # moving apart
        ((9.0, 0.0), (1200.0, 500.0), (4.0, 0.0), 5.0),  # catching b up from behind
    ],
)
def test_approach_speed_is_along_the_line_of_centres(va, pb, vb, want):
    s = _series({"a": _line((1000.0, 500.0), va), "b": _line(pb, vb)})
    got = approach_speed(s, s.index("a"), s.index("b"), 6.5)
    assert got == pytest.approx(want, abs=0.05)


def test_approach_speed_needs_its_samples():
    a = _line((1000.0, 500.0), (5.0, 0.0))
    a[5] = np.nan
    s = _series({"a": a, "b": _line((1200.0, 500.0), (0.0, 0.0))})
    assert approach_speed(s, 0, 1, 6.5) is None
    assert approach_speed(s, 0, 1, 1.0) is None  # the fit would start before frame 0


@pytest.mark.parametrize("sigma", [0.2, 0.5, 1.0])
def test_motion_noise_is_read_from_moving_balls_only(sigma):
    """Rolling balls (slowing 0.1 mm/frame^2) with noise ``sigma`` mm per axis read
    ``sigma``; balls at rest beside them (a tracker holding them still) do not lower it."""
    rng = np.random.default_rng(int(sigma * 10))
    n = 120
    t = np.arange(n, dtype=float)
    paths = {}
    for k in range(6):
        x = 300.0 + 12.0 * t - 0.05 * t * t
        paths[f"m{k}"] = np.c_[x, np.full(n, 200.0 + 150.0 * k)] + rng.normal(0, sigma, (n, 2))
        paths[f"r{k}"] = np.tile([3000.0, 200.0 + 150.0 * k], (n, 1))
    assert motion_noise_mm(_series(paths)) == pytest.approx(sigma, rel=0.2)


def test_motion_noise_without_moving_balls_is_zero():
    assert motion_noise_mm(_series({"a": np.tile([500.0, 500.0], (40, 1))})) == 0.0


@pytest.mark.parametrize(
    ("runs", "f", "want"),
    [
        ({"a": [10.0, 40.0]}, 41.0, 40.0),  # hit again: the start then
        ({"a": [10.0, 40.0]}, 20.0, 10.0),
        ({"a": [40.0]}, 20.0, 40.0),  # no start up to f: its first
    ],
)
def test_latest_start_up_to_a_hit(runs, f, want):
    assert _latest(runs, f)["a"] == want


def _finder(paths: dict[str, np.ndarray]):
    from vision.events.finder import EventFinder
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    s = series_from_tracks(path_tracks(paths), 30.0)
    return EventFinder(s, TABLE, adapt(ShotSettings(), noise_mm(s))), s


def _pair(kind: str, sigma: float, seed: int, n: int = 60) -> dict[str, np.ndarray]:
    """Ball ``1`` rolls along x at 4 mm/frame from frame 10 and six more balls roll
    elsewhere (the motion noise is read from them all), everything read with ``sigma``
    mm noise, twelve at rest read still; ``2``: ``side`` beside ``1`` (touching, across x), rolling with it and
    spreading 0.05 mm/frame; ``behind``: catching ``1`` up from behind at 7 mm/frame,
    touching it at frame 30."""
    t = np.arange(n, dtype=float)
    run = np.clip(t - 10.0, 0.0, None)
    one = np.c_[1500.0 + 4.0 * run, np.full(n, 700.0)]
    if kind == "side":
        two = np.c_[1500.0 + 4.0 * run, 700.0 + 2 * R + 0.05 * run]
    else:
        two = np.c_[1500.0 + 4.0 * 20.0 - 2 * R + 7.0 * (run - 20.0), np.full(n, 700.0)]
    paths = {"1": one, "2": two}
    for k in range(6):
        paths[f"m{k}"] = np.c_[300.0 + 10.0 * t, np.full(n, 150.0 + 70.0 * k)]
    rng = np.random.default_rng(seed)
    out = {k: p + rng.normal(0.0, sigma, p.shape) for k, p in paths.items()}
    for k in range(12):  # balls at rest, read still (a tracker holds them)
        out[f"r{k}"] = np.tile([3000.0, 150.0 + 120.0 * k], (n, 1)) + rng.normal(0, 0.02, (n, 2))
    return out


@pytest.mark.parametrize("sigma", [0.16, 0.35, 0.55])  # 1080p, 720p, 720p in a rack
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_pair_side_by_side_is_not_closing_one_caught_up_is(sigma, seed):
    """At every frame of their run side by side the two are not closing in (whatever
    kink the noise makes); a ball catching another up at 3 mm/frame more is."""
    fd, s = _finder(_pair("side", sigma, seed))
    a, b = s.index("1"), s.index("2")
    assert not any(fd.closing(a, b, f + 0.5) for f in range(14, 55))
    fd, s = _finder(_pair("behind", sigma, seed))
    assert fd.closing(s.index("2"), s.index("1"), 29.5)
