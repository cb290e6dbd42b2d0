"""``tablemon bench ballnet``: BallNet speed, and how well white-ball numbers are read.

    OMP_NUM_THREADS=1 python -m bench.bench_ballnet [--quick] [--clips DIR] [--json OUT.json]
        [--reader DIR]    # another number reader (a folder with manifest.json), for before/after
        [--min-read-radius PX]   # read smaller balls than the tracker does (720p: 9.5)

* Speed: ``BallClassifier.classify`` (patch cut + net) and ``NumberReader.read`` (tight
  patch cut + net, four quarter turns) per patch on one core, on a synthetic 1920x1080
  picture with N candidates (N = 1, 16, 64).
* Numbers: synthetic pyramid clips (the pyramid clips of ``bench.bench_vision``, rendered
  here or found in ``--clips``), detected and tracked frame by frame with the frames given
  to the tracker (``Tracker.update(det, image)``), *live* rows (what the tracker said at
  that frame, before the end-of-video renaming). For every shot and every white ball on
  the cloth at the shot's last frame (or, for a ball that left the table during the shot,
  at its last frame on the cloth) whose number was **visible** in some frame from the
  start of the video to that frame, the track matched to the ball (Hungarian, 50 mm gate)
  either carries the ball's number (*right*), another number (*wrong*) or none (*unread*).
  *Visible* means what a person could read off the picture: the printed pole within 32
  degrees of the line of sight (|pole . view| > 0.85), the ball not hidden by a player
  (truth ``visible``), smear under a quarter radius, ball radius at least 10 px. The
  stricter *in the shot* figure counts only balls visible during the shot itself (after
  the previous shot's end). Accuracy figures of the nets on patches are in
  ``models/ballnet/metrics.json`` and ``numbers_metrics.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.detect.classify import MODEL_DIR, BallClassifier

# name, scenario, seed, size, strokes kept (0: all): bench_vision's pyramid clips, three
# more at 1080p, and two more breaks at 720p (balls 10-10.6 px in radius) whose seeds were
# picked among pyramid-break 20..30 for the most balls whose number is ever visible (27: 8
# balls, 21: 7; the other seeds 0-5), so that the 720p figure counts more than one ball
CLIPS = (
    ("pyr-pots-1080", "pyramid-pots", 0, "1080", 0),
    ("pyr-break-1080", "pyramid-break", 8, "1080", 0),
    ("pyr-pots-720", "pyramid-pots", 3, "720", 0),
    ("pyr-respot-720", "pyramid-respot", 7, "720", 0),
    ("pyr-break-1080-s1", "pyramid-break", 1, "1080", 0),
    ("pyr-break-1080-s3", "pyramid-break", 3, "1080", 0),
    ("pyr-pots-1080-s5", "pyramid-pots", 5, "1080", 0),
    ("pyr-break-720-s27", "pyramid-break", 27, "720", 0),
    ("pyr-break-720-s21", "pyramid-break", 21, "720", 0),
)
QUICK_CLIPS = (("pyr-pots-1080-1stroke", "pyramid-pots", 0, "1080", 1),)
FACING, MIN_R_PX, SMEAR_R, GATE_MM = 0.85, 10.0, 0.25, 50.0


def timing(n: int, repeats: int, fn, inked: bool = False) -> dict:
    """CPU and wall ms per patch of ``fn(image, centres px, radii px)`` on ``n`` balls of a
    random 1920x1080 picture; ``inked``: on white discs (15 px radius) each with a dark
    figure 0.45 radii off its centre (a figure some 27 degrees off the line of sight)."""
    rng = np.random.default_rng(n)
    img = rng.integers(0, 255, (1080, 1920, 3), np.uint8)
    uv = np.c_[rng.uniform(50, 1870, n), rng.uniform(50, 1030, n)]
    r = np.full(n, 15.0)
    if inked:
        for (u, v), a in zip(uv, rng.uniform(0, 2 * np.pi, n), strict=True):
            cv2.circle(img, (int(u), int(v)), 15, (230, 230, 230), -1)
            ink = (int(u + 6.75 * np.cos(a)), int(v + 6.75 * np.sin(a)))
            cv2.ellipse(img, ink, (2, 3), float(np.degrees(a)), 0, 360, (25, 25, 30), -1)
    fn(img, uv, r)  # warm-up
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(repeats):
        fn(img, uv, r)
    cpu = (time.process_time() - c0) / repeats
    wall = (time.perf_counter() - t0) / repeats
    return {"batch": n, "cpu_ms_per_patch": cpu * 1e3 / n, "wall_ms_per_patch": wall * 1e3 / n}


def number_visibility(scen: str, seed: int, size: str, strokes: int) -> dict[int, set[str]]:
    """Frame -> ids of numbered white balls whose number faces the camera (truth poses,
    before the player-occlusion check), for the clip the synth would render."""
    from models.ballnet.dataset import _radius_px
    from synth.cli import SIZES
    from synth.clip import build_clip, first_strokes, replace_size
    from synth.scenarios import scenario
    from synth.truth import cameras_for

    spec = replace_size(scenario(scen)(seed), SIZES[size])
    if strokes > 0:
        spec = first_strokes(spec, strokes)
    clip = build_clip(spec)
    cams = cameras_for(clip)
    info = {b.id: b for b in spec.balls}
    R = clip.table.ball_radius
    out: dict[int, set[str]] = {}
    for f in clip.frames:
        cam = cams[f.camera]
        C = np.asarray(cam.centre, float)
        seen = set()
        for b, p in f.balls.items():
            if info[b].number is None or info[b].colour != "white" or not p.on_table:
                continue
            S = np.array([p.x, p.y, p.z])
            view = (C - S) / np.linalg.norm(C - S)
            if abs(float(np.asarray(p.rot).reshape(3, 3)[:, 2] @ view)) <= FACING:
                continue
            r = _radius_px(cam, S, R)
            v = np.array([p.vx, p.vy, 0.0]) / 120
            sm = cam.project(np.array([S - v, S + v]))
            if r >= MIN_R_PX and float(np.linalg.norm(sm[1] - sm[0])) / r < SMEAR_R:
                seen.add(b)
        out[f.index] = seen
    return out


def live_rows(base: Path, reader_dir: Path | None = None, min_read_px: float | None = None):
    """Detect and track the clip ``base``.mp4 with its exact calibration, reading numbers
    (with the reader in ``reader_dir`` when given, else the shipped one; balls of at least
    ``min_read_px`` px radius when given, else ``TrackerConfig.min_read_radius_px``);
    returns (live rows, renamed rows, seconds, number patches read per frame)."""
    from dataclasses import replace

    from contract.calib import read_calibration
    from contract.tables import load_table
    from vision.capture.source import VideoSource
    from vision.detect.detector import Detector
    from vision.replay import sample_frames
    from vision.stream import concat
    from vision.track.state import TrackerConfig
    from vision.track.tracker import Tracker

    cfg = TrackerConfig()
    if min_read_px is not None:
        cfg = replace(cfg, min_read_radius_px=float(min_read_px))
    calib = read_calibration(f"{base}.calib.json")
    table = load_table(calib.data.table)
    path = str(base.with_suffix(".mp4"))
    t0 = time.perf_counter()
    with VideoSource(path) as src:
        det = Detector(calib, table, src.size)
        det.fit_background(sample_frames(path))
        tracker = Tracker(table, cfg)
        if reader_dir is not None:
            from vision.numbers.reader import NumberReader

            tracker._reader = NumberReader.load(reader_dir)
        parts = [tracker.update(det.detect(fr), fr.image) for fr in src]
        parts.append(tracker.finish())
    rows = concat(parts)
    reads = tracker._reader.balls_read if tracker._reader is not None else 0
    return rows, tracker.renamed(rows), time.perf_counter() - t0, reads / max(1, len(parts) - 1)


def score_numbers(base: Path, visible: dict[int, set[str]], rows) -> dict:
    """Right / wrong / unread numbers at each shot's end (see the module docstring)."""
    from contract.match import read_match
    from contract.tracks import read_tracks

    truth = read_tracks(f"{base}.truth.csv")
    shots = read_match(f"{base}.truth.json").shots
    hidden = {
        (int(f), str(i))
        for f, i, v in zip(truth.frame, truth.id, truth.visible, strict=True)
        if not v
    }
    seen_frames: dict[str, list[int]] = {}  # ball -> frames its number was visible, unhidden
    for k in sorted(visible):
        for b in visible[k]:
            if (k, b) not in hidden:
                seen_frames.setdefault(b, []).append(k)
    seen_by = {b: f[0] for b, f in seen_frames.items()}
    last_on = {}  # ball -> last frame it is on the cloth
    for f, i in zip(truth.frame, truth.id, strict=True):
        last_on[str(i)] = int(f)
    res = {"all": [0, 0, 0], "in_shot": [0, 0, 0]}  # right, wrong, unread
    misreads: list[str] = []
    prev_end = -1
    for s in shots:
        end = s.end.frame
        # the balls on the cloth at the shot's end, and those that left during the shot
        # (pocketed: classic pyramid scores their numbers), each at its last frame
        when = {str(b): end for b in truth.at_frame(end).id}
        when.update({b: f for b, f in last_on.items() if prev_end < f < end})
        for b, at in sorted(when.items()):
            if b not in seen_by or seen_by[b] > at:
                continue
            got = _id_at(truth, rows, b, at)
            k = 0 if got == b else (1 if got.isdigit() else 2)
            res["all"][k] += 1
            if any(prev_end < f <= at for f in seen_frames[b]):
                res["in_shot"][k] += 1
            if k == 1:
                misreads.append(f"shot {s.index}: {b}->{got}")
        prev_end = end
    out = {}
    for key, (r, w, u) in res.items():
        n = r + w + u
        out[key] = {
            "balls": n,
            "right": r / n if n else None,
            "wrong": w / n if n else None,
            "unread": u / n if n else None,
        }
    out["misreads"] = misreads
    out["numbered_balls_visible_ever"] = len(seen_by)
    return out


