"""When the contacts of a frozen cluster happened (vision.events.contact_finders): a contact
the rack finder read at the cluster's start is dated when its striking ball reaches one
diameter of the struck ball (plus the touching tolerance), within the set-off frames; a
touching pair keeps the start. Table mm, frames at 30 fps."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tables import load_table
from tests.vision.vision_scene import path_tracks
from vision.events.contact_finders import RACK_SETOFF_FRAMES
from vision.events.impulse import RackContact

TABLE = load_table("pyramid-12ft")
R = TABLE.ball_radius
TOL = 5.0  # mm, the touching tolerance handed to the dating
REST = np.array([1500.0, 700.0])  # the struck ball, at rest throughout


def _finder(gap0: float, speed: float):
    """An event finder over ball ``c`` rolling along x at ``speed`` mm/frame towards ``m``
    at rest at ``REST``; ``gap0`` mm between them (surfaces) at frame 10."""
    from vision.events.finder import EventFinder
    from vision.events.series import noise_mm, series_from_tracks
    from vision.events.settings import ShotSettings, adapt

    n = 30
    t = np.arange(n, dtype=float)
    x = REST[0] - 2 * R - gap0 + speed * (t - 10.0)
    c = np.c_[np.minimum(x, REST[0] - 2 * R), np.full(n, REST[1])]
    s = series_from_tracks(path_tracks({"c": c, "m": np.tile(REST, (n, 1))}), 30.0)
    return EventFinder(s, TABLE, adapt(ShotSettings(), noise_mm(s)))


@pytest.mark.parametrize(
    ("gap0", "speed", "struck", "dated"),
    [
        # 20 mm off at the cluster's start, 5 mm/frame: within 2 R + 5 mm at frame 13
        (20.0, 5.0, "m", 13.0),
        # already touching at the start (a frozen rack): the start stays
        (0.0, 5.0, "m", 10.0),
        (3.0, 5.0, "m", 10.0),
        # 40 mm off at 5 mm/frame: not near by the end of the set-off frames, kept
        (40.0, 5.0, "m", 10.0),
        # the struck ball is not at rest: no rest position to reach, kept
        (20.0, 5.0, "x", 10.0),
    ],
)
def test_a_cluster_contact_is_dated_where_its_striker_arrives(gap0, speed, struck, dated):
    fd = _finder(gap0, speed)
    rest = {"m": REST} if struck == "m" else {}
    got = fd._reached(RackContact(10.0, "c", struck, (0.0, 0.0), 1.0), rest, TOL)
    assert got.f == pytest.approx(dated, abs=0.11)
    assert got.f <= 10.0 + RACK_SETOFF_FRAMES
    assert (got.striker, got.struck) == ("c", struck)
