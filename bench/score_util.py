"""Small helpers of the scorer: one-to-one assignment, summary statistics, ratios.

No units of their own: callers pass frames or table mm and get the same back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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
    """Summary of non-negative errors (same unit as the input: frames or mm).

    ``values`` keeps the raw errors (not compared, not written to JSON) so that the
    figures of many videos can be merged exactly with :meth:`merge`.
    """

    n: int
    mean: float | None
    median: float | None
    p95: float | None
    max: float | None
    values: np.ndarray = field(
        default_factory=lambda: np.empty(0), repr=False, compare=False, metadata={"json": False}
    )

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray) -> Stats:
        a = np.array(values, dtype=float).ravel()
        if a.size == 0:
            return cls(0, None, None, None, None, a)
        return cls(
            n=int(a.size),
            mean=float(a.mean()),
            median=float(np.median(a)),
            p95=float(np.percentile(a, 95)),
            max=float(a.max()),
            values=a,
        )

    @classmethod
    def merge(cls, items: Sequence[Stats]) -> Stats:
        """The statistics of all the items' values together."""
        return cls.of(np.concatenate([s.values for s in items]) if items else [])

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "mean": self.mean,
            "median": self.median,
            "p95": self.p95,
            "max": self.max,
        }

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


def jsonable(obj: Any) -> Any:
    """A scores dataclass -> plain JSON: its fields (those not marked ``json: False``) and
    its properties; nested objects with ``to_json()`` use it; tuples become lists."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {
            f.name: _nested(getattr(obj, f.name))
            for f in dataclasses.fields(obj)
            if f.metadata.get("json", True)
        }
        for name in dir(type(obj)):
            if isinstance(getattr(type(obj), name, None), property):
                out[name] = _nested(getattr(obj, name))
        return out
    return _nested(obj)


def _nested(v: Any) -> Any:
    if callable(getattr(v, "to_json", None)):
        return v.to_json()
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return jsonable(v)
    if isinstance(v, Mapping):
        return {str(k): _nested(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_nested(x) for x in v]
    return v
