"""Small helpers for labelling the real footage by eye (bench/real_labels.md).

Everything written goes to a scratch folder (``/tmp/labels`` by default): frames of
``../shared/footage`` are not licensed for redistribution and must never be committed.

Usage::

    python -m bench.label_tools info
    python -m bench.label_tools sheet pool-9ball-overhead/clip1.mp4 --step 5
    python -m bench.label_tools sheet CLIP --start 100 --stop 160 --step 1 --scale 0.4
    python -m bench.label_tools frame CLIP 123 [--crop x0 y0 x1 y1]
    python -m bench.label_tools motion CLIP   # per-frame mean abs difference (0-255 grey)

Frame numbers are 0-based, in the order cv2 decodes them; pixel boxes are in the
clip's own pixels.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from contract.tables import POCKET_NAMES

FOOTAGE = Path(__file__).resolve().parents[2] / "shared" / "footage"
SCRATCH = Path("/tmp/labels")
LABELS = Path(__file__).resolve().parent / "real_labels.json"
LABELS_FORMAT = "tablemon-real-labels/1"
FRONTS = ("image-left", "image-right", "image-top", "image-bottom")


def load_labels(path: Path = LABELS) -> dict:
    """Read and check ``real_labels.json``; raise ValueError (one line) when it is malformed."""
    try:
        labels = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read labels: {exc}") from None
    problems = validate(labels)
    if problems:
        raise ValueError(f"{path}: {problems[0]} ({len(problems)} problem(s))")
    return labels


def _frame(v, n: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n


def _check_clip(name: str, c: dict) -> list[str]:
    """Problems in one clip's labels (frame numbers 0-based, below ``frames``)."""
    out: list[str] = []
    n = c.get("frames")
    if not (isinstance(n, int) and n > 0):
        return [f"{name}: frames must be a positive int"]
    if not (isinstance(c.get("fps"), (int, float)) and c["fps"] > 0):
        out.append(f"{name}: fps must be > 0")
    size = c.get("size")
    if not (
        isinstance(size, list)
        and len(size) == 2
        and all(isinstance(v, int) and v > 0 for v in size)
    ):
        out.append(f"{name}: size must be [w, h] in pixels")
    if c.get("front") not in FRONTS:
        out.append(f"{name}: front must be one of {FRONTS}")
    pocketless = "carom" in str(c.get("table", ""))
    last_strike = -1
    for k, s in enumerate(c.get("shots", [])):
        tag = f"{name} shot {k}"
        strike, rest = s.get("strike"), s.get("rest")
        if not _frame(strike, n) or strike <= last_strike:
            out.append(f"{tag}: strike must be a frame after the previous strike")
            continue
        last_strike = strike
        if rest is not None and not (_frame(rest, n) and rest > strike):
            out.append(f"{tag}: rest must be null or a frame after the strike")
        end = rest if rest is not None else n
        for p in s.get("pockets", []):
            if pocketless:
                out.append(f"{tag}: a pocket on a carom table")
            if not (_frame(p.get("frame"), n) and strike < p["frame"] <= end):
                out.append(f"{tag}: pocket frame {p.get('frame')} outside the shot")
            if p.get("pocket") not in POCKET_NAMES:
                out.append(f"{tag}: unknown pocket {p.get('pocket')!r}")
            if not isinstance(p.get("ball"), str) or not p["ball"]:
                out.append(f"{tag}: pocketed ball needs a name")
        for o in s.get("off_table", []):
            if not (_frame(o.get("frame"), n) and strike < o["frame"] <= end):
                out.append(f"{tag}: off_table frame outside the shot")
    counts = c.get("rest_counts", [])
    for r in counts:
        if not _frame(r.get("frame"), n) or not isinstance(r.get("balls"), int):
            out.append(f"{name}: rest count needs a frame and an int balls")
        elif len(r.get("colours", [])) != r["balls"]:
            out.append(
                f"{name}: rest count at {r['frame']} lists {len(r.get('colours', []))} colours for {r['balls']} balls"
            )
    out += _check_conservation(name, c)
    for occ in c.get("occlusions", []):
        if not (len(occ) == 3 and _frame(occ[0], n) and _frame(occ[1], n) and occ[0] <= occ[1]):
            out.append(f"{name}: occlusion {occ!r} must be [f0, f1, what] with f0 <= f1 < frames")
    return out


def _check_conservation(name: str, c: dict) -> list[str]:
    """Balls after each shot = balls before - pocketed - off the table (rest and last frame)."""
    out: list[str] = []
    at = {
        r["frame"]: r["balls"] for r in c.get("rest_counts", []) if isinstance(r.get("frame"), int)
    }
    last = c.get("last_frame") or {}
    for k, s in enumerate(c.get("shots", [])):
        before = [b for f, b in at.items() if isinstance(s.get("strike"), int) and f < s["strike"]]
        if not before:
            continue
        lost = len(s.get("pockets", [])) + len(s.get("off_table", []))
        after = at.get(s["rest"]) if s.get("rest") is not None else None
        if after is None and k == len(c["shots"]) - 1 and isinstance(last.get("balls"), int):
            after = last["balls"]
        if after is not None and after != before[-1] - lost:
            out.append(f"{name} shot {k}: {before[-1]} balls - {lost} lost != {after} after")
    return out


