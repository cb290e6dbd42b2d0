"""``tablemon bench numbers``: classic pyramid ball numbers, right / wrong / unread / asked.

    OMP_NUM_THREADS=1 python -m bench.bench_numbers [--out DIR] [--clips DIR] [--cache DIR]

Sets (each clip is ``NAME.mp4`` with ``NAME.calib.json``, ``NAME.truth.csv``,
``NAME.truth.json``):

* *own*: the committed pyramid fixtures (``fixtures/videos``) and the own renders of
  :data:`OWN` found in ``--clips`` (``tablemon synth SCENARIO --seed N --size S``; missing
  ones are skipped and listed, not rendered here: a 1080p render takes minutes);
* *foreign*: the pyramid clips of ``../shared/foreign-synth`` (skipped cleanly without it).

Each clip belongs to the part the vote's thresholds were chosen on (*fit*) or to the part
kept back (*kept*): :data:`OWN`, :data:`FOREIGN`. The clip is detected and tracked once,
the tracker's reads recorded (``bench.numbers_record``), and the shipped vote replayed on
them frame by frame (what the tracker gives live).

Counting: at the end of every truth shot, every numbered white ball on the cloth and every
one that left the table during the shot (classic pyramid scores the pocketed balls'
numbers) is one *ball-shot*; the track matched to it then (Hungarian, 50 mm gate) carries
its number (*right*), another number (*wrong*), or none (*unread*: a ``wN`` id, or no
track). *Asked*: pocketed ball-shots unread, which the adjudicator turns into a question
``about: "number"`` (contract §11). Every ball counts, whether or not its number ever faced
the camera (``bench.bench_ballnet`` counts only balls whose number was visible).
"""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the project (a worktree sits one level deeper than the main checkout)
FOREIGN_DIR = next(
    (d for d in (p / "shared" / "foreign-synth" for p in ROOT.parents[:2]) if d.is_dir()),
    ROOT.parent / "shared" / "foreign-synth",
)
# name, part: the thresholds were chosen on "fit"; "kept" was scored only after
FOREIGN = (
    ("pyr_break_101", "fit"),
    ("pyr_midgame_201", "fit"),
    ("pyr_break_102", "kept"),
    ("pyr_midgame_202", "kept"),
    ("pyr_lowres_301", "kept"),
)
# name, part, scenario, seed, size, strokes kept (0: all), fixture: own renders
# (``python -m service.cli synth SCENARIO --seed N --size S``; "fixture": fixtures/videos)
OWN = (
    ("pyramid-knock-1080", "fit", "pyramid-knock", 5, "1080", 0, True),
    ("pyramid-break", "fit", "pyramid-break", 0, "720", 1, True),
    ("pyramid-respot", "fit", "pyramid-respot", 1, "720", 0, True),
    ("pyr-pots-1080", "fit", "pyramid-pots", 0, "1080", 0, False),
    ("pyr-break-1080", "fit", "pyramid-break", 8, "1080", 0, False),
    ("pyr-pots-1080-s11", "kept", "pyramid-pots", 11, "1080", 0, False),
    ("pyr-pots-720-s11", "kept", "pyramid-pots", 11, "720", 0, False),
    ("pyr-pots-2160-1s", "fit", "pyramid-pots", 0, "2160", 1, False),
    ("pyr-pots-2160-s11-1s", "kept", "pyramid-pots", 11, "2160", 1, False),
)
GATE_MM = 50.0
OUTCOMES = ("right", "wrong", "unread", "asked")


def score_clip(base: Path, rows, visible: dict[int, set[str]] | None = None) -> dict:
    """Right / wrong / unread / asked ball-shots of live ``rows`` against ``base``'s truth
    (see the module docstring); ``details``: one line per ball-shot not right. With
    ``visible`` (frame -> balls whose number faced the camera, own renders:
    ``bench.bench_ballnet.number_visibility``), also ``visible_ball_shots`` and
    ``visible_right``: the ball-shots whose number was visible by then, and those right."""
    from bench.bench_ballnet import _id_at
    from contract.match import read_match

    truth = truth_tracks(Path(f"{base}.truth.csv"))
    shots = read_match(f"{base}.truth.json").shots
    last_on: dict[str, int] = {}
    for f, i in zip(truth.frame, truth.id, strict=True):
        last_on[str(i)] = int(f)
    seen_by: dict[str, int] = {}
    for f in sorted(visible or {}):
        for b in visible[f]:
            seen_by.setdefault(b, f)
    vis_n = vis_right = 0
    counts = dict.fromkeys(OUTCOMES, 0)
    details: list[str] = []
    prev_end = -1
    for s in shots:
        end = s.end.frame
        when = {str(b): end for b in truth.at_frame(end).id}
        gone = {b: f for b, f in last_on.items() if prev_end < f < end}
        when.update(gone)
        for b, at in sorted(when.items()):
            if not b.isdigit():
                continue
            got = _id_at(truth, rows, b, at)
            k = "right" if got == b else ("wrong" if got.isdigit() else "unread")
            counts[k] += 1
            if b in seen_by and seen_by[b] <= at:
                vis_n, vis_right = vis_n + 1, vis_right + (k == "right")
            if k == "unread" and b in gone:
                counts["asked"] += 1
            if k != "right":
                details.append(f"shot {s.index} ball {b}: {k} ({got or 'no track'})")
        prev_end = end
    out = {"ball_shots": sum(counts[k] for k in OUTCOMES[:3]), **counts, "details": details}
    if visible is not None:
        out.update(visible_ball_shots=vis_n, visible_right=vis_right)
    return out


