"""``tablemon bench vision``: detection and tracking figures of issue "vision".

* Synthetic: clips generated here with ``synth`` (scenario, seed, size below; cached in
  ``OUT/vision-clips``), replayed through ``vision.replay.track_video`` with their exact
  calibration, scored against ``NAME.truth.csv`` by ``bench.score_tracks``: per-frame
  error at rest and moving (mm), coverage of visible truth rows, false rows, identity
  switches and the share of shots without one.
* Real: the snooker-small-ceiling stills (``bench.bench_vision_real``).
* Speed: ``tablemon replay`` on a 1080p clip in a child process with
  ``OMP_NUM_THREADS=1`` (one core), against plain decoding of the same file with one
  decoder thread; the ratio of the two times and the child's peak RSS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

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


ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
DECODE = (
    "import cv2,sys\ncv2.setNumThreads(1)\n"
    "c=cv2.VideoCapture(sys.argv[1],cv2.CAP_FFMPEG,[cv2.CAP_PROP_N_THREADS,1])\n"
    "n=0\nwhile c.read()[0]: n+=1\nprint(n)\n"
)
REPLAY = (
    "import resource,sys\nfrom service.cli import main\nrc=main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\nsys.exit(rc)\n"
)


def _child(code: str, args: list[str]) -> tuple[float, str]:
    """Run python ``code`` with ``args`` on one core; (seconds, its last output line)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**os.environ, **ONE_CORE},
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - t0, (done.stdout.strip().splitlines() or [""])[-1]


def speed(base: Path, tmp: Path) -> dict:
    """Replay on one core vs plain one-thread decoding of the same 1080p file."""
    video = str(base.with_suffix(".mp4"))
    calib = read_calibration(f"{base}.calib.json")
    dec_s, _ = _child(DECODE, [video])
    rep_s, rep_rss = _child(
        REPLAY,
        [
            "replay",
            video,
            "--game",
            "carom-5pin" if load_table(calib.data.table).kind == "carom" else "pyramid-free",
            "--calibration",
            f"{base}.calib.json",
            "--out",
            str(tmp / "speed.match.json"),
            "--tracks",
            str(tmp / "speed.tracks.csv"),
            "--no-progress",
        ],
    )
    frames = len(set(read_tracks(tmp / "speed.tracks.csv").frame.tolist())) or 1
    from vision.capture import VideoSource

    with VideoSource(video) as src:
        fps, n = src.fps, src.frame_count or frames
    return {
        "video": base.name,
        "frames": n,
        "video_fps": fps,
        "replay_s": rep_s,
        "replay_fps": n / rep_s,
        "realtime_factor": n / fps / rep_s,
        "decode_s": dec_s,
        "decode_fps": n / dec_s,
        "replay_over_decode": rep_s / dec_s,
        "peak_rss_mib": int(rep_rss) if rep_rss.isdigit() else None,
    }


def run(out_dir: Path, quick: bool) -> dict:
    out_dir = Path(out_dir)
    clips_dir = out_dir / "vision-clips"
    clips_dir.mkdir(parents=True, exist_ok=True)
    result: dict = {"synthetic": {}, "real": None, "speed": None}
    first_1080: Path | None = None
    for name, scen, seed, size, strokes in QUICK if quick else FULL:
        base = _clip(clips_dir, name, scen, seed, size, strokes)
        result["synthetic"][name] = _score(base)
        if size == "1080" and first_1080 is None:
            first_1080 = base
    result["real"] = snooker_stills(out_dir / "vision-real")
    if first_1080 is not None:
        result["speed"] = speed(first_1080, clips_dir)
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
    sp = r["speed"]
    if sp is not None:
        print(
            f"speed ({sp['video']}, {sp['frames']} frames, one core): replay {sp['replay_fps']:.1f} "
            f"fps = {sp['realtime_factor']:.2f}x real time (target 4x); plain decoding "
            f"{sp['decode_fps']:.1f} fps; replay/decode time {sp['replay_over_decode']:.2f}; "
            f"peak RSS {sp['peak_rss_mib']} MiB"
        )
