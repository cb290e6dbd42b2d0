"""Live capacity (issue 29): how many 1080p tables at 30 fps this machine holds, and what
happens at twice that.

N tables at once, each a live worker process (:func:`service.live.worker_main`, the real
vision, niced as the service runs it: ``TABLEMON_LIVE_NICE``, default 10) playing the
1080p fixture ``pyramid-knock-1080`` (7.9 s, two shots, a camera knock between them) as
a camera would. A table *holds* when every shot of the clip is recorded with the idle
run's verdict (the truth's), none flagged, no frame lost, and its worst lag (the oldest
frame waiting for the vision) stays under :data:`LAG_GOAL_S`. N goes 1, 2, 3 ... until a
run does not hold (at most :data:`MAX_TABLES`); then twice the largest N that held is
run, where every shot must still be recorded or flagged (``unseen``), none invented.
(twice one table where none holds). ``--quick``: N = 1 and 2 only.

    tablemon bench capacity [--out OUT] [--quick]

prints a table (and the machine's cores and load) and writes ``OUT/capacity.json``.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import queue
import time
from pathlib import Path

from adjudicator.engine import judge_match
from contract.match import Match, read_match

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "videos"
CLIP = FIXTURES / "pyramid-knock-1080.mp4"
LAG_GOAL_S = 2.0
MAX_TABLES = 8
RUN_LIMIT_S = 180.0  # a run still going after this long is stopped (and says so)


def score_table(truth: Match, shots: list[dict]) -> dict:
    """The live ``shots`` (contract §8 dicts, unnumbered) of one table against the clip's
    truth: ``recorded`` truth shots with one unflagged shot of the truth's verdict,
    ``flagged`` truth shots covered by flagged (``unseen``) shots only (a flagged shot
    covers its frames and the unseen ones it names), ``wrong`` truth
    shots recorded unflagged with another verdict, ``lost`` truth shots no shot covers,
    ``invented`` shots covering no truth shot."""
    live = Match.model_validate(
        {
            "game": truth.game,
            "table": truth.table,
            "shots": [{**s, "index": i + 1} for i, s in enumerate(shots)],
        }
    )
    judged = judge_match(live)[0].shots

    def over(s, t) -> bool:  # a shot's frames: its own and the unseen ones it names
        a = min(s.start.frame, s.unseen.start if s.unseen else s.start.frame)
        b = max(s.end.frame, s.unseen.stop if s.unseen else s.end.frame)
        return a <= t.end.frame and t.start.frame <= b

    out = {"recorded": 0, "flagged": 0, "wrong": 0, "lost": 0, "invented": 0}
    for t in truth.shots:
        mine = [s for s in judged if over(s, t)]
        sure = [s for s in mine if s.unseen is None]
        if not mine:
            out["lost"] += 1
        elif not sure:
            out["flagged"] += 1
        else:
            v, tv = sure[0].verdict, t.verdict
            same = (v.legal, v.fouls, v.scored, v.next) == (tv.legal, tv.fouls, tv.scored, tv.next)
            out["recorded" if same and len(sure) == 1 else "wrong"] += 1
    out["invented"] = sum(not any(over(s, t) for t in truth.shots) for s in judged)
    out["shots"] = len(judged)
    return out


def run_tables(n: int, nice: int) -> list[dict]:
    """``n`` live tables at once on :data:`CLIP`; per table its shots and last health."""
    from service.live import worker_main

    calib = json.loads(CLIP.with_suffix(".calib.json").read_text(encoding="utf-8"))
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    stop = ctx.Event()
    procs = [
        ctx.Process(
            target=worker_main,
            args=(i, str(CLIP), "", calib, q, stop),
            kwargs={"nice": nice},
            daemon=True,
        )
        for i in range(n)
    ]
    for p in procs:
        p.start()
    shots: dict[int, list[dict]] = {i: [] for i in range(n)}
    health: dict[int, dict] = {}
    states: dict[int, set[str]] = {i: set() for i in range(n)}
    end = time.monotonic() + RUN_LIMIT_S
    while any(p.is_alive() for p in procs) or not q.empty():
        if time.monotonic() > end:
            stop.set()
        try:
            m = q.get(timeout=0.2)
        except queue.Empty:
            continue
        if m["type"] == "shot":
            shots[m["table"]].append(m["shot"])
        elif m["type"] == "status":
            health[m["table"]] = m["health"]
            states[m["table"]].add(m["health"]["state"])
    for p in procs:
        p.join(timeout=5)
    return [
        {"shots": shots[i], "health": health.get(i, {}), "states": sorted(states[i])}
        for i in range(n)
    ]


def one_run(n: int, truth: Match, nice: int) -> dict:
    t0 = time.monotonic()
    load0 = os.getloadavg()[0]
    tables = run_tables(n, nice)
    rows = []
    for tb in tables:
        sc = score_table(truth, tb["shots"])
        h = tb["health"]
        holds = (
            sc["recorded"] == len(truth.shots)
            and sc["shots"] == len(truth.shots)
            and h.get("lost", 1) == 0
            and h.get("max_lag_s", 1e9) < LAG_GOAL_S
        )
        seen = [{k: s.get(k) for k in ("start", "end", "unseen", "uncertain")} for s in tb["shots"]]
        rows.append({**sc, "health": h, "states": tb["states"], "holds": holds, "seen": seen})
    return {
        "tables": n,
        "holds": all(r["holds"] for r in rows),
        "every_shot_recorded_or_flagged": all(r["lost"] == 0 for r in rows),
        "invented": sum(r["invented"] for r in rows),
        "wall_s": round(time.monotonic() - t0, 1),
        "load_before": round(load0, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "per_table": rows,
    }


def _print(run: dict, truth: Match) -> None:
    rows = run["per_table"]
    worst = max(r["health"].get("max_lag_s", float("nan")) for r in rows)
    lost = sum(r["health"].get("lost", 0) for r in rows)
    frames = sum(r["health"].get("frames_in", 0) for r in rows)
    print(
        f"{run['tables']:6d} {'yes' if run['holds'] else 'no':>5s} "
        f"{sum(r['recorded'] for r in rows):4d}/{len(truth.shots) * len(rows):<3d} "
        f"{sum(r['flagged'] for r in rows):7d} {sum(r['wrong'] for r in rows):5d} "
        f"{sum(r['lost'] for r in rows):5d} {run['invented']:8d} {worst:9.2f} "
        f"{lost:6d}/{frames:<6d} {run['load_before']:5.1f}->{run['load_after']:<5.1f}"
    )


def run(out_dir: Path, quick: bool) -> dict:
    truth = read_match(CLIP.with_suffix(".truth.json"))
    nice = int(os.environ.get("TABLEMON_LIVE_NICE", "10"))
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    print(
        f"{CLIP.name} (1920x1080, 30 fps, {len(truth.shots)} shots) per table; {cores} cores "
        f"({usable} usable), live vision at nice {nice}; lag goal {LAG_GOAL_S} s"
    )
    print(
        f"{'tables':>6s} {'holds':>5s} {'recorded':>8s} {'flagged':>7s} {'wrong':>5s} "
        f"{'lost':>5s} {'invented':>8s} {'max lag s':>9s} {'frames lost':>13s} {'load':>11s}"
    )
    runs: list[dict] = []
    held = 0
    for n in [1, 2] if quick else range(1, MAX_TABLES + 1):
        runs.append(one_run(n, truth, nice))
        _print(runs[-1], truth)
        if runs[-1]["holds"] and held == n - 1:
            held = n
        elif not quick:
            break
    double = 2 * max(held, 1)  # twice what it holds (twice one table when none holds)
    if double not in [r["tables"] for r in runs]:
        runs.append(one_run(double, truth, nice))
        _print(runs[-1], truth)
    twice = next(r for r in runs if r["tables"] == double)
    print(
        f"holds {held} table(s) of 1080p at 30 fps (no shot lost, lag < {LAG_GOAL_S} s)"
        + f"; at {twice['tables']}: every shot recorded or flagged: "
        f"{'yes' if twice['every_shot_recorded_or_flagged'] else 'NO'}, "
        f"invented {twice['invented']}"
    )
    return {
        "clip": CLIP.name,
        "cores": cores,
        "usable_cores": usable,
        "nice": nice,
        "lag_goal_s": LAG_GOAL_S,
        "quick": quick,
        "holds_tables": held,
        "twice": {k: twice[k] for k in ("tables", "every_shot_recorded_or_flagged", "invented")},
        "runs": runs,
    }
