"""``tablemon bench verdicts``: the verdicts a referee sees, shot by shot, against the truth's.

For every clip with truth (own: ``fixtures/videos``; unseen: ``../shared/foreign-synth``, and
any folder named by ``TABLEMON_VERDICT_CLIPS``), the video is replayed as a new user would
(``tablemon replay``, automatic calibration); own renders kept out of every tuning (made
with ``tablemon synth`` at seeds no bench uses) are read from the folders named by
``TABLEMON_VERDICT_OWN`` and each replayed shot's verdict is compared
with the verdict the adjudicator gives on the true events of the same shot, as the shooter
sees it (legal, fouls, pocketed balls, what the shooter and the opponent gain, whether the
shooter keeps the table; player letters drop out; a white pyramid ball's number counts only
in classic pyramid, where it is the score).

Each true shot is one of: right (sure and right), wrong while sure, asked and right (the
verdict or one of its readings is the truth's: one tap), asked and wrong, missed (no
replayed shot stands for it). A replayed shot that stands for no true shot is invented.
``--quick``: the fixtures only. ``TABLEMON_VERDICTS_REUSE=1`` reuses replays already in OUT.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from adjudicator.doubt import as_shooter_sees
from adjudicator.engine import judge_match
from bench.perturb import asked
from contract.match import Match, Shot, Verdict, read_match

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "videos"
FOREIGN = ROOT.parent / "shared" / "foreign-synth"
NUMBERED = ("pyramid-classic",)
KEEP_IDS = {"yellow", "white", "red"}


@dataclass
class Tally:
    """Counts of true shots by outcome, and of invented replayed shots."""

    shots: int = 0
    right: int = 0
    wrong_sure: int = 0
    asked_right: int = 0
    asked_wrong: int = 0
    missed: int = 0
    invented: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for k in ("shots", "right", "wrong_sure", "asked_right", "asked_wrong", "missed"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.invented += other.invented

    def to_json(self) -> dict:
        asked_n = self.asked_right + self.asked_wrong
        n = max(self.shots, 1)
        return {
            "shots": self.shots,
            "right_sure": self.right,
            "wrong_sure": self.wrong_sure,
            "asked": asked_n,
            "asked_right": self.asked_right,
            "asked_wrong": self.asked_wrong,
            "missed": self.missed,
            "invented": self.invented,
            "right_share": (self.right + self.asked_right) / n,
            "wrong_sure_share": self.wrong_sure / n,
            "asked_share": asked_n / n,
            "notes": self.notes,
        }


def seen_as(v: Verdict, shooter: str | None, game: str) -> tuple:
    """``as_shooter_sees`` with white pyramid balls anonymous outside classic pyramid."""
    key = list(as_shooter_sees(v, v.player or shooter or "A"))
    if game not in NUMBERED:
        key[2] = tuple(sorted(b if b in KEEP_IDS else "w" for b in key[2]))
    return tuple(key)


def _overlap(a: Shot, b: Shot) -> int:
    return min(a.end.frame, b.end.frame) - max(a.start.frame, b.start.frame)


def pair_shots(pred: Match, truth: Match) -> dict[int, Shot]:
    """True shot index -> the replayed shot that stands for it: the one whose start lies in
    the true shot's span (or overlaps it most), each replayed shot used once."""
    out: dict[int, Shot] = {}
    used: set[int] = set()
    for t in truth.shots:
        cands = [p for p in pred.shots if p.index not in used and _overlap(p, t) > 0]
        inside = [p for p in cands if t.start.frame - 3 <= p.start.frame <= t.end.frame]
        pool = inside or cands
        if pool:
            best = min(pool, key=lambda p: abs(p.start.frame - t.start.frame))
            out[t.index] = best
            used.add(best.index)
    return out


