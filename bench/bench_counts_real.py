"""Ball counts on the real footage against what a person counts, for
``tablemon bench counts_real`` (issue "vision": the pool and carom clips' ball count at
each rest state).

Each clip of ``../shared/footage`` with labels in ``bench/real_labels.json`` is
calibrated automatically and tracked (``vision.replay.track_video``) with an annotated
video written to ``OUT/annotated/`` (ids, trails and the fitted table drawn in; the
footage's licence keeps these out of the repository). At every labelled rest state
(``rest_counts``; also at the state's last frame, just before the next strike, where
the shot starts from) and at the clip's last frame (``last_frame``, often still moving)
the balls tablemon holds on the table are counted: tracks with a row at that frame whose
centre lies on the playing surface (a ball hidden by a hand, predicted, counts; a ball
in a pocket's hole does not). Skips cleanly without the footage.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.bench_events_real import FOOTAGE, track_real_clip
from bench.label_tools import load_labels
from contract.tables import TableSpec
from contract.tracks import Tracks


def on_table(tracks: Tracks, frame: int, table: TableSpec) -> int:
    """Balls (not skittles) tracked at ``frame`` whose centre lies on the playing surface
    (table mm, up to a ball radius beyond a nose: a ball frozen to a cushion)."""
    sel = tracks.frame == frame
    ids = tracks.id[sel].astype(str)
    x, y = tracks.x[sel], tracks.y[sel]
    r = table.ball_radius
    inside = (x > -r) & (x < table.L + r) & (y > -r) & (y < table.W + r)
    balls = np.array([not i.startswith("skittle") for i in ids], bool)
    return int(np.sum(inside & balls))


def _states(label: dict) -> list[tuple[int, int, bool]]:
    """(frame, balls counted by a person, still moving) for every labelled state."""
    out = [(int(r["frame"]), int(r["balls"]), False) for r in label.get("rest_counts", [])]
    last = label.get("last_frame")
    if last and last.get("balls") is not None:  # null: the person could not count them
        out.append((int(last["frame"]), int(last["balls"]), bool(last.get("moving", False))))
    return sorted(set(out))


def span_end(label: dict, frame: int) -> int:
    """The last frame of the rest state that begins at ``frame``: the frame before the
    next labelled strike, else the clip's last frame (the position a shot starts from)."""
    strikes = [int(s["strike"]) for s in label.get("shots", []) if int(s["strike"]) > frame]
    return min(strikes) - 1 if strikes else int(label["frames"]) - 1


def wrong_states(out: dict[str, dict]) -> list[list]:
    """[clip, frame, person's count, tablemon's, where] for every state counted wrong,
    where: "frame" (the labelled frame) or the state's last frame (an int)."""
    return [
        [n, s["frame"], s["person"], s[count], at]
        for n, r in out.items()
        for s in r.get("states", [])
        for ok, count, at in (
            ("ok", "tablemon", "frame"),
            ("ok_at_end", "tablemon_at_end", s["span_end"]),
        )
        if not s[ok]
    ]


def _clip(name: str, label: dict, out_dir: Path) -> dict:
    ann = out_dir / "annotated" / (name.replace("/", "-").rsplit(".", 1)[0] + ".mp4")
    ann.parent.mkdir(parents=True, exist_ok=True)
    tracked = track_real_clip(name, label, annotated=str(ann))
    if isinstance(tracked, str):
        return {"error": tracked}
    table, res = tracked
    states = []
    for frame, truth, moving in _states(label):
        found = on_table(res.tracks, frame, table)
        end = frame if moving else span_end(label, frame)
        at_end = on_table(res.tracks, end, table)
        states.append(
            {
                "frame": frame,
                "person": truth,
                "tablemon": found,
                "moving": moving,
                "ok": found == truth,
                "span_end": end,
                "tablemon_at_end": at_end,
                "ok_at_end": at_end == truth,
            }
        )
    return {"annotated": str(ann), "states": states}


def run(out_dir: Path, quick: bool) -> dict:
    if not FOOTAGE.is_dir():
        print(f"no footage at {FOOTAGE}: skipped")
        return {"skipped": "no footage"}
    labels = load_labels()["clips"]
    names = [n for n in labels if (FOOTAGE / n).is_file()]
    names = names[::4] if quick else names
    out: dict[str, dict] = {}
    print(f"{'clip':36} {'frame':>6} {'person':>7} {'tablemon':>9} {'end':>5} {'there':>6}  state")
    for name in names:
        r = _clip(name, labels[name], out_dir)
        out[name] = r
        if "error" in r:
            print(f"{name:36} error: {r['error']}")
            continue
        for s in r["states"]:
            mark = "ok" if s["ok"] else "WRONG"
            mark += "" if s["ok_at_end"] else ", WRONG at its last frame"
            kind = "last frame, moving" if s["moving"] else "rest"
            print(
                f"{name:36} {s['frame']:>6} {s['person']:>7} {s['tablemon']:>9} "
                f"{s['span_end']:>5} {s['tablemon_at_end']:>6}  {kind} {mark}"
            )
    rest = [s for r in out.values() for s in r.get("states", []) if not s["moving"]]
    moving = [s for r in out.values() for s in r.get("states", []) if s["moving"]]
    summary = {
        "rest_states": len(rest),
        "rest_right": sum(s["ok"] for s in rest),
        "rest_right_at_span_end": sum(s["ok_at_end"] for s in rest),
        "last_frames_moving": len(moving),
        "last_frames_moving_right": sum(s["ok"] for s in moving),
        "clips_failed": sorted(n for n, r in out.items() if "error" in r),
        "wrong": wrong_states(out),
    }
    print(
        f"rest states counted right: {summary['rest_right']}/{summary['rest_states']} at the "
        f"labelled frame, {summary['rest_right_at_span_end']}/{summary['rest_states']} at the "
        f"state's last frame; "
        f"last frames (balls still moving) right: "
        f"{summary['last_frames_moving_right']}/{summary['last_frames_moving']}"
    )
    return {"summary": summary, "clips": out}
