"""Every committed fixture's truth scores perfect against itself, and against a copy whose
white balls are renamed to tracker ids and whose positions are shifted by 1 mm.

Skips cleanly while ``fixtures/videos`` holds no truth files.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.score import score_all
from contract.calib import read_calibration
from contract.match import match_from_json, read_match
from contract.tracks import Tracks, read_tracks

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "videos"
TRUTHS = sorted(FIXTURES.glob("*.truth.json"))


def rename(ident: str) -> str:
    return f"w{int(ident) + 40}" if ident.isdigit() else ident


def renamed_match(path: Path) -> object:
    d = json.loads(path.read_text())
    for s in d["shots"]:
        s["rest"] = {rename(k): [v[0] + 1.0, v[1]] for k, v in s["rest"].items()}
        for e in s["events"]:
            for f in ("ball", "by"):
                if f in e:
                    e[f] = rename(e[f])
            if "balls" in e:
                e["balls"] = [rename(b) for b in e["balls"]]
    return match_from_json(d, str(path))


def renamed_tracks(t: Tracks) -> Tracks:
    ids = np.array([rename(i) for i in t.id], dtype=object)
    return Tracks(t.frame, t.t, ids, t.x + 1.0, t.y, t.visible, t.u, t.v)


def check_fixture(truth_path: Path) -> None:
    stem = truth_path.name[: -len(".truth.json")]
    truth = read_match(truth_path)
    tracks = read_tracks(truth_path.with_name(stem + ".truth.csv"))
    calib = read_calibration(truth_path.with_name(stem + ".calib.json"))
    r = score_all(truth, truth, tracks=(tracks, tracks), calibration=(calib, calib))
    assert r.shots.recall in (1.0, None) and r.events.overall.f1 in (1.0, None)
    assert r.tracks.coverage in (1.0, None) and r.tracks.switches == 0
    assert r.calibration.error.max < 1e-3 and r.calibration.front_ok
    numbered = {i for i in tracks.ids() if i.isdigit()}
    p = renamed_tracks(tracks)
    r = score_all(renamed_match(truth_path), truth, tracks=(p, tracks))
    assert r.events.overall.f1 in (1.0, None)
    if r.rest.error.n:
        assert r.rest.error.max == pytest.approx(1.0) and r.rest.error.median == pytest.approx(1.0)
    assert r.rest.missing == 0 and r.rest.extra == 0
    assert r.tracks.coverage in (1.0, None) and r.tracks.switches == 0
    if r.tracks.error.n:
        assert r.tracks.error.max == pytest.approx(1.0)
    assert (r.ids.numbers_right, r.ids.numbers_total) == (0, len(numbered))


@pytest.mark.skipif(not TRUTHS, reason="no fixtures in fixtures/videos yet")
@pytest.mark.parametrize("truth_path", TRUTHS, ids=lambda p: p.name)
def test_fixture_truth(truth_path: Path) -> None:
    check_fixture(truth_path)
