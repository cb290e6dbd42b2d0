"""Speed of ``tablemon replay`` on one core (issue "vision"; ``tablemon bench vision`` and
``python -m bench.bench_vision speed|stages`` print these).

* Speed: ``tablemon replay`` on a 1080p video (the first 1080p clip written
  ``SPEED_LOOPS`` times into one file) in a child process with ``OMP_NUM_THREADS=1`` (one
  core), against plain decoding of the same file with one decoder thread (OpenCV, to BGR
  as the replay reads it); wall and CPU time of both, their ratios and the replay's peak
  RSS. Where PyAV is installed, also the CPU time of decoding alone (YUV planes, no BGR
  conversion): the share of the decoding a pipeline on YUV planes could save.
* Stages: the same replay in a one-core child with each stage's CPU time counted
  (``time.process_time`` around decoding, the drift check, detection and its parts,
  tracking): CPU ms a frame per stage, to see where the 8.3 ms a frame of 4x go.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from contract.calib import read_calibration
from contract.tables import load_table

ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# each child prints one last line: "<cpu seconds> <peak RSS MiB> [<its own figures>]"; the
# peak is the process's own VmHWM (ru_maxrss would carry the parent's peak across exec)
HWM = (
    "u=resource.getrusage(resource.RUSAGE_SELF)\n"
    "hwm=[l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
)
DECODE = (
    "import cv2,resource,sys\ncv2.setNumThreads(1)\n"
    "c=cv2.VideoCapture(sys.argv[1],cv2.CAP_FFMPEG,[cv2.CAP_PROP_N_THREADS,1])\n"
    "n=0\nwhile c.read()[0]: n+=1\n" + HWM + "print(u.ru_utime+u.ru_stime, int(hwm)//1024, n)\n"
)
REPLAY = (
    "import resource,sys\nfrom service.cli import main\nrc=main(sys.argv[1:])\n"
    + HWM
    + "print(u.ru_utime+u.ru_stime, int(hwm)//1024)\nsys.exit(rc)\n"
)
DECODE_AV = (  # PyAV, one thread: decoding alone, the frames left as YUV planes
    "import av,resource,sys\nc=av.open(sys.argv[1])\ns=c.streams.video[0]\n"
    "s.thread_type='NONE'\ns.thread_count=1\nn=sum(1 for _ in c.decode(s))\n"
    + HWM
    + "print(u.ru_utime+u.ru_stime, int(hwm)//1024, n)\n"
)
STAGES = "import sys\nfrom bench.bench_speed import stages_child\nstages_child(*sys.argv[1:])\n"
# stage label -> (module, attribute path) of the function whose CPU time it counts; the
# indented ones run inside "detect" (and "refine" inside "pack"); "crop+exposure" is the
# work picture's crop (shared with the later stages) and the exposure check
STAGE_FUNCS = (
    ("decode", "vision.capture.source", "VideoSource._decode"),
    ("drift check", "vision.register", "DriftWatch.step"),
    ("detect", "vision.detect.detector", "Detector.detect"),
    ("  crop+exposure", "vision.detect.detector", "Detector._expose"),
    ("  change test", "vision.detect.detector", "Detector._changed"),
    ("  foreground", "vision.detect.detector", "Detector.foreground"),
    ("  components", "vision.detect.detector", "components"),
    ("  isolation", "vision.detect.detector", "isolated"),
    ("  blob split", "vision.detect.detector", "fit_blob"),
    ("  pack", "vision.detect.detector", "Detector._pack"),
    ("    refine", "vision.detect.detector", "refine_centres"),
    ("  streaks", "vision.detect.streak", "StreakWatch.look"),
    ("track", "vision.track.tracker", "Tracker.update"),
)
SPEED_LOOPS = 8  # the speed video: the 1080p clip this many times over (steady state)


def _load() -> float:
    """The 1-minute load average (0 where unknown): how busy the machine was."""
    try:
        return float(os.getloadavg()[0])
    except OSError:
        return 0.0


def _child(code: str, args: list[str]) -> tuple[float, list[str]]:
    """Run python ``code`` with ``args`` on one core; (wall seconds, its last line's
    fields)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**os.environ, **ONE_CORE},
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - t0, (done.stdout.strip().splitlines() or [""])[-1].split()


