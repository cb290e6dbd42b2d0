"""Fit the table model to a clean plate: cushion-nose lines -> homography (undistorted px
-> table mm), radial lens distortion from the straightness of the cushions, camera pose
for parallax, markings as extra correspondences, the front end, and the fit's checks.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration import markings as mk
from calibration.camera import LineMarks, refine_camera
from calibration.detect import Cloth, NoTableError, cloth_stats, find_quad, intersect, side_edges
from calibration.ends import given_front, resolve_front
from calibration.fitbase import FitResult, calib_file, corner_order, table_corners
from calibration.fitchecks import check_fit, check_in_view, check_on_cloth
from calibration.geometry import (
    DEFAULT_HFOV_DEG,
    Pose,
    camera_matrix,
    pose_from_homography,
    undistort_px,
)
from calibration.uncertainty import estimate_uncertainty
from contract.calib import Calibration
from contract.tables import TableSpec

SIDES = ("front", "right", "back", "left")
LINED_KINDS = ("pyramid", "carom")  # tables whose spec lines are drawn on the cloth
SPOTTED_KINDS = ("pyramid", "carom", "pool")  # ... and whose spec spots are (head, centre, foot)


def nose_height(table: TableSpec) -> float:
    """Height (mm) of the cushion nose above the cloth: the spec's ``nose_height_mm`` or
    63% of the ball diameter (the usual rule; synth draws it so)."""
    return float(table.extra.get("nose_height_mm", 0.63 * table.ball_mm))


def _lines_h(lines: list[tuple[np.ndarray, np.ndarray]], table: TableSpec) -> np.ndarray:
    """Homography (px -> mm) from four lines in SIDES order (front, right, back, left)."""
    # corner FL = left ∩ front, FR = front ∩ right, BR = right ∩ back, BL = back ∩ left
    c = np.array([intersect(*lines[i - 1], *lines[i]) for i in range(4)])
    h, _ = cv2.findHomography(c, table_corners(table))
    return h / h[2, 2]


def _fit_line_pts(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vx, vy, x0, y0 = cv2.fitLine(p.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], float), np.array([vx, vy], float)


def _line_residuals(p: np.ndarray) -> np.ndarray:
    c, d = _fit_line_pts(p)
    return (p - c) @ np.array([-d[1], d[0]])


def _clean(edges: dict[str, np.ndarray], tol: float) -> dict[str, np.ndarray]:
    """Drop edge points farther than ``tol`` px from their side's robust line."""
    out = {}
    for k, p in edges.items():
        if len(p) < 6:
            out[k] = p
            continue
        for _ in range(2):
            r = _line_residuals(p)
            mad = 1.4826 * np.median(np.abs(r)) + 0.3
            p = p[np.abs(r) < max(tol, 3 * mad) if tol < 0 else np.abs(r) < min(tol, 4 * mad)]
        out[k] = p
    return out


def _fit_k1(edges: dict[str, np.ndarray], K: np.ndarray) -> float:
    """Radial k1 that makes the cushion edge points straightest (0 if it barely helps)."""
    from scipy.optimize import minimize_scalar

    def cost(k1: float) -> float:
        tot = 0.0
        for p in edges.values():
            if len(p) >= 6:
                r = _line_residuals(undistort_px(p, K, np.array([k1, 0, 0, 0, 0])))
                tot += float(np.sum(np.minimum(r * r, 9.0)))
        return tot

    res = minimize_scalar(cost, bounds=(-0.5, 0.3), method="bounded", options={"xatol": 1e-4})
    c0, c1 = cost(0.0), float(res.fun)
    n = sum(len(p) for p in edges.values())
    if c1 < 0.7 * c0 and (c0 - c1) / max(n, 1) > 0.02:
        return float(res.x)
    return 0.0


