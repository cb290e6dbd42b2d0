"""Shots and events benchmark (issue: shots and events), scored by ``bench.score``.

A synthetic set (pyramid break, mid-game pots, misses, cue ball pocketed, off the
table, re-spots, 5-pin) is simulated from seeds; events are cut from tracks of three
kinds:

- ``exact``: the simulator's own positions (the ceiling of the event logic);
- ``noisy``: the same with measurement noise (Gaussian, sigma mm) and dropped rows, as
  a detector gives them at rest and in motion;
- ``video``: the rendered fixture clips (``fixtures/videos``) through automatic
  calibration, detection and tracking (``vision.replay.track_video``), when ``--quick`` is
  off.

Prints one table per kind and returns the figures (``tablemon bench events``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from bench.score import combine, score_match
from contract.match import Match
from contract.tracks import Tracks
from vision.shots import cut_tracks

SET = [
    ("pyramid-break", (0, 2, 3)),
    ("pyramid-pots", (0, 1, 2)),
    ("pyramid-miss", (0, 1)),
    ("pyramid-cue-pocketed", (0, 1)),
    ("pyramid-off-table", (0, 1)),
    ("pyramid-respot", (0, 1)),
    ("carom-5pin-break", (0, 1)),
    ("carom-5pin-play", (0, 1, 2)),
]
QUICK = [(n, s[:1]) for n, s in SET]


def degrade(tracks: Tracks, sigma_mm: float, drop: float, seed: int) -> Tracks:
    """Tracks as a detector would give them: noise on x, y and rows dropped at random."""
    rng = np.random.default_rng(seed)
    keep = rng.random(len(tracks)) >= drop
    t = tracks.select(keep)
    noise = rng.normal(0.0, sigma_mm, size=(len(t), 2))
    return Tracks(
        t.frame, t.t, t.id, t.x + noise[:, 0], t.y + noise[:, 1], t.visible, t.u, t.v, t.state
    )


def _clips(quick: bool):
    from synth.clip import build_clip
    from synth.scenarios import scenario
    from synth.truth import truth_match, truth_tracks

    for name, seeds in QUICK if quick else SET:
        for seed in seeds:
            try:
                clip = build_clip(scenario(name)(seed))
            except ValueError as e:  # a scenario that finds no stroke for this seed
                print(f"  skip {name} seed {seed}: {e}")
                continue
            yield name, seed, clip, truth_match(clip, judge=False), truth_tracks(clip, None, None)


def _score(kind: str, items: list) -> dict:
    reports = []
    per_clip = {}
    t_cut = 0.0
    for name, seed, clip, truth, tracks in items:
        t0 = time.perf_counter()
        cut = cut_tracks(tracks, clip.table, clip.spec.fps)
        t_cut += time.perf_counter() - t0
        pred = Match(game=truth.game, table=truth.table, video=truth.video, shots=cut.shots)
        rep = score_match(pred, truth)
        reports.append(rep)
        per_clip[f"{name}/{seed}"] = rep.to_json()["events"]["overall"]["f1"]
    total = combine(reports)
    print(f"\n== events from {kind} tracks: {len(items)} clips, cutting {t_cut:.2f} s in all")
    print(total.table())
    return {"report": total.to_json(), "per_clip_f1": per_clip, "cut_seconds": t_cut}


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "videos"


def _video(quick: bool) -> dict | None:
    """Events from the rendered fixture clips through the whole vision pipeline."""
    from calibration import calibrate_video
    from contract.match import VideoInfo, read_match
    from contract.tables import load_table
    from vision.replay import track_video
    from vision.shots import shots_from_tracks

    reports, per_clip = [], {}
    for mp4 in sorted(FIXTURES.glob("*.mp4")):
        truth = read_match(mp4.with_suffix(".truth.json"))
        table = load_table(truth.table)
        res = track_video(str(mp4), calibrate_video(mp4, table), table)
        pred = Match(
            game=truth.game,
            table=truth.table,
            video=VideoInfo(fps=res.fps, frames=res.frames),
            events=res.events,
        )
        pred = shots_from_tracks(pred, res.tracks, table)
        rep = score_match(pred, truth)
        reports.append(rep)
        per_clip[mp4.stem] = rep.to_json()["events"]["overall"]["f1"]
    if not reports:
        return None
    total = combine(reports)
    print(f"\n== events from rendered video ({len(reports)} fixture clips, auto calibration)")
    print(total.table())
    return {"report": total.to_json(), "per_clip_f1": per_clip}


def run(out_dir: Path, quick: bool) -> dict:
    items = list(_clips(quick))
    out = {"clips": [f"{n}/{s}" for n, s, *_ in items]}
    out["exact"] = _score("exact", items)
    noisy = [(n, s, c, m, degrade(t, 0.5, 0.01, s)) for n, s, c, m, t in items]
    out["noisy_0.5mm"] = _score("noisy (sigma 0.5 mm, 1 % rows dropped)", noisy)
    if not quick:
        out["video"] = _video(quick)
    return out
