"""Frame-to-reference registration for a camera that drifts (hand-held, a swaying mount).

The calibration is fitted on one *reference* picture (recorded px). A later frame of a
moved camera shows the same table plane from another pose, so its pixels map onto the
reference's pixels by a homography ``G`` (frame px -> reference px, both recorded;
exact for a turning camera and for points on the cloth's plane, close enough for the
cushion tops and a lens with little distortion). Every frame's pixel -> table mm
mapping is then the one calibration composed with its own ``G``
(:func:`registered_to_table`): positions within a shot all come from one calibration.

How ``G`` is found, cheaply (a grey picture downscaled to about 640 px wide):

* corners of the table in the reference (rails, pocket jaws, balls at rest; not the
  floor around it, another plane) are followed into
  the current frame by pyramidal Lucas-Kanade optical flow, after warping the frame
  into the reference by the last ``G`` (so the flow only has the residual motion to
  find); a RANSAC homography of the matched corners gives the new ``G``;
* when that fails (a fast swing, a big first offset), ORB features of the table matched
  across the whole frame give a first ``G``, refined as above;
* the registration fails (``None``) when too few corners agree: the picture is not the
  reference's table any more (a knock that moved the camera far, a covered lens).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.geometry import apply_h
from contract.calib import Calibration
from contract.tables import TableSpec

if TYPE_CHECKING:
    from calibration.monitor import CalibrationMonitor

WORK_WIDTH = 640  # px: the grey picture registration works on (at most the video's width)
MIN_INLIERS = 24  # corners that must agree for a registration
INLIER_SHARE = 0.2  # ... and at least this share of the corners followed
RANSAC_PX = 1.5  # work px: a corner farther than this from the homography is an outlier
MIN_PROFILES = 12  # nose profiles that must match to refine a registration on the noses


@dataclass(frozen=True)
class Registration:
    """``G`` (3x3) maps frame px onto reference px (recorded); ``inliers`` corners agreed
    with it, with a residual ``rms_px`` (reference px)."""

    G: np.ndarray
    inliers: int
    rms_px: float


def registered_to_table(calib: Calibration, G: np.ndarray | None, uv: np.ndarray) -> np.ndarray:
    """Table mm (N,2) of frame pixels ``uv`` (N,2, recorded px of a frame registered to
    the calibration's reference by ``G``; ``None``: the reference itself)."""
    return calib.pixel_to_table(uv if G is None else apply_h(G, uv))


def corner_motion(
    G0: np.ndarray | None,
    G1: np.ndarray | None,
    corners: np.ndarray,
    size: tuple[int, int] | None = None,
) -> float:
    """Largest displacement (px) of reference points ``corners`` (N,2) between two
    registrations (frame -> reference homographies; ``None`` is the identity): how far
    the picture of the table moved between them; with ``size`` (w, h) only the points in
    view under ``G1`` count (where any are)."""
    a = corners if G0 is None else apply_h(np.linalg.inv(G0), corners)
    b = corners if G1 is None else apply_h(np.linalg.inv(G1), corners)
    d = np.linalg.norm(a - b, axis=1)
    if size is not None:
        seen = (b[:, 0] >= 0) & (b[:, 0] < size[0]) & (b[:, 1] >= 0) & (b[:, 1] < size[1])
        d = d[seen] if seen.any() else d
    return float(np.max(d))


def table_mask(
    calib: Calibration, table: TableSpec, size: tuple[int, int], scale: float
) -> np.ndarray:
    """uint8 mask (255 inside) of the table in the reference picture scaled by ``scale``
    (``size`` (w, h) work px): the playing surface with its cushions and rails (the
    floor around it is another plane and is left out). Balls that have moved since the
    reference are outliers the RANSAC drops; balls at rest are good features."""
    m = table.rail_mm + table.cushion_mm
    n = 24
    t = np.linspace(0.0, 1.0, n, endpoint=False)[:, None]
    a = np.array([[-m, -m], [table.L + m, -m], [table.L + m, table.W + m], [-m, table.W + m]])
    ring = np.concatenate([a[i] * (1 - t) + a[(i + 1) % 4] * t for i in range(4)])
    px = calib.table_to_pixel(ring) * scale  # sampled sides: lens distortion bends them
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return mask


class Registrar:
    """Registers frames (BGR, recorded px, the reference's size) onto ``reference``, the
    picture ``calib`` was fitted on. :meth:`register` is a few ms on a 720p frame; the
    reference's features are found when first needed (a still camera never needs them)."""

    def __init__(self, reference: np.ndarray, calib: Calibration, table: TableSpec) -> None:
        h, w = reference.shape[:2]
        self.size = (w, h)
        self.s = min(1.0, WORK_WIDTH / w)
        self.work = (int(round(w * self.s)), int(round(h * self.s)))
        self.S = np.diag([self.s, self.s, 1.0])
        self._source = (reference, calib, table)
        self._ready = False
        gx, gy = np.meshgrid(np.linspace(0.1, 0.9, 3) * table.L, np.linspace(0.1, 0.9, 3) * table.W)
        grid = np.c_[gx.ravel(), gy.ravel()]
        self.corners = calib.table_to_pixel(grid)  # reference px: how far the table moves

    def _prepare(self) -> None:
        """The reference's grey picture, table mask, corners to follow and ORB features."""
        if self._ready:
            return
        reference, calib, table = self._source
        self.ref = self._grey(reference)
        self.mask = table_mask(calib, table, self.work, self.s)
        pts = cv2.goodFeaturesToTrack(self.ref, 800, 0.002, 5, mask=self.mask, blockSize=5)
        self.pts = np.zeros((0, 1, 2), np.float32) if pts is None else pts.astype(np.float32)
        self.orb = cv2.ORB_create(1500)
        self.kp, self.desc = self.orb.detectAndCompute(self.ref, self.mask)
        self.matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
        self._ready = True

    def _grey(self, img: np.ndarray) -> np.ndarray:
        if self.s < 1.0:
            img = cv2.resize(img, self.work, interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img

    def register(self, frame: np.ndarray, guess: np.ndarray | None = None) -> Registration | None:
        """``G`` of ``frame`` (frame px -> reference px), starting from ``guess`` (the
        last one; ``None``: the identity), with a global feature search when following
        from the guess fails. ``None`` when the frame cannot be registered."""
        if frame.shape[1] != self.size[0] or frame.shape[0] != self.size[1]:
            raise ValueError(
                f"frame is {frame.shape[1]}x{frame.shape[0]} px, the reference "
                f"{self.size[0]}x{self.size[1]}"
            )
        self._prepare()
        g = self._grey(frame)
        Gw = (
            self.S
            @ (np.eye(3) if guess is None else np.asarray(guess, float))
            @ np.linalg.inv(self.S)
        )
        out = self._follow(g, Gw)
        if out is None:
            Gg = self._search(g)
            out = None if Gg is None else self._follow(g, Gg)
        if out is None:
            return None
        Gw, n, rms = out
        G = np.linalg.inv(self.S) @ Gw @ self.S
        return Registration(G / G[2, 2], n, rms / self.s)

    def _follow(self, g: np.ndarray, Gw: np.ndarray) -> tuple[np.ndarray, int, float] | None:
        """Refine the work-px homography ``Gw`` by following the reference's corners
        into ``g`` warped by it (Lucas-Kanade, forward-backward checked, RANSAC)."""
        if len(self.pts) < MIN_INLIERS:
            return None
        warped = cv2.warpPerspective(g, Gw, self.work, flags=cv2.INTER_LINEAR)
        lk = dict(winSize=(21, 21), maxLevel=3, criteria=(3, 30, 0.01))
        p1, st, _ = cv2.calcOpticalFlowPyrLK(self.ref, warped, self.pts, None, **lk)
        p0, st2, _ = cv2.calcOpticalFlowPyrLK(warped, self.ref, p1, None, **lk)
        ok = (st[:, 0] == 1) & (st2[:, 0] == 1)
        ok &= np.linalg.norm((p0 - self.pts)[:, 0], axis=1) < 1.0
        src = apply_h(np.linalg.inv(Gw), self.pts[:, 0])  # where the corners lie in g
        seen = (src[:, 0] >= 0) & (src[:, 0] < self.work[0]) & (src[:, 1] >= 0)
        seen &= src[:, 1] < self.work[1]
        if ok.sum() < MIN_INLIERS:
            return None
        ref_pts = self.pts[ok, 0].astype(np.float64)
        frame_pts = apply_h(np.linalg.inv(Gw), p1[ok, 0])  # the corners in g's own px
        H, inl = cv2.findHomography(frame_pts, ref_pts, cv2.RANSAC, RANSAC_PX)
        if H is None or inl is None:
            return None
        inl = inl[:, 0].astype(bool)
        n = int(inl.sum())
        if n < MIN_INLIERS or n < INLIER_SHARE * max(1, int(seen.sum())):
            return None
        H, _ = cv2.findHomography(frame_pts[inl], ref_pts[inl], 0)  # least squares on inliers
        if H is None or not np.all(np.isfinite(H)):
            return None
        res = np.linalg.norm(apply_h(H, frame_pts[inl]) - ref_pts[inl], axis=1)
        return H, n, float(np.sqrt(np.mean(res**2)))

    def _search(self, g: np.ndarray) -> np.ndarray | None:
        """A first work-px homography from ORB features matched over the whole frame."""
        if self.desc is None or len(self.kp) < MIN_INLIERS:
            return None
        kp, desc = self.orb.detectAndCompute(g, None)
        if desc is None or len(kp) < MIN_INLIERS:
            return None
        pairs = self.matcher.knnMatch(desc, self.desc, k=2)
        good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < 0.8 * p[1].distance]
        if len(good) < MIN_INLIERS // 2:
            return None
        src = np.float32([kp[m.queryIdx].pt for m in good])
        dst = np.float32([self.kp[m.trainIdx].pt for m in good])
        H, inl = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
        if H is None or inl is None or int(inl.sum()) < MIN_INLIERS // 2:
            return None
        return H


@dataclass(frozen=True)
class NoseFit:
    """A registration refined on the cushion noses: ``G`` (frame px -> reference px),
    the profiles that matched, and the largest side's median residual shift (px)."""

    G: np.ndarray
    matched: int
    shift_px: float


def refine_on_noses(
    monitor: CalibrationMonitor,
    frame: np.ndarray,
    G: np.ndarray | None,
    iters: int = 4,
    damping: float = 1e-4,
) -> NoseFit | None:
    """Refine ``G`` (frame px -> the monitor's plate px; ``None``: identity) so that the
    cushion noses' profiles of ``frame`` (BGR, recorded px) fall where the plate's do:
    each profile's measured shift along its side's normal is one linear equation in the
    8 parameters of a small homography update (point-to-line, damped least squares, the
    worst profiles dropped), repeated ``iters`` times. ``None`` when too few profiles
    match (the noses are not in view, or the picture moved beyond the profiles' reach)."""
    from calibration.monitor import REACH

    h, w = frame.shape[:2]
    k = 2.0 / max(w, h)
    damp = np.r_[np.full(6, damping), np.full(2, 1e3 * damping)]  # perspective: stiff
    T = np.array([[k, 0, -k * w / 2], [0, k, -k * h / 2], [0, 0, 1.0]])
    F = np.eye(3) if G is None else np.linalg.inv(np.asarray(G, float))  # plate -> frame
    for it in range(iters + 1):
        monitor.follow(np.linalg.inv(F))
        shift, good = monitor.measure(frame)
        if good.sum() < MIN_PROFILES or (good.sum(axis=1) >= 4).sum() < 4:
            return None  # only the noses of all four sides pin a homography down
        centre = monitor.xy[:, :, 2, REACH]
        step = monitor.xy[:, :, 2, REACH + 1] - centre
        if it == iters:
            break
        p, st, s = centre[good], step[good], shift[good]
        ln = np.linalg.norm(st, axis=1)
        n = st / ln[:, None]
        b = k * s * ln  # normalised px along the normal
        q = np.c_[p, np.ones(len(p))] @ T.T
        u, v = q[:, 0], q[:, 1]
        z, one = np.zeros_like(u), np.ones_like(u)
        A = (
            n[:, :1] * np.c_[u, v, one, z, z, z, -u * u, -u * v]
            + n[:, 1:] * np.c_[z, z, z, u, v, one, -v * u, -v * v]
        )
        keep = np.ones(len(b), bool)
        for _ in range(2):  # solve, drop profiles far off the fit (covered, a ball), solve
            Ak, bk = A[keep], b[keep]
            d = np.linalg.solve(Ak.T @ Ak + np.diag(damp), Ak.T @ bk)
            r = np.abs(A @ d - b)
            keep = r <= max(3.0 * 1.4826 * float(np.median(r[keep])), 0.5 * k)
            if keep.sum() < MIN_PROFILES:
                return None
        D = np.eye(3) + np.r_[d, 0.0].reshape(3, 3)
        F = np.linalg.inv(T) @ D @ T @ F
        F /= F[2, 2]
        if np.max(np.abs(b)) < 0.05 * k:
            break
    worst = 0.0
    for side in range(4):
        g = good[side]
        if g.sum() >= 3:
            worst = max(worst, abs(float(np.median(shift[side][g]))))
    G1 = np.linalg.inv(F)
    return NoseFit(G1 / G1[2, 2], int(good.sum()), worst)


@dataclass(frozen=True)
class Step:
    """What :meth:`Follower.update` found: the registration ``G`` now in force (``None``:
    the reference's own pose), whether it was measured on this frame, ``jump_at``: the
    frame of a jump judged now (a knock: a sudden move after a steady spell), whether the
    frame could not be registered at all (the camera moved beyond what registration
    follows), the move (px) and whether it came after a steady spell (``fresh``: the
    frames since the last check were measured with the old registration)."""

    G: np.ndarray | None
    registered: bool = False
    jump_at: int | None = None
    failed: bool = False
    motion_px: float = 0.0
    fresh: bool = False


class Follower:
    """Keeps frames registered to the reference of ``monitor`` (its plate and
    calibration) while the camera drifts.

    :meth:`update` first asks the monitor's cheap check whether the picture still shows
    the noses where the current registration puts them (no work on a still camera);
    when it does not, the registration is refined on the noses from the last one, and
    when that cannot follow, found again from features (:class:`Registrar`). While the
    picture moves every frame is registered (``settle`` frames after the last motion).
    A frame that cannot be registered keeps the last registration; ``patience`` such
    frames in a row fail (the caller recalibrates). A move after a steady spell of at
    least ``jump_px`` (reference px, points of the table) and ``jump_ratio`` times the
    recent per-frame motion is judged over the next ``confirm`` registrations: a *jump*
    (a knock) when the picture then stands (moves ``jump_ratio`` times slower per frame);
    a drift goes on and is not one. While following, a registration that leaps more than
    ``leap_px`` a frame (and well beyond the recent pace) is taken for a wrong one (a
    strike's moving balls and cue over the features) and the last one kept."""

    def __init__(
        self,
        monitor: CalibrationMonitor,
        registrar: Registrar,
        G: np.ndarray | None = None,
        jump_px: float = 2.0,
        jump_ratio: float = 4.0,
        settle: int = 10,
        patience: int = 15,
        confirm: int = 3,
        leap_px: float = 10.0,
    ) -> None:
        self.monitor, self.registrar = monitor, registrar
        self.jump_px, self.jump_ratio, self.settle = jump_px, jump_ratio, settle
        self.G: np.ndarray | None = None
        self._set(G)
        self.moving = 0  # frames left to register every frame
        self.recent: list[float] = []  # per-frame motion (px) of the last registrations
        self._last = -1  # frame index of the last update
        self.patience, self.fails = patience, 0  # frames that could not be registered
        self.confirm = confirm
        self.leap_px = leap_px
        self.shift_px = 0.0  # the last check's shift (px): a drift beginning shows here
        self._candidate: tuple[int, float, list[float]] | None = None  # a move being judged

    def _set(self, G: np.ndarray | None) -> None:
        if G is not None and corner_motion(None, G, self.registrar.corners) < 0.25:
            G = None  # the reference's own pose: nothing to warp
        self.G = G
        self.monitor.follow(G)

    def register(self, frame: np.ndarray, start: object = "current") -> NoseFit | None:
        """The registration of ``frame`` from the current one (or from ``start``, a 3x3
        or ``None`` for the identity): nose fit, else features then nose fit; ``None``
        when the frame cannot be registered."""
        loose = 2.0 * self.monitor.tol  # a nose fit this close stands (the faces of the
        # cushions look a little different from another camera position)
        G0 = self.G if isinstance(start, str) else start
        fit = refine_on_noses(self.monitor, frame, G0)
        if fit is None or fit.shift_px > loose:
            feat = self.registrar.register(frame, G0)
            fit = None if feat is None else refine_on_noses(self.monitor, frame, feat.G)
            if (fit is None or fit.shift_px > loose) and feat is not None:
                # the noses do not confirm it (out of view, covered): the features stand
                # where enough of them agree
                ok = (
                    feat.inliers >= 2 * MIN_INLIERS
                    and feat.rms_px <= 2 * RANSAC_PX / self.registrar.s
                )
                fit = NoseFit(feat.G, 0, 0.0) if ok else None
        self.monitor.follow(self.G)
        if fit is None or fit.shift_px > loose:
            return None
        return fit

    def update(self, frame: np.ndarray, index: int) -> Step:
        """Check (and where needed register) ``frame`` (BGR, recorded px), frame
        ``index`` of the video."""
        gap = min(3, max(1, index - self._last)) if self._last >= 0 else 1
        self._last = index
        if not self.moving:
            check = self.monitor.check(frame)
            self.shift_px = check.shift_px
            if not check.moved:
                self.recent = (self.recent + [0.0] * gap)[-10:]
                return Step(self.G)
        fit = self.register(frame)
        if fit is None:  # lost for a few frames in a row (blur, a body): the monitor's way
            self.fails += 1
            self.moving = max(self.moving, 1)
            return Step(self.G, failed=self.fails >= self.patience)
        move = corner_motion(self.G, fit.G, self.registrar.corners, self.registrar.size)
        typical = float(np.median(self.recent)) if self.recent else 0.0
        fresh = not self.moving and bool(self.recent)  # a move after a steady spell
        if self.moving and move / gap > max(self.leap_px, self.jump_ratio * 1.5 * typical):
            self.fails += 1  # a leap out of a steady follow: a wrong registration
            return Step(self.G, failed=self.fails >= self.patience)
        self.fails = 0
        self.recent = (self.recent + [move / gap] * gap)[-10:]
        self._set(fit.G)
        self.moving = self.settle if move / gap > 0.3 * self.monitor.tol else self.moving - 1
        self.moving = max(0, self.moving)
        jump_at = self._judge(index, move, gap, typical, fresh)
        return Step(self.G, registered=True, jump_at=jump_at, motion_px=move, fresh=fresh)

    def _judge(self, index: int, move: float, gap: int, typical: float, fresh: bool) -> int | None:
        """A move after a steady spell is a jump (a knock) when it was sudden: the
        ``confirm`` frames registered after it move ``jump_ratio`` times less per frame
        than it did (a drift goes on at its pace). Returns the jump's frame, once
        judged."""
        if fresh and move >= self.jump_px and move >= self.jump_ratio * typical:
            self._candidate = (index, move / gap, [])
            return None
        if self._candidate is None:
            return None
        at, rate, after = self._candidate
        after.append(move / gap)
        if len(after) < self.confirm:
            return None
        self._candidate = None
        return at if self.jump_ratio * max(float(np.median(after)), 0.05) <= rate else None


def register_still(follower: Follower, image: np.ndarray) -> np.ndarray | None:
    """``image`` (BGR, recorded px; a still taken anywhere in the video, e.g. for a
    background model) as the reference would show it: itself where the cheap check finds
    the reference's pose, else warped by its registration (out of view: the reference's
    own pixels); ``None`` when it cannot be registered."""
    mon = follower.monitor
    mon.follow(None)
    moved = mon.check(image).moved
    mon.follow(follower.G)
    if not moved:
        return image
    fit = follower.register(image, start=None)
    if fit is None:
        return None
    out = mon.plate.copy()
    h, w = out.shape[:2]
    cv2.warpPerspective(image, fit.G, (w, h), out, cv2.INTER_LINEAR, cv2.BORDER_TRANSPARENT)
    return out


def anchor_for(
    plate: np.ndarray,
    first: np.ndarray,
    calib: Calibration,
    table: TableSpec,
    reference: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The picture to keep a replay registered to, and the first frame's registration.

    ``plate``: the median of the video's first frames, ``first``: its first frame,
    ``reference``: the picture ``calib`` was fitted on (``None``: unknown, the first
    frames are taken to match it). Where the first frames show the reference's pose the
    plate is the anchor (``G`` ``None``), else the reference is, with the first frame's
    ``G`` (frame px -> reference px; ``None`` when it cannot be registered)."""
    from calibration.monitor import CalibrationMonitor
    from calibration.plate import _sharpness

    if reference is None:
        return plate, None
    mon = CalibrationMonitor(reference, calib.data, table)
    if not mon.check(plate).moved:
        return plate, None
    seen = plate if _sharpness(plate) >= 0.5 * _sharpness(first) else first
    follower = Follower(mon, Registrar(reference, calib, table))
    fit = follower.register(seen, start=None)
    if fit is not None and corner_motion(None, fit.G, follower.registrar.corners) < 0.5:
        return plate, None
    return reference, None if fit is None else fit.G
