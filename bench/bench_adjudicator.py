"""Benchmark: judging a 200-shot match with ``adjudicator.engine.judge_match``, per game.

``run(out_dir, quick)`` builds one deterministic 200-shot match per game (events and rest
positions in table mm, a mix of pots, misses, fouls, balls off the table, cue-ball pots and
referee input), judges it ``repeats`` times from cold (the per-shot event views are cleared
between repeats) and reports mean / p95 / max milliseconds per whole match. The goal is
< 50 ms per 200-shot match. ``bench/cli.py`` (``tablemon bench adjudicator``) writes the
returned figures as JSON; this module only prints the table.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
from pathlib import Path

from adjudicator.base import MatchSettings
from adjudicator.engine import judge_match
from adjudicator.pyramid import view as view_mod
from contract.match import Match

N_SHOTS = 200
GOAL_MS = 50.0
PYRAMID = ("pyramid-free", "pyramid-combined", "pyramid-dynamic", "pyramid-classic")
POCKETS = ("front-left", "front-right", "middle-left", "middle-right", "back-left", "back-right")
CUSHIONS = ("front", "back", "left", "right")


def _ev(f: int, **kw) -> dict:
    return {"frame": f, "t": round(f / 30.0, 3), **kw}


def pyramid_match(game: str, n: int = N_SHOTS, seed: int = 0) -> Match:
    """A deterministic ``n``-shot pyramid match: shots of 3–9 events with rest positions."""
    rng = random.Random(seed)
    balls = [str(i) for i in range(1, 16)]
    shots = []
    f = 0
    for i in range(1, n + 1):
        if len(balls) < 4:
            balls = [str(k) for k in range(1, 16)]
        cue = rng.choice(balls) if game == "pyramid-free" and rng.random() < 0.3 else "yellow"
        obj = rng.choice([b for b in balls if b != cue])
        kind = rng.random()
        ev = [_ev(f + 1, type="strike", ball=cue)]
        ref: dict = {}
        if kind < 0.08:  # no contact
            ev.append(_ev(f + 5, type="cushion", ball=cue, cushion=rng.choice(CUSHIONS)))
        else:
            ev.append(_ev(f + 4, type="contact", balls=[cue, obj]))
            ev.append(_ev(f + 6, type="cross", ball=obj, line="centre"))
            ev.append(_ev(f + 8, type="cushion", ball=obj, cushion=rng.choice(CUSHIONS)))
            if kind < 0.55:
                pocket = rng.choice(POCKETS)
                ev.append(_ev(f + 10, type="pocket", ball=obj, pocket=pocket))
                balls.remove(obj)
                if game == "pyramid-classic":
                    ref["call"] = {"ball": obj, "pocket": pocket}
            if 0.55 <= kind < 0.62:
                ev.append(_ev(f + 11, type="off_table", ball=rng.choice(balls)))
            if 0.62 <= kind < 0.68:
                ev.append(_ev(f + 12, type="pocket", ball=cue, pocket=rng.choice(POCKETS)))
            if 0.68 <= kind < 0.72:
                ref["fouls"] = ["foot"]
        rest = {b: (rng.uniform(40, 3510), rng.uniform(40, 1735)) for b in balls}
        if cue == "yellow":
            rest["yellow"] = (rng.uniform(40, 3510), rng.uniform(40, 1735))
        shot = {
            "index": i,
            "start": {"frame": f + 1, "t": round((f + 1) / 30.0, 3)},
            "end": {"frame": f + 40, "t": round((f + 40) / 30.0, 3)},
            "cue_ball": cue,
            "events": ev,
            "rest": rest,
        }
        if ref:
            shot["referee"] = ref
        shots.append(shot)
        f += 50
    return Match.model_validate({"game": game, "table": "pyramid-12ft", "shots": shots})


def carom_match(n: int = N_SHOTS, seed: int = 0) -> Match:
    """A deterministic ``n``-shot 5-pin match (white/yellow alternate, red, skittles)."""
    rng = random.Random(seed)
    shots = []
    f = 0
    for i in range(1, n + 1):
        cue = "white" if i % 2 else "yellow"
        obj = "yellow" if cue == "white" else "white"
        ev = [_ev(f + 1, type="strike", ball=cue), _ev(f + 4, type="contact", balls=[cue, obj])]
        if rng.random() < 0.5:
            ev.append(
                _ev(f + 8, type="skittle_down", skittle=rng.choice(("left", "right")), by=obj)
            )
        ev.append(_ev(f + 9, type="cushion", ball=obj, cushion=rng.choice(CUSHIONS)))
        rest = {
            b: (rng.uniform(40, 2800), rng.uniform(40, 1380)) for b in ("white", "yellow", "red")
        }
        shots.append(
            {
                "index": i,
                "start": {"frame": f + 1, "t": round((f + 1) / 30.0, 3)},
                "end": {"frame": f + 40, "t": round((f + 40) / 30.0, 3)},
                "cue_ball": cue,
                "events": ev,
                "rest": rest,
            }
        )
        f += 50
    return Match.model_validate({"game": "carom-5pin", "table": "carom-match", "shots": shots})


def _time(match: Match, settings: MatchSettings, repeats: int) -> tuple[list[float], list[float]]:
    """Wall-clock and process-CPU milliseconds of each repeat (CPU time discounts the wait
    for a core on a shared machine; wall time is what a caller sees)."""
    wall, cpu = [], []
    for _ in range(repeats):
        view_mod._CACHE.clear()  # judge from cold: no event views kept from the last repeat
        t0, c0 = time.perf_counter(), time.process_time()
        judge_match(match, settings)
        wall.append((time.perf_counter() - t0) * 1000.0)
        cpu.append((time.process_time() - c0) * 1000.0)
    return wall, cpu


def reference_ms() -> float:
    """CPU ms of a fixed pure-Python loop (best of 5): how fast this machine ran Python
    while measuring; compare runs on different machines or loads by it."""
    best = float("inf")
    for _ in range(5):
        c0 = time.process_time()
        acc = 0
        for i in range(300_000):
            acc += i % 7
        best = min(best, (time.process_time() - c0) * 1000.0)
    return round(best, 2)


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def run(out_dir: Path, quick: bool = False) -> dict:
    """Time every game; print a table; return the figures (ms per 200-shot match)."""
    repeats = 5 if quick else 30
    rows: dict[str, dict] = {}
    games = [(g, pyramid_match(g), MatchSettings(game=g, race_to=99)) for g in PYRAMID]
    games.append(
        (
            "carom-5pin",
            carom_match(),
            MatchSettings(game="carom-5pin", table="carom-match", race_to=99),
        )
    )
    for game, match, settings in games:
        try:
            judge_match(match, settings)  # warm imports and table specs
            ms, cpu = _time(match, settings, repeats)
        except Exception as e:  # a game that cannot judge the synthetic match is reported
            rows[game] = {"error": f"{type(e).__name__}: {e}".splitlines()[0]}
            continue
        rows[game] = {
            "shots": len(match.shots),
            "repeats": repeats,
            "mean_ms": round(statistics.fmean(ms), 3),
            "p95_ms": round(_p95(ms), 3),
            "max_ms": round(max(ms), 3),
            "cpu_mean_ms": round(statistics.fmean(cpu), 3),
            "cpu_p95_ms": round(_p95(cpu), 3),
            "per_shot_us": round(statistics.fmean(ms) * 1000.0 / len(match.shots), 1),
            "goal_ms": GOAL_MS,
            "pass": _p95(ms) < GOAL_MS,
            "pass_cpu": _p95(cpu) < GOAL_MS,
        }
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    ref = reference_ms()
    print(
        f"{'game':<18} {'shots':>5} {'mean ms':>8} {'p95 ms':>8} {'max ms':>8} "
        f"{'cpu mean':>8} {'cpu p95':>8}  goal p95 < {GOAL_MS:.0f} ms (wall / cpu)"
    )
    for game, r in rows.items():
        if "error" in r:
            print(f"{game:<18} error: {r['error']}")
            continue
        print(
            f"{game:<18} {r['shots']:>5} {r['mean_ms']:>8.2f} {r['p95_ms']:>8.2f} "
            f"{r['max_ms']:>8.2f} {r['cpu_mean_ms']:>8.2f} {r['cpu_p95_ms']:>8.2f}  "
            f"{'ok' if r['pass'] else 'FAIL'} / {'ok' if r['pass_cpu'] else 'FAIL'}"
        )
    if load is not None:
        print(f"load average (1 min): {load:.2f}, cores: {os.cpu_count()}, reference loop {ref} ms")
    return {
        "benchmark": "adjudicator",
        "quick": quick,
        "load_avg_1min": load,
        "reference_ms": ref,
        "games": rows,
    }


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/out")
    print(json.dumps(run(out, quick="--quick" in sys.argv), indent=1))