def _id_at(truth, rows, ball: str, frame: int) -> str:
    """The predicted id matched to truth ball ``ball`` in ``frame`` (Hungarian over that
    frame's rows within ``GATE_MM``), "" when none."""
    tr, pr = truth.at_frame(frame), rows.at_frame(frame)
    if not len(tr) or not len(pr):
        return ""
    d = np.hypot(tr.x[:, None] - pr.x[None], tr.y[:, None] - pr.y[None])
    ri, ci = linear_sum_assignment(np.where(d < GATE_MM, d, 1e6))
    for i, j in zip(ri, ci, strict=True):
        if str(tr.id[i]) == ball and d[i, j] < GATE_MM:
            return str(pr.id[j])
    return ""


def numbers(
    clips_dir: Path, quick: bool, reader_dir: Path | None = None, min_read_px: float | None = None
) -> list[dict]:
    from synth.cli import make

    out = []
    for name, scen, seed, size, strokes in QUICK_CLIPS if quick else CLIPS:
        base = clips_dir / name
        if not (base.with_suffix(".mp4").is_file() and Path(f"{base}.truth.csv").is_file()):
            make(scen, seed, size, clips_dir, name, strokes=strokes)
        vis = number_visibility(scen, seed, size, strokes)
        rows, renamed, secs, reads = live_rows(base, reader_dir, min_read_px)
        s = score_numbers(base, vis, rows)
        s.update(clip=name, size=size, seconds=secs, balls_read_per_frame=reads)
        ids = sorted({str(i) for i in renamed.id})
        s["ids_at_end_of_video"] = ids
        out.append(s)
    return out


