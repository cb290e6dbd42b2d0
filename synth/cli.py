"""``tablemon synth SCENARIO [--out DIR] [--seed N] [--size 1080|720] [--name NAME]
[--count N]``: simulate and render synthetic clips with exact ground truth (contract §9).

``tablemon synth list`` lists the scenarios; ``tablemon synth fixtures`` regenerates every
committed clip of ``fixtures/videos`` (names, scenarios, seeds and sizes in
:data:`FIXTURES`). Every file is a pure function of the scenario, seed and size.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from synth.clip import build_clip, first_strokes, replace_size
from synth.lag import CASES as LAG_CASES
from synth.scenarios import SCENARIOS, scenario
from synth.truth import write_truth

SIZES = {"2160": (3840, 2160), "1080": (1920, 1080), "720": (1280, 720)}

# name, scenario, seed, size, strokes kept (0: all): the committed fixtures, kept short
# (fixtures/videos/README.md)
FIXTURES: tuple[tuple[str, str, int, str, int], ...] = (
    ("pyramid-break", "pyramid-break", 0, "720", 1),
    ("pyramid-respot", "pyramid-respot", 1, "720", 0),
    ("carom-5pin-break", "carom-5pin-break", 0, "720", 1),
    ("pyramid-knock-1080", "pyramid-knock", 5, "1080", 0),
)


def can_render() -> bool:
    """True when the renderer (synth.render, synth.camera) is importable."""
    return all(importlib.util.find_spec(m) is not None for m in ("synth.render", "synth.camera"))


def make(
    scenario_name: str,
    seed: int,
    size: str,
    out: Path,
    name: str,
    render: bool | None = None,
    strokes: int = 0,
) -> list[Path]:
    """Plan, simulate, (render) and write one clip (only its first ``strokes`` strokes
    when > 0); returns the files written."""
    spec = replace_size(scenario(scenario_name)(seed), SIZES[size])
    if strokes > 0:
        spec = first_strokes(spec, strokes)
    clip = build_clip(spec)
    return write_truth(clip, out, name, render=can_render() if render is None else render)


def run_cli(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if args.count < 1:
        raise ValueError(f"--count must be at least 1, got {args.count}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if args.scenario == "list":
        for n, fn in SCENARIOS.items():
            doc = " ".join((fn.__doc__ or "").strip().split("\n\n")[0].split())
            print(f"{n:24s} {doc}")
        for c in LAG_CASES:
            print(f"{'lag-' + c.name:24s} {scenario('lag-' + c.name).__doc__}")
        return 0
    if not can_render():
        print("tablemon synth: renderer not available; writing truth files only", file=sys.stderr)
    if args.scenario == "fixtures":
        for name, scen, seed, size, strokes in FIXTURES:
            files = make(scen, seed, size, out, name, strokes=strokes)
            print(f"{name}: " + ", ".join(p.name for p in files))
        return 0
    scenario(args.scenario)  # unknown names fail here with one line
    size = args.size or "720"
    for i in range(args.count):
        seed = args.seed + i
        base = args.name or f"{args.scenario}-{seed}"
        name = base if args.count == 1 or not args.name else f"{base}-{i}"
        files = make(args.scenario, seed, size, out, name)
        print(f"{name}: " + ", ".join(p.name for p in files))
    return 0
