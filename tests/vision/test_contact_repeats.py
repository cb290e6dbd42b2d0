"""Repeated touches of one pair (a spinning cue ball knocking the ball ahead again and
again): the impulse scan marks the touches it split off a run around its peak
(vision.events.impulse_scan), and the event finder keeps them even a couple of frames apart;
a contact another finder named hides the scan's one reading of it (the pair's nearest
within three frames), not the touches beside it (vision.events.contact_finders). Table mm, frames at 30 fps."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import vision.events.contact_finders as cf
from contract.tables import load_table
from tests.vision.test_impulse_contacts import _push
from tests.vision.vision_scene import path_tracks
from vision.events.impulse_scan import ScanContact, impulse_scan

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius


@pytest.mark.parametrize(
    ("va", "spin", "repeats"),
    [
        (6.0, 1.5, False),  # touches 4 frames apart: each its own run of intervals
        (6.0, 2.0, True),  # 3.4 frames apart: one run, the later touches split off it
    ],
)
def test_the_scan_marks_the_touches_split_off_a_run(va, spin, repeats):
    s, hits = _push(va, spin)
    found = impulse_scan(s, R, 0, s.n_frames, 0.4, 4.0, ["a", "b"], None, {}, 0.1, frozenset("a"))
    first = min(found, key=lambda c: c.f)
    assert abs(first.f - hits[0][0]) < 1.0
    assert not first.repeat  # the first touch is a run's peak, read on its own
    later = [c for c in found if c is not first]
    assert later
    assert all(c.repeat == repeats for c in later)


def _finder():
    """An event finder over two balls rolling along x together from frame 10 (``1``
    ahead, ``2`` touching it from behind), neither at rest anywhere near the frames the
    scan's contacts are put at."""
    from vision.events.finder import EventFinder
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    n = 60
    run = np.clip(np.arange(n, dtype=float) - 10.0, 0.0, None)
    paths = {
        "1": np.c_[1500.0 + 4.0 * run, np.full(n, 700.0)],
        "2": np.c_[1500.0 - 2 * R + 4.0 * run, np.full(n, 700.0)],
    }
    s = series_from_tracks(path_tracks(paths), 30.0)
    return EventFinder(s, TABLE, adapt(ShotSettings(), noise_mm(s)))


def _scan_of(found: list[tuple[float, bool]]) -> list[ScanContact]:
    return [ScanContact(f, "2", "1", (1500.0, 700.0), 2.0, repeat=r) for f, r in found]


@pytest.mark.parametrize(
    ("named", "found", "kept"),
    [
        # a spinning cue ball's push: the peak and two touches split off it, 2 frames apart
        ([], [(30.0, False), (32.0, True), (34.5, True)], [30.0, 32.0, 34.5]),
        # the peak named by another finder: the scan's own reading of it (the nearest
        # within 3 frames) gives way, the touches beside it stay
        ([29.8], [(30.2, False), (32.1, True), (34.5, True)], [32.1, 34.5]),
        # a named touch with no reading of its own: the scan's nearest is its reading
        ([29.8], [(32.1, True), (34.5, True)], [34.5]),
        ([29.8], [(32.1, False)], []),
        # a second touch 2.6 frames after a named one the scan read too (a slow ball
        # knocking one at rest twice): kept; its run's own reading 2 frames on is not
        ([30.6], [(30.0, True), (32.6, False)], [32.6]),
        ([30.6], [(30.0, True), (32.6, False), (34.6, False)], [32.6]),
        # a run of its own (not split off) 2 frames after a kept contact gives way
        ([], [(30.0, False), (32.0, False)], [30.0]),
        ([], [(30.0, False), (32.0, True), (34.0, False)], [30.0, 32.0]),
        # within the span of the scan's velocity fits (6 frames) of a kept touch, the pair
        # never parted: the same touch; beyond it, a touch of its own
        ([], [(30.0, False), (34.5, False)], [30.0]),
        ([], [(30.0, False), (36.5, False)], [30.0, 36.5]),
    ],
)
def test_repeats_split_off_by_the_scan_are_kept(monkeypatch, named, found, kept):
    fd = _finder()
    monkeypatch.setattr(cf, "impulse_scan", lambda *a, **k: _scan_of(found))
    key = frozenset(("1", "2"))
    contacts = [(f, key) for f in named]
    added = []

    def add_contact(f, striker, struck, at):
        contacts.append((f, frozenset((striker, struck))))
        added.append(f)

    move = SimpleNamespace(ball="2", first=10, last=58, start_f=10.0)
    fd._scan([move], contacts, add_contact, [])
    assert added == kept


