"""The live worker on a moving camera (issues 4 and 5: a club camera knocked or moved
during a live session), beside ``tablemon replay`` on the same clip.

``clip``: a hand-held real clip (``../shared/footage/pool-uk8ball-overhead/break.mp4``:
the camera reframes at 40-62 and swings from 305, by the person's labels in
``bench/real_labels.json``) calibrated automatically once; then tracked by the replay
(:func:`vision.replay.track_video`, shots by :func:`vision.events.shots.shots_from_tracks`) and
fed frame by frame through the live processor (:func:`vision.live.make_processor`, its
reference the calibration's picture). Strikes, ``camera_moved`` (frames, and the frame
the live worker told it on) and the ball counts at the labelled rest states are listed
side by side; then the clip's last frame is fed again for :data:`HOLD_S` (the clip ends
while the camera swings: a live worker confirms a rest state only once it holds still)
and what the live worker hands out then is listed. ``cost``: the live processor's CPU time a frame on the 1080p speed clip
with the drift watch (``follow``) and without it (the live worker before it had one).
Skips the clip cleanly without the footage.

    python -m bench.bench_live_camera [--out OUT] [--cost-frames N]

prints two tables and writes ``OUT/vision-live-camera.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2

from bench.bench_counts_real import _states, on_table, span_end
from bench.bench_events_real import FOOTAGE, TABLES
from bench.label_tools import load_labels
from contract.calib import Calibration, read_calibration
from contract.match import Match, VideoInfo
from contract.tables import load_table
from vision.capture.source import open_capture
from vision.events.shots import shots_from_tracks
from vision.live import make_processor
from vision.replay import track_video
from vision.stream import concat

CLIP = "pool-uk8ball-overhead/break.mp4"
HOLD_S = 2.0  # after the clip, its last frame fed again this long (a camera held still)


def _frames(path: str):
    cap = open_capture(path)
    k = 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        yield k, img
        k += 1
    cap.release()


def _counts(tracks, label: dict, table) -> list[list[int]]:
    """[frame, person's count, count at it, count at the state's last frame]."""
    return [
        [f, n, on_table(tracks, f, table), on_table(tracks, span_end(label, f), table)]
        for f, n, _ in _states(label)
    ]


def clip(name: str = CLIP) -> dict:
    """The replay and the live worker on the footage clip ``name``."""
    from calibration.cli import calibrate

    label = load_labels()["clips"][name]
    table = load_table(TABLES.get(name.split("/")[0], label["table"]))
    video = str(FOOTAGE / name)
    fit, plate = calibrate(video, table)
    calib = Calibration(fit.calib)
    res = track_video(video, calib, table, reference=plate)
    match = Match(game="pyramid-free", table=table.name, video=VideoInfo(fps=res.fps, frames=1))
    match = shots_from_tracks(match, res.tracks, table, moved=res.moved)
    replay = {
        "strikes": [s.start.frame for s in match.shots],
        "camera_moved": [[e.frame, getattr(e, "until", None)] for e in res.events],
        "moved": [list(m) for m in res.moved],
        "counts": _counts(res.tracks, label, table),
    }
    parts: list = []
    proc = make_processor(table.name, calib, fps=res.fps, reference=plate, tap=parts.append)
    items, cpu, last, n = [], 0.0, None, 0
    for k, img in _frames(video):
        c0 = time.process_time()
        got = proc(img, k / res.fps)
        cpu += time.process_time() - c0
        items += [(k, it) for it in got]
        last, n = img, k + 1
    held = []  # the camera then holds still: the last frame again for HOLD_S
    for k in range(n, n + int(HOLD_S * res.fps)):
        held += [(k, it) for it in proc(last, k / res.fps)]
    tracks = concat(parts)
    live = {
        "strikes": [it["start"]["frame"] for _, it in items if "type" not in it],
        "camera_moved": [
            [it["frame"], it.get("until"), k] for k, it in items if it.get("type") == "camera_moved"
        ],
        "counts": _counts(tracks, label, table),
        "ms_per_frame": 1000.0 * cpu / max(1, res.frames),
        "held": [
            [k, it["start"]["frame"], it["end"]["frame"]] if "type" not in it else [k, it]
            for k, it in held
        ],
    }
    truth = {
        "strikes": [s["strike"] for s in label["shots"]],
        "camera": [c[:2] for c in label.get("camera", [])],
    }
    return {"clip": name, "replay": replay, "live": live, "truth": truth}


def cost(base: Path, frames: int) -> dict:
    """CPU ms a frame of the live processor on ``base``.mp4 (1080p) over its first
    ``frames`` frames, with the drift watch and without, the two runs interleaved in
    blocks of 50 frames (the machine's load falls on both alike; decoding not counted)."""
    calib = read_calibration(f"{base}.calib.json")
    procs = {f: make_processor(calib.data.table, calib, fps=30.0, follow=f) for f in (False, True)}
    streams = {f: _frames(f"{base}.mp4") for f in procs}  # each its own decoder
    cpu = {False: 0.0, True: 0.0}
    n, size, done = 0, None, False
    while n < frames and not done:
        for f, proc in procs.items():
            for _ in range(50):
                got = next(streams[f], None)
                if got is None or got[0] >= frames:
                    done = True
                    break
                k, img = got
                size = [int(img.shape[1]), int(img.shape[0])]
                c0 = time.process_time()
                proc(img, k / 30.0)
                cpu[f] += time.process_time() - c0
                n = max(n, k + 1)
    return {
        "frames": n,
        "size": size,
        "ms_per_frame_without_watch": 1000.0 * cpu[False] / max(1, n),
        "ms_per_frame_with_watch": 1000.0 * cpu[True] / max(1, n),
        "watch_ms_per_frame": 1000.0 * (cpu[True] - cpu[False]) / max(1, n),
    }


def _print(res: dict) -> None:
    c = res.get("clip")
    if c:
        print(f"{c['clip']}: {'':10} {'replay':34} {'live':34} person")
        r, lv, t = c["replay"], c["live"], c["truth"]
        print(f"{'strikes':22} {str(r['strikes']):34} {str(lv['strikes']):34} {t['strikes']}")
        moved_l = [m[:2] for m in lv["camera_moved"]]
        print(f"{'camera_moved':22} {str(r['camera_moved']):34} {str(moved_l):34} {t['camera']}")
        told = [m[2] - (m[1] if m[1] is not None else m[0]) for m in lv["camera_moved"]]
        print(f"{'  told (frames after)':22} {'':34} {str(told):34}")
        print(f"{'  then held still':22} {'':34} {str(lv['held'])[:60]}")
        for (f, n, a, b), (_, _, la, lb) in zip(r["counts"], lv["counts"], strict=True):
            print(f"{'  balls at ' + str(f):22} {f'{a} (end {b})':34} {f'{la} (end {lb})':34} {n}")
    k = res["cost"]
    print(
        f"live cost, {k['frames']} frames {k['size']}: {k['ms_per_frame_without_watch']:.2f} ms "
        f"a frame without the drift watch, {k['ms_per_frame_with_watch']:.2f} with it "
        f"({k['watch_ms_per_frame']:+.2f} ms)"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.bench_live_camera [--out OUT] [--cost-frames N]``."""
    from bench.bench_vision import _speed_clip

    ap = argparse.ArgumentParser(prog="python -m bench.bench_live_camera")
    ap.add_argument("--out", default="bench/out")
    ap.add_argument("--cost-frames", type=int, default=300)
    args = ap.parse_args(argv)
    if args.cost_frames < 1:
        ap.error("--cost-frames must be >= 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    res: dict = {"clip": clip() if (FOOTAGE / CLIP).is_file() else None}
    res["cost"] = cost(_speed_clip(out), args.cost_frames)
    _print(res)
    (out / "vision-live-camera.json").write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
