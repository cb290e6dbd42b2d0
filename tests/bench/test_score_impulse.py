"""Contacts scored against the truth whose impulse a camera can see
(bench.score_impulse): the velocity-change noise, the tracks' measured position noise,
and the faint truth contacts left out."""

from __future__ import annotations

import numpy as np
import pytest

from bench.score_impulse import dv_error_noise, dv_noise, faint_contacts, impulse_threshold
from bench.score_observable import score_observable_contacts
from contract.match import Match
from contract.tracks import Tracks


@pytest.mark.parametrize(
    ("sigma", "n", "want"),
    [
        (1.0, 3, 1.0),  # two slopes of 3 samples: sigma / sqrt(2) each
        (0.5, 3, 0.5),
        (1.0, 2, 2.0),  # two samples: each slope carries sqrt(2) sigma
        (1.0, 5, np.sqrt(2 * 12 / 120)),
    ],
)
def test_velocity_change_noise(sigma, n, want):
    assert dv_noise(sigma, n) == pytest.approx(want)


def test_threshold_is_k_sigmas_of_the_change():
    assert impulse_threshold(0.5) == pytest.approx(1.5)
    assert impulse_threshold(dv_noise(0.5)) == pytest.approx(1.5)
    assert impulse_threshold(0.0) == 0.0


def _tracks(xy: dict[str, np.ndarray], visible: dict[str, np.ndarray] | None = None) -> Tracks:
    rows = []
    for ident, p in xy.items():
        for k, (x, y) in enumerate(p):
            vis = 1 if visible is None else int(visible[ident][k])
            rows.append((k, k / 30, ident, float(x), float(y), vis, np.nan, np.nan))
    return Tracks.from_rows(rows)


@pytest.mark.parametrize("sigma", [0.2, 0.5, 1.5])
def test_velocity_change_noise_is_read_on_moving_balls_not_the_bias(sigma):
    rng = np.random.default_rng(3)
    n = 400
    still = np.tile([1000.0, 500.0], (n, 1))
    moving = np.c_[200.0 + 6.0 * np.arange(n), np.full(n, 900.0)]
    exact = _tracks({"yellow": moving, "1": still})
    bias = np.array([2.0, -1.5])  # a centre read off by a constant: no velocity error
    pred = _tracks(
        {
            "p7": moving + bias + rng.normal(0, sigma, (n, 2)),
            # a resting ball held still: no noise, and none of its rows count
            "1": still + bias,
        }
    )
    got = dv_error_noise(pred, exact, lambda i: {"p7": "yellow"}.get(i, i))
    assert got == pytest.approx(dv_noise(sigma), rel=0.12)


def test_velocity_change_noise_skips_rows_not_measured_resting_and_unmapped():
    n = 60
    p = np.c_[10.0 * np.arange(n, dtype=float), np.zeros(n)]
    vis = np.ones(n, bool)
    vis[::2] = False  # every other row predicted through an occlusion: no window measured
    exact = _tracks({"1": p})
    noisy = p + np.random.default_rng(0).normal(0, 1.0, p.shape)
    assert dv_error_noise(_tracks({"1": noisy}, {"1": vis}), exact, str) is None
    assert dv_error_noise(_tracks({"zz": noisy}), exact, str) is None
    still = np.tile([500.0, 500.0], (n, 1))
    assert dv_error_noise(_tracks({"1": still + 0.3}), _tracks({"1": still}), str) is None


def _match(impulses: list[float | None]) -> Match:
    events = [{"frame": 10, "t": 0.333, "type": "strike", "ball": "yellow"}]
    for k, j in enumerate(impulses):
        e = {
            "frame": 20 + 5 * k,
            "t": (20 + 5 * k) / 30,
            "type": "contact",
            "balls": ["yellow", str(k + 1)],
        }
        if j is not None:
            e["impulse"] = j
        events.append(e)
    return Match.model_validate(
        {
            "format": "tablemon-match/1",
            "game": "pyramid-free",
            "table": "pyramid-12ft",
            "shots": [
                {
                    "index": 1,
                    "start": {"frame": 10, "t": 0.333},
                    "end": {"frame": 90, "t": 3.0},
                    "events": events,
                }
            ],
        }
    )


@pytest.mark.parametrize(
    ("impulses", "threshold", "faint", "unknown"),
    [
        ([0.03, 2.0, None], 1.5, {(20, frozenset(("yellow", "1")))}, 1),
        ([0.03, 2.0, None], 0.0, set(), 1),  # exact tracks: every known impulse is seen
        (
            [0.03, 1.49, 1.5],
            1.5,
            {(20, frozenset(("yellow", "1"))), (25, frozenset(("yellow", "2")))},
            0,
        ),
    ],
)
def test_faint_contacts(impulses, threshold, faint, unknown):
    assert faint_contacts(_match(impulses), threshold) == (frozenset(faint), unknown)


def test_faint_truth_and_its_match_are_left_out_of_the_score():
    truth = _match([0.03, 2.0, 3.0])
    pred = _match([None, None])  # found the faint one and the second, missed the third
    faint, _ = faint_contacts(truth, 1.5)
    s = score_observable_contacts(pred, truth, str, faint)
    assert (s.truth, s.pred, s.tp) == (2, 1, 1)
    assert s.f1 == pytest.approx(2 / 3)
