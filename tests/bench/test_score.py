"""The scorer: perfect for truth against itself, exact degraded figures for known damage."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from bench.score import score_all, score_match
from bench.score_events import same_cushion
from bench.score_ids import is_white
from contract.match import Match


def make(d: dict) -> Match:
    return Match.model_validate(d)


def find(d: dict, shot: int, frame: int) -> dict:
    """The event dict at ``frame`` of shot number ``shot`` (1-based) in a match dict."""
    return next(e for e in d["shots"][shot - 1]["events"] if e["frame"] == frame)


# ------------------------------------------------------------------ perfect
def test_truth_against_itself_is_perfect(truth: Match, truth_tracks, truth_calib) -> None:
    r = score_all(
        truth, truth, tracks=(truth_tracks, truth_tracks), calibration=(truth_calib, truth_calib)
    )
    assert (r.shots.recall, r.shots.precision, r.shots.within_2) == (1.0, 1.0, 1.0)
    assert r.shots.start_error.max == 0 and r.shots.end_error.max == 0
    assert {t.type: t.f1 for t in r.events.types} == {
        "strike": 1.0,
        "contact": 1.0,
        "cushion": 1.0,
        "pocket": 1.0,
        "cross": 1.0,
    }
    assert r.events.overall.tp == r.events.overall.truth == 14
    assert r.events.get("contact").order_right == 3
    assert (r.events.first_contact_right, r.events.first_contact_total) == (4, 4)
    assert r.events.pockets_invented == 0
    assert r.rest.error.max == 0.0 and r.rest.missing == 0 and r.rest.extra == 0
    assert r.rest.numbers_read == 1.0
    assert (r.verdicts.agree, r.verdicts.compared, r.verdicts.score_agree) == (4, 4, True)
    t = r.tracks
    assert (t.coverage, t.false_rows, t.switches, t.error.max) == (1.0, 0, 0, 0.0)
    assert (t.error_moving.n, t.error_rest.n) == (40, 360)
    assert t.shots_without_switch == 1.0
    assert r.calibration.error.max < 1e-6 and r.calibration.error_ball.max < 1e-6
    assert r.calibration.front_ok


def test_carom_against_itself_counts_skittles_by(carom: Match) -> None:
    r = score_match(carom, carom)
    s = r.events.get("skittle_down")
    assert (s.tp, s.f1, s.by_right, s.by_total) == (2, 1.0, 2, 2)


# ------------------------------------------------------------------ shots
def test_dropped_shot(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    del d["shots"][2]  # the cue-ball pot: strike, contact, pocket
    r = score_match(make(d), truth)
    assert (r.shots.truth, r.shots.pred, r.shots.matched) == (4, 3, 3)
    assert (r.shots.recall, r.shots.precision) == (0.75, 1.0)
    assert r.shots.pairs == ((0, 0), (1, 1), (2, 3))
    strike = r.events.get("strike")
    assert (strike.tp, strike.recall, strike.precision) == (3, 0.75, 1.0)
    assert r.events.get("pocket").recall == 0.5
    assert (r.events.first_contact_total, r.verdicts.compared) == (3, 3)


def test_shot_boundaries_off(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    d["shots"][0]["start"]["frame"] = 12  # +2: within 2
    d["shots"][1]["end"]["frame"] = 205  # +5: outside
    r = score_match(make(d), truth)
    assert r.shots.matched == 4
    assert (r.shots.start_error.max, r.shots.start_error.mean) == (2, 0.5)
    assert (r.shots.end_error.max, r.shots.end_error.mean) == (5, 1.25)
    assert r.shots.within_2 == 0.75


# ------------------------------------------------------------------ events
def test_event_shifted_out_and_within_window(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    find(d, 2, 140)["frame"] = 145  # cushion +5: misses the ±3 window
    find(d, 1, 20)["frame"] = 22  # contact +2: still matches
    r = score_match(make(d), truth)
    c = r.events.get("cushion")
    assert (c.truth, c.pred, c.tp, c.precision, c.recall, c.f1) == (4, 4, 3, 0.75, 0.75, 0.75)
    k = r.events.get("contact")
    assert (k.tp, k.f1, k.frame_error.max) == (3, 1.0, 2.0)
    assert r.events.overall.tp == 13


@pytest.mark.parametrize(("shift", "found"), [(7, True), (10, True), (11, False)])
def test_a_pocket_is_matched_within_10_frames(
    truth_dict: dict, truth: Match, shift: int, found: bool
) -> None:
    """Contract §8: scorers allow ±10 frames for ``pocket`` (a fall is seen late and dated
    back), ±3 for the other types."""
    d = copy.deepcopy(truth_dict)
    find(d, 1, 40)["frame"] = 40 + shift
    p = score_match(make(d), truth).events.get("pocket")
    assert (p.tp == p.truth) == found


def test_contact_order_and_first_contact(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    find(d, 2, 130)["balls"] = ["1", "yellow"]  # same pair, wrong striking ball
    r = score_match(make(d), truth)
    k = r.events.get("contact")
    assert (k.tp, k.order_right) == (3, 2)
    assert (r.events.first_contact_right, r.events.first_contact_total) == (3, 4)


def test_wrong_pair_and_invented_contact_in_a_miss(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    find(d, 3, 235)["balls"] = ["yellow", "4"]
    d["shots"][3]["events"].insert(
        1, {"frame": 330, "t": 11.0, "type": "contact", "balls": ["yellow", "2"]}
    )
    r = score_match(make(d), truth)
    k = r.events.get("contact")
    assert (k.truth, k.pred, k.tp) == (3, 4, 2)
    assert r.events.first_contact_right == 2  # shot 3 wrong pair, shot 4 a miss with a contact


def test_invented_and_wrong_pocket(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    find(d, 1, 40)["pocket"] = "middle-right"
    d["shots"][1]["events"].append(
        {"frame": 190, "t": 6.3, "type": "pocket", "ball": "2", "pocket": "back-left"}
    )
    r = score_match(make(d), truth)
    p = r.events.get("pocket")
    assert (p.truth, p.pred, p.tp) == (2, 3, 1)
    assert r.events.pockets_invented == 2


@pytest.mark.parametrize(
    ("pred", "truth", "same"),
    [
        ("right", "right-back", True),
        ("right-back", "right", True),
        ("left-back", "left-front", False),
        ("left", "right", False),
        ("front", "front", True),
        ("front", "left-front", False),
        ("back", "right-back", False),
    ],
)
def test_cushion_halves_collapse(pred: str, truth: str, same: bool) -> None:
    assert same_cushion(pred, truth) is same


def test_cushion_collapsed_in_scoring(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    find(d, 1, 30)["cushion"] = "right"  # truth right-back: agrees
    find(d, 2, 140)["cushion"] = "left-back"  # truth left-front: both halved, disagrees
    r = score_match(make(d), truth)
    assert r.events.get("cushion").tp == 3


def test_skittle_by_disagrees(carom_dict: dict, carom: Match) -> None:
    d = copy.deepcopy(carom_dict)
    d["shots"][0]["events"][2]["by"] = "white"  # centre knocked by white, truth red
    d["shots"][0]["events"][3]["skittle"] = "right"  # truth left: no match
    r = score_match(make(d), carom)
    s = r.events.get("skittle_down")
    assert (s.tp, s.by_right, s.by_total, s.f1) == (1, 0, 1, 0.5)


# ------------------------------------------------------------------ rest and ids
def test_rest_moved_by_10_mm(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    d["shots"][1]["rest"]["2"] = [2506.0, 908.0]  # (6, 8): exactly 10 mm
    del d["shots"][3]["rest"]["4"]
    d["shots"][3]["rest"]["yellow"] = [500.0, 887.5]
    d["shots"][2]["rest"]["yellow"] = [900.0, 900.0]  # a ball that is not there
    r = score_match(make(d), truth)
    assert r.rest.error.n == 14
    assert (r.rest.error.max, r.rest.error.median) == (10.0, 0.0)
    assert (r.rest.missing, r.rest.extra) == (1, 1)


def wrename(ident: str) -> str:
    return f"w{int(ident) + 20}" if ident.isdigit() else ident


def rename_match(d: dict) -> dict:
    d = copy.deepcopy(d)
    for s in d["shots"]:
        s["rest"] = {wrename(k): v for k, v in s["rest"].items()}
        for e in s["events"]:
            for f in ("ball", "by"):
                if f in e:
                    e[f] = wrename(e[f])
            if "balls" in e:
                e["balls"] = [wrename(b) for b in e["balls"]]
    return d


def test_renamed_w_ids_map_by_position(truth_dict: dict, truth: Match) -> None:
    r = score_match(make(rename_match(truth_dict)), truth)
    assert dict(r.ids.pairs) == {"w21": "1", "w22": "2", "w24": "4", "w23": "3"}
    assert r.ids.source == "rest+events"  # ball 3 is pocketed before any rest: mapped by events
    assert r.events.overall.f1 == 1.0
    assert r.rest.error.max == 0.0 and r.rest.missing == 0
    assert (r.rest.numbers_right, r.rest.numbers_total) == (0, 12)
    assert r.ids.numbers_read == 0.0


def test_truth_with_w_ids_pred_with_numbers(truth_dict: dict, truth: Match) -> None:
    r = score_match(truth, make(rename_match(truth_dict)))
    assert r.events.overall.f1 == 1.0
    assert r.ids.numbers_total == 0 and r.ids.numbers_read is None


@pytest.mark.parametrize(
    ("ident", "white"),
    [
        ("w1", True),
        ("w12", True),
        ("7", True),
        ("15", True),
        ("yellow", False),
        ("white", False),
        ("centre", False),
        ("w", False),
        ("w1a", False),
        ("red", False),
    ],
)
def test_white_ids(ident: str, white: bool) -> None:
    assert is_white(ident) is white


# ------------------------------------------------------------------ verdicts
def test_verdicts_disagree(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    d["shots"][1]["verdict"]["next"] = "A"
    d["shots"][2]["verdict"]["fouls"] = ["cue_ball_pocketed", "no_contact"]
    del d["shots"][3]["verdict"]
    d["score"] = {"A": 2, "B": 0}
    r = score_match(make(d), truth)
    v = r.verdicts
    assert (v.compared, v.agree, v.legal, v.fouls, v.scored, v.next) == (3, 1, 3, 2, 3, 2)
    assert v.share == pytest.approx(1 / 3)
    assert v.score_agree is False


def test_no_pred_verdicts_no_score_verdict(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    for s in d["shots"]:
        del s["verdict"]
    r = score_match(make(d), truth)
    assert (r.verdicts.compared, r.verdicts.share, r.verdicts.score_agree) == (0, None, None)


def test_report_json_is_plain(truth: Match) -> None:
    import json

    data = score_match(truth, truth).to_json()
    back = json.loads(json.dumps(data))
    assert back["shots"]["recall"] == 1.0
    assert back["events"]["first_contact"] == 1.0
    assert back["rest"]["numbers_read"] == 1.0
    assert np.isclose(back["verdicts"]["share"], 1.0)


@pytest.mark.parametrize(
    ("side", "recall", "precision", "f1", "invented"),
    [("pred", 0.0, None, 0.0, 0), ("truth", None, 0.0, 0.0, 2), ("both", None, None, None, 0)],
)
def test_empty_matches(truth: Match, side, recall, precision, f1, invented) -> None:
    empty = Match(game="pyramid-free", table="pyramid-12ft")
    pred = empty if side in ("pred", "both") else truth
    tru = empty if side in ("truth", "both") else truth
    r = score_match(pred, tru)
    assert (r.shots.recall, r.shots.precision) == (recall, precision)
    assert r.events.overall.f1 == f1
    assert r.events.pockets_invented == invented
    assert r.table().startswith("shots")


def test_misread_number_is_not_forgiven_by_events(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    for frame in (20, 30, 40):  # ball 3 (never at rest) called 9 in every event
        e = find(d, 1, frame)
        if "balls" in e:
            e["balls"] = ["yellow", "9"]
        else:
            e["ball"] = "9"
    r = score_match(make(d), truth)
    assert "9" not in r.ids.pairs and r.ids.source == "rest"
    assert r.events.get("pocket").tp == 1
    assert r.events.get("contact").tp == 2


def test_missed_and_extra_events_are_listed(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    find(d, 2, 140)["frame"] = 145  # cushion 1 left-front: missed at 140, extra at 145
    find(d, 1, 20)["balls"] = ["yellow", "4"]
    r = score_match(make(d), truth)
    assert r.events.missed == ("20 contact yellow>3", "140 cushion 1 left-front")
    assert r.events.extra == ("20 contact yellow>4", "145 cushion 1 left-front")
    assert "missed 20 contact yellow>3; 140 cushion 1 left-front" in r.table()
    perfect = score_match(truth, truth)
    assert perfect.events.missed == () and "missed" not in perfect.table()