@functools.lru_cache(maxsize=32)
def truth_tracks(path: Path):
    """A truth TRACKS.csv; one whose header lacks the optional ``u,v`` pixel columns (the
    foreign renders') is read with them NaN."""
    import csv

    from contract.errors import ContractError
    from contract.tracks import Tracks, read_tracks

    try:
        return read_tracks(path)
    except ContractError:
        with path.open() as fh:
            rows = list(csv.DictReader(fh))
        if not rows or not {"frame", "t", "id", "x", "y", "visible"} <= set(rows[0]):
            raise
    nan = np.full(len(rows), np.nan)
    rows.sort(key=lambda r: (int(r["frame"]), r["id"]))
    return Tracks(
        np.array([int(r["frame"]) for r in rows]),
        np.array([float(r["t"]) for r in rows]),
        np.array([r["id"] for r in rows], object),
        np.array([float(r["x"]) for r in rows]),
        np.array([float(r["y"]) for r in rows]),
        np.array([r["visible"] in ("1", "true", "True") for r in rows]),
        nan,
        nan.copy(),
    )


def pooled(clips: list[dict], **match) -> dict:
    """Ball-shots and shares pooled over the clips whose fields equal ``match``."""
    sel = [c for c in clips if all(c[k] == v for k, v in match.items())]
    n = sum(c["ball_shots"] for c in sel)
    out = {"clips": [c["clip"] for c in sel], "ball_shots": n}
    for k in OUTCOMES:
        m = sum(c[k] for c in sel)
        out[k] = m
        out[f"{k}_share"] = m / n if n else None
    vn = sum(c.get("visible_ball_shots", 0) for c in sel)
    vr = sum(c.get("visible_right", 0) for c in sel)
    if any("visible_ball_shots" in c for c in sel):
        out.update(
            visible_ball_shots=vn, visible_right=vr, visible_right_share=vr / vn if vn else None
        )
    return out


def height(size: tuple[int, int]) -> str:
    return f"{int(size[1])}p"


def clip_list(clips_dir: Path | None) -> tuple[list[tuple[Path, str, str, tuple]], list[str]]:
    """(base path, set, part, own render's (scenario, seed, size, strokes) or ()) of every
    clip present, and the names missing."""
    have, missing = [], []
    for name, part, scen, seed, size, strokes, fixture in OWN:
        d = ROOT / "fixtures" / "videos" if fixture else clips_dir
        base = d / name if d is not None else None
        if base is not None and base.with_suffix(".mp4").is_file():
            have.append((base, "own", part, (scen, seed, size, strokes)))
        else:
            first = f", first {strokes} stroke(s)" if strokes else ""
            missing.append(f"own {name} (synth {scen} --seed {seed} --size {size}{first})")
    for name, part in FOREIGN:
        base = FOREIGN_DIR / name
        if base.with_suffix(".mp4").is_file():
            have.append((base, "foreign", part, ()))
        else:
            missing.append(f"foreign {name} (no {FOREIGN_DIR})")
    return have, missing


