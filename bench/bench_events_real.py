"""Shots and pockets on the real footage against what a person sees
(``bench/real_labels.json``), for ``tablemon bench events_real``.

Each clip in ``../shared/footage`` is calibrated automatically, tracked and cut into
shots; the strikes and pockets found are listed beside the labelled ones (frame
numbers as cv2 reads them) and matched within ±3 frames (pocket names by the labels'
convention: front = the image's left). The frames in which the camera moved (no strike
comes from them: ``vision.base.camera_motion``) are listed beside the person's notes on the
camera. Skips cleanly without the footage.
"""

from __future__ import annotations

from pathlib import Path

from bench.label_tools import load_labels
from calibration.cli import calibrate
from calibration.detect import NoTableError
from contract.calib import Calibration
from contract.errors import ContractError
from contract.match import Match, VideoInfo
from contract.tables import TableSpec, load_table
from vision.events.shots import shots_from_tracks
from vision.replay import ReplayResult, track_video

FOOTAGE = Path(__file__).resolve().parents[1].parent / "shared" / "footage"
WINDOW = 3
TABLES = {
    "pool-9ball-overhead": "pool-9ft",
    "pool-uk8ball-overhead": "pool-uk-6ft",
    "carom-3cushion-overhead": "carom-3cushion",
}


def _match(found: list[int], truth: list[int]) -> int:
    """Greedy one-to-one matches within the window."""
    left = list(truth)
    hits = 0
    for f in sorted(found):
        best = min(left, key=lambda t: abs(t - f), default=None)
        if best is not None and abs(best - f) <= WINDOW:
            left.remove(best)
            hits += 1
    return hits


def _contact_figures(found: list, truth: list, strikes: list[int]) -> dict:
    """Labelled contacts (frame, [striker, struck]) found within the window as the same
    pair, one to one; and per labelled shot with a contact, whether the first contact
    found after its strike (before the next) is the labelled first, striker first."""
    left = list(found)
    hits = 0
    for f, pair in truth:
        same = [c for c in left if set(c[1]) == set(pair) and abs(c[0] - f) <= WINDOW]
        if same:
            left.remove(min(same, key=lambda c: abs(c[0] - f)))
            hits += 1
    firsts = right = 0
    bounds = [*strikes, 10**9]
    for a, b in zip(bounds, bounds[1:], strict=False):
        want = [c for c in truth if a <= c[0] < b]
        if not want:
            continue
        firsts += 1
        got = sorted(c for c in found if a - WINDOW <= c[0] < b)
        right += bool(got) and got[0][1] == min(want)[1]
    return {
        "contacts": found,
        "truth_contacts": truth,
        "contacts_matched": hits,
        "first_contacts": firsts,
        "first_contacts_right": right,
    }


def track_real_clip(
    name: str, label: dict, annotated: str | None = None
) -> tuple[TableSpec, ReplayResult] | str:
    """Calibrate the footage clip ``name`` automatically and track it (``annotated``: an
    annotated video to write); the contract error's line when it cannot be calibrated."""
    table = load_table(TABLES.get(name.split("/")[0], label["table"]))
    video = FOOTAGE / name
    try:
        fit, plate = calibrate(video, table)
    except NoTableError as e:
        return str(ContractError(str(video), "calibration", str(e)))
    except ContractError as e:
        return str(e)
    res = track_video(
        str(video), Calibration(fit.calib), table, annotated=annotated, reference=plate
    )
    return table, res


