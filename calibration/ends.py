"""Which short cushion is the front (contract §1): read from the table's markings, given
by the user, or, where neither says, the picture convention of
``calibration.fitbase.corner_order`` marked ``assumed`` (the calibration's orientation is
then ambiguous and the replay refuses it: ``calibration.cli.require_sure_front``).
"""

from __future__ import annotations

import numpy as np

from calibration import markings as mk
from calibration.geometry import flip_end
from contract.tables import TURNED_SIDE, TableSpec

END_MIN_SCORE = 6.0  # end evidence (house + spotting line scores, noise levels) for a sure front
END_MIN_RATIO = 3.0  # ... and its ratio to the turned reading's


def ends_matter(table: TableSpec) -> bool:
    """Whether the games tablemon judges on ``table`` read its ends at every shot: a pyramid
    table (the house a ball in hand is played from, the spots a ball is put back on). On a
    5-pin table only the break's half and the lag's near cushion depend on them (a foul's
    half is the one opposite the offender's ball, the skittles' values are symmetric): an
    ambiguous front is replayed, marked ``ends: "assumed"`` in MATCH.json, and the
    adjudicator asks about the shots it decides (:mod:`adjudicator.asking`). On other
    tables (pool, snooker, three-cushion) a turned frame renames cushions and pockets but
    changes no verdict, so an ambiguous front is reported, not refused."""
    return table.kind == "pyramid"


def resolve_front(
    light: np.ndarray,
    to_px,
    table: TableSpec,
    H: np.ndarray,
    edges: dict[str, np.ndarray],
    notes: list[str],
    first: np.ndarray | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray], str, tuple[float, float]]:
    """Which short cushion is the front. Pyramid: the end with the house line (L/4) and
    away from the spotting line (``house-line``); carom: the end whose red and top spots
    carry balls in ``first`` (the video's first frame, BGR: a 5-pin break's set-up,
    ``break-spots``). The model is turned 180° when the evidence says so. Where it is
    weak the convention of ``corner_order`` stands, ``assumed`` (the calibration's
    orientation is then ambiguous). Returns (H, edges renamed to match, front's reason,
    evidence here/there)."""
    tp = to_px(H)
    if table.kind == "pyramid":
        ev, how = mk.end_evidence(light, tp, table), "house-line"
        hi, lo = max(ev), min(ev)
        sure = hi > END_MIN_SCORE and hi > END_MIN_RATIO * lo
    elif table.kind == "carom" and first is not None:
        ev, how = mk.break_spot_evidence(first, tp, table), "break-spots"
        sure = max(ev) >= 1.5 and min(ev) <= 0.5
    else:
        ev, how, sure = (0.0, 0.0), "assumed", False
    if not sure:
        notes.append(f"front end not told from the back ({table.kind} markings): assumed")
        return H, edges, "assumed", ev
    if ev[1] > ev[0]:
        H = flip_end(H, table.L, table.W)
        ev = (ev[1], ev[0])
        edges = {TURNED_SIDE[k]: v for k, v in edges.items()}
    return H, edges, how, ev


FRONT_SIDES = {"left": (-1, 0), "right": (1, 0), "top": (0, -1), "bottom": (0, 1)}


def given_front(
    H: np.ndarray, edges: dict[str, np.ndarray], to_px, table: TableSpec, side: str
) -> tuple[np.ndarray, dict[str, np.ndarray], str]:
    """The model turned, if need be, so that its front cushion lies on the picture's
    ``side`` (left, right, top or bottom) of its back cushion."""
    if side not in FRONT_SIDES:
        raise ValueError(f"--front: expected one of {', '.join(FRONT_SIDES)}, got {side!r}")
    q = to_px(H)(np.array([[0.0, table.W / 2], [table.L, table.W / 2]]))
    if float((q[0] - q[1]) @ np.array(FRONT_SIDES[side], float)) < 0:
        H = flip_end(H, table.L, table.W)
        edges = {TURNED_SIDE[k]: v for k, v in edges.items()}
    return H, edges, "given"


def front_side_of(calib, table: TableSpec) -> str:
    """The picture side (``left``, ``right``, ``top``, ``bottom``) that ``calib`` (a
    :class:`contract.calib.Calibration`) puts the front cushion on, seen from the back
    cushion: a recalibration after a camera knock keeps the ends it had."""
    f, b = calib.table_to_pixel(np.array([[0.0, table.W / 2], [table.L, table.W / 2]]))
    d = f - b
    if abs(d[0]) >= abs(d[1]):
        return "left" if d[0] < 0 else "right"
    return "top" if d[1] < 0 else "bottom"


def kept_ends(new, old):
    """``new`` (a CalibrationFile fitted with the front side ``old`` had) with ``old``'s
    account of its ends: its ``front`` reason and, where ``old`` was ambiguous, that."""
    unc = new.uncertainty
    if unc is not None and old.uncertainty is not None:
        unc = unc.model_copy(update={"orientation": old.uncertainty.orientation})
    return new.model_copy(update={"front": old.front, "uncertainty": unc})