def _edges_for_quad(
    lab: np.ndarray, table: TableSpec, cloth: Cloth, corners: np.ndarray
) -> dict[str, np.ndarray]:
    """Nose edge points of each side of the FL, FR, BR, BL quad (recorded px)."""
    cen = corners.mean(0)
    long_px = (
        np.linalg.norm(corners[3] - corners[0]) + np.linalg.norm(corners[2] - corners[1])
    ) / 2
    scale = long_px / (table.L + 2 * table.cushion_mm)
    reach = (2.5 * table.cushion_mm + 40) * scale + 6
    edges = {}
    frames: dict[str, tuple] = {}
    for i, side in enumerate(SIDES):
        a, b = corners[i], corners[(i + 1) % 4]
        d = (b - a) / np.linalg.norm(b - a)
        nrm = np.array([-d[1], d[0]])
        if nrm @ (cen - (a + b) / 2) < 0:
            nrm = -nrm
        long = side in ("left", "right")
        length = table.L if long else table.W
        end = 0.05
        skip = 0.0
        if table.has_pockets:
            end = (table.corner_mouth_mm + 2 * table.cushion_mm) / (length + 2 * table.cushion_mm)
            if long:
                skip = (table.middle_mouth_mm / 2 + table.cushion_mm + 30) / length
        pts = side_edges(
            lab,
            cloth,
            a,
            b,
            nrm,
            reach,
            n=160 if long else 90,
            skip_middle=skip,
            guard_px=0.4 * table.cushion_mm * scale,
        )
        if len(pts):
            tt = (pts - a) @ (b - a) / np.dot(b - a, b - a)
            pts = pts[(tt > end) & (tt < 1 - end)]
        edges[side] = pts
        frames[side] = (a, b, nrm, 160 if long else 90, skip, end)
    return _rescan_weak(lab, table, cloth, edges, frames, reach, scale)


def _rescan_weak(
    lab: np.ndarray,
    table: TableSpec,
    cloth: Cloth,
    edges: dict[str, np.ndarray],
    frames: dict[str, tuple],
    reach: float,
    scale: float,
) -> dict[str, np.ndarray]:
    """Scan again, near where the nose must be, a side whose first edges mostly lie off
    one line (balls, halos or drawings along its cushion): the nose's offset from the
    outline on the well-measured sides (px) predicts it there."""
    clean = _clean(edges, 4.0)
    offs, weak = [], []
    for side, (a, _b, nrm, n, _, _) in frames.items():
        p = clean[side]
        if len(p) >= 0.35 * n:
            offs.append(float(np.median((p - a) @ nrm)))
        else:
            weak.append(side)
    if not weak or len(offs) < 2 or np.ptp(offs) > 6:
        return edges
    out = dict(edges)
    for side in weak:
        a, b, nrm, n, skip, end = frames[side]
        pts = side_edges(
            lab,
            cloth,
            a,
            b,
            nrm,
            reach,
            n=n,
            skip_middle=skip,
            guard_px=0.4 * table.cushion_mm * scale,
            window=(float(np.median(offs)) - 6.0, float(np.median(offs)) + 6.0),
        )
        if len(pts):
            tt = (pts - a) @ (b - a) / np.dot(b - a, b - a)
            pts = pts[(tt > end) & (tt < 1 - end)]
        if len(_clean({side: pts}, 4.0)[side]) > len(clean[side]):
            out[side] = pts
    return out


def fit_plate(
    img: np.ndarray,
    table: TableSpec,
    corners: np.ndarray | None = None,
    first: np.ndarray | None = None,
    front_side: str | None = None,
) -> FitResult:
    """Calibrate a clean plate (BGR, recorded px) against ``table``. ``first``: the video's
    first frame (BGR), where a carom break's balls still sit on their spots.
    ``front_side``: the picture side (``left``, ``right``, ``top``, ``bottom``) the user
    says the front cushion is on; it overrides the markings (front ``given``).

    ``corners``: optional manual FL, FR, BR, BL playing-surface corners (recorded px);
    they seed the search for the cushion noses and are used as they are where the noses
    cannot be measured. Without them, where the cloth outline's own corners do not lead
    to the noses (a view at an angle, where the outline is the cushions' top edge), the
    search starts again from the rough frame's surface (:mod:`calibration.rough`), and
    its fit must pass every check of the first. Raises NoTableError (one line, the first
    search's) when no table is found or the fit fails its checks."""
    if corners is not None:
        return _fit(img, table, corners, first, front_side)
    try:
        return _fit(img, table, None, first, front_side)
    except NoTableError as e:
        from calibration.rough import outline_mm, rough_fit

        try:
            rough = Calibration(rough_fit(img, table).calib)
            seed = rough.table_to_pixel(table_corners(table))
            outline = rough.table_to_pixel(outline_mm(table))
            return _fit(img, table, seed, first, front_side, outline=outline)
        except NoTableError:
            raise e from None


