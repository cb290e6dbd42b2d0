"""``tablemon bench vision``: detection and tracking figures of issue "vision".

* Synthetic: clips generated here with ``synth`` (scenario, seed, size below; cached in
  ``OUT/vision-clips``), replayed through ``vision.replay.track_video`` with their exact
  calibration, scored against ``NAME.truth.csv`` by ``bench.score_tracks``: per-frame
  error at rest and moving (mm), coverage of visible truth rows, false rows, identity
  switches and the share of shots without one.
* Real: the snooker-small-ceiling stills (``bench.bench_vision_real``).
* Speed: ``tablemon replay`` on a 1080p video (the first 1080p clip written
  ``SPEED_LOOPS`` times into one file) in a child process with ``OMP_NUM_THREADS=1`` (one
  core), against plain decoding of the same file with one decoder thread; wall and CPU
  time of both, their ratios and the replay's peak RSS (``bench.bench_speed``).
* Stages: the same replay in a one-core child with each stage's CPU time counted
  (``bench.bench_speed``): CPU ms a frame per stage.
* Memory: the clip looped in-process (``vision.capture.source.LoopedSource``) for 30 minutes of
  video (54000 frames) or as many as fit in ``MEMORY_BUDGET_S``; RSS sampled every
  ``RSS_EVERY`` frames: first, last, peak and the slope.

The memory loop's length and bound come from the environment where set:
``TABLEMON_BENCH_MEMORY_MINUTES`` (minutes of video, 30 by default, 1.67 with ``--quick``)
and ``TABLEMON_BENCH_MEMORY_BUDGET_S`` (seconds of wall time it may take, 0: no bound).
Speed, stages or memory alone (without the accuracy clips):
``python -m bench.bench_vision speed [--loops 8]``,
``python -m bench.bench_vision stages [--loops 8]`` and
``python -m bench.bench_vision memory --minutes 30 --budget-s 0`` (both ``--out DIR``).
Each prints the load average it started under: figures are only comparable on a quiet
machine (load below about 1.5).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_speed import (  # re-exported: the memory benches use them too
    ONE_CORE as ONE_CORE,
)
from bench.bench_speed import (
    SPEED_LOOPS,
    _child,
    _load,
    _print_speed,
    _print_stages,
    speed,
    stages,
)
from bench.bench_vision_real import snooker_stills
from contract.calib import read_calibration
from contract.tables import load_table
from contract.tracks import read_tracks

# name, scenario, seed, size, strokes kept (0: all)
QUICK = (("pyr-pots-1080-1stroke", "pyramid-pots", 0, "1080", 1),)
FULL = (
    ("pyr-pots-1080", "pyramid-pots", 0, "1080", 0),
    ("pyr-break-1080", "pyramid-break", 8, "1080", 0),
    ("pyr-pots-720", "pyramid-pots", 3, "720", 0),
    ("pyr-respot-720", "pyramid-respot", 7, "720", 0),
    ("carom-break-720", "carom-5pin-break", 0, "720", 0),
)


def _clip(out: Path, name: str, scen: str, seed: int, size: str, strokes: int) -> Path:
    base = out / name
    if not (base.with_suffix(".mp4").is_file() and Path(f"{base}.truth.csv").is_file()):
        from synth.cli import make

        make(scen, seed, size, out, name, strokes=strokes)
    return base


def _score(base: Path) -> dict:
    from bench.score_tracks import score_tracks
    from contract.match import read_match
    from vision.replay import track_video

    calib = read_calibration(f"{base}.calib.json")
    table = load_table(calib.data.table)
    t0 = time.perf_counter()
    res = track_video(str(base.with_suffix(".mp4")), calib, table)
    wall = time.perf_counter() - t0
    truth = read_tracks(f"{base}.truth.csv")
    shots = [(s.start.frame, s.end.frame) for s in read_match(f"{base}.truth.json").shots]
    s = score_tracks(res.tracks, truth, table, shots=shots)
    return {
        "size": f"{res.size[0]}x{res.size[1]}",
        "frames": res.frames,
        "fps_here": res.frames / wall,
        "rest_median_mm": s.error_rest.median,
        "rest_p95_mm": s.error_rest.p95,
        "moving_median_mm": s.error_moving.median,
        "coverage": s.coverage,
        "false_rows": s.false_share,
        "switches": s.switches,
        "shots_without_switch": s.shots_without_switch,
        "shots": s.shots,
    }


MEMORY_PAUSE_S = 10.0  # the memory loop: the table at rest between two plays of the clip
MEMORY = "import sys\nfrom bench.bench_vision import memory_child\nmemory_child(*sys.argv[1:])\n"
MEMORY_FRAMES = 54000  # 30 minutes at 30 fps
MEMORY_BUDGET_S = 420.0  # ... or as many frames as fit in this many seconds
RSS_EVERY = 1000  # frames between RSS samples (fewer on a short loop)


def memory_settings(quick: bool) -> tuple[int, float]:
    """(frames, wall-time bound in seconds; 0 = none) of the memory loop: 30 minutes of
    video at 30 fps bounded by ``MEMORY_BUDGET_S`` (``--quick``: 3000 frames, 120 s), or
    ``TABLEMON_BENCH_MEMORY_MINUTES`` / ``TABLEMON_BENCH_MEMORY_BUDGET_S`` where set."""
    frames, budget = (3000, 120.0) if quick else (MEMORY_FRAMES, MEMORY_BUDGET_S)
    minutes = os.environ.get("TABLEMON_BENCH_MEMORY_MINUTES", "").strip()
    bound = os.environ.get("TABLEMON_BENCH_MEMORY_BUDGET_S", "").strip()
    try:
        if minutes:
            frames = max(1, int(round(float(minutes) * 60 * 30)))
        if bound:
            budget = float(bound)
    except ValueError:
        raise ValueError(
            "TABLEMON_BENCH_MEMORY_MINUTES and TABLEMON_BENCH_MEMORY_BUDGET_S must be numbers"
        ) from None
    return frames, budget


def rss_mib() -> float:
    """This process's resident set now, MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def hwm_mib() -> float:
    """This process's own peak resident set (VmHWM), MiB; not its parent's, as ru_maxrss."""
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) for x in f if x.startswith("VmHWM")) / 1024