def run(
    out_dir: Path,
    quick: bool = False,
    clips_dir: Path | None = None,
    cache: Path | None = None,
    reader_dir: Path | None = None,
) -> dict:
    """Figures for ``tablemon bench numbers``: per clip and pooled by set, part and height.
    The recorded patches are read again by the reader in ``reader_dir`` (default: the
    shipped one; ``bench.numbers_record.reread``), so a kept record never gives another
    reader's figures and readers are compared on the same reads."""
    from bench.bench_ballnet import number_visibility
    from bench.numbers_record import cached, live_ids, replay_vote, reread

    cache = cache or out_dir / "numbers-cache"
    have, missing = clip_list(clips_dir if clips_dir is not None else out_dir / "number-clips")
    if quick:
        have = have[:1]
    per_clip: list[dict] = []
    before: list[dict] = []  # the same reads without the ink-size gate (the reader before)
    for base, kind, part, made in have:
        rec = cached(base, cache)
        if rec.reads:  # read by the reader asked for, whichever made the record
            rec = reread(rec, reader_dir)
        vis = number_visibility(*made) if made else None
        for gate, out in ((True, per_clip), (False, before)):
            got = replay_vote(rec, gate=gate)
            s = score_clip(base, live_ids(rec.rows, got), vis)
            by = {"read": 0, "elimination": 0}
            for _, _, how in got.values():
                by[how] += 1
            s.update(
                clip=base.name,
                set=kind,
                part=part,
                height=height(rec.size),
                frames=rec.frames,
                seconds=rec.seconds,
                numbers_given=by,
            )
            out.append(s)
    tables = {}
    for title, clips in (("before (no ink-size gate)", before), ("shipped", per_clip)):
        print(f"{title}:")
        tables[title] = print_table(clips)
    for m in missing:
        print(f"skipped: {m}")
    cost = reader_cost(5 if quick else 20)
    for c in cost:
        print(
            f"reader, one core: {c['picture']} (r {c['radius_px']:.0f} px)"
            f" {c['cpu_ms_per_ball']:.2f} ms a ball"
        )
    speed = [
        {"clip": c["clip"], "height": c["height"], "fps_wall": c["frames"] / c["seconds"]}
        for c in per_clip
        if c["seconds"]
    ]
    return {
        "per_clip": per_clip,
        "pooled": tables["shipped"],
        "pooled_before": tables["before (no ink-size gate)"],
        "skipped": missing,
        "reader_cost": cost,
        "replay_fps_wall": speed,
    }


def print_table(per_clip: list[dict]) -> dict:
    """Print and return the pooled right / wrong / unread / asked by set, part and height."""
    head = f"{'set':>8} {'part':>5} {'height':>6} {'ball-shots':>10}" + "".join(
        f" {k:>12}" for k in OUTCOMES
    )
    print(head + "   right of visible")
    table = {}
    for kind in ("own", "foreign"):
        for part in ("fit", "kept"):
            for h in ("720p", "1080p", "2160p"):
                p = pooled(per_clip, set=kind, part=part, height=h)
                if not p["ball_shots"]:
                    continue
                table[f"{kind}_{part}_{h}"] = p
                cells = "".join(f" {p[k]:>4} {100 * p[k + '_share']:5.1f}%" for k in OUTCOMES)
                vis = ""
                if p.get("visible_ball_shots"):
                    vis = f"   {p['visible_right']}/{p['visible_ball_shots']}"
                    vis += f" {100 * p['visible_right_share']:5.1f}%"
                print(f"{kind:>8} {part:>5} {h:>6} {p['ball_shots']:>10}{cells}{vis}")
    return table


def reader_cost(repeats: int = 20) -> list[dict]:
    """CPU ms per ball of ``NumberReader.read`` (tight patch cut, ink size, four turns) on
    16 balls of a 1080p picture (radius 15 px) and of a 4K one (30 px): the reader works on
    32 px patches, so its cost should not grow with the picture."""
    import time

    from vision.numbers.reader import NumberReader

    reader = NumberReader.load(threads=1)
    rng = np.random.default_rng(0)
    out = []
    for (w, h), r in (((1920, 1080), 15.0), ((3840, 2160), 30.0)):
        img = rng.integers(0, 255, (h, w, 3), np.uint8)
        uv = np.c_[rng.uniform(50, w - 50, 16), rng.uniform(50, h - 50, 16)]
        radii = np.full(16, r)
        reader.read(img, uv, radii)  # warm-up
        c0 = time.process_time()
        for _ in range(repeats):
            reader.read(img, uv, radii)
        ms = (time.process_time() - c0) / repeats / 16 * 1e3
        out.append({"picture": f"{w}x{h}", "radius_px": r, "cpu_ms_per_ball": ms})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out"))
    ap.add_argument("--clips", type=Path, help="folder of own renders (default OUT/number-clips)")
    ap.add_argument(
        "--cache", type=Path, help="folder of recorded reads (default OUT/numbers-cache)"
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reader", type=Path, help="read the recorded patches again with this reader")
    a = ap.parse_args()
    from bench.cli import plain

    figures = run(a.out, a.quick, a.clips, a.cache, a.reader)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "numbers.json").write_text(json.dumps(plain(figures), indent=2) + "\n")
    print(f"wrote {a.out / 'numbers.json'}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