def compare(pred: Match, truth: Match) -> Tally:
    """Shot-by-shot outcomes of ``pred``'s verdicts against ``truth``'s (both judged)."""
    game = str(truth.game)
    tally = Tally(shots=len(truth.shots))
    pairs = pair_shots(pred, truth)
    for t in truth.shots:
        p = pairs.get(t.index)
        if p is None or p.verdict is None or t.verdict is None:
            tally.missed += 1
            tally.notes.append(f"shot {t.index}: missed")
            continue
        want = seen_as(t.verdict, t.player, game)
        got = seen_as(p.verdict, p.player, game)
        if asked(p):
            alts = [seen_as(r.model_copy(update={"player": p.verdict.player}), None, game)
                    for r in p.verdict.readings]  # fmt: skip
            if got == want or want in alts:
                tally.asked_right += 1
            else:
                tally.asked_wrong += 1
                tally.notes.append(f"shot {t.index}: asked, truth not offered: {got} vs {want}")
        elif got == want:
            tally.right += 1
        else:
            tally.wrong_sure += 1
            tally.notes.append(f"shot {t.index}: wrong while sure: {got} vs {want}")
    tally.invented = len(pred.shots) - len(pairs)
    return tally


def clips(quick: bool) -> list[tuple[str, Path]]:
    """(set, video) of every clip with truth: ``own`` fixtures, ``unseen`` foreign renders."""
    out = [("own", v) for v in sorted(FIXTURES.glob("*.mp4"))]
    if quick:
        return out
    for which, var, folders in (("own", "TABLEMON_VERDICT_OWN", []),
                                ("unseen", "TABLEMON_VERDICT_CLIPS", [FOREIGN])):  # fmt: skip
        extra = [Path(p) for p in os.environ.get(var, "").split(":") if p]
        for folder in [*folders, *extra]:
            if folder.is_dir():
                out += [
                    (which, v) for v in sorted(folder.glob("*.mp4")) if _truth_path(v).is_file()
                ]
    return out


def _truth_path(video: Path) -> Path:
    return video.with_name(video.stem + ".truth.json")


def replay(video: Path, game: str, out: Path) -> str | None:
    """``tablemon replay`` on ``video`` into ``out``; the error line when it refused."""
    if os.environ.get("TABLEMON_VERDICTS_REUSE") == "1" and out.is_file():
        return None
    cmd = [sys.executable, "-m", "service.cli", "replay", str(video), "--game", game,
           "--out", str(out), "--no-progress"]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit {r.returncode}"
    return None


def clip_tally(video: Path, out_dir: Path) -> tuple[Tally, Match | None]:
    """Replay one clip and compare its verdicts with the truth's."""
    truth_raw = read_match(_truth_path(video))
    truth, _ = judge_match(truth_raw)
    pred_path = out_dir / f"{video.stem}.match.json"
    err = replay(video, str(truth.game), pred_path)
    if err is not None:
        t = Tally(shots=len(truth.shots), missed=len(truth.shots))
        t.notes.append(f"replay refused: {err}")
        return t, None
    pred = read_match(pred_path)
    return compare(pred, truth), pred


def _row(name: str, t: Tally) -> str:
    j = t.to_json()
    return (
        f"{name:30} {t.shots:5} {t.right:6} {t.wrong_sure:6} {t.asked_right:6} "
        f"{t.asked_wrong:6} {t.missed:6} {t.invented:6}  {j['right_share']:6.1%}"
    )


def run(out_dir: Path, quick: bool) -> dict:
    head = f"{'clip':30} {'shots':>5} {'right':>6} {'WRONG':>6} {'ask ok':>6} {'ask x':>6} "
    head += f"{'missed':>6} {'invent':>6}  {'right %':>6}"
    print("verdicts shot by shot (WRONG = wrong while sure; ask ok = asked, truth offered)")
    print(head)
    per: dict[str, dict] = {}
    totals: dict[str, Tally] = {}
    for which, video in clips(quick):
        t, _ = clip_tally(video, out_dir)
        per[video.stem] = {"set": which, **t.to_json()}
        totals.setdefault(which, Tally()).add(t)
        print(_row(video.stem, t))
        for n in t.notes:
            print(f"{'':32}{n}")
    for which, t in totals.items():
        print(_row(f"== {which} (all)", t))
    return {"clips": per, "totals": {k: v.to_json() for k, v in totals.items()}}
