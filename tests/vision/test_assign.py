"""vision.base.assign: scipy's assignment to the element, without scipy for plain matrices."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_lsa

from vision.base.assign import linear_sum_assignment, plain_answer, plain_assignment

BIG = 1e9  # the tracker's "no pair" cost


def _matrix(kind: str, rng: np.random.Generator, r: int, c: int) -> np.ndarray:
    if kind == "ties":  # small integers: many equal costs
        return rng.integers(0, 4, (r, c)).astype(float)
    if kind == "uniform":
        return rng.random((r, c))
    if kind == "gated":  # the tracker's matrices: far pairs at BIG
        a = rng.random((r, c)) * 10
        a[rng.random((r, c)) < 0.6] = BIG
        return a
    a = np.full((r, c), BIG)  # "sparse": most tracks near their own detection
    cols = rng.permutation(max(r, c))[:r]
    for i in range(r):
        if rng.random() < 0.9 and cols[i] < c:
            a[i, cols[i]] = rng.random()
    return a


@pytest.mark.parametrize("kind", ["ties", "uniform", "gated", "sparse"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (4, 7), (7, 4), (16, 16), (15, 18)])
def test_same_as_scipy(kind: str, shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(hash((kind, shape)) % 2**32)
    plain = 0
    for _ in range(300):
        a = _matrix(kind, rng, *shape)
        want, got = scipy_lsa(a), plain_answer(a)  # None: scipy must answer
        if got is not None:
            plain += 1
            for w, g in zip(want, got, strict=True):
                assert g.dtype == w.dtype and np.array_equal(g, w), (a, want, got)
    if kind == "sparse" or shape == (1, 1):  # the fast path is taken, not only scipy's
        assert plain > 0


@pytest.mark.parametrize(
    "cost, plain",
    [
        ([[1.0, 2.0], [2.0, 1.0]], True),
        ([[1.0, 2.0], [3.0, 4.0]], False),  # row 1's cheapest column (0) is row 0's
        ([[BIG, BIG], [1.0, BIG]], False),  # row 0 takes the lowest tied column: 0
        ([[BIG, BIG, BIG], [BIG, BIG, 1.0]], True),
        ([[1.0, BIG, BIG], [BIG, 2.0, BIG], [BIG, BIG, BIG]], True),
        ([[1.0, BIG, BIG], [BIG, BIG, BIG], [BIG, 2.0, BIG]], False),
        ([[1.0, 1.0], [2.0, 9.0], [3.0, 9.0]], False),  # tall: solved transposed
        ([[3.0, 1.0], [1.0, 5.0], [9.0, 9.0]], True),
    ],
)
def test_plain_cases(cost: list, plain: bool) -> None:
    a = np.array(cost)
    got = plain_assignment(a.T if a.shape[0] > a.shape[1] else a)
    assert (got is not None) == plain
    want = scipy_lsa(a)
    if plain:
        assert all(np.array_equal(w, g) for w, g in zip(want, plain_answer(a), strict=True))
    assert all(np.array_equal(w, g) for w, g in zip(want, linear_sum_assignment(a), strict=True))


@pytest.mark.parametrize(
    "cost, message",
    [
        ([[np.nan, 1.0], [1.0, 2.0]], "invalid numeric entries"),
        ([[np.inf, np.inf], [1.0, 2.0]], "infeasible"),
        ([1.0, 2.0], "2-D"),
    ],
)
def test_bad_matrices_raise_as_scipy(cost: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        linear_sum_assignment(np.array(cost))


def _run(code: str) -> list[str]:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return out.stdout.split()


def test_scipy_imported_only_for_a_matrix_that_is_not_plain() -> None:
    """In a fresh process: plain matrices answered without scipy, then one whose rows
    want the same column imports it (and scipy answers from then on)."""
    code = (
        "import sys, numpy as np; from vision.base.assign import linear_sum_assignment as L; "
        "r, c = L(np.array([[1.0, 5.0], [5.0, 1.0]])); "
        "print(c.tolist(), 'scipy.optimize' in sys.modules); "
        "r, c = L(np.array([[1.0, 2.0], [1.0, 9.0]])); "
        "print(c.tolist(), 'scipy.optimize' in sys.modules)"
    )
    assert _run(code) == ["[0,", "1]", "False", "[1,", "0]", "True"]


def test_replay_imports_no_scipy_optimize() -> None:
    """The replay's modules load without scipy.optimize (its solvers come when needed)."""
    code = (
        "import sys, vision.replay, vision.stream, vision.events.finder, calibration.monitor; "
        "print('scipy.optimize' in sys.modules, 'scipy.ndimage' in sys.modules)"
    )
    assert _run(code) == ["False", "False"]