def _clip(name: str, label: dict, quick: bool) -> dict:
    tracked = track_real_clip(name, label)
    if isinstance(tracked, str):
        return {"error": tracked}
    table, res = tracked
    match = Match(
        game="pyramid-free", table=table.name, video=VideoInfo(fps=res.fps, frames=res.frames)
    )
    try:
        match = shots_from_tracks(match, res.tracks, table, moved=res.moved)
    except ValueError as e:  # a failure of the shots stage on this clip: say so, go on
        return {"error": f"shots: {str(e).splitlines()[0]}"}
    strikes = [s.start.frame for s in match.shots]
    pockets = [
        (e.frame, e.pocket, e.ball) for s in match.shots for e in s.events if e.type == "pocket"
    ]
    t_strikes = [s["strike"] for s in label["shots"]]
    t_pockets = [
        (p["frame"], p["pocket"], p.get("ball", "")) for s in label["shots"] for p in s["pockets"]
    ]
    contacts = [
        (e.frame, list(e.balls)) for s in match.shots for e in s.events if e.type == "contact"
    ]
    t_contacts = [(c["frame"], c["balls"]) for s in label["shots"] for c in s.get("contacts", [])]
    return {
        **_contact_figures(contacts, t_contacts, t_strikes),
        "strikes": strikes,
        "truth_strikes": t_strikes,
        "strikes_matched": _match(strikes, t_strikes),
        "pockets": pockets,
        "truth_pockets": t_pockets,
        "pockets_matched": _match([p[0] for p in pockets], [p[0] for p in t_pockets]),
        "camera_moved": [list(m) for m in res.moved],  # frames the camera moved (no strike)
        "truth_camera": label.get("camera", []),  # [first, last, what the person saw]
    }


def run(out_dir: Path, quick: bool) -> dict:
    if not FOOTAGE.is_dir():
        print(f"no footage at {FOOTAGE}: skipped")
        return {"skipped": "no footage"}
    labels = load_labels()["clips"]
    names = list(labels)[:3] if quick else list(labels)
    out: dict[str, dict] = {}
    print(f"{'clip':36} {'strikes found / labelled':28} {'pockets found / labelled'}")
    for name in names:
        r = _clip(name, labels[name], quick)
        out[name] = r
        if "error" in r:
            print(f"{name:36} error: {r['error']}")
            continue
        s = f"{r['strikes']} / {r['truth_strikes']} ({r['strikes_matched']} matched)"
        p = f"{[p[0] for p in r['pockets']]} / {[p[0] for p in r['truth_pockets']]} ({r['pockets_matched']} matched)"
        print(f"{name:36} {s:28} {p}")
        if r["truth_contacts"]:
            print(
                f"{'':36} contacts: {r['contacts_matched']}/{len(r['truth_contacts'])} labelled"
                f" found ({len(r['contacts'])} reported); first contact right"
                f" {r['first_contacts_right']}/{r['first_contacts']}"
            )
        if r["camera_moved"]:
            print(f"{'':36} camera moved (no strike there): {r['camera_moved']}")
    keys = ("strikes_matched", "pockets_matched", "contacts_matched")
    tot = {k: sum(r.get(k, 0) for r in out.values()) for k in keys}
    for k in ("first_contacts", "first_contacts_right"):
        tot[k] = sum(r.get(k, 0) for r in out.values())
    tot["truth_contacts"] = sum(len(r.get("truth_contacts", [])) for r in out.values())
    tot["truth_strikes"] = sum(len(r.get("truth_strikes", [])) for r in out.values())
    tot["truth_pockets"] = sum(len(r.get("truth_pockets", [])) for r in out.values())
    tot["found_strikes"] = sum(len(r.get("strikes", [])) for r in out.values())
    tot["found_pockets"] = sum(len(r.get("pockets", [])) for r in out.values())
    tot["false_strikes"] = tot["found_strikes"] - tot["strikes_matched"]
    tot["invented_pockets"] = tot["found_pockets"] - tot["pockets_matched"]
    print(
        f"strikes: {tot['strikes_matched']}/{tot['truth_strikes']} labelled found, "
        f"{tot['found_strikes']} reported ({tot['false_strikes']} false); pockets: "
        f"{tot['pockets_matched']}/{tot['truth_pockets']} labelled found, "
        f"{tot['found_pockets']} reported ({tot['invented_pockets']} invented)"
    )
    return {"clips": out, "totals": tot}
