"""``tablemon bench NAME [--out DIR] [--quick]``: run one benchmark by name.

A benchmark is a module ``bench/bench_<name>.py`` exposing
``run(out_dir: Path, quick: bool) -> dict``: it prints its table and returns the
JSON-able figures, which this command writes to ``OUT/NAME.json``. Benchmarks are found
by module name (no list to keep up to date); ``tablemon bench list`` prints them.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import pkgutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from contract.match import write_json_atomic

PREFIX = "bench_"


def known_benchmarks(package: str = "bench") -> list[str]:
    """Names of the benchmark modules ``<package>.bench_<name>``, sorted."""
    pkg = importlib.import_module(package)
    return sorted(
        m.name[len(PREFIX) :]
        for m in pkgutil.iter_modules(pkg.__path__)
        if m.name.startswith(PREFIX) and not m.ispkg
    )


def plain(obj: Any) -> Any:
    """Figures -> plain JSON: objects with ``to_json()`` (a scorer :class:`Report`),
    dataclasses, numpy scalars and arrays, paths, tuples; NaN and infinities become null
    (JSON has no NaN)."""
    if callable(getattr(obj, "to_json", None)):
        obj = obj.to_json()
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = dataclasses.asdict(obj)
    if isinstance(obj, Mapping):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist())
    if isinstance(obj, list | tuple | set | frozenset):
        return [plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return plain(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, Path):
        return str(obj)
    return obj


def run_benchmark(name: str, out_dir: Path, quick: bool, package: str = "bench") -> dict:
    """Run ``<package>.bench_<name>.run`` and write its figures to ``out_dir/NAME.json``."""
    try:
        mod = importlib.import_module(f"{package}.{PREFIX}{name}")
    except ImportError as e:
        raise ValueError(f"benchmark {name!r} cannot be imported: {e}") from None
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = mod.run(out_dir, quick)
    if not isinstance(figures, Mapping):
        raise ValueError(f"benchmark {name!r}: run() returned {type(figures).__name__}, not a dict")
    data = plain(figures)
    write_json_atomic(out_dir / f"{name}.json", data)
    return data


def run_cli(args: argparse.Namespace, package: str = "bench") -> int:
    names = known_benchmarks(package)
    if args.name == "list":
        print("\n".join(names) if names else "no benchmarks yet")
        return 0
    if args.name not in names:
        print(
            f"tablemon: unknown benchmark {args.name!r}; known: {', '.join(names) or 'none yet'}",
            file=sys.stderr,
        )
        return 2
    out = Path(args.out)
    run_benchmark(args.name, out, bool(args.quick), package)
    print(f"wrote {out / (args.name + '.json')}")
    return 0
