"""Contacts read from velocity changes (vision.events.impulse.impulse_scan) and the centre-line
crossing of a ball falling into a middle pocket: hand-built paths in table mm."""

from __future__ import annotations

import numpy as np
import pytest

from contract.events import EventType
from contract.tables import load_table
from contract.tracks import Tracks
from vision.events.impulse import impulse_scan
from vision.events.series import Series
from vision.events.shots import cut_tracks

T = load_table("pyramid-12ft")
R = T.ball_radius
N = 30


def _series(paths: dict[str, np.ndarray]) -> Series:
    ids = tuple(sorted(paths))
    xy = np.stack([paths[i] for i in ids]).astype(float)
    return Series(ids, 0, np.arange(N) / 30.0, xy, ~np.isnan(xy[..., 0]), 30.0)


def _push(
    va: float, vb: float, impulse: float, gap0: float, y_off: float = 0.0, decel: float = 0.0
):
    """Ball ``a`` rolls along x at ``va`` mm/frame behind ``b`` rolling at ``vb``, centres
    ``2R + gap0`` apart at frame 0 (``b`` ``y_off`` mm aside), both slowing by ``decel``
    mm/frame^2; when the gap first closes (fractional frame ``t_c``) ``impulse`` mm/frame
    passes from a to b along x. Integrated in steps of 1/100 frame. Returns the series
    and ``t_c``."""
    dt, xa, xb, v = 0.01, 1000.0, 1000.0 + 2 * R + gap0, [va, vb]
    t_c, pa, pb = None, [], []
    for i in range(N * 100):
        if i % 100 == 0:
            pa.append(xa)
            pb.append(xb)
        if t_c is None and xb - xa - 2 * R <= 0.0 and y_off == 0.0:
            t_c = i * dt
            v = [v[0] - impulse, v[1] + impulse]
        v = [max(0.0, u - decel * dt) for u in v]
        xa, xb = xa + v[0] * dt, xb + v[1] * dt
    if y_off:  # side by side: when the x gap closes, as if they had touched
        t_c = gap0 / (va - vb)
    a = np.c_[pa, np.full(N, 600.0)]
    b = np.c_[pb, np.full(N, 600.0 + y_off)]
    return _series({"a": a, "b": b}), t_c


@pytest.mark.parametrize(
    ("va", "vb", "impulse", "y_off", "decel", "found"),
    [
        (3.0, 1.0, 1.5, 0.0, 0.0, True),  # a ball catches a slower one: both change speed
        (4.0, 0.0, 2.0, 0.0, 0.0, True),  # onto a ball at rest, half the speed passed on
        (3.0, 1.0, 0.3, 0.0, 0.0, False),  # a change below the threshold: no contact
        (3.0, 1.0, 0.0, 0.0, 0.0, False),  # they close up and roll on untouched
        (3.0, 1.0, 1.5, 2 * R + 6.0, 0.0, False),  # side by side, 6 mm apart: no touch
        # rolling balls slow by 0.1 mm/frame^2 between the fits by friction alone: taken
        # off, a gentle push of 0.5 mm/frame onto a ball at rest is read at its size
        (3.0, 0.0, 0.5, 0.0, 0.1, True),
        (3.0, 1.0, 0.0, 0.0, 0.1, False),
    ],
)
def test_impulse_scan_reads_a_contact_from_the_velocity_change(
    va, vb, impulse, y_off, decel, found
):
    s, t_c = _push(va, vb, impulse, gap0=20.0, y_off=y_off, decel=decel)
    thr = 0.4 if decel else 0.8
    out = impulse_scan(s, R, 0, N, thr, 3.0, ["a", "b"], decel=decel or None)
    if not found:
        assert out == []
        return
    assert len(out) == 1
    c = out[0]
    assert (c.a, c.b) == ("a", "b")  # the ball that caught up strikes
    assert abs(c.f - t_c) <= 1.0
    assert c.impulse == pytest.approx(impulse, rel=0.1)


def test_impulse_scan_leaves_balls_set_off_together_to_the_rack_finder():
    """Two balls at rest touching, both sent off in one frame (a rack's impulse): no
    straight motion before, no contact read here."""
    t = np.arange(N, dtype=float)
    off = np.clip(t - 10.4, 0.0, None)
    a = np.c_[1000.0 + 1.0 * off, np.full(N, 600.0)]
    b = np.c_[1000.0 + 2 * R + 3.0 * off, np.full(N, 600.0)]
    s = _series({"a": a, "b": b})
    starts = {"a": [10.4], "b": [10.4]}
    assert impulse_scan(s, R, 0, N, 0.8, 3.0, ["a", "b"], starts=starts) == []


def _tracks(xy: np.ndarray, ident: str = "w1") -> Tracks:
    """Rows of one ball (NaN: off the table) and of the yellow ball at rest throughout."""
    rows = [
        (f, f / 30.0, ident, float(x), float(y), 1, None, None)
        for f, (x, y) in enumerate(xy)
        if not np.isnan(x)
    ]
    rows += [(f, f / 30.0, "yellow", 900.0, 900.0, 1, None, None) for f in range(len(xy))]
    return Tracks.from_rows(rows)


@pytest.mark.parametrize(
    ("x_last", "crossed"),
    [
        (T.L / 2 - 8.0, True),  # 8 mm short of the line when lost: crosses as it drops
        (T.L / 2 - 20.0, False),  # 20 mm short: it drops before it reaches the line
    ],
)
def test_a_ball_falling_into_a_middle_pocket_may_cross_the_centre_line(x_last, crossed):
    """A ball rolls slowly into the middle-right pocket (4.4 mm/frame across, 1.7 along)
    and is lost 16 mm before the nose line (a body hides it, the pocket's shadow): it
    rolls on to the line and falls a quarter radius past it, crossing x = L/2 there
    (about 9 mm on from where it was lost) or not."""
    vx, vy = 1.7, 4.4
    n_still, n_move = 20, 40
    t = np.arange(n_move, dtype=float) - (n_move - 1)  # last sample 16 mm from the line
    path = np.c_[x_last + vx * t, T.W - 16.0 + vy * t]
    xy = np.vstack([np.tile(path[0], (n_still, 1)), path, np.full((30, 2), np.nan)])
    cut = cut_tracks(_tracks(xy), T, 30.0)
    assert len(cut.shots) == 1
    kinds = [e.type for e in cut.shots[0].events]
    assert EventType.POCKET in kinds
    assert (EventType.CROSS in kinds) is crossed


def test_impulse_scan_reads_nothing_from_a_bridged_stretch():
    """The same push, but ``b`` unmeasured from frame 8 to 14 (under an arm, its rows a
    straight bridge): no velocity change is read there."""
    s, _ = _push(3.0, 1.0, 1.5, gap0=20.0)
    vis = s.visible.copy()
    vis[s.index("b"), 8:15] = False
    s = Series(s.ids, s.first, s.t, s.xy, vis, s.fps)
    assert impulse_scan(s, R, 0, N, 0.8, 3.0, ["a", "b"]) == []
