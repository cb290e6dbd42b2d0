"""Readers and writers of MATCH.json, CALIB.json and TRACKS.csv (contract §6–8)."""

import json
from pathlib import Path

import numpy as np
import pytest

from contract import ContractError, Event, Events, EventType, by_ball, by_type
from contract.calib import Calibration, CalibrationFile, read_calibration, write_calibration
from contract.match import read_match, write_match
from contract.tracks import Tracks, read_tracks, write_tracks

EXAMPLE = {
    "format": "tablemon-match/1",
    "game": "pyramid-free",
    "table": "pyramid-12ft",
    "video": {"fps": 30.0, "frames": 5400},
    "shots": [
        {
            "index": 1,
            "player": "A",
            "start": {"frame": 41, "t": 1.367},
            "end": {"frame": 210, "t": 7.0},
            "cue_ball": "yellow",
            "events": [
                {"frame": 41, "t": 1.367, "type": "strike", "ball": "yellow"},
                {
                    "frame": 52,
                    "t": 1.733,
                    "type": "contact",
                    "balls": ["yellow", "w7"],
                    "at": [2510.0, 880.2],
                },
                {"frame": 60, "t": 2.0, "type": "cross", "ball": "w7", "line": "centre"},
                {"frame": 70, "t": 2.333, "type": "cushion", "ball": "w7", "cushion": "back"},
                {"frame": 88, "t": 2.933, "type": "pocket", "ball": "w3", "pocket": "back-right"},
                {"frame": 95, "t": 3.167, "type": "off_table", "ball": "w9"},
                {"frame": 99, "t": 3.3, "type": "skittle_down", "skittle": "centre", "by": "red"},
            ],
            "rest": {"yellow": [1804.2, 650.0], "w7": [3300.5, 1702.0]},
            "verdict": {
                "legal": True,
                "fouls": [],
                "scored": {"A": 1, "B": 0},
                "pocketed": ["w3"],
                "next": "A",
                "respot": [{"id": "w9", "at": [2662.5, 887.5]}],
                "rule_refs": ["pyramid:20"],
            },
        }
    ],
    "score": {"A": 1, "B": 0},
}


def test_contract_example_round_trips(tmp_path: Path) -> None:
    p = tmp_path / "m.json"
    p.write_text(json.dumps(EXAMPLE))
    m = read_match(p)
    assert m.shots[0].events[1].balls == ("yellow", "w7")
    write_match(tmp_path / "out.json", m)
    again = json.loads((tmp_path / "out.json").read_text())
    assert again["shots"][0]["events"] == EXAMPLE["shots"][0]["events"]
    assert again["shots"][0]["verdict"]["respot"] == [{"id": "w9", "at": [2662.5, 887.5]}]


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: d.update(format="other/1"), "format"),
        (lambda d: d.update(game="snooker"), "game"),
        (lambda d: d["shots"][0]["events"][1].pop("balls"), "contact event needs balls"),
        (lambda d: d["shots"][0]["events"].reverse(), "sorted by frame"),
        (lambda d: d["shots"][0]["verdict"].update(fouls=["kicked_table"]), "fouls"),
        (lambda d: d["shots"][0].update(player="C"), "player"),
    ],
)
def test_bad_match_is_one_clear_line(tmp_path: Path, mutate, needle: str) -> None:
    data = json.loads(json.dumps(EXAMPLE))
    mutate(data)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(ContractError) as e:
        read_match(p)
    msg = str(e.value)
    assert "\n" not in msg and str(p) in msg and needle in msg


