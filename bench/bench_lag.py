"""``tablemon bench lag``: lags judged from what the vision sees, against the exact truth.

Every lag case of :mod:`synth.lag` (both games: clean lags 5-300 mm apart, near ties, each
way of losing, a late start, a collision) is simulated; its truth (a MATCH.json with the
exact events and rest positions, judged as exact) says who won or why a ball lost. The
lag is then read as tablemon reads it:

- ``tracks`` (always): the exact positions of every frame with the measurement's errors put
  in: per frame noise (:data:`NOISE_MM`, one axis) and, per ball, a calibration error on its
  rest distance drawn from N(0, :data:`CAL_MM`) (tablemon's calibration on a table it never
  saw: issue 32), then cut into shots (:func:`vision.events.shots.cut_tracks`, told the
  calibration's uncertainty) and judged (:func:`adjudicator.engine.judge_match`);
- ``video``: lag clips on disk with truth (``fixtures/videos/lag*``, the kept-back clips in
  ``../shared/foreign-synth/*lag*``; any folder named by ``TABLEMON_LAG_CLIPS``, source ``extra``) are
  replayed as a user would (``tablemon replay``); ``TABLEMON_LAG_RENDER=N`` first renders
  the first N cases into OUT (CPU-heavy: off by default).

Each lag is one of: ``right`` (sure, the truth's winner or repeat), ``asked`` (too close to
call: right when one option is the truth's), ``wrong_sure`` (a wrong winner given as sure,
the figure that must stay 0), ``missed`` (no lag read). An automatic loss is recognised
when the same player lost for a reason. ``beyond_3u``: lags whose true difference exceeds 3
times the reported uncertainty, and how many of them were called right and sure.
``--quick``: two cases, tracks only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from adjudicator.engine import judge_match
from adjudicator.lag_call import LagBall, call_lag
from contract.events import Event
from contract.match import FrameTime, Match, MatchStart, Shot, read_match
from contract.tables import load_table
from synth.clip import build_clip
from synth.lag import CASES, LagCase, case, lag_spec
from synth.truth import truth_match, truth_tracks, write_truth
from vision.events.lag import REST_NOISE_MM
from vision.events.shots import cut_tracks

ROOT = Path(__file__).resolve().parents[1]
NOISE_MM = 0.3
CAL_MM = 1.5
QUICK = ("pyr-clean-40", "car-red")
DRAWS = 2000


@dataclass
class Lag:
    """One lag judged: the truth's and the reading's outcome."""

    name: str
    source: str
    truth_winner: str | None
    truth_losers: list[str]
    true_diff_mm: float | None
    outcome: str
    pred_winner: str | None = None
    pred_losers: list[str] = field(default_factory=list)
    uncertainty_mm: float | None = None
    why: str = ""


def lag_shot(m: Match) -> Shot | None:
    return next((s for s in m.shots if any(e.type == "lag" for e in s.events)), None)


def _lag(v) -> dict:
    return (v.__pydantic_extra__ or {}).get("lag") or {} if v is not None else {}


def judge(m: Match) -> Match:
    return judge_match(m.model_copy(update={"start": MatchStart(breaker="A")}))[0]


def compare(name: str, source: str, truth: Match, pred: Match | None) -> Lag:
    """The outcome of ``pred``'s lag against ``truth``'s (both judged)."""
    ts = lag_shot(truth)
    tl = _lag(ts.verdict)
    diff = None
    balls = tl.get("balls") or {}
    measured = all((balls.get(p) or {}).get("distance_mm") is not None for p in ("A", "B"))
    if balls and measured and not tl.get("losers") and "difference_mm" in tl:
        diff = abs(balls["A"]["distance_mm"] - balls["B"]["distance_mm"])
    row = Lag(name, source, tl.get("winner"), list(tl.get("losers", [])), diff, "missed")
    ps = lag_shot(pred) if pred is not None else None
    if ps is None or ps.verdict is None:
        row.why = "no lag read"
        return row
    pl = _lag(ps.verdict)
    row.pred_winner, row.pred_losers = pl.get("winner"), list(pl.get("losers", []))
    row.uncertainty_mm = pl.get("uncertainty_mm")
    row.why = (pl.get("why") or {}).get("en", "") if isinstance(pl.get("why"), dict) else ""
    if ps.verdict.uncertain:
        opts = [ps.verdict, *ps.verdict.readings]
        ok = any(_lag(v).get("winner") == row.truth_winner for v in opts)
        row.outcome = "asked_right" if ok else "asked_wrong"
    else:
        row.outcome = "right" if row.pred_winner == row.truth_winner else "wrong_sure"
    return row


def tracks_lag(c: LagCase, rng: np.random.Generator) -> tuple[Match, Match]:
    """The truth and the reading of case ``c`` from its exact tracks with errors put in."""
    spec = lag_spec(c)
    clip = build_clip(spec)
    truth = truth_match(clip)
    tr = truth_tracks(clip, None, None)
    table = load_table(spec.table)
    xy = np.c_[tr.x, tr.y] + rng.normal(0, NOISE_MM, (len(tr.x), 2))
    ids = np.asarray(tr.id)
    for b in set(ids.tolist()):
        xy[ids == b, 0] += rng.normal(0, CAL_MM)  # one calibration error a ball
    noisy = replace(tr, x=xy[:, 0], y=xy[:, 1])
    sigma = float(np.hypot(CAL_MM, REST_NOISE_MM))
    cut = cut_tracks(noisy, table, spec.fps, lag_sigma_mm=sigma)
    pred = Match(game=spec.game, table=spec.table, video=truth.video, shots=cut.shots)
    return judge(truth), judge(pred)


def video_clips(out_dir: Path) -> list[tuple[str, Path]]:
    """Lag clips with truth: rendered now (``TABLEMON_LAG_RENDER=N``), own and kept-back."""
    n = int(os.environ.get("TABLEMON_LAG_RENDER", "0") or 0)
    out: list[tuple[str, Path]] = []
    for c in CASES[:n]:
        write_truth(build_clip(lag_spec(c)), out_dir / "renders", f"lag-{c.name}", render=True)
    folders = [("own", out_dir / "renders"), ("own", ROOT / "fixtures" / "videos"),
               ("unseen", ROOT.parent / "shared" / "foreign-synth")]  # fmt: skip
    extra = os.environ.get("TABLEMON_LAG_CLIPS")
    if extra:
        folders.append(("extra", Path(extra)))
    for src, folder in folders:
        if folder.is_dir():
            for v in sorted(folder.glob("*lag*.mp4")):
                if v.with_name(v.stem + ".truth.json").is_file():
                    out.append((src, v))
    return out


def replay_lag(video: Path, out_dir: Path) -> tuple[Match, Match | None, str]:
    truth = judge(read_match(video.with_name(video.stem + ".truth.json")))
    pred_path = out_dir / f"{video.stem}.match.json"
    cmd = [sys.executable, "-m", "service.cli", "replay", str(video), "--game", str(truth.game),
           "--out", str(pred_path), "--no-progress"]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        return truth, None, (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
    return truth, judge(read_match(pred_path)), ""


def summary(rows: list[Lag]) -> dict:
    n = len(rows)
    count = {k: sum(r.outcome == k for r in rows) for k in
             ("right", "asked_right", "asked_wrong", "wrong_sure", "missed")}  # fmt: skip
    losses = [r for r in rows if r.truth_losers]
    seen = sum(r.pred_losers == r.truth_losers for r in losses)
    far = [r for r in rows if r.true_diff_mm is not None and r.uncertainty_mm
           and r.true_diff_mm > 3 * r.uncertainty_mm]  # fmt: skip
    return {
        "lags": n,
        **count,
        "automatic_losses": len(losses),
        "losses_recognised": seen,
        "beyond_3u": len(far),
        "beyond_3u_right_sure": sum(r.outcome == "right" for r in far),
    }


def rule_draws(rows: list[Lag], n: int, rng: np.random.Generator) -> dict:
    """The call rule alone (:func:`adjudicator.lag_call.call_lag`) over ``n`` draws of the
    calibration and rest errors per lag whose truth compares distances: each ball's
    measured distance is its true one plus N(0, sigma), sigma the per-ball uncertainty the
    tracks mode reports. Fractions of draws called right and sure, asked, wrong and sure."""
    sigma = float(np.hypot(CAL_MM, REST_NOISE_MM))
    ev = Event(frame=1, t=0.0, type="lag", balls=("a", "b"), uncertainty_mm=sigma)
    shot = Shot(index=1, start=FrameTime(frame=1, t=0.0), end=FrameTime(frame=2, t=0.1),
                events=(ev,))  # fmt: skip
    out = {}
    for r in rows:
        if r.source != "tracks" or r.true_diff_mm is None or r.truth_winner is None:
            continue
        da, db = (0.0, r.true_diff_mm) if r.truth_winner == "A" else (r.true_diff_mm, 0.0)
        tally = {"right_sure": 0, "asked": 0, "wrong_sure": 0}
        for ea, eb in rng.normal(0, sigma, (n, 2)):
            balls = {"A": LagBall("a", 500 + da + ea), "B": LagBall("b", 500 + db + eb)}
            c = call_lag(balls, shot, lambda ru, en: {"ru": ru, "en": en}, ("", ""))
            key = (
                "asked"
                if not c.sure
                else ("right_sure" if c.winner == r.truth_winner else "wrong_sure")
            )
            tally[key] += 1
        out[r.name] = {"true_diff_mm": r.true_diff_mm, **{k: v / n for k, v in tally.items()}}
    return out


def _print(rows: list[Lag], summ: dict) -> None:
    print(f"{'lag':<16} {'src':<7} {'truth':<6} {'read':<6} {'diff mm':>8} {'u mm':>6} outcome")
    for r in rows:
        tw = r.truth_winner or "replay"
        pw = r.pred_winner or ("replay" if r.outcome != "missed" else "-")
        d = f"{r.true_diff_mm:.1f}" if r.true_diff_mm is not None else "-"
        u = f"{r.uncertainty_mm:.1f}" if r.uncertainty_mm is not None else "-"
        lost = (
            f" lost: {','.join(r.truth_losers)}->{','.join(r.pred_losers) or '-'}"
            if r.truth_losers
            else ""
        )
        print(f"{r.name:<16} {r.source:<7} {tw:<6} {pw:<6} {d:>8} {u:>6} {r.outcome}{lost}")
    print(" ".join(f"{k}={v}" for k, v in summ.items()))


def run(out_dir: Path, quick: bool) -> dict:
    rng = np.random.default_rng(32)
    rows: list[Lag] = []
    for c in [case(n) for n in QUICK] if quick else CASES:
        truth, pred = tracks_lag(c, rng)
        rows.append(compare(c.name, "tracks", truth, pred))
    if not quick:
        for src, video in video_clips(out_dir):
            truth, pred, err = replay_lag(video, out_dir)
            row = compare(video.stem, src, truth, pred)
            row.why = err or row.why
            rows.append(row)
    summ = summary(rows)
    _print(rows, summ)
    draws = rule_draws(rows, DRAWS, rng)
    print(f"call rule over {DRAWS} error draws a lag (fractions):")
    for k, d in draws.items():
        print(f"  {k:<16} diff {d['true_diff_mm']:6.1f} mm  right sure {d['right_sure']:.3f}"
              f"  asked {d['asked']:.3f}  wrong sure {d['wrong_sure']:.3f}")  # fmt: skip
    return {"summary": summ, "noise_mm": NOISE_MM, "calibration_mm": CAL_MM,
            "lags": [r.__dict__ for r in rows], "rule_draws": draws}  # fmt: skip
