"""``scipy.optimize``'s solvers, imported when first called.

Importing ``scipy.optimize`` costs about half a second of CPU (its package ``__init__``
imports every solver it has); a replay whose shots never need a least-squares fit pays
nothing for it. Each function here is the scipy function of the same name, called with
the same arguments (same results, same errors).
"""

from __future__ import annotations


def nnls(*args, **kwargs):
    """``scipy.optimize.nnls``: non-negative least squares."""
    from scipy.optimize import nnls as solve

    return solve(*args, **kwargs)


def least_squares(*args, **kwargs):
    """``scipy.optimize.least_squares``: non-linear least squares."""
    from scipy.optimize import least_squares as solve

    return solve(*args, **kwargs)


def minimize_scalar(*args, **kwargs):
    """``scipy.optimize.minimize_scalar``: a function of one variable minimised."""
    from scipy.optimize import minimize_scalar as solve

    return solve(*args, **kwargs)