@pytest.mark.parametrize(("hidden", "found"), [(None, True), (range(27, 34), False)])
def test_a_touch_needs_both_balls_seen(hidden, found):
    """``2`` catches ``1`` up from behind at 3 mm/frame more and touches it at frame 30,
    where they swap speeds: a contact when both are seen there; none when ``2`` was hidden then (its path a
    straight bridge, how near it came not measured: on a new 1080p break two such made
    up contacts of balls the tracker lost in the rack)."""
    from vision.events.finder import EventFinder
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    n = 60
    t = np.arange(n, dtype=float)
    run = np.clip(t - 10.0, 0.0, None)
    after = np.clip(t - 30.0, 0.0, None)  # they swap speeds at the touch
    one = np.c_[1500.0 + 4.0 * run + 3.0 * after, np.full(n, 700.0)]
    two = np.c_[1500.0 + 80.0 - 2 * R + 7.0 * (t - 30.0) - 3.0 * after, np.full(n, 700.0)]
    two[:10] = two[10]  # at rest until frame 10 as well
    tracks = path_tracks({"1": one, "2": two}, hidden={"2": hidden} if hidden else None)
    s = series_from_tracks(tracks, 30.0)
    fd = EventFinder(s, TABLE, adapt(ShotSettings(), noise_mm(s)))
    added = []
    moves = [SimpleNamespace(ball=b, first=10, last=58, start_f=10.0) for b in ("1", "2")]
    fd._touches(moves, [], lambda f, a, b, at: added.append((round(f), a, b)))
    assert bool([c for c in added if abs(c[0] - 30) <= 1]) == found


@pytest.mark.parametrize(("kink_f", "contact"), [(11.0, False), (12.8, False), (20.0, True)])
def test_a_rack_members_kink_at_its_set_off_is_the_hit(monkeypatch, kink_f, contact):
    """Member ``2`` of a frozen cluster the rack finder read (hit at frame 10): a kink of
    its path within the set-off frames (3) is that hit, already read, not a contact with
    whatever ball lies one diameter off (on a new break a neighbour set off beside it);
    a later kink is a contact of its own."""
    from vision.events.motion import Kink, Movement

    fd = _finder()
    monkeypatch.setattr(type(fd), "_rack", lambda self, m, starts, cue: ({"2", "3"}, []))
    monkeypatch.setattr(type(fd), "partner", lambda self, ball, at, f, **k: ("1", 4.0))
    monkeypatch.setattr(type(fd), "closing", lambda self, a, b, f: True)
    at = tuple(fd.s.xy[fd.s.index("2"), int(kink_f)])
    kink = Kink(kink_f, at, (4.0, 0.0), (4.0, 1.0))

    def move(ball: str, f0: float, kinks=()) -> Movement:
        p = tuple(fd.s.xy[fd.s.index(ball), int(f0)])
        return Movement(
            ball, f0, 58.0, p, p, (4.0, 0.0), (4.0, 0.0), kinks, False, False, int(f0), 58
        )

    events, _ = fd.shot_events([move("1", 9.0), move("2", 10.0, (kink,))])
    got = [e for e in events if e.type == "contact" and abs(e.frame - kink_f) < 1.0]
    assert bool(got) == contact