def rss_summary(samples: list, peak_mib: float) -> dict:
    """RSS figures of ``samples`` (frame, cpu s, RSS MiB): the first (after the first
    sample's warm-up) and last, the peak, and the slopes in MiB per 1000 frames overall
    and over the second half (past the warm-up of the allocator)."""
    first, last = samples[1] if len(samples) > 2 else samples[0], samples[-1]
    mid = samples[len(samples) // 2]
    return {
        "rss_first_mib": first[2],
        "rss_last_mib": last[2],
        "rss_peak_mib": peak_mib,
        "rss_slope_mib_per_1000_frames": (last[2] - first[2]) * 1000.0 / max(1, last[0] - first[0]),
        "rss_slope_second_half": (last[2] - mid[2]) * 1000.0 / max(1, last[0] - mid[0]),
    }


def memory_child(base: str, frames: str, budget_s: str, out: str, every: str) -> None:
    """In a child process: replay ``base``.mp4 looped for ``frames`` frames (or until
    ``budget_s`` seconds passed) as ``tablemon replay`` does (``stream_video``: rows to a
    TRACKS.csv on disk, shots cut segment by segment), sampling RSS every ``every``
    frames; JSON to ``out``."""
    import cv2

    from vision.capture.source import Frame, LoopedSource
    from vision.replay import stream_video

    samples: list[tuple[int, float, float]] = []
    t0, c0 = time.perf_counter(), time.process_time()

    class Sampled(LoopedSource):
        """The clip again and again, the table resting :data:`MEMORY_PAUSE_S` between two
        plays (as between shots of a match), renumbered; RSS sampled."""

        def __iter__(self):
            n = max(1, int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 1))
            pause = int(MEMORY_PAUSE_S * self.fps)
            k = 0
            for f in super().__iter__():
                for _ in range(1 if (f.index + 1) % n else 1 + pause):
                    if k >= self.total:
                        return
                    if k % int(every) == 0:
                        samples.append((k, time.process_time() - c0, rss_mib()))
                        if 0 < float(budget_s) < time.perf_counter() - t0:
                            return
                    yield Frame(k, k / self.fps, f.image)
                    k += 1

    calib = read_calibration(f"{base}.calib.json")
    table = load_table(calib.data.table)
    with tempfile.TemporaryDirectory() as tmp:  # what `tablemon replay` does: rows to disk
        res = stream_video(Sampled(f"{base}.mp4", int(frames)), calib, table, f"{tmp}/T.csv")
    doc = {
        "frames": res.frames,
        "rows": res.rows,
        "shots": len(res.shots),
        "cuts": len(res.cuts),
        "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - c0,
        "samples": samples,
        "final_rss_mib": rss_mib(),
        "peak_rss_mib": hwm_mib(),
    }
    Path(out).write_text(json.dumps(doc))