def test_not_json_is_one_line(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text("{nope")
    with pytest.raises(ContractError, match="not valid JSON"):
        read_match(p)


def test_event_filters_use_exact_ids() -> None:
    evs = Events(
        [
            Event(frame=5, t=0.2, type="cushion", ball="w1", cushion="left"),
            Event(frame=2, t=0.1, type="contact", balls=("yellow", "w11")),
            Event(frame=9, t=0.3, type="pocket", ball="w11", pocket="back-left"),
        ]
    )
    assert [e.frame for e in evs] == [2, 5, 9]  # sorted by frame
    assert len(evs.filter(by_ball("w1"))) == 1  # w1 is not a substring match of w11
    assert len(evs.filter(by_ball("w11"), by_type(EventType.POCKET))) == 1
    assert evs.first(by_type("contact")).balls == ("yellow", "w11")


def _calib(cam=(1775.0, 887.5, 3000.0)) -> CalibrationFile:
    # pixel (u, v) -> mm: x = 2u, y = 2v (a camera looking straight down)
    return CalibrationFile(
        table="pyramid-12ft",
        image_size=(1920, 1080),
        image_to_table=((2.0, 0, 0), (0, 2.0, 0), (0, 0, 1.0)),
        camera_position_mm=cam,
        distortion={
            "camera_matrix": ((1400.0, 0, 960.0), (0, 1400.0, 540.0), (0, 0, 1.0)),
            "coeffs": (-0.05, 0.01, 0.0, 0.0, 0.0),
        },
    )


def test_calibration_round_trip_with_distortion_and_parallax(tmp_path: Path) -> None:
    write_calibration(tmp_path / "c.json", _calib())
    cal = read_calibration(tmp_path / "c.json")
    pts = np.array([[100.0, 100.0], [3400.0, 1700.0], [1775.0, 887.5]])
    for h in (0.0, 34.0):
        back = cal.pixel_to_table(cal.table_to_pixel(pts, height=h), height=h)
        assert np.allclose(back, pts, atol=1e-3)
    # a ball centre 34 mm up, 1.5 m from the camera's foot, seen as a cloth point is
    # displaced outward by d * h / (H - h)
    px = cal.table_to_pixel(np.array([[3275.0, 887.5]]), height=34.0)
    naive = cal.pixel_to_table(px, height=0.0)[0]
    assert naive[0] - 3275.0 == pytest.approx(1500.0 * 34.0 / (3000.0 - 34.0), rel=1e-6)


def test_tracks_round_trip(tmp_path: Path) -> None:

    t = Tracks.from_rows(
        [
            (0, 0.0, "yellow", 512.3, 887.1, 1, 1204.6, 655.2),
            (1, 0.0333, "yellow", 515.0, 887.0, 0, None, None),
            (0, 0.0, "w1", 100.0, 200.0, 1, 10.0, 20.0),
        ]
    )
    write_tracks(tmp_path / "t.csv", t)
    r = read_tracks(tmp_path / "t.csv")
    assert r.id.tolist() == ["w1", "yellow", "yellow"]
    assert np.isnan(r.u[2]) and r.visible.tolist() == [True, True, False]
    assert r.of("yellow").x.tolist() == [512.3, 515.0]
    assert not np.isnan(r.u[1])


def test_bad_tracks_row(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_text("frame,t,id,x,y,visible,u,v\n0,0,yellow,1,2,7,,\n")
    with pytest.raises(ContractError, match="line 2"):
        read_tracks(p)


def test_calibration_rejects_singular(tmp_path: Path) -> None:
    d = _calib().model_dump(mode="json")
    d["image_to_table"] = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    p = tmp_path / "c.json"
    p.write_text(json.dumps(d))
    with pytest.raises(ContractError, match="image_to_table"):
        read_calibration(p)
    assert isinstance(Calibration(_calib()), Calibration)


def test_tracks_skittle_state_column_round_trips(tmp_path: Path) -> None:
    t = Tracks.from_rows(
        [
            (0, 0.0, "centre", 1420.0, 710.0, 1, 5.0, 6.0, "standing"),
            (1, 0.03, "centre", 1420.0, 710.0, 1, 5.0, 6.0, "fallen"),
            (1, 0.03, "white", 100.0, 710.0, 1, 7.0, 8.0),
        ]
    )
    write_tracks(tmp_path / "t.csv", t)
    assert (tmp_path / "t.csv").read_text().splitlines()[0].endswith(",state")
    r = read_tracks(tmp_path / "t.csv")
    assert r.state.tolist() == ["standing", "fallen", ""]
    assert read_tracks(tmp_path / "t.csv").of("centre").state.tolist() == ["standing", "fallen"]
    (tmp_path / "bad.csv").write_text(
        "frame,t,id,x,y,visible,u,v,state\n0,0,centre,1,2,1,,,upright\n"
    )
    with pytest.raises(ContractError, match="state"):
        read_tracks(tmp_path / "bad.csv")
