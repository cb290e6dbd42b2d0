"""What a fit and the rough frame share (below both :mod:`calibration.fit` and
:mod:`calibration.rough`): the fit's result, the corners' order and the CALIB.json
builder."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contract.calib import CalibrationFile, Distortion
from contract.tables import TableSpec


@dataclass
class FitResult:
    """A fitted calibration and what was measured on the way.

    ``edges``: cushion name -> recorded px of the nose edge points used; ``residuals_mm``:
    per-correspondence errors in table mm; ``coverage``: share of nose points within
    10 mm of the model; ``notes``: human-readable remarks (assumptions made)."""

    calib: CalibrationFile
    edges: dict[str, np.ndarray]
    residuals_mm: np.ndarray
    coverage: float
    front_evidence: tuple[float, float]
    notes: list[str] = field(default_factory=list)


def corner_order(quad: np.ndarray) -> np.ndarray:
    """Screen-clockwise quad -> FL, FR, BR, BL under the default convention: the front is
    the short side nearest the picture's left edge when the table runs across the
    picture, else nearest its bottom edge.

    Seen from above (image y down) FL->FR->BR->BL runs counter-clockwise on screen, so the
    clockwise list is reversed first; that keeps the frame unmirrored (contract §1)."""
    q = np.asarray(quad, float)[::-1]
    lens = [np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)]
    short0 = lens[0] + lens[2] < lens[1] + lens[3]  # side q0->q1 is a short side
    cands = []
    for r in range(4):
        if (r % 2 == 0) != short0:
            continue
        c = np.roll(q, -r, axis=0)
        mid_front = (c[0] + c[1]) / 2
        axis = (c[2] + c[3]) / 2 - mid_front
        key = mid_front[0] if abs(axis[0]) >= abs(axis[1]) else -mid_front[1]
        cands.append((key, c))
    return min(cands, key=lambda kc: kc[0])[1]


def table_corners(table: TableSpec) -> np.ndarray:
    return np.array([(0, 0), (0, table.W), (table.L, table.W), (table.L, 0)], float)


def calib_file(
    table: TableSpec,
    size: tuple[int, int],
    H: np.ndarray,
    K: np.ndarray,
    k: np.ndarray,
    cam: tuple[float, float, float] | None,
    **kw,
) -> CalibrationFile:
    return CalibrationFile(
        table=table.name,
        image_size=size,
        image_to_table=tuple(tuple(float(v) for v in r) for r in H / H[2, 2]),
        distortion=Distortion(
            camera_matrix=tuple(tuple(float(v) for v in r) for r in K),
            coeffs=tuple(float(c) for c in k),
        ),
        camera_position_mm=cam,
        **kw,
    )
