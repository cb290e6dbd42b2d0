"""The tracker's settings and one ball's filter state (``vision.track.tracker`` uses them).

Units: table mm, seconds and frames; the filter's state is [x, y, vx, vy] in mm and mm/s.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from vision.numbers.reader import NumberVote


@dataclass(frozen=True)
class TrackerConfig:
    """Tuning, in mm, seconds and frames."""

    accel_mm_s2: float = 30000.0  # process noise: balls collide and bounce
    meas_mm: float = 1.5  # measurement noise (sharp ball)
    blur_meas_mm: float = 8.0  # measurement noise (motion smear)
    near_gate_balls: float = 1.3  # first pass gate around the prediction, in diameters
    far_gate_balls: float = 6.0  # second pass (a break: five diameters in one frame)
    far_gate_misses: int = 3  # ... also after this many frames unseen, no actor near
    confirm_hits: int = 3  # detections needed to confirm a new ball
    confirm_window: int = 5  # ... within this many frames of its first detection
    tentative_misses: int = 1  # ... missing in at most this many of them
    start_window: int = 15  # balls seen in the video's first frame: a longer window (a
    start_misses: int = 10  # hand-held camera's first frames may be blurred or shaken)
    coast_moving_s: float = 0.5  # a moving ball lost in the open coasts this long
    coast_occluded_s: float = 30.0  # a ball hidden near an actor (arm, body) coasts this long
    coast_rest_s: float = 3.0  # a ball at rest that vanished with no actor near
    coast_skittle_s: float = 30.0  # a skittle lies where it fell until it is stood up again
    mature_hits: int = 15  # detections before a vanished ball at rest is believed hidden
    home_frames: int = 15  # measured frames at rest before a ball's place is its home
    empty_frames: int = 3  # a ball predicted onto empty cloth or another ball this long is gone
    rest_speed_mm_s: float = 60.0  # below this a ball counts as at rest
    pocket_reach_balls: float = 1.5  # how far from a pocket mouth a ball can vanish into it
    pocket_drop_balls: float = 0.25  # past a mouth line by this many radii a ball has dropped
    reads_per_frame: int = 16  # number patches read at most per frame (white pyramid balls)
    min_read_radius_px: float = 11.5  # smaller balls' numbers are not read (720p: too unsure)


@dataclass
class _Track:
    """One ball's filter and bookkeeping. The state ``x`` is [x, y, vx, vy] (table mm,
    mm/s); both axes move independently with the same noise, so the 4x4 covariance is two
    equal 2x2 blocks ``[[pa, pb], [pb, pc]]`` (mm², mm²/s, mm²/s²), kept as three numbers."""

    tid: int
    x: np.ndarray  # [x, y, vx, vy] mm, mm/s
    pa: float  # position variance, mm²
    pb: float  # position-velocity covariance, mm²/s
    pc: float  # velocity variance, mm²/s²
    first_frame: int
    last_seen: int
    last_t: float = 0.0
    votes: Counter = field(default_factory=Counter)
    hits: int = 1
    name: str | None = None
    state: str = "tentative"  # tentative | active | lost | pocketed
    last_xy: np.ndarray = field(default_factory=lambda: np.zeros(2))
    last_v: np.ndarray = field(default_factory=lambda: np.zeros(2))
    occluded: bool = False
    moving_run: int = 0  # consecutive measured frames at speed (not at rest)
    empty_run: int = 0  # consecutive frames predicted onto visibly empty cloth
    rest_run: int = 0  # consecutive measured frames at rest
    home_xy: np.ndarray | None = None  # where it rested home_frames frames (mm); None once rolling
    misses: int = 0  # frames missed while tentative
    pending: list = field(default_factory=list)  # rows while tentative
    number: int | None = None  # 1..15 once read (pyramid white balls)
    number_how: str | None = None  # "read" | "elimination" (the only number left)
    numvote: NumberVote = field(default_factory=NumberVote)
    _cls: tuple[str, bool] | None = None  # (class, sure) cached from ``votes``
    hold: object | None = None  # vision.track.depart.Hold: a departure not yet confirmed

    def vote(self, cls: str) -> None:
        """Count one more detection of colour class ``cls``."""
        self.votes[cls] += 1
        self._cls = None

    def _tally(self) -> tuple[str, bool]:
        if self._cls is None:
            v = self.votes
            if not v:
                self._cls = ("white", False)
            else:  # the first class with the most votes (as Counter.most_common(1))
                best = max(v, key=v.__getitem__)
                n = sum(v.values())
                self._cls = (best, n >= 5 and v[best] >= 0.8 * n)
        return self._cls

    @property
    def cls(self) -> str:
        return self._tally()[0]

    @property
    def sure(self) -> bool:
        """True when the colour class is settled (many votes, a clear majority)."""
        return self._tally()[1]

    @property
    def label(self) -> str | None:
        """The id its rows carry: the number once read, else the tracker's name."""
        return str(self.number) if self.number is not None else self.name