def validate(labels: dict) -> list[str]:
    """All problems found in a labels document (empty list when it is well formed)."""
    if not isinstance(labels, dict) or labels.get("format") != LABELS_FORMAT:
        return [f"format must be {LABELS_FORMAT!r}"]
    clips = labels.get("clips")
    if not isinstance(clips, dict) or not clips:
        return ["clips must be a non-empty object"]
    out: list[str] = []
    for name, c in clips.items():
        out += _check_clip(name, c)
    for folder, st in labels.get("stills", {}).items():
        for img, cnt in st.get("counts", {}).items():
            if not (
                isinstance(cnt.get("balls"), int)
                and cnt["balls"] == cnt.get("reds", 0) + len(cnt.get("colours", [])) - 1
            ):
                out.append(f"{folder}/{img}: balls must equal reds + the other colours")
    return out


def read_frames(clip: str, start: int = 0, stop: int | None = None, step: int = 1):
    """Yield ``(index, BGR frame)`` for frames ``start <= i < stop`` every ``step``."""
    cap = cv2.VideoCapture(str(FOOTAGE / clip))
    if not cap.isOpened():
        raise ValueError(f"cannot open {clip}")
    i = 0
    try:
        while stop is None or i < stop:
            ok, img = cap.read()
            if not ok:
                break
            if i >= start and (i - start) % step == 0:
                yield i, img
            i += 1
    finally:
        cap.release()


def info(clip: str) -> tuple[float, int, tuple[int, int]]:
    """Return ``(fps, decoded frame count, (width, height) in pixels)``."""
    cap = cv2.VideoCapture(str(FOOTAGE / clip))
    fps = cap.get(cv2.CAP_PROP_FPS)
    n = 0
    size = (0, 0)
    while True:
        ok, img = cap.read()
        if not ok:
            break
        size = (img.shape[1], img.shape[0])
        n += 1
    cap.release()
    return fps, n, size


def _tile(img: np.ndarray, label: str, scale: float, crop) -> np.ndarray:
    if crop:
        x0, y0, x1, y1 = crop
        img = img[y0:y1, x0:x1]
    t = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    cv2.putText(t, label, (4, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4)
    cv2.putText(t, label, (4, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 255, 255), 2)
    return t


def sheet(
    clip: str,
    start: int = 0,
    stop: int | None = None,
    step: int = 5,
    scale: float = 0.2,
    cols: int = 5,
    crop=None,
    out: Path | None = None,
) -> Path:
    """Tile every ``step``-th frame (downscaled by ``scale``) with its number; return the path."""
    tiles = [_tile(img, str(i), scale, crop) for i, img in read_frames(clip, start, stop, step)]
    if not tiles:
        raise ValueError(f"no frames in {clip} [{start}, {stop})")
    h, w = tiles[0].shape[:2]
    rows = (len(tiles) + cols - 1) // cols
    canvas = np.zeros((rows * h, cols * w, 3), np.uint8)
    for k, t in enumerate(tiles):
        r, c = divmod(k, cols)
        canvas[r * h : (r + 1) * h, c * w : (c + 1) * w] = t
    SCRATCH.mkdir(parents=True, exist_ok=True)
    name = clip.replace("/", "_").replace(".mp4", "")
    out = out or SCRATCH / f"{name}_{start}_{stop}_{step}.png"
    cv2.imwrite(str(out), canvas)
    return out


def motion(clip: str) -> list[float]:
    """Per-frame mean absolute grey difference to the previous frame (0-255 units)."""
    prev = None
    out: list[float] = []
    for _, img in read_frames(clip):
        g = cv2.cvtColor(cv2.resize(img, None, fx=0.25, fy=0.25), cv2.COLOR_BGR2GRAY)
        g = g.astype(np.int16)
        out.append(0.0 if prev is None else float(np.abs(g - prev).mean()))
        prev = g
    return out


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cmd", choices=["info", "sheet", "frame", "motion"])
    p.add_argument("clip", nargs="?")
    p.add_argument("index", nargs="?", type=int)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--stop", type=int)
    p.add_argument("--step", type=int, default=5)
    p.add_argument("--scale", type=float, default=0.2)
    p.add_argument("--cols", type=int, default=5)
    p.add_argument("--crop", type=int, nargs=4)
    a = p.parse_args(argv)
    if a.cmd == "info":
        clips = (
            [a.clip]
            if a.clip
            else sorted(str(q.relative_to(FOOTAGE)) for q in FOOTAGE.rglob("*.mp4"))
        )
        for c in clips:
            fps, n, size = info(c)
            print(f"{c}\t{fps:.3f} fps\t{n} frames\t{size[0]}x{size[1]}")
    elif a.cmd == "sheet":
        print(sheet(a.clip, a.start, a.stop, a.step, a.scale, a.cols, a.crop))
    elif a.cmd == "frame":
        for i, img in read_frames(a.clip, a.index, a.index + 1):
            if a.crop:
                x0, y0, x1, y1 = a.crop
                img = img[y0:y1, x0:x1]
            SCRATCH.mkdir(parents=True, exist_ok=True)
            out = SCRATCH / f"{a.clip.replace('/', '_')}_{i}.png"
            cv2.imwrite(str(out), img)
            print(out)
    else:
        for i, m in enumerate(motion(a.clip)):
            print(i, f"{m:.2f}")


if __name__ == "__main__":
    main()
