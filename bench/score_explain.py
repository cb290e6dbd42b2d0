"""Reading what went wrong in one rendered clip of the events benchmark (reporting
only): the share of occluded truth rows and, beside each missed or invented contact /
cushion, what the predicted tracks show there (:func:`explain`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bench.score_events import _first_contact
from contract.match import Match
from vision.events.series import Series


def occluded_share(truth_csv: Path) -> float:
    """Share of truth rows (balls on the cloth) the rendered frame does not show."""
    from contract.tracks import read_tracks

    t = read_tracks(truth_csv)
    return float(1.0 - np.mean(t.visible)) if len(t) else 0.0


def explain(line: str, s: Series, ids, table) -> str:
    """What the predicted tracks show around a missed or invented contact / cushion
    (``line`` as the scorer lists it, truth ids): the smallest gap between the two balls
    (centre distance less one diameter) or between the ball and the cushion line (R from
    the nose) within 3 frames, each ball's change of velocity there and its speed before
    (mm/frame), and in how many of those 7 frames the tracker measured it (``seen``: the
    rest were predicted through an occlusion or bridged)."""
    parts = line.split()
    frame, kind, who = int(parts[0]), parts[1], parts[2]
    inv = {t: p for p, t in ids.pairs.items()}
    R = table.ball_radius

    def rows(truth_id: str):
        pid = inv.get(truth_id, truth_id.lstrip("?"))
        if pid not in s.ids:
            return None
        k = frame - s.first
        lo, hi = max(0, k - 3), min(s.n_frames, k + 4)
        b = s.index(pid)
        return s.xy[b, lo:hi], s.xy[b], k, f"{int(s.visible[b, lo:hi].sum())}/{hi - lo}"

    def turn(xy: np.ndarray, k: int) -> str:
        if k < 2 or k + 3 >= len(xy) or np.isnan(xy[[k - 2, k - 1, k + 1, k + 2], 0]).any():
            return "-"
        return f"{np.linalg.norm((xy[k + 2] - xy[k + 1]) - (xy[k - 1] - xy[k - 2])):.1f}"

    def speed(xy: np.ndarray, k: int) -> str:
        if k < 2 or k >= len(xy) or np.isnan(xy[[k - 2, k - 1], 0]).any():
            return "-"
        return f"{np.linalg.norm(xy[k - 1] - xy[k - 2]):.1f}"

    def ball(ident: str, r) -> str:
        return f"{ident} turn {turn(r[1], r[2])} speed {speed(r[1], r[2])} seen {r[3]}"

    if kind == "contact":
        a, b = who.split(">")
        ra, rb = rows(a), rows(b)
        if ra is None or rb is None:
            return f"{line} | tracks: {'no track of ' + (a if ra is None else b)}"
        d = np.linalg.norm(ra[0] - rb[0], axis=1) - 2 * R
        gap = f"{np.nanmin(d):.1f}" if np.isfinite(d).any() else "-"
        return f"{line} | tracks: gap {gap} mm; {ball(a, ra)}; {ball(b, rb)}"
    if kind == "cushion":
        r = rows(who)
        if r is None:
            return f"{line} | tracks: no track of {who}"
        side = parts[3].split("-")[0]
        x, y = r[0][:, 0], r[0][:, 1]
        g = {"front": x - R, "back": table.L - R - x, "left": y - R, "right": table.W - R - y}[side]
        gap = f"{np.nanmin(g):.1f}" if np.isfinite(g).any() else "-"
        return f"{line} | tracks: {gap} mm from the cushion line; {ball(who, r)}"
    return line


def shot_lines(pred: Match, truth: Match, pairs: Sequence[tuple[int, int]]) -> list[str]:
    """One line per shot the matching left alone (``pairs``: (pred, truth) indices):
    ``missed shot k frames a-b`` (truth) and ``extra shot frames a-b`` (pred)."""
    mp, mt = {i for i, _ in pairs}, {j for _, j in pairs}
    out = [
        f"missed shot {s.index} frames {s.start.frame}-{s.end.frame}"
        for j, s in enumerate(truth.shots)
        if j not in mt
    ]
    out += [
        f"extra shot frames {s.start.frame}-{s.end.frame}"
        for i, s in enumerate(pred.shots)
        if i not in mp
    ]
    return out


def wrong_first_contacts(
    pred: Match, truth: Match, ids: Callable[[str], str], pairs: Sequence[tuple[int, int]]
) -> list[str]:
    """One line per matched shot whose first contact differs (the scorer's own test,
    :func:`bench.score_events._first_contact`; pred ids mapped to truth ids)."""

    def name(fc: tuple[str, str] | None) -> str:
        return "none" if fc is None else ">".join(fc)

    out = []
    for i, j in pairs:
        p, t = _first_contact(pred.shots[i], ids), _first_contact(truth.shots[j], str)
        if p != t:
            s = truth.shots[j]
            out.append(
                f"shot {s.index} frames {s.start.frame}-{s.end.frame}: first contact "
                f"pred {name(p)}, truth {name(t)}"
            )
    return out