def _fit(
    img: np.ndarray,
    table: TableSpec,
    corners: np.ndarray | None,
    first: np.ndarray | None,
    front_side: str | None,
    outline: np.ndarray | None = None,
) -> FitResult:
    """:func:`fit_plate` from the cloth's outline (``corners`` None), from the user's
    corners, or from the rough frame's surface corners (``outline``: the cloth's outline
    they came from, px), which name no end and are never used as they are."""
    seeded = outline is not None
    h, w = img.shape[:2]
    size = (w, h)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    notes: list[str] = []
    if corners is None:
        r0, r1 = table.L / table.W, (table.L + 2 * table.rail_mm) / (table.W + 2 * table.rail_mm)
        quad = find_quad(img, (0.75 * min(r0, r1), 1.3 * max(r0, r1)))
        cloth, c4 = quad.cloth, corner_order(quad.corners)
    else:
        c4 = np.asarray(corners, float).reshape(4, 2)
        cloth = cloth_stats(lab[::2, ::2])
    edges = _clean(_edges_for_quad(lab, table, cloth, c4), 4.0)
    manual_only = corners is not None and any(len(p) < 8 for p in edges.values())
    if seeded and manual_only:
        raise NoTableError("no table found: no cushion edge near the cloth's outline")
    if not manual_only:
        short = [s for s, p in edges.items() if len(p) < 8]
        if short:
            raise NoTableError(f"no table found: no cushion edge along the {', '.join(short)} side")
    f = f_prior = w / 2 / np.tan(np.radians(DEFAULT_HFOV_DEG) / 2)
    K = camera_matrix(f, size)
    k1 = 0.0 if manual_only else _fit_k1(edges, K)
    k = np.array([k1, 0.0, 0.0, 0.0, 0.0])
    if manual_only:
        notes.append("corners used as given (cushion noses not measurable)")
        H, _ = cv2.findHomography(c4, table_corners(table))
        H = H / H[2, 2]
    else:
        und = {s: undistort_px(p, K, np.array([k1, 0, 0, 0, 0])) for s, p in edges.items()}
        H = _lines_h([_fit_line_pts(und[s]) for s in SIDES], table)
    hn = nose_height(table)
    res = np.zeros(0)
    cfit = None
    if not manual_only:
        cfit = refine_camera(H, f, k, size, edges, table, hn, f_prior=f_prior)
        H, f, k, res = cfit.H, cfit.f, cfit.k, cfit.res
        K = camera_matrix(f, size)

    def to_px(HH: np.ndarray) -> mk.ToPx:
        cal = Calibration(calib_file(table, size, HH, K, k, None))
        return lambda xy: cal.table_to_pixel(np.asarray(xy, float))

    light = lab[..., 0].astype(np.float32)
    if not manual_only:  # the centre line (the same either way round) first: the end
        # lines are then looked for within a few mm of where they must be
        centre = _line_marks(
            light,
            to_px(H),
            Calibration(calib_file(table, size, H, K, k, None)),
            table,
            ("centre",),
        )
        if centre:
            cfit = refine_camera(H, f, k, size, edges, table, hn, f_prior=f_prior, lines=centre)
            H, f, k, res = cfit.H, cfit.f, cfit.k, cfit.res
            K = camera_matrix(f, size)
    H, edges, front, ev = resolve_front(light, to_px, table, H, edges, notes, first)
    if front_side is not None:
        H, edges, front = given_front(H, edges, to_px, table, front_side)
    elif corners is not None and not seeded and front == "assumed":
        front = "corners"  # the user's corners name the ends
    found: dict[str, tuple[float, float]] = {}
    named = _spots(light, to_px(H), table)
    lines: LineMarks = []
    if not manual_only:
        cal0 = Calibration(calib_file(table, size, H, K, k, None))
        named = _near_model(named, cal0, notes)
        lines = _line_marks(light, to_px(H), cal0, table)
        for _ in range(3):
            marks = [(m[1], m[2]) for m in named]
            cfit = refine_camera(
                H,
                f,
                k,
                size,
                edges,
                table,
                hn,
                marks,
                f_prior=f_prior,
                lines=lines,
                solve_nose=bool(lines) or len(marks) >= 3,
            )
            mres = cfit.res[len(cfit.res) - len(marks) :] if marks else np.zeros(0)
            if len(mres) and mres.max() > 5.0:  # one bad spot: drop it and fit again
                named = [m for m, e in zip(named, mres, strict=True) if e < mres.max()]
                continue
            break
        H, f, k, res = cfit.H, cfit.f, cfit.k, cfit.res
        K = camera_matrix(f, size)
    for name, px, _ in named:
        found[name] = (float(px[0]), float(px[1]))
    pose = pose_from_homography(H, K)
    cam = np.array(pose.position) if cfit is None else cfit.cam
    tp = to_px(H)
    for name, (a, b) in table.lines.items():
        if name == "spotting":
            continue
        sc, _ = mk.line_score(light, tp, a, b)
        if sc > 4:
            mid = tp(np.array([((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)]))[0]
            found[f"line:{name}"] = (float(mid[0]), float(mid[1]))
    cl = float(np.median(light[h // 3 : 2 * h // 3 : 4, w // 3 : 2 * w // 3 : 4]))
    for name, q in mk.pocket_dark(light, tp, table, cl).items():
        found[name] = (float(q[0]), float(q[1]))
    for name, xy in table.markings.items():
        if name.startswith("corner:"):
            q = tp(np.array([xy]))[0]
            found[name] = (float(q[0]), float(q[1]))
    nose_res = res[: sum(len(p) for p in edges.values())] if len(res) else res
    coverage = float(np.mean(np.abs(nose_res) < 10)) if len(nose_res) else 0.0
    inl = res[np.abs(res) < 10]
    rms = float(np.sqrt(np.mean(inl**2))) if len(inl) else None
    check_fit(pose, coverage, rms, manual_only, table)
    check_in_view(tp(table_corners(table)), size)
    if corners is None or outline is not None:  # the noses, where the cloth is seen to end
        at_nose = Calibration(calib_file(table, size, H, K, k, tuple(float(v) for v in cam)))
        noses = at_nose.table_to_pixel(table_corners(table), height=hn)
        check_on_cloth(noses, quad.corners if corners is None else outline)
    orientation = "ambiguous" if front == "assumed" else "sure"
    unc = estimate_uncertainty(cfit, f_prior, table, rms, orientation, size)
    camera = _camera_block(pose, cam, cfit)
    calib = calib_file(
        table,
        size,
        H,
        K,
        k,
        tuple(float(v) for v in cam),
        rms_mm=rms,
        markings=found,
        front=front,
        uncertainty=unc,
        camera=camera,
    )
    if seeded:
        notes.append("cushions searched from the rough frame of the cloth's outline")
    return FitResult(calib, edges, res, coverage, ev, notes)


def _camera_block(pose: Pose, cam: np.ndarray, cfit) -> dict:
    """CALIB.json ``camera`` (contract §6): ``height_mm`` above the cloth; ``pose``
    ``[rx, ry, rz, x, y, h]`` (Rodrigues vector of the rotation world (x, y, -height) ->
    camera, then the optical centre in table mm); the solved nose height and focal length."""
    R = pose.R if cfit is None else cv2.Rodrigues(cfit.x[:3])[0]
    rv = cv2.Rodrigues(np.asarray(R, float))[0].ravel()
    out = {"height_mm": float(cam[2]), "pose": [*map(float, rv), *map(float, cam)]}
    if cfit is not None:
        out.update(nose_height_mm=float(cfit.nose_mm), focal_px=float(cfit.f))
    return out


def _spots(
    light: np.ndarray, tp: mk.ToPx, table: TableSpec
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Point markings found near where the model puts them: (name, recorded px, mm); none
    on tables whose spec spots are not drawn on the cloth (snooker: its own spots
    lie elsewhere, and balls sit on them)."""
    named: list[tuple[str, np.ndarray, np.ndarray]] = []
    if table.kind not in SPOTTED_KINDS:
        return named
    for name, xy in {
        **{f"spot:{a}": b for a, b in table.spots.items()},
        **{f"skittle:{a}": b for a, b in table.skittle_spots.items()},
    }.items():
        hit = mk.find_spot(light, tp, xy)
        if hit is not None:
            named.append((name, hit[0], np.array(xy, float)))
    return named


def _near_model(named: list, cal: Calibration, notes: list[str], tol: float = 8.0) -> list:
    """Spots within ``tol`` mm of where the cushions put them (others are a ball, chalk)."""
    err = [float(np.hypot(*(cal.pixel_to_table(m[1][None])[0] - m[2]))) for m in named]
    keep = [m for m, e in zip(named, err, strict=True) if e <= tol]
    if len(keep) < len(named):
        notes.append(f"{len(named) - len(keep)} spot(s) off the model by > {tol:.0f} mm: not used")
    return keep


def _line_marks(
    light: np.ndarray,
    tp: mk.ToPx,
    cal: Calibration,
    table: TableSpec,
    names: tuple[str, ...] | None = None,
) -> LineMarks:
    """Points on the cloth's line markings (house, centre, spotting) as correspondences:
    (recorded px, axis, value mm); points over 8 mm off where the model puts the line are
    dropped (a ball, a shadow)."""
    out: LineMarks = []
    if table.kind not in LINED_KINDS:  # a pool or snooker table has no such lines: a
        return out  # projected drawing or a baulk line there must not pass for one
    for name, (a, b) in table.lines.items():
        if names is not None and name not in names:
            continue
        ax = 0 if a[0] == b[0] else 1
        pts = mk.line_points(light, tp, a, b)
        if len(pts) < 12:
            continue
        d = cal.pixel_to_table(pts)[:, ax] - a[ax]
        pts = pts[np.abs(d - np.median(d)) < 3.0]
        if len(pts) >= 12 and abs(float(np.median(d))) < 8.0:
            out.append((pts, ax, float(a[ax])))
    return out
