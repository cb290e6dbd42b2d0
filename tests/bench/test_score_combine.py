"""Combining the scores of several videos (a benchmark set): sums, not averages."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from bench.score import combine, score_all, score_match
from bench.score_util import Stats
from contract.match import Match
from contract.tracks import Tracks


def test_stats_merge_uses_every_value() -> None:
    m = Stats.merge([Stats.of([0.0, 0.0, 0.0]), Stats.of([10.0]), Stats.of([])])
    assert (m.n, m.median, m.mean, m.max) == (4, 0.0, 2.5, 10.0)
    assert Stats.merge([]).n == 0


def test_combine_two_videos(
    truth_dict: dict, truth: Match, truth_tracks: Tracks, truth_calib
) -> None:
    d = copy.deepcopy(truth_dict)
    del d["shots"][2]
    d["shots"][0]["rest"]["1"] = [2006.0, 308.0]  # 10 mm off
    flip = np.array([[-1.0, 0, 3550.0], [0, -1.0, 1775.0], [0, 0, 1.0]])
    h = flip @ np.asarray(truth_calib.data.image_to_table)
    flipped = type(truth_calib)(
        truth_calib.data.model_copy(update={"image_to_table": tuple(map(tuple, h.tolist()))})
    )
    dropped = truth_tracks.select(np.arange(len(truth_tracks)) % 10 != 0)
    a = score_all(
        truth, truth, tracks=(truth_tracks, truth_tracks), calibration=(truth_calib, truth_calib)
    )
    b = score_all(
        Match.model_validate(d),
        truth,
        tracks=(dropped, truth_tracks),
        calibration=(flipped, truth_calib),
    )
    c = combine([a, b])
    assert c.videos == 2
    assert (c.shots.truth, c.shots.matched, c.shots.recall, c.shots.precision) == (8, 7, 7 / 8, 1.0)
    strike = c.events.get("strike")
    assert (strike.truth, strike.tp) == (8, 7)
    assert c.events.overall.f1 == pytest.approx(2 * 25 / (28 + 25))
    assert (c.events.first_contact_right, c.events.first_contact_total) == (7, 7)
    assert (c.rest.error.n, c.rest.error.max, c.rest.error.median) == (15 + 12, 10.0, 0.0)
    assert (c.verdicts.compared, c.verdicts.agree) == (7, 7)
    assert (c.verdicts.scores_compared, c.verdicts.scores_agree) == (2, 2)
    assert (c.tracks.covered, c.tracks.visible_rows, c.tracks.coverage) == (760, 800, 0.95)
    assert (c.calibration.front_right, c.calibration.videos, c.calibration.front_ok) == (
        1,
        2,
        False,
    )
    assert c.calibration.points == 2 * 72 * 37
    assert c.calibration.error.max == b.calibration.error.max
    assert c.calibration.error.mean == pytest.approx(b.calibration.error.mean / 2)
    text = c.table()
    assert text.startswith("videos       2") and "right in 1/2 videos" in text
    data = json.loads(json.dumps(c.to_json()))
    assert data["shots"]["recall"] == 7 / 8
    assert "values" not in data["rest"]["error"]


def test_combine_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no reports"):
        combine([])


def test_combine_one_is_the_same_figures(truth: Match) -> None:
    r = score_match(truth, truth)
    assert combine([r]).to_json()["events"] == r.to_json()["events"]
