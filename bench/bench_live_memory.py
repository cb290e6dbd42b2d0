"""Memory of the live pipeline over a long run (issue 4: "memory stays flat").

A club's table worker runs all day: ``vision.live.make_processor`` gets one camera frame
at a time and hands out finished shots, keeping no rows beyond the current shot and a
one-second pre-roll. This benchmark feeds it a 1080p clip looped for ``--minutes`` of
video (30 by default) in a one-core child process and samples the child's RSS every
``RSS_EVERY`` frames: first, last, peak and the slope per 1000 frames (overall and over
the second half, past the allocator's warm-up). A replay (``bench.bench_vision memory``)
differs: it keeps every TRACKS row until it writes the file, so it grows with its output.

    python -m bench.bench_live_memory --minutes 30 --out OUT

prints one line and writes ``OUT/vision-live-memory.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench.bench_vision import (
    ONE_CORE,
    _child,
    _load,
    _speed_clip,
    hwm_mib,
    rss_mib,
    rss_summary,
)

CHILD = "import sys\nfrom bench.bench_live_memory import child\nchild(*sys.argv[1:])\n"
RSS_EVERY = 1000  # frames between RSS samples (fewer on a short run)


def child(base: str, frames: str, out: str, every: str) -> None:
    """In a child process: feed ``base``.mp4 looped for ``frames`` frames to the live
    processor frame by frame (``t`` = index / fps), sampling RSS every ``every`` frames;
    JSON to ``out``."""
    from contract.calib import read_calibration
    from vision.capture.source import LoopedSource
    from vision.live import make_processor

    calib = read_calibration(f"{base}.calib.json")
    samples: list[tuple[int, float, float]] = []
    shots = 0
    t0, c0 = time.perf_counter(), time.process_time()
    with LoopedSource(f"{base}.mp4", int(frames)) as src:
        process = make_processor(calib.data.table, calib, fps=src.fps)
        for f in src:
            if f.index % int(every) == 0:
                samples.append((f.index, time.process_time() - c0, rss_mib()))
            shots += len(process(f.image, f.t))
    doc = {
        "frames": int(frames),
        "shots": shots,
        "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - c0,
        "samples": samples,
        "final_rss_mib": rss_mib(),
        "peak_rss_mib": hwm_mib(),
    }
    Path(out).write_text(json.dumps(doc))


def live_memory(base: Path, tmp: Path, frames: int) -> dict:
    """Run :func:`child` on one core; RSS first/last/peak (MiB) and slopes (MiB per 1000
    frames) from its samples."""
    out = tmp / "live-memory.json"
    every = max(100, min(RSS_EVERY, frames // 12))
    load = _load()
    _child(CHILD, [str(base), str(frames), str(out), str(every)])
    doc = json.loads(out.read_text())
    s = doc["samples"]
    return {
        "frames": doc["frames"],
        "video_minutes": doc["frames"] / 30.0 / 60.0,
        "shots": doc["shots"],
        "cpu_fps": doc["frames"] / max(doc["cpu_s"], 1e-9),
        **rss_summary(s, doc["peak_rss_mib"]),
        "rss_every_frames": every,
        "samples": s,
        "load_average": load,
        "env": ONE_CORE,
    }


def _print(res: dict) -> None:
    print(
        f"live memory ({res['frames']} frames looped = {res['video_minutes']:.1f} min of "
        f"video, {res['shots']} shots handed out, {res['cpu_fps']:.1f} fps by CPU): RSS "
        f"{res['rss_first_mib']:.0f} -> {res['rss_last_mib']:.0f} MiB, peak "
        f"{res['rss_peak_mib']:.0f} MiB, slope {res['rss_slope_mib_per_1000_frames']:.3f} MiB "
        f"per 1000 frames ({res['rss_slope_second_half']:.3f} over the second half); load "
        f"average {res['load_average']:.1f} at the start"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.bench_live_memory [--minutes M] [--out OUT]``."""
    ap = argparse.ArgumentParser(prog="python -m bench.bench_live_memory")
    ap.add_argument("--out", default="bench/out")
    ap.add_argument("--minutes", type=float, default=30.0, help="minutes of video at 30 fps")
    args = ap.parse_args(argv)
    if args.minutes <= 0:
        ap.error("--minutes must be > 0")
    out = Path(args.out)
    base = _speed_clip(out)
    res = live_memory(base, base.parent, max(1, int(round(args.minutes * 60 * 30))))
    _print(res)
    (out / "vision-live-memory.json").write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
