"""Track and calibration scores: exact figures for known damage (table mm, frames)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.score import score_all, score_calibration, score_tracks
from bench.score_calib import table_grid
from bench.score_ids import map_ids_from_tracks
from contract.calib import Calibration
from contract.match import Match
from contract.tables import load_table
from contract.tracks import Tracks

SHOTS = [(0, 50), (60, 99)]


def w(ident: str) -> str:
    return f"w{int(ident) + 20}" if ident.isdigit() else ident


def rows_with(rows: list[tuple], rename=lambda f, i: i, dx=lambda f, i, mv: (0.0, 0.0)) -> Tracks:
    out = []
    prev: dict[str, tuple[float, float]] = {}
    for f, t, i, x, y, vis, u, v in rows:
        mv = i in prev and np.hypot(x - prev[i][0], y - prev[i][1]) > 1.0
        prev[i] = (x, y)
        ox, oy = dx(f, i, mv)
        out.append((f, t, rename(f, i), x + ox, y + oy, vis, u, v))
    return Tracks.from_rows(out)


def test_dropped_rows(track_rows, truth_tracks) -> None:
    pred = Tracks.from_rows([r for k, r in enumerate(track_rows) if k % 10 != 0])
    s = score_tracks(pred, truth_tracks)
    assert (s.covered, s.visible_rows, s.coverage) == (360, 400, 0.9)
    assert (s.false_rows, s.switches, s.error.max) == (0, 0, 0.0)


@pytest.mark.parametrize("names", ["numbers", "w-ids"])
def test_swap_two_ids_midway(track_rows, truth_tracks, names: str) -> None:
    swap = {"2": "3", "3": "2"}

    def rename(f: int, i: str) -> str:
        i = swap.get(i, i) if f >= 70 else i
        return w(i) if names == "w-ids" else i

    s = score_tracks(rows_with(track_rows, rename), truth_tracks, shots=SHOTS)
    assert s.switches == 2  # one per truth ball
    assert s.switch_at == ((70, "2"), (70, "3"))
    assert (s.covered, s.coverage) == (340, 0.85)
    assert (s.shots_clean, s.shots_without_switch) == (1, 0.5)
    assert s.false_rows == 0


def test_new_id_midway_is_one_switch(track_rows, truth_tracks) -> None:
    pred = rows_with(track_rows, lambda f, i: "w99" if (i == "3" and f >= 70) else w(i))
    s = score_tracks(pred, truth_tracks, shots=SHOTS)
    assert (s.switches, s.switch_at) == (1, ((70, "3"),))
    assert s.covered == 370
    assert map_ids_from_tracks(pred, truth_tracks).unmapped == ("w99",)


def test_moving_and_rest_errors(track_rows, truth_tracks) -> None:
    pred = rows_with(track_rows, dx=lambda f, i, mv: (0.0, 3.0) if mv else (1.0, 0.0))
    s = score_tracks(pred, truth_tracks)
    assert (s.error_moving.n, s.error_moving.median, s.error_moving.max) == (40, 3.0, 3.0)
    assert (s.error_rest.n, s.error_rest.median, s.error_rest.max) == (360, 1.0, 1.0)
    assert (s.error.median, s.error.max) == (1.0, 3.0)
    assert s.coverage == 1.0


def test_false_rows(track_rows, truth_tracks) -> None:
    extra = [(f, f / 30, "w9", 3000.0, 100.0, 1, None, None) for f in range(5)]
    s = score_tracks(Tracks.from_rows(track_rows + extra), truth_tracks)
    assert (s.false_rows, s.pred_rows, s.coverage) == (5, 405, 1.0)
    assert s.false_share == pytest.approx(5 / 405)


def test_far_off_is_not_covered(track_rows, truth_tracks) -> None:
    pred = rows_with(track_rows, dx=lambda f, i, mv: (60.0, 0.0) if i == "yellow" else (0, 0))
    s = score_tracks(pred, truth_tracks)
    assert (s.covered, s.false_rows) == (300, 100)


@pytest.mark.parametrize(
    ("rename", "read", "covered"),
    [
        (lambda f, i: {"2": "3", "3": "2"}.get(i, i), (1, 3), 200),  # numbers swapped: == wins
        (lambda f, i: w(i), (0, 3), 400),  # no number read: mapped by position
        (lambda f, i: i, (3, 3), 400),
        (lambda f, i: "9" if i == "3" else i, (2, 3), 300),  # never mapped to another number
    ],
)
def test_numbers_read(track_rows, truth_tracks, rename, read, covered) -> None:
    pred = rows_with(track_rows, rename)
    ids = map_ids_from_tracks(pred, truth_tracks)
    assert (ids.numbers_right, ids.numbers_total) == read
    assert score_tracks(pred, truth_tracks, ids=ids).covered == covered


def test_tracks_map_ids_for_the_match(truth: Match, track_rows, truth_tracks) -> None:
    pred = rows_with(track_rows, lambda f, i: w(i))
    r = score_all(truth, truth, tracks=(pred, truth_tracks))
    assert r.ids.source == "tracks"
    assert dict(r.ids.pairs) == {"w21": "1", "w22": "2", "w23": "3"}
    assert r.tracks.coverage == 1.0 and r.tracks.switches == 0


# ------------------------------------------------------------------ calibration
def shifted(c: Calibration, m: np.ndarray, **upd) -> Calibration:
    h = m @ np.asarray(c.data.image_to_table)
    data = c.data.model_copy(update={"image_to_table": tuple(map(tuple, h.tolist())), **upd})
    return Calibration(data)


TABLE = load_table("pyramid-12ft")
SHIFT = np.array([[1.0, 0, 2.0], [0, 1.0, 0], [0, 0, 1.0]])  # +2 mm along x
FLIP = np.array([[-1.0, 0, TABLE.L], [0, -1.0, TABLE.W], [0, 0, 1.0]])  # ends swapped


def test_grid_covers_the_table() -> None:
    g = table_grid(TABLE)
    assert len(g) == 72 * 37
    assert g.min(0).tolist() == [0.0, 0.0] and g.max(0).tolist() == [TABLE.L, TABLE.W]


def test_calibration_offset(truth_calib: Calibration) -> None:
    s = score_calibration(shifted(truth_calib, SHIFT), truth_calib, TABLE)
    assert s.points == 72 * 37
    assert s.error.median == pytest.approx(2.0) and s.error.max == pytest.approx(2.0)
    # at ball height the shift shrinks by the parallax factor (h - R) / h
    assert s.error_ball.max == pytest.approx(2.0 * (3000.0 - 34.0) / 3000.0)
    assert s.front_ok and s.front_x_mm == pytest.approx(2.0)


def test_calibration_ends_swapped(truth_calib: Calibration) -> None:
    s = score_calibration(shifted(truth_calib, FLIP), truth_calib)
    assert not s.front_ok
    assert s.front_x_mm == pytest.approx(TABLE.L)
    assert s.error.max == pytest.approx(np.hypot(TABLE.L, TABLE.W))


def test_calibration_without_camera_has_no_ball_figure(truth_calib: Calibration) -> None:
    s = score_calibration(shifted(truth_calib, np.eye(3), camera_position_mm=None), truth_calib)
    assert s.error_ball is None and s.error.max < 1e-6


def test_calibration_image_sizes_differ(truth_calib: Calibration) -> None:
    other = shifted(truth_calib, np.eye(3), image_size=(1280, 720))
    with pytest.raises(ValueError, match="different image sizes"):
        score_calibration(other, truth_calib)


def test_calibration_with_distortion_against_itself(truth_calib: Calibration) -> None:
    k = ((1500.0, 0.0, 960.0), (0.0, 1500.0, 540.0), (0.0, 0.0, 1.0))
    dist = {"model": "opencv", "camera_matrix": k, "coeffs": (-0.05, 0.01, 0.0, 0.0, 0.0)}
    c = Calibration(
        truth_calib.data.model_validate({**truth_calib.data.model_dump(), "distortion": dist})
    )
    s = score_calibration(c, c)
    assert s.error.max < 1e-3
    off = score_calibration(truth_calib, c)  # the distortion ignored: a real error
    assert off.error.max > 1.0


@pytest.mark.parametrize(
    ("side", "coverage", "false_rows", "false_share"),
    [("pred", 0.0, 0, None), ("truth", None, 400, 1.0), ("both", None, 0, None)],
)
def test_empty_tracks(truth_tracks, side, coverage, false_rows, false_share) -> None:
    empty = Tracks.from_rows([])
    pred = empty if side in ("pred", "both") else truth_tracks
    tru = empty if side in ("truth", "both") else truth_tracks
    s = score_tracks(pred, tru)
    assert (s.coverage, s.false_rows, s.false_share, s.switches) == (
        coverage,
        false_rows,
        false_share,
        0,
    )


def test_calibration_points_lost_at_infinity(truth_calib: Calibration) -> None:
    horizon = np.array([[1.0, 0, 0], [0, 1.0, 0], [-1 / 1000.0, 0, 1.0]])  # x = 1000 -> infinity
    s = score_calibration(shifted(truth_calib, horizon), truth_calib)
    assert s.lost == 37  # the grid column x = 1000
    assert s.error.max == 1e9
    assert np.isfinite(s.error.median)


@pytest.mark.parametrize(("drift", "switches"), [(45.0, 0), (60.0, 2)])
def test_correspondence_kept_while_within_gate(track_rows, truth_tracks, drift, switches) -> None:
    """Frames 10..12: yellow's own track drifts ``drift`` mm away while an intruder sits
    40 mm away on the other side: nearer, but the kept correspondence wins in the gate."""
    pred = rows_with(
        track_rows, dx=lambda f, i, mv: (drift, 0.0) if i == "yellow" and 10 <= f <= 12 else (0, 0)
    )
    intruder = [(f, f / 30, "w9", 960.0, 800.0, 1, None, None) for f in range(10, 13)]
    pred = Tracks.from_rows(
        [
            (int(pred.frame[k]), pred.t[k], pred.id[k], pred.x[k], pred.y[k], 1, None, None)
            for k in range(len(pred))
        ]
        + intruder
    )
    s = score_tracks(pred, truth_tracks)
    assert s.switches == switches
    assert s.false_rows == (0 if drift <= 50 else 3)  # yellow's own rows beyond the gate
