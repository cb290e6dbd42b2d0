"""Minimum-cost assignment (Hungarian) without importing ``scipy.optimize`` when the
answer is plain.

``scipy.optimize`` takes about half a second of CPU to import (its package ``__init__``
imports every solver), and the tracker needs an assignment from its first frame. Most of
a replay's cost matrices (tracks x detections, table mm) are solved by scipy's
shortest-augmenting-path algorithm (Crouse 2016, ``rectangular_lsap``) in one step per
row: each row's cheapest column is still free when the row's turn comes. Then scipy's
answer is known exactly without running it, and :func:`linear_sum_assignment` returns it;
any other matrix goes to scipy (imported then), so the result is always scipy's, to the
element. Once ``scipy.optimize`` is loaded (by anything), scipy answers every matrix: it
is faster per call.

Why one step per row gives scipy's answer (rows <= columns; a taller matrix is solved
transposed, as scipy does): scipy starts with zero potentials and adds rows in order. A
row's search first prices every column at its own cost, looks at the columns in
descending order and takes the cheapest, preferring among equally cheap ones an
unassigned column (the last such one seen: the lowest index). If that column is free
it ends the path at once, and the column potentials stay zero (they change by
``minVal - cost``, zero here); the next row is then priced at its own costs again. So
the assignment is: row by row, the lowest-indexed free column among the row's cheapest
ones, provided every row's cheapest value is found at a free column.
"""

from __future__ import annotations

import sys

import numpy as np

# A plain matrix costs here about 40 us more than in scipy (per call, 16 x 16): after this
# many, the import (about 0.5 s CPU) costs less than going on, and scipy is imported (a
# long video pays at most about twice the cheaper of the two)
PLAIN_CALLS = 10_000
_plain_calls = [0]  # plain matrices answered here in this process


def plain_assignment(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """scipy's assignment of a 2-D float ``cost`` matrix (rows <= columns, every row's
    least cost finite) when every row, taken in order, finds one of its cheapest columns
    still free (module docstring): (rows, columns) as scipy returns them; None otherwise
    (a NaN anywhere makes its row's least cost NaN: None)."""
    n_rows = cost.shape[0]
    best = cost.min(axis=1)
    if not np.isfinite(best).all():
        return None
    ties_r, ties_c = np.nonzero(cost == best[:, None])  # by row, then column ascending
    if len(ties_c) == n_rows:  # one cheapest column per row: free unless taken before
        if len(set(ties_c.tolist())) != n_rows:
            return None
        return np.arange(n_rows), ties_c
    cols = np.empty(n_rows, np.int64)
    taken: set[int] = set()
    starts = np.searchsorted(ties_r, np.arange(n_rows + 1)).tolist()
    flat = ties_c.tolist()
    for i in range(n_rows):
        for j in flat[starts[i] : starts[i + 1]]:
            if j not in taken:
                cols[i] = j
                taken.add(j)
                break
        else:
            return None
    return np.arange(n_rows), cols


def plain_answer(cost) -> tuple[np.ndarray, np.ndarray] | None:
    """scipy's (rows, columns) for any ``cost`` (array-like) that is a plain matrix of
    numbers (:func:`plain_assignment`; a taller one transposed, as scipy solves it, the
    rows ascending); None for any other (scipy must answer)."""
    c = np.asarray(cost)
    if c.ndim != 2 or c.dtype.kind not in "fiub" or not c.size:
        return None
    c = c.astype(np.float64, copy=False)
    tall = c.shape[0] > c.shape[1]
    got = plain_assignment(c.T if tall else c)
    if got is None or not tall:
        return got
    order = np.argsort(got[1])  # scipy: the rows ascending, with their columns
    return got[1][order], got[0][order]


def linear_sum_assignment(cost) -> tuple[np.ndarray, np.ndarray]:
    """``scipy.optimize.linear_sum_assignment(cost)`` (minimising), the same arrays: by
    scipy itself once ``scipy.optimize`` is loaded (by anything: it is faster per call),
    else found here when the matrix is plain (:func:`plain_assignment`; at most
    :data:`PLAIN_CALLS` times), else by scipy imported now, which also gives its errors for
    invalid or infeasible matrices."""
    loaded = sys.modules.get("scipy.optimize")
    if loaded is not None:
        return loaded.linear_sum_assignment(cost)
    if _plain_calls[0] < PLAIN_CALLS:
        got = plain_answer(cost)
        if got is not None:
            _plain_calls[0] += 1
            return got
    from scipy.optimize import linear_sum_assignment as scipy_lsa

    return scipy_lsa(cost)
