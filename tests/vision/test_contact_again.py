"""Two contacts of one pair less than two frames apart: one touch read twice, unless the
pair closed in on each other again in between by more than the noise
(vision.events.contact_checks.met_again), as a ball coming back off a cushion into the one it
has just left does. Table mm, frames."""

from __future__ import annotations

import numpy as np
import pytest

from vision.events.contact_checks import met_again
from vision.events.series import Series

R = 30.75  # a carom ball
MARGIN = 3.0  # mm: 6 motion-noise sigmas at 720p


def _pair(gaps: dict[int, float], n: int = 20) -> Series:
    """Ball ``a`` still at x = 1000 mm; ball ``b`` on the same line, its gap to ``a``
    (mm, surfaces) ``gaps[k]`` at frame ``k`` and 0 elsewhere."""
    g = np.array([gaps.get(k, 0.0) for k in range(n)])
    a = np.tile([1000.0, 500.0], (n, 1))
    b = np.c_[1000.0 + 2 * R + g, np.full(n, 500.0)]
    xy = np.stack([a, b])
    return Series(("a", "b"), 0, np.arange(n) / 30.0, xy, np.ones((2, n), bool), 30.0)


@pytest.mark.parametrize(
    ("gaps", "f0", "f1", "again"),
    [
        # off the cushion and back: 30 mm apart at 11, 13 mm at 12 (carom-play-3-1080)
        ({10: 27.0, 11: 30.0, 12: 13.2, 13: 12.1}, 11.0, 12.0, True),
        ({10: 27.0, 11: 30.0, 12: 13.2}, 12.0, 11.0, True),  # either order
        # flying apart after one touch, read at 10.4 and again at 11.9: one touch
        ({11: 20.0, 12: 40.0, 13: 60.0}, 10.4, 11.9, False),
        # 9 mm off the cushion and back to 2.8 mm (pyr-break-3-720 8 into yellow)
        ({11: 9.0, 12: 2.8}, 11.0, 12.0, True),
        # the gap wobbling by less than the margin: the same touch
        ({11: 3.0, 12: 1.5}, 10.5, 12.0, False),
        # one sample between the two readings: nothing to read a second approach from
        ({11: 30.0}, 10.6, 11.2, False),
    ],
)
def test_a_second_touch_needs_the_pair_to_close_in_again(gaps, f0, f1, again):
    assert met_again(_pair(gaps), 0, 1, f0, f1, MARGIN) is again


def test_a_missing_sample_reads_no_second_approach():
    s = _pair({10: 27.0, 11: 30.0, 12: 13.2})
    s.xy[1, 12] = np.nan
    assert met_again(s, 0, 1, 11.0, 12.0, MARGIN) is False


def test_the_scan_keeps_a_second_run_of_a_pair_that_met_again(monkeypatch):
    """``2`` touches ``1`` (at rest) at frame 30, backs off 20 mm and touches it again
    at 34: the scan's two runs of the pair 4 frames apart are two touches; the same two
    runs over ``2`` pressed against ``1`` throughout are one (vision.events.contact_finders)."""
    from types import SimpleNamespace

    import vision.events.contact_finders as cf
    from contract.tables import load_table
    from tests.vision.vision_scene import path_tracks
    from vision.events.finder import EventFinder
    from vision.events.impulse_scan import ScanContact
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    table = load_table("pyramid-12ft")
    r, n = table.ball_radius, 60
    back = {31: 10.0, 32: 20.0, 33: 10.0}
    kept = {}
    for name, gaps in (("again", back), ("pressed", {})):
        one = np.tile([1500.0, 700.0], (n, 1))
        two = np.c_[[1500.0 - 2 * r - gaps.get(k, 0.0) for k in range(n)], np.full(n, 700.0)]
        s = series_from_tracks(path_tracks({"1": one, "2": two}), 30.0)
        fd = EventFinder(s, table, adapt(ShotSettings(), noise_mm(s)))
        scan = [ScanContact(f, "2", "1", (1500.0, 700.0), 2.0) for f in (30.0, 34.0)]
        monkeypatch.setattr(cf, "impulse_scan", lambda *a, scan=scan, **k: scan)
        monkeypatch.setattr(cf, "untouched", lambda *a, **k: False)
        monkeypatch.setattr(cf, "stayed_short", lambda *a, **k: False)
        contacts: list[tuple[float, frozenset]] = []

        def add_contact(f, a, b, at, contacts=contacts):
            contacts.append((f, frozenset((a, b))))

        move = SimpleNamespace(ball="2", first=10, last=58, start_f=10.0)
        fd._scan([move], contacts, add_contact, [])
        kept[name] = [f for f, _ in contacts]
    assert kept == {"again": [30.0, 34.0], "pressed": [30.0]}
