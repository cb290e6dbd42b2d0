"""Two readings of one pair's touch under two frames apart whose gap never closed in
again are two touches when one of the balls bounced off a cushion in between, more than
half a frame from both (vision.events.finder.EventFinder._new_touch): a ball struck off a cushion
and back into the ball that struck it (pyr-break-3-720 8 into yellow), its second touch
read with fits that straddle the bounce and so dated before the gap closes. And a scan
contact's struck ball at rest must travel as the impulse read (less its noise) would send
it. Table mm, fractional frames."""

from __future__ import annotations

import numpy as np
import pytest

from contract.events import EventType
from contract.tables import load_table
from tests.vision.vision_scene import path_tracks
from vision.events.finder import EventFinder
from vision.events.series import noise_mm, series_from_tracks
from vision.events.settings import ShotSettings, adapt

N = 40


def _finder() -> EventFinder:
    """Ball ``1`` at rest; ball ``2`` touching it until frame 20, then flying apart at
    10 mm/frame (their gap only widens: no second approach to read)."""
    table = load_table("pyramid-12ft")
    r = table.ball_radius
    gap = np.array([0.0 if k <= 20 else 10.0 * (k - 20) for k in range(N)])
    one = np.tile([1500.0, 700.0], (N, 1))
    two = np.c_[1500.0 - 2 * r - gap, np.full(N, 700.0)]
    s = series_from_tracks(path_tracks({"1": one, "2": two}), 30.0)
    return EventFinder(s, table, adapt(ShotSettings(), noise_mm(s)))


@pytest.mark.parametrize(
    ("cushions", "f0", "f1", "two"),
    [
        ([("2", 20.7)], 20.0, 21.3, True),  # bounced between: a way back (pyr-break-3-720)
        ([("1", 20.7)], 21.3, 20.0, True),  # either ball, either order
        ([], 20.0, 21.3, False),  # no bounce, no second approach: one touch read twice
        ([("3", 20.7)], 20.0, 21.3, False),  # a third ball's bounce turns neither back
        ([("2", 20.2)], 20.0, 21.3, False),  # struck while against the cushion: one moment
        ([("2", 21.0)], 20.0, 21.3, False),  # the bounce at the second reading
        ([("2", 22.5)], 20.0, 21.3, False),  # after both readings
        ([("2", 20.0)], 19.94, 20.0, False),  # carom-play-720 355: readings 0.06 apart
    ],
)
def test_a_cushion_between_two_readings_parts_them(cushions, f0, f1, two):
    fd = _finder()
    events = [fd._ev(f, EventType.CUSHION, ball=b, cushion="top") for b, f in cushions]
    assert fd._new_touch(fd.s.index("1"), fd.s.index("2"), f0, f1, events) is two


@pytest.mark.parametrize(("impulse", "kept"), [(6.7, False), (0.5, True)])
def test_the_scan_asks_the_struck_ball_for_the_impulse_it_read(monkeypatch, impulse, kept):
    """``2`` sets off from beside ``1`` at rest at frame 30 (pushed by a ball out of the
    scene); ``1``, read 2.5 mm off for two frames before (a sub-pixel shift) and back,
    stays. A scan contact 2>1 reading 6.7 mm/frame would have sent ``1`` some 15 mm: no
    touch (pyr-break-9-720 311 5>1); one at the threshold sends it 1.6 mm, short of
    what the shift leaves readable: kept (vision.events.contact_finders._scan)."""
    from types import SimpleNamespace

    import vision.events.contact_finders as cf
    from vision.events.impulse_scan import ScanContact

    table = load_table("pyramid-12ft")
    r, n = table.ball_radius, 60
    one = np.tile([1500.0, 700.0], (n, 1))
    one[28:30, 0] += 2.5
    t = np.arange(n, dtype=float)
    two = np.c_[1500.0 - 2 * r - 0.5 - 6.0 * np.clip(t - 30.5, 0.0, None), np.full(n, 700.0)]
    s = series_from_tracks(path_tracks({"1": one, "2": two}), 30.0)
    fd = EventFinder(s, table, adapt(ShotSettings(), noise_mm(s)))
    scan = [ScanContact(30.0, "2", "1", (1500.0 - r, 700.0), impulse)]
    monkeypatch.setattr(cf, "impulse_scan", lambda *a, **k: scan)
    monkeypatch.setattr(cf, "untouched", lambda *a, **k: False)
    contacts: list[tuple[float, frozenset]] = []
    move = SimpleNamespace(ball="2", first=30, last=58, start_f=30.5)
    fd._scan([move], contacts, lambda f, a, b, at: contacts.append((f, a, b)), [])
    assert bool(contacts) is kept
