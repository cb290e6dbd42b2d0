"""Hand-built truth for the scorer's tests: a match, tracks and a calibration.

The match is pyramid on ``pyramid-12ft`` with numbered white balls; frames at 30 fps;
positions in table mm.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from contract.calib import Calibration, CalibrationFile
from contract.match import Match
from contract.tracks import Tracks

FPS = 30.0
L, W = 3550.0, 1775.0


def ev(frame: int, type_: str, **kw) -> dict:
    return {"frame": frame, "t": frame / FPS, "type": type_, **kw}


def verdict(legal: bool, a: int, b: int, nxt: str, fouls: tuple[str, ...] = ()) -> dict:
    return {"legal": legal, "fouls": list(fouls), "scored": {"A": a, "B": b}, "next": nxt}


def shot(index: int, player: str, start: int, end: int, events: list, rest: dict, v: dict) -> dict:
    return {
        "index": index,
        "player": player,
        "start": {"frame": start, "t": start / FPS},
        "end": {"frame": end, "t": end / FPS},
        "cue_ball": "yellow",
        "events": events,
        "rest": rest,
        "verdict": v,
    }


REST1 = {
    "yellow": [1000.0, 800.0],
    "1": [2000.0, 300.0],
    "2": [2500.0, 900.0],
    "4": [3000.0, 1500.0],
}
REST2 = {**REST1, "yellow": [600.0, 1200.0], "1": [2100.0, 150.0]}
REST3 = {k: v for k, v in REST2.items() if k != "yellow"} | {"2": [2400.0, 1000.0]}
REST4 = {**REST3, "yellow": [500.0, 887.5], "4": [3050.0, 1450.0]}


def truth_match_dict() -> dict:
    """Four shots: a pot, a cushion/cross shot, a cue-ball pot (foul), a miss (foul)."""
    shots = [
        shot(
            1,
            "A",
            10,
            100,
            [
                ev(10, "strike", ball="yellow"),
                ev(20, "contact", balls=["yellow", "3"], at=[2600.0, 880.0]),
                ev(30, "cushion", ball="3", cushion="right-back"),
                ev(40, "pocket", ball="3", pocket="back-right"),
            ],
            REST1,
            verdict(True, 1, 0, "A"),
        ),
        shot(
            2,
            "A",
            120,
            200,
            [
                ev(120, "strike", ball="yellow"),
                ev(130, "contact", balls=["yellow", "1"]),
                ev(140, "cushion", ball="1", cushion="left-front"),
                ev(145, "cross", ball="1", line="centre"),
                ev(150, "cushion", ball="yellow", cushion="front"),
            ],
            REST2,
            verdict(True, 0, 0, "B"),
        ),
        shot(
            3,
            "B",
            220,
            300,
            [
                ev(220, "strike", ball="yellow"),
                ev(235, "contact", balls=["yellow", "2"]),
                ev(250, "pocket", ball="yellow", pocket="front-left"),
            ],
            REST3,
            verdict(False, 1, 0, "A", ("cue_ball_pocketed",)),
        ),
        shot(
            4,
            "A",
            320,
            400,
            [ev(320, "strike", ball="yellow"), ev(340, "cushion", ball="yellow", cushion="back")],
            REST4,
            verdict(False, 0, 1, "B", ("no_contact",)),
        ),
    ]
    return {
        "format": "tablemon-match/1",
        "game": "pyramid-free",
        "table": "pyramid-12ft",
        "video": {"fps": FPS, "frames": 420},
        "shots": shots,
        "score": {"A": 2, "B": 1},
    }


def carom_match_dict() -> dict:
    """One 5-pin shot with two skittles down (``by`` known)."""
    evs = [
        ev(5, "strike", ball="white"),
        ev(15, "contact", balls=["white", "red"]),
        ev(25, "skittle_down", skittle="centre", by="red"),
        ev(27, "skittle_down", skittle="left", by="centre"),
    ]
    rest = {"white": [700.0, 700.0], "yellow": [2000.0, 400.0], "red": [1600.0, 800.0]}
    s = shot(1, "A", 5, 90, evs, rest, verdict(True, 4, 0, "A"))
    s["cue_ball"] = "white"
    return {
        "format": "tablemon-match/1",
        "game": "carom-5pin",
        "table": "carom-match",
        "shots": [s],
        "score": {"A": 4, "B": 0},
    }


TRACK_FRAMES = 100
TRACK_START = {
    "yellow": (1000.0, 800.0),
    "1": (2000.0, 300.0),
    "2": (2500.0, 900.0),
    "3": (3000.0, 1500.0),
}


def truth_track_rows() -> list[tuple]:
    """4 balls x 100 frames = 400 rows; ball ``1`` rolls 5 mm/frame along x over frames
    21..60 (40 moving rows), everything else is at rest."""
    rows = []
    for f in range(TRACK_FRAMES):
        for ident, (x, y) in TRACK_START.items():
            if ident == "1":
                x += 5.0 * (min(max(f, 20), 60) - 20)
            rows.append((f, f / FPS, ident, x, y, 1, None, None))
    return rows


def homography() -> np.ndarray:
    """Undistorted pixels -> table mm for a 1920x1080 view of the table with perspective."""
    px = np.float32([[300, 950], [1650, 980], [1500, 120], [420, 100]])
    mm = np.float32([[0, 0], [0, W], [L, W], [L, 0]])
    return cv2.getPerspectiveTransform(px, mm)


def calib(h: np.ndarray, cam: tuple | None = (L / 2, W / 2, 3000.0), **kw) -> Calibration:
    return Calibration(
        CalibrationFile(
            table="pyramid-12ft",
            image_size=(1920, 1080),
            image_to_table=tuple(map(tuple, h.tolist())),
            camera_position_mm=cam,
            **kw,
        )
    )


@pytest.fixture
def truth_dict() -> dict:
    return truth_match_dict()


@pytest.fixture
def truth() -> Match:
    return Match.model_validate(truth_match_dict())


@pytest.fixture
def carom_dict() -> dict:
    return carom_match_dict()


@pytest.fixture
def carom() -> Match:
    return Match.model_validate(carom_match_dict())


@pytest.fixture
def track_rows() -> list[tuple]:
    return truth_track_rows()


@pytest.fixture
def truth_tracks() -> Tracks:
    return Tracks.from_rows(truth_track_rows())


@pytest.fixture
def truth_calib() -> Calibration:
    return calib(homography())