def memory(base: Path, tmp: Path, frames: int, budget_s: float) -> dict:
    """Memory over a long replay: the clip looped for ``frames`` frames (30 minutes at
    30 fps by default) in a one-core child, bounded by ``budget_s`` seconds; RSS of the
    first and last samples, the peak, and the slope per 1000 frames after the first
    sample (the streamed replay keeps no rows: it should not grow)."""
    out = tmp / "memory.json"
    every = max(100, min(RSS_EVERY, frames // 12))  # a dozen samples at least
    load = _load()
    _child(MEMORY, [str(base), str(frames), str(budget_s), str(out), str(every)])
    doc = json.loads(out.read_text())
    s = doc["samples"]
    fps = doc["frames"] / max(doc["cpu_s"], 1e-9)
    return {
        "frames_asked": frames,
        "frames": doc["frames"],
        "video_minutes": doc["frames"] / 30.0 / 60.0,
        "rows": doc["rows"],
        "shots": doc.get("shots"),
        "segments": None if doc.get("cuts") is None else doc["cuts"] + 1,
        "pause_s": MEMORY_PAUSE_S,
        "wall_s": doc["wall_s"],
        "cpu_fps": fps,
        **rss_summary(s, doc["peak_rss_mib"]),
        "rss_every_frames": every,
        "budget_s": budget_s,
        "load_average": load,
        "samples": s,
    }


def run(out_dir: Path, quick: bool) -> dict:
    out_dir = Path(out_dir)
    clips_dir = out_dir / "vision-clips"
    clips_dir.mkdir(parents=True, exist_ok=True)
    result: dict = {"synthetic": {}, "real": None, "speed": None, "memory": None}
    first_1080: Path | None = None
    for name, scen, seed, size, strokes in QUICK if quick else FULL:
        base = _clip(clips_dir, name, scen, seed, size, strokes)
        result["synthetic"][name] = _score(base)
        if size == "1080" and first_1080 is None:
            first_1080 = base
    result["real"] = snooker_stills(out_dir / "vision-real")
    if first_1080 is not None:
        result["speed"] = speed(first_1080, clips_dir, 2 if quick else SPEED_LOOPS)
        frames, budget = memory_settings(quick)
        result["memory"] = memory(first_1080, clips_dir, frames, budget)
    _print(result)
    (out_dir / "vision.detail.json").write_text(json.dumps(result, indent=1, default=str))
    return result


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 1 else f"{v:.2f}"
    return str(v)


def _print(r: dict) -> None:
    cols = (
        "size",
        "frames",
        "rest_median_mm",
        "rest_p95_mm",
        "moving_median_mm",
        "coverage",
        "false_rows",
        "switches",
        "shots_without_switch",
    )
    print(
        "synthetic clips (targets: rest median <= 1 mm, p95 <= 2.5 mm at 1080p; moving median "
        "<= 3 mm; coverage >= 0.995; false rows <= 0.001; >= 98 % shots without switch)"
    )
    print(f"{'clip':18s} " + " ".join(f"{c:>14s}" for c in cols))
    for name, row in r["synthetic"].items():
        print(f"{name:18s} " + " ".join(f"{_fmt(row[c]):>14s}" for c in cols))
    real = r["real"]
    if real is None:
        print("real: ../shared/footage/snooker-small-ceiling not found, skipped")
    else:
        print(
            f"real snooker-small-ceiling: {real['balls']} balls in {real['images']} stills: "
            f"recall {real['recall']:.4f}, precision {real['precision']:.4f}, median error "
            f"{_fmt(real['median_error_mm'])} mm, p95 {_fmt(real['p95_error_mm'])} mm "
            "(targets 0.98 / 0.98 / 5 mm; leave-one-out homography, see bench_vision_real)"
        )
    _print_speed(r["speed"])
    _print_memory(r.get("memory"))


def _print_memory(mem: dict | None) -> None:
    if mem is not None:
        print(
            f"memory ({mem['frames']} of {mem['frames_asked']} frames looped = "
            f"{mem['video_minutes']:.1f} min of video, the table resting "
            f"{mem.get('pause_s', 0):.0f} s between plays; {mem['rows']} rows, "
            f"{mem.get('shots')} shots in {mem.get('segments')} segments, "
            f"{mem['cpu_fps']:.1f} fps by CPU): RSS {mem['rss_first_mib']:.0f} -> "
            f"{mem['rss_last_mib']:.0f} MiB, peak {mem['rss_peak_mib']:.0f} MiB, slope "
            f"{mem['rss_slope_mib_per_1000_frames']:.2f} MiB per 1000 frames "
            f"({mem['rss_slope_second_half']:.2f} over the second half); load average "
            f"{mem['load_average']:.1f} at the start"
        )


def _speed_clip(out_dir: Path) -> Path:
    """The speed and memory clip (the quick set's 1080p clip, made when missing)."""
    clips_dir = Path(out_dir) / "vision-clips"
    clips_dir.mkdir(parents=True, exist_ok=True)
    return _clip(clips_dir, *QUICK[0])


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.bench_vision speed|stages|memory``: only that part, printed and
    written to ``OUT/vision-PART.json``."""
    ap = argparse.ArgumentParser(prog="python -m bench.bench_vision")
    ap.add_argument("part", choices=("speed", "stages", "memory"))
    ap.add_argument("--out", default="bench/out")
    ap.add_argument("--loops", type=int, default=SPEED_LOOPS, help="speed: clip repeats")
    ap.add_argument("--minutes", type=float, default=30.0, help="memory: minutes of video")
    ap.add_argument("--budget-s", type=float, default=0.0, help="memory: bound (0: none)")
    args = ap.parse_args(argv)
    if args.loops < 1 or args.minutes <= 0 or args.budget_s < 0:
        ap.error("--loops must be >= 1, --minutes > 0, --budget-s >= 0")
    out = Path(args.out)
    base = _speed_clip(out)
    if args.part == "speed":
        res = speed(base, base.parent, args.loops)
        _print_speed(res)
    elif args.part == "stages":
        res = stages(base, base.parent, args.loops)
        _print_stages(res)
    else:
        frames = max(1, int(round(args.minutes * 60 * 30)))
        res = memory(base, base.parent, frames, args.budget_s)
        _print_memory(res)
    (out / f"vision-{args.part}.json").write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