def summary(per_clip: list[dict]) -> dict:
    """Pooled right / wrong / unread by picture height (``balls``: ball-shots, the
    denominator; ``distinct_balls``: balls whose number was ever visible)."""
    out = {}
    for size in sorted({c["size"] for c in per_clip}):
        distinct = sum(
            c.get("numbered_balls_visible_ever", 0) for c in per_clip if c["size"] == size
        )
        for key in ("all", "in_shot"):
            n = r = w = 0
            for c in per_clip:
                if c["size"] == size and c[key]["balls"]:
                    b = c[key]["balls"]
                    n, r, w = n + b, r + c[key]["right"] * b, w + c[key]["wrong"] * b
            out[f"{size}p_{key}"] = {
                "balls": n,
                "distinct_balls": distinct,
                "right": r / n if n else None,
                "wrong": w / n if n else None,
                "unread": (n - r - w) / n if n else None,
            }
    return out


def run(
    out_dir: Path,
    quick: bool,
    clips_dir: Path | None = None,
    reader_dir: Path | None = None,
    min_read_px: float | None = None,
) -> dict:
    """Figures for ``tablemon bench ballnet`` (written to ``out_dir/ballnet.json``)."""
    from vision.numbers.reader import NumberReader

    cv2.setNumThreads(1)
    clf = BallClassifier.load(threads=1)
    reader = NumberReader.load(reader_dir, threads=1)
    reps = 5 if quick else 30
    speed = {
        "ballnet": [timing(n, reps, clf.classify) for n in (1, 16, 64)],
        "number_reader_4_turns": [timing(n, reps, reader.read) for n in (1, 16, 64)],
        # every ball also given the second look (a figure off the disc's centre turned to
        # face the camera and read again): the most a read of balls at rest costs
        "number_reader_second_look": [
            timing(n, reps, lambda im, uv, r: reader.read(im, uv, r, second=r > 0), inked=True)
            for n in (1, 16, 64)
        ],
    }
    print(f"{'net':>22} {'batch':>5} {'cpu ms/patch':>13} {'wall ms/patch':>14}")
    for net, rows in speed.items():
        for r in rows:
            print(
                f"{net:>22} {r['batch']:>5} {r['cpu_ms_per_patch']:>13.3f}"
                f" {r['wall_ms_per_patch']:>14.3f}"
            )
    per_clip = numbers(clips_dir or out_dir / "vision-clips", quick, reader_dir, min_read_px)
    print(
        f"\n{'clip':>22} {'balls':>6} {'right':>7} {'wrong':>7} {'unread':>7} | in shot:"
        f" {'balls':>5} {'right':>7} {'wrong':>7}"
    )
    for c in per_clip:
        a, s = c["all"], c["in_shot"]

        def pct(v):
            return "   n/a" if v is None else f"{100 * v:6.1f}%"

        print(
            f"{c['clip']:>22} {a['balls']:>6} {pct(a['right'])} {pct(a['wrong'])}"
            f" {pct(a['unread'])} |          {s['balls']:>5} {pct(s['right'])} {pct(s['wrong'])}"
        )
    pooled = summary(per_clip)
    for k, v in pooled.items():
        right, wrong, unread = (
            "n/a" if v[x] is None else f"{100 * v[x]:.1f} %" for x in ("right", "wrong", "unread")
        )
        print(
            f"{k:>22}: {v['balls']} ball-shots ({v['distinct_balls']} balls), right {right},"
            f" wrong {wrong}, unread {unread}"
            " (target: right >= 95 %)"
        )
    return {
        "timing_one_core": speed,
        "model_bytes": (MODEL_DIR / "ballnet.onnx").stat().st_size,
        "numbers_per_clip": per_clip,
        "numbers": pooled,
        "metrics": json.loads((MODEL_DIR / "metrics.json").read_text()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=Path("out/ballnet.json"))
    ap.add_argument(
        "--clips", type=Path, help="folder of rendered clips (default OUT/vision-clips)"
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reader", type=Path, help="number reader folder (default models/ballnet)")
    ap.add_argument(
        "--min-read-radius",
        type=float,
        help="read balls of at least this radius, px (default TrackerConfig.min_read_radius_px)",
    )
    a = ap.parse_args()
    from bench.cli import plain

    if a.min_read_radius is not None and not a.min_read_radius > 0:
        raise SystemExit(f"--min-read-radius must be > 0 px, got {a.min_read_radius}")
    figures = run(a.json.parent, a.quick, a.clips, a.reader, a.min_read_radius)
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(plain(figures), indent=2) + "\n")
    print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
