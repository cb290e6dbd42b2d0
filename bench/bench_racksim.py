"""Contacts at the pyramid break, on the set's 12 break clips and on HELD-OUT break clips
(seeds the issue's set does not use), from tracks read once and cached.

The held-out clips (:func:`held_out`): the ``n`` lowest ``pyramid-break`` seeds after
those :data:`bench.bench_events.VIDEO_SET` uses, sizes alternating 1080p and 720p, named
``pyr-break-h-SEED-SIZE``; never part of the set's figures. Each clip is rendered once
(:func:`bench.bench_events._video_clip`), tracked once (the replay's result pickled
beside it as ``NAME.replay.pkl``), and cut into shots and events on every run, so a
change to the event logic is scored in seconds a clip. Prints contact truth / predicted /
true positives, precision, recall and F1 per clip and per group (set, held-out), and the
missed and invented contacts of each clip.

Run: ``python -m bench.bench_racksim CLIPS_DIR [--held N] [--only set|held]``.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

from bench.bench_events import VIDEO_SET, _predicted, _video_clip
from bench.score import score_match

SCENARIO = "pyramid-break"


def held_out(n: int, entries: tuple = VIDEO_SET) -> tuple:
    """``n`` held-out break clips: ``(name, scenario, seed, size, 0)`` for the lowest
    seeds above every break seed of ``entries``, 1080p first, then alternating."""
    top = max(seed for _, s, seed, *_ in entries if s == SCENARIO)
    sizes = ("1080", "720")
    return tuple(
        (f"pyr-break-h-{top + 1 + k}-{sizes[k % 2]}", SCENARIO, top + 1 + k, sizes[k % 2], 0)
        for k in range(n)
    )


def set_breaks(entries: tuple = VIDEO_SET) -> tuple:
    """The set's break clips."""
    return tuple(e for e in entries if e[1] == SCENARIO)


def replay_of(clips: Path, entry: tuple):
    """The clip's replay result (tracked once, then read from its pickle); None for a
    seed without a stroke."""
    from contract.calib import read_calibration
    from contract.tables import load_table
    from vision.replay import track_video

    name, scen, seed, size, strokes = entry
    base = _video_clip(clips, name, scen, seed, size, strokes)
    if base is None:
        return None
    pkl = Path(f"{base}.replay.pkl")
    if pkl.is_file():
        return pickle.loads(pkl.read_bytes())
    calib = read_calibration(f"{base}.calib.json")
    res = track_video(str(base.with_suffix(".mp4")), calib, load_table(calib.data.table))
    pkl.write_bytes(pickle.dumps(res))
    return res


def contact_figures(clips: Path, entry: tuple) -> dict | None:
    """Contact truth, predicted and matched counts of one clip and its missed and invented
    contacts (score lines)."""
    from contract.match import read_match
    from contract.tables import load_table

    res = replay_of(clips, entry)
    if res is None:
        return None
    truth = read_match(clips / f"{entry[0]}.truth.json")
    table = load_table(truth.table)
    rep = score_match(_predicted(res, truth, table), truth)
    row = rep.events.get("contact")
    return {
        "truth": row.truth,
        "pred": row.pred,
        "tp": row.tp,
        "missed": [m for m in rep.events.missed if " contact " in f" {m} "],
        "extra": [m for m in rep.events.extra if " contact " in f" {m} "],
    }


def _prf(t: int, p: int, tp: int) -> str:
    pr = tp / p if p else 1.0
    rc = tp / t if t else 1.0
    f1 = 2 * pr * rc / (pr + rc) if pr + rc else 0.0
    return f"truth {t:4d} pred {p:4d} tp {tp:4d}  P {pr:.3f} R {rc:.3f} F1 {f1:.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clips", type=Path)
    ap.add_argument("--held", type=int, default=8, help="held-out clips (default 8)")
    ap.add_argument("--only", choices=("set", "held"), default=None)
    a = ap.parse_args(argv)
    if a.held < 0:
        print("--held must be >= 0", file=sys.stderr)
        return 2
    a.clips.mkdir(parents=True, exist_ok=True)
    groups = {"set": set_breaks(), "held": held_out(a.held)}
    for g, entries in groups.items():
        if a.only not in (None, g):
            continue
        tot = [0, 0, 0]
        for e in entries:
            f = contact_figures(a.clips, e)
            if f is None:
                print(f"  skip {e[0]}: no stroke")
                continue
            tot = [tot[0] + f["truth"], tot[1] + f["pred"], tot[2] + f["tp"]]
            print(f"  {e[0]:22s} {_prf(f['truth'], f['pred'], f['tp'])}", flush=True)
            for m in f["missed"]:
                print(f"      missed {m}")
            for m in f["extra"]:
                print(f"      extra  {m}")
        print(f"== {g} ({len(entries)} clips): {_prf(*tot)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
