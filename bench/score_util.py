"""Small helpers of the scorer: one-to-one assignment, summary statistics, ratios.

No units of their own: callers pass frames or table mm and get the same back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment


def assign(cost: np.ndarray, valid: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one assignment: the most valid pairs, and among those the least total cost.

    ``cost`` and ``valid`` are (rows, cols); invalid pairs are never returned. Rows and
    columns are indices into the caller's lists.
    """
    cost = np.asarray(cost, float)
    valid = np.asarray(valid, bool)
    if cost.size == 0 or not valid.any():
        return []
    # An invalid pair costs more than every valid pair together, so the assignment first
    # maximises the number of valid pairs, then minimises their summed cost.
    big = float(np.abs(cost[valid]).sum()) + 1.0
    c = np.where(valid, cost, big)
    rows, cols = linear_sum_assignment(c)
    return [(int(r), int(k)) for r, k in zip(rows, cols, strict=True) if valid[r, k]]


def ratio(num: int, den: int) -> float | None:
    """``num / den``, or None when ``den`` is 0 (undefined, printed as '-')."""
    return None if den == 0 else num / den


@dataclass(frozen=True)
class Stats:
    """Summary of non-negative errors (same unit as the input: frames or mm)."""

    n: int
    mean: float | None
    median: float | None
    p95: float | None
    max: float | None

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray) -> Stats:
        a = np.asarray(values, float).ravel()
        if a.size == 0:
            return cls(0, None, None, None, None)
        return cls(
            n=int(a.size),
            mean=float(a.mean()),
            median=float(np.median(a)),
            p95=float(np.percentile(a, 95)),
            max=float(a.max()),
        )

    def brief(self, unit: str = "mm") -> str:
        """``median 0.50 p95 1.20 max 3.00 mm (n 120)`` or ``-`` when empty."""
        if self.n == 0:
            return "- (n 0)"
        return (
            f"median {self.median:.2f}  p95 {self.p95:.2f}  max {self.max:.2f}  "
            f"mean {self.mean:.2f} {unit} (n {self.n})"
        )


def fmt(v: float | None, digits: int = 3) -> str:
    """A ratio or figure for the printed table; '-' when undefined."""
    return "-" if v is None else f"{v:.{digits}f}"


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f} %"