def looped_video(base: Path, loops: int) -> Path:
    """``base``.mp4 written ``loops`` times in a row into one file (cached beside it): a
    longer 1080p30 video, so start-up costs weigh as they do on a real match."""
    out = base.with_name(f"{base.name}-x{loops}.mp4")
    if out.is_file():
        return out
    import cv2

    tmp = out.with_suffix(".part.mp4")
    cap = cv2.VideoCapture(str(base.with_suffix(".mp4")))
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    cap.release()
    w = cv2.VideoWriter(str(tmp), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    for _ in range(loops):  # frame by frame: this process stays small
        cap = cv2.VideoCapture(str(base.with_suffix(".mp4")))
        while True:
            ok, img = cap.read()
            if not ok:
                break
            w.write(img)
        cap.release()
    w.release()
    tmp.rename(out)
    return out


def speed(base: Path, tmp: Path, loops: int = SPEED_LOOPS) -> dict:
    """``tablemon replay`` on one core vs plain one-thread decoding of the same 1080p file
    (the clip looped ``loops`` times): wall and CPU seconds of each child, their ratio,
    the replay's peak RSS."""
    video = looped_video(base, loops) if loops > 1 else base.with_suffix(".mp4")
    calib = read_calibration(f"{base}.calib.json")
    load = _load()
    dec_s, (dec_cpu, _, n) = _child(DECODE, [str(video)])
    rep_s, (rep_cpu, rep_rss) = _child(
        REPLAY,
        [
            "replay",
            str(video),
            "--game",
            "carom-5pin" if load_table(calib.data.table).kind == "carom" else "pyramid-free",
            "--calibration",
            f"{base}.calib.json",
            "--out",
            str(tmp / "speed.match.json"),
            "--no-progress",
        ],
    )
    yuv_cpu = None
    try:
        import av  # noqa: F401  (optional: decoding alone, without the BGR conversion)

        _, (yuv_cpu, _, _) = _child(DECODE_AV, [str(video)])
    except ImportError:
        pass
    from vision.capture.source import VideoSource

    with VideoSource(video) as src:
        fps = src.fps
    n, dec_cpu, rep_cpu = int(n), float(dec_cpu), float(rep_cpu)
    return {
        "video": video.name,
        "frames": n,
        "video_fps": fps,
        "replay_s": rep_s,
        "replay_cpu_s": rep_cpu,
        "replay_fps": n / rep_s,
        "realtime_factor": n / fps / rep_s,
        "realtime_factor_cpu": n / fps / rep_cpu,
        "decode_s": dec_s,
        "decode_cpu_s": dec_cpu,
        "decode_fps": n / dec_s,
        "replay_over_decode": rep_s / dec_s,
        "replay_over_decode_cpu": rep_cpu / dec_cpu,
        # CPU ms a frame the replay spends beyond decoding (4x real time at 30 fps leaves
        # 8.3 ms a frame in all, decoding included)
        "work_beyond_decode_ms": 1000.0 * (rep_cpu - dec_cpu) / max(1, n),
        "peak_rss_mib": int(rep_rss),
        # PyAV decoding alone (YUV planes, no BGR): CPU ms a frame; None without PyAV
        "decode_yuv_ms": None if yuv_cpu is None else 1000.0 * float(yuv_cpu) / max(1, n),
        "decode_ms": 1000.0 * dec_cpu / max(1, n),
        "load_average": load,
    }


def stages_child(video: str, calib_path: str, out: str) -> None:
    """In a child process: replay ``video`` with every function of :data:`STAGE_FUNCS`
    wrapped by a CPU-time counter; JSON of the seconds per stage to ``out``."""
    import importlib

    from vision.replay import track_video

    spent: dict[str, float] = {}

    def counted(label: str, f):
        def g(*a, **k):
            c = time.process_time()
            try:
                return f(*a, **k)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - c

        return g

    for label, module, name in STAGE_FUNCS:
        owner = importlib.import_module(module)
        *path, attr = name.split(".")
        for part in path:
            owner = getattr(owner, part)
        setattr(owner, attr, counted(label, getattr(owner, attr)))
    calib = read_calibration(calib_path)
    c0 = time.process_time()
    res = track_video(video, calib, load_table(calib.data.table))
    doc = {"frames": res.frames, "cpu_s": time.process_time() - c0, "stages": spent}
    Path(out).write_text(json.dumps(doc))


def stages(base: Path, tmp: Path, loops: int = SPEED_LOOPS) -> dict:
    """CPU ms a frame of each replay stage (:data:`STAGE_FUNCS`) on the speed video, in a
    one-core child; ``track_video`` in all, set-up included (not the CLI's imports and
    shots)."""
    video = looped_video(base, loops) if loops > 1 else base.with_suffix(".mp4")
    out = tmp / "stages.json"
    load = _load()
    _child(STAGES, [str(video), f"{base}.calib.json", str(out)])
    doc = json.loads(out.read_text())
    n = max(1, doc["frames"])
    ms = {k: 1000.0 * doc["stages"].get(k, 0.0) / n for k, _, _ in STAGE_FUNCS}
    return {
        "video": video.name,
        "frames": doc["frames"],
        "track_video_ms": 1000.0 * doc["cpu_s"] / n,
        "stage_ms": ms,
        "load_average": load,
    }


def _print_stages(st: dict) -> None:
    print(
        f"stages ({st['video']}, {st['frames']} frames, one core): CPU ms a frame, "
        f"track_video {st['track_video_ms']:.2f} in all; load average "
        f"{st['load_average']:.1f} at the start"
    )
    for label, v in st["stage_ms"].items():
        print(f"  {label:16s} {v:6.2f}")
    ms = st["stage_ms"]
    if "detect" in ms:  # what the named parts of detect leave (python between them)
        parts = sum(v for k, v in ms.items() if k.startswith("  ") and not k.startswith("    "))
        print(f"  {'  (rest)':16s} {ms['detect'] - parts:6.2f}")


def _print_speed(sp: dict | None) -> None:
    if sp is not None:
        print(
            f"speed ({sp['video']}, {sp['frames']} frames, one core): replay "
            f"{sp['replay_fps']:.1f} fps = {sp['realtime_factor']:.2f}x real time wall, "
            f"{sp['realtime_factor_cpu']:.2f}x by CPU time (target 4x); plain decoding "
            f"{sp['decode_fps']:.1f} fps; replay/decode {sp['replay_over_decode']:.2f} wall, "
            f"{sp['replay_over_decode_cpu']:.2f} CPU ({sp['work_beyond_decode_ms']:.2f} ms a "
            f"frame beyond decoding); peak RSS {sp['peak_rss_mib']} MiB; load average "
            f"{sp['load_average']:.1f} at the start"
        )
        if sp.get("decode_yuv_ms") is not None:
            print(
                f"  decoding: {sp['decode_ms']:.2f} ms a frame to BGR (OpenCV), "
                f"{sp['decode_yuv_ms']:.2f} ms to YUV planes alone (PyAV, one thread)"
            )
