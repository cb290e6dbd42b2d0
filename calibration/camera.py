"""The camera behind a calibration: one joint least-squares fit of rotation, position,
focal length, radial distortion (k1, k2) and the cushion noses' height above the cloth,
from points on the cushion noses (at the nose height), points on the cloth's line
markings (house, centre and spotting lines, at height 0) and point markings (spots).

The noses and the cloth markings lie at different heights: their disagreement is the
parallax that fixes the camera's height (over the nose height), and with it the scale at
the ends of the table. The fit's covariance, propagated to the table, is the calibration's
expected error (:mod:`calibration.uncertainty`).

Frames: world (x, y, -height) in table mm (right-handed seen from above); pixels recorded
(distorted) unless named undistorted.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import camera_matrix, pose_from_homography
from contract.tables import TableSpec

F_PRIOR_WEIGHT = 5.0  # a 20 % departure from the focal-length prior costs 1 mm
NOSE_PRIOR_WEIGHT = (
    10.0  # a 10 % departure from the nose height's prior (63 % of a ball) costs 1 mm
)
NOSE_BOUNDS = (0.5, 1.6)  # the nose height's range, times its prior
# independent readings per kind of correspondence: neighbouring edge points share the
# same picture's blur and shading, so their errors are not independent
EFFECTIVE_PER_SIDE = 12
EFFECTIVE_PER_LINE = 4

LineMarks = list[tuple[np.ndarray, int, float]]  # (recorded px (N,2), axis, value mm)


@dataclass(frozen=True)
class CameraFit:
    """The fitted camera. ``H``: undistorted px -> cloth mm; ``k``: OpenCV coefficients;
    ``cam``: optical centre (x, y, height) mm; ``nose_mm``: the noses' height;
    ``res``: residuals mm (nose points, line-marking points, then one distance per spot);
    ``cov``: the parameters' covariance (scaled units, see :func:`refine_camera`) or None;
    ``x``/``size`` to evaluate the model again (:func:`table_sigma`)."""

    H: np.ndarray
    f: float
    k: np.ndarray
    cam: np.ndarray
    res: np.ndarray
    nose_mm: float
    cov: np.ndarray | None
    x: np.ndarray
    size: tuple[int, int]


_SCALE = np.array([1, 1, 1, 1000, 1000, 1000, 1, 0.1, 0.1, 10.0])


def _unpack(x: np.ndarray, size: tuple[int, int], f0: float):
    x = x * _SCALE
    R, _ = cv2.Rodrigues(x[:3])
    KK = camera_matrix(x[6] * f0, size)
    return R, x[3:6], KK, np.array([x[7], x[8], 0, 0, 0]), x[9]


def rays_to_plane(
    pts: np.ndarray, K: np.ndarray, k: np.ndarray, R: np.ndarray, C: np.ndarray, height: float
) -> np.ndarray:
    """Recorded px (N,2) -> table mm (N,2) where their rays meet the plane ``height`` mm
    above the cloth (world frame x, y, -height; C the optical centre in it)."""
    n = cv2.undistortPoints(pts.reshape(-1, 1, 2), K, k).reshape(-1, 2)
    d = np.c_[n, np.ones(len(n))] @ R  # R^T d for row vectors
    s = (-height - C[2]) / d[:, 2]
    return C[:2] + s[:, None] * d[:, :2]


def refine_camera(
    H: np.ndarray,
    f: float,
    dist: np.ndarray,
    size: tuple[int, int],
    edges: dict[str, np.ndarray],
    table: TableSpec,
    hn: float,
    marks: list[tuple[np.ndarray, np.ndarray]] | None = None,
    f_prior: float | None = None,
    lines: LineMarks | None = None,
    solve_nose: bool = False,
) -> CameraFit:
    """Joint least squares of the camera from nose points (recorded px, on their cushion
    lines at the nose height ``hn``), cloth line-marking points (``lines``: px on the line
    ``axis`` = value mm) and spot points (``marks``: px -> mm on the cloth). Residuals in
    table mm, Huber loss. ``f_prior`` pulls weakly towards a focal length (overhead views
    hardly constrain it); with ``solve_nose`` the nose height is solved too, pulled weakly
    towards ``hn``, else held at ``hn``."""
    from scipy.optimize import least_squares

    f0 = f_prior or f
    K = camera_matrix(f, size)
    pose = pose_from_homography(H, K)
    rvec, _ = cv2.Rodrigues(pose.R)
    C = np.array([pose.position[0], pose.position[1], -pose.position[2]])
    marks = marks or []
    lines = [ln for ln in (lines or []) if len(ln[0])]
    mp = np.array([m[0] for m in marks], float).reshape(-1, 2)
    mx = np.array([m[1] for m in marks], float).reshape(-1, 2)
    target = {"front": (0, 0.0), "back": (0, table.L), "left": (1, 0.0), "right": (1, table.W)}
    sides = [(target[s], p) for s, p in edges.items() if len(p)]

    def problem(sides, lines, mp, mx):
        """(data residuals per group, unweighted; the weighted residuals with the priors)."""
        # neighbouring points of one cushion or line share their errors: each group weighs
        # as its effective count of readings, so the priors keep their say (a nearly
        # overhead camera hardly fixes its focal length, and a bias common to a side's
        # edge points must not pass for hundreds of independent readings)
        wts = [np.sqrt(min(1.0, EFFECTIVE_PER_SIDE / max(len(p), 1))) for _, p in sides]
        wts += [np.sqrt(min(1.0, EFFECTIVE_PER_LINE / max(len(p), 1))) for p, _, _ in lines]

        def data(x: np.ndarray) -> list[np.ndarray]:
            R, Cc, KK, kk, h = _unpack(x, size, f0)
            res = [rays_to_plane(p, KK, kk, R, Cc, h)[:, ax] - v for (ax, v), p in sides]
            res += [rays_to_plane(p, KK, kk, R, Cc, 0.0)[:, ax] - v for p, ax, v in lines]
            if len(mp):
                res.append((rays_to_plane(mp, KK, kk, R, Cc, 0.0) - mx).ravel())
            return res

        def fun(x: np.ndarray) -> np.ndarray:
            res = data(x)
            res = [r * wt for r, wt in zip(res, wts + [1.0] * (len(res) - len(wts)), strict=True)]
            if f_prior:
                res.append(np.array([(x[6] - 1.0) * F_PRIOR_WEIGHT]))
            if solve_nose:
                res.append(np.array([(x[9] * _SCALE[9] - hn) / hn * NOSE_PRIOR_WEIGHT]))
            return np.concatenate(res)

        return data, fun

    w = size[0]
    hb = (NOSE_BOUNDS[0] * hn, NOSE_BOUNDS[1] * hn) if solve_nose else (hn - 1e-6, hn + 1e-6)
    lo = np.r_[[-np.inf] * 6, 0.3 * w / f0, -0.6, -0.5, hb[0]] / np.r_[[1] * 6, 1, _SCALE[7:]]
    hi = np.r_[[np.inf] * 6, 4.0 * w / f0, 0.4, 0.5, hb[1]] / np.r_[[1] * 6, 1, _SCALE[7:]]
    lo[:6] /= _SCALE[:6]
    hi[:6] /= _SCALE[:6]
    x0 = np.r_[rvec.ravel(), C / 1000, f / f0, dist[0] / 0.1, dist[1] / 0.1, hn / _SCALE[9]]
    x0 = np.clip(x0, lo + 1e-9, hi - 1e-9)
    # robust first (Huber), then plain least squares over the inliers: the priors must
    # not fall into Huber's linear tail, where they would hardly pull at all
    data, fun = problem(sides, lines, mp, mx)
    kw = {"bounds": (lo, hi), "x_scale": "jac", "max_nfev": 200}
    sol = least_squares(fun, x0, loss="huber", f_scale=0.5, **kw)
    r0 = data(sol.x)
    tol = max(2.0, 4 * 1.4826 * float(np.median(np.abs(np.concatenate(r0)))))
    n_s, n_l = len(sides), len(lines)
    sides_in = [(tv, p[np.abs(r) <= tol]) for (tv, p), r in zip(sides, r0[:n_s], strict=True)]
    lines_in = [
        (p[np.abs(r) <= tol], ax, v)
        for (p, ax, v), r in zip(lines, r0[n_s : n_s + n_l], strict=True)
    ]
    ok_m = np.hypot(*r0[-1].reshape(-1, 2).T) <= tol if len(mp) else np.zeros(0, bool)
    _, fun_in = problem(sides_in, lines_in, mp[ok_m], mx[ok_m])
    sol = least_squares(fun_in, sol.x, loss="linear", **kw)
    R, Cc, KK, kk, h = _unpack(sol.x, size, f0)
    t = -R @ Cc
    Hn = np.linalg.inv(KK @ np.c_[R[:, 0], R[:, 1], t])
    res = np.concatenate(data(sol.x))
    nm = 2 * len(mp)
    if nm:  # marking residuals as distances
        res = np.r_[res[: len(res) - nm], np.hypot(*res[len(res) - nm :].reshape(-1, 2).T)]
    cov = _covariance(sol.jac, res, solve_nose)
    cam = np.array([Cc[0], Cc[1], -Cc[2]])
    return CameraFit(Hn / Hn[2, 2], float(KK[0, 0]), kk, cam, res, float(h), cov, sol.x, size)


def _covariance(jac: np.ndarray, res: np.ndarray, nose_free: bool) -> np.ndarray | None:
    """Parameter covariance ``s^2 (J^T J)^-1``: ``J`` the weighted problem's Jacobian (its
    weights count correlated neighbours as fewer readings), ``s`` the robust spread of
    the unweighted data residuals ``res`` (mm). A nose height held fixed gets no
    variance."""
    J = np.asarray(jac.todense() if hasattr(jac, "todense") else jac, float)
    if not nose_free:
        J = J[:, :9]
    s = 1.4826 * float(np.median(np.abs(res))) + 0.05
    JtJ = J.T @ J
    try:
        cov = np.linalg.inv(JtJ + 1e-9 * np.eye(len(JtJ)) * np.trace(JtJ))
    except np.linalg.LinAlgError:
        return None
    cov = cov * s * s
    if not nose_free:
        cov = np.pad(cov, ((0, 1), (0, 1)))
    return cov


def table_sigma(fit: CameraFit, f0: float, xy: np.ndarray, height: float = 0.0) -> np.ndarray:
    """The fit's 1-sigma error (mm, the larger axis of each point's error ellipse) at table
    points ``xy`` (N,2) mm ``height`` above the cloth: the covariance propagated through
    the pixel -> table mapping, the points' pixels held where the fitted model sees them."""
    if fit.cov is None:
        return np.full(len(xy), np.inf)
    R, Cc, KK, kk, _ = _unpack(fit.x, fit.size, f0)
    # the points' recorded px under the fitted model
    X = np.c_[xy, np.full(len(xy), -height)]
    px, _ = cv2.projectPoints(X.reshape(-1, 1, 3), cv2.Rodrigues(R)[0], -R @ Cc, KK, kk)
    px = px.reshape(-1, 2)
    base = rays_to_plane(px, KK, kk, R, Cc, height)
    Jp = np.zeros((len(xy), 2, len(fit.x)))
    for i in range(len(fit.x)):
        if fit.cov[i, i] <= 0:
            continue
        dx = np.zeros(len(fit.x))
        dx[i] = 1e-4 * max(1.0, abs(fit.x[i]))
        R1, C1, K1, k1, _ = _unpack(fit.x + dx, fit.size, f0)
        Jp[:, :, i] = (rays_to_plane(px, K1, k1, R1, C1, height) - base) / dx[i]
    cov_xy = np.einsum("nai,ij,nbj->nab", Jp, fit.cov, Jp)
    return np.sqrt(np.maximum(np.linalg.eigvalsh(cov_xy)[:, -1], 0.0))
