"""A fast classical ball detector: cloth model, ball-sized blobs, split clusters, sub-pixel centres.

Per frame: the video image is downscaled to a *work* image where a ball is about ``work_radius`` px
across, compared with a model of the empty cloth (a smooth polynomial fitted to the cloth inside
the surface, and the temporal median of the first frames in the band around it), thresholded inside
the surface, and cut into connected blobs. Each blob is explained as a union of ball-sized disks
(k-means on its pixels for 1..K balls, the K whose disks reproduce the blob best); blobs that no
set of disks explains are *actors* (arms, cues, bodies) and reported as boxes. Centres are refined
at full resolution in small windows (foreground-weighted centroid inside the ball's Voronoi cell),
classified by colour, and mapped to table mm at the ball centre's height (parallax-corrected by the
calibration).

Work that a frame does not need is skipped (the replay's speed): a frame whose table picture
matches the first frame after the last change (work px, above compression noise) and follows a few
calm ones answers with the last detections; otherwise only tiles that changed are thresholded
again, blobs seen before keep their split, and balls standing still keep their centre, measured
again every few frames and averaged.

Mixins of :class:`Detector`: foreground, crop and change test (:mod:`.foreground`), ONNX checks
and skittles (:mod:`.checks`), a fingertip's test before a birth (:mod:`.reach`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from contract.calib import Calibration
from contract.tables import TableSpec
from vision.base.colour import (
    basic_colour,
    basic_colours,
    game_class,
    is_ball_colour,
    plate_distance,
)
from vision.base.geometry import TableGeometry, ball_radius_px, polygon_mask
from vision.capture.source import Detections, Frame
from vision.detect.background import median_frames, still_cloth
from vision.detect.checks import IVORY, CandidateChecks, smear_axes_mm, with_axes
from vision.detect.cloth import cut_pocket_holes, empty_disks, majority
from vision.detect.exposure import ClothGain
from vision.detect.foreground import TILE, TileForeground
from vision.detect.packed import join_crowds
from vision.detect.reach import ReachCheck
from vision.detect.refine import refine_centres
from vision.detect.smears import SmearMemory
from vision.detect.split import THICK_FROM, BlobFit, components, fit_blob, isolated
from vision.detect.streak import StreakWatch


def _poly_basis(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v, u * u * v, u * v * v], axis=-1)


STATIC_DIFF = 2.0  # mean change of the colour distance under which a blob stands still
MIN_SCORE = 0.55  # least foreground coverage of the ball's disk
DOUBT_SCORE = 0.8  # pool/snooker: a sharp candidate covering less of its disk is verified
MAX_RING = 0.85  # a ball stands alone: little foreground just outside it (arms fail)
AVERAGE_EVERY = 5  # a ball standing still is measured again every this many frames ...
AVERAGE_MAX = 16  # ... until its centre is the mean of this many measurements
SETTLE_FRAMES = 6  # full detections after the last change before a still frame is reused
EMPTY_SHARE = 0.1  # a ball's disk with less foreground than this shows empty cloth
MOUTH_MARGIN = 0.3  # ball radii on the table side of a pocket's mouth line counted as hole
SHIFT_REACH = 0.5  # ball radii: a resting ball's edge-fit offset fades out this far from rest


def _warm_start(last: dict[tuple, BlobFit], x: int, y: int, w: int, h: int) -> dict | None:
    """k -> k-means centres (px of the crop at ``x``, ``y``, work px) of the last frame's
    blob whose box (``last``'s keys: x, y, w, h, area) overlaps this box (``w`` x ``h``)
    most, from its fit's ``splits``; None where none overlaps (``vision.detect.split.WARM``)."""
    best, most = None, 0
    for key, fit in last.items():
        if not fit.splits:
            continue
        ow = min(x + w, key[0] + key[2]) - max(x, key[0])
        oh = min(y + h, key[1] + key[3]) - max(y, key[1])
        if ow > 0 and oh > 0 and ow * oh > most:
            best, most = (key, fit), ow * oh
    if best is None:
        return None
    (px, py, *_), fit = best
    return {k: c + [px - x, py - y] for k, c in fit.splits.items()}


def _alone(*args) -> Callable[[], bool]:
    """``vision.detect.split.isolated(*args)``, computed when first asked (and kept)."""
    memo: list[bool] = []

    def ask() -> bool:
        if not memo:
            memo.append(isolated(*args))
        return memo[0]

    return ask


def _mean_change(patch: np.ndarray, old: np.ndarray) -> float:
    """``float(np.abs(patch - old).mean())`` (float32 arrays of one shape) to the bit,
    in two calls: the float32 sum divided in float64 and rounded to float32, as numpy's
    mean does."""
    diff = cv2.absdiff(patch, old)
    return float(np.float32(float(np.add.reduce(diff, axis=None)) / diff.size))


class Detector(TileForeground, CandidateChecks, ReachCheck):
    """Classical detector for one calibrated table and one video size.

    ``size`` (w, h) video px; ``work_radius`` the ball radius in work px (sets the scale).
    Call :meth:`fit_background` with a few frames (or one image) before :meth:`detect`.
    """

    def __init__(
        self,
        calib: Calibration,
        table: TableSpec,
        size: tuple[int, int],
        work_radius: float = 4.5,
    ) -> None:
        self.calib, self.table, self.size = calib, table, size
        centre = np.array([[table.L / 2, table.W / 2]])
        r0 = float(ball_radius_px(calib, table, centre)[0])
        if not np.isfinite(r0) or r0 < 1.5:
            raise ValueError(f"calibration gives a ball radius of {r0:.2f} px: table not in view")
        self.scale = 1.0 / max(1, int(round(r0 / work_radius)))  # integer: fast INTER_AREA
        self._fast_resize = self.scale <= 1 / 3
        self.geo = TableGeometry.build(calib, table, size, self.scale)
        self.region = cv2.bitwise_or(self.geo.inner, self.geo.band)
        self._bbox = cv2.boundingRect(self.region)  # work px: only this part is examined
        self.pn = np.array([1, 1, 1], np.float32) / np.sqrt(3)
        self.plate: np.ndarray | None = None
        self.plate_full: np.ndarray | None = None
        self.thr = 30.0
        self._cache: dict[tuple, BlobFit] = {}
        self._classifier = None  # the ONNX verifier, loaded when first needed
        self._static: dict[tuple, tuple] = {}
        self.gain = np.ones(3, np.float32)  # the frame's exposure the cloth model is scaled to
        self._exposure: ClothGain | None = None
        k = 5 if r0 * self.scale >= 3.5 else 3  # removes lines, rings and spots thinner than a ball
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        rk = 2 * int(round(r0 * self.scale)) + 1
        self._local_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (rk, rk))
        x, y, w, h = self._bbox
        k = int(round(1 / self.scale))  # the bbox cut from the video frame resizes exactly
        exact = (
            self.geo.work_size == (size[0] // k, size[1] // k) and size[0] % k == size[1] % k == 0
        )
        self._bbox_full = (x * k, y * k, w * k, h * k) if exact and k > 1 else None
        self._nearest = None  # odd k: the linear resize takes every k-th pixel (offset k//2)
        if self._bbox_full is not None and self._fast_resize and k % 2 == 1:
            X, Y = x * k + k // 2, y * k + k // 2
            if X + w * k <= size[0] and Y + h * k <= size[1]:
                self._nearest = (X, Y, w * k, h * k)
        self._region3 = np.repeat(self.region[y : y + h, x : x + w], 3, axis=1)
        self._small: tuple[np.ndarray, np.ndarray] | None = None  # (video frame, work bbox)
        self.reused = 0  # frames answered with the last detections (nothing moved)
        self._margin = self._local_kernel.shape[0] // 2 + 2 * (self._kernel.shape[0] // 2) + 1
        self._smears = SmearMemory(table.ball_radius)  # smears that stand still: verified
        self._reset()

    def _reset(self) -> None:
        """Forget the held foreground and the last detections (a new cloth model)."""
        self._held: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # basis, d, fg
        self._heat = np.zeros((-(-self._bbox[3] // TILE), -(-self._bbox[2] // TILE)), int)
        self._ref: np.ndarray | None = None  # work bbox image of the first frame after a change
        self._seen: tuple | None = None  # (video frame, reference, changed): the last test
        self._last: Detections | None = None
        self._calm = 0  # full detections in a row that saw no change
        self._measured = -(10**9)  # the frame of the last full detection
        self._first_look = True  # no balls measured yet (a still image: every ball at rest)
        self._rest_shift = np.zeros((0, 4))  # resting balls: centroid u, v and edge - centroid
        self._ivory_known = {}  # ivory candidates' model answers by place (checks.py)
        self._streaks = StreakWatch()  # dark balls' faint streaks (vision.detect.streak)

    # ------------------------------------------------------------ background
    def _work(self, img: np.ndarray) -> np.ndarray:
        if img.shape[1] != self.size[0] or img.shape[0] != self.size[1]:
            raise ValueError(
                f"frame is {img.shape[1]}x{img.shape[0]} px, calibration expects "
                f"{self.size[0]}x{self.size[1]}"
            )
        if self.scale >= 1.0:
            return img
        if self._fast_resize:  # point samples (noisier, many times cheaper than INTER_AREA)
            return cv2.resize(img, self.geo.work_size, interpolation=cv2.INTER_LINEAR)
        return cv2.resize(img, self.geo.work_size, interpolation=cv2.INTER_AREA)

    def fit_background(self, images: list[np.ndarray]) -> None:
        """Model the empty cloth from ``images`` (BGR, video size): a smooth polynomial
        per channel inside the surface (robust to balls standing still), the per-pixel
        median in the band around it (cushion faces, pocket mouths)."""
        if not images:
            raise ValueError("fit_background needs at least one image")
        images = images[:: max(1, len(images) // 9)][:9]
        small = [self._work(im) for im in images]
        # uint8 medians equal np.median of the float32 stack (an odd count: the middle value)
        if len(small) % 2:
            med = median_frames(small).astype(np.float32)
        else:
            med = np.median(np.stack(small).astype(np.float32), axis=0)
        work0 = small[0].astype(np.float32)  # the first frame (its noise sets the threshold)
        h, w = med.shape[:2]
        inner = self.geo.inner > 0
        vv, uu = np.nonzero(inner)
        pix = med[vv, uu]
        sel = np.ones(len(pix), bool)
        basis = _poly_basis(uu / w, vv / h)
        for _ in range(3):  # fit, drop pixels far from the fit (balls, markings), refit
            coef, *_ = np.linalg.lstsq(basis[sel], pix[sel], rcond=None)
            err = np.linalg.norm(pix - basis @ coef, axis=1)
            sel = err < max(12.0, 2.5 * float(np.median(err[sel])))
        # Full resolution: the polynomial well inside the surface, the per-pixel median of
        # the frames near and beyond the cushion noses (cushion faces, pockets).
        W, H = self.size
        s = self.scale
        u = (((np.arange(W) + 0.5) * s - 0.5) / w).astype(np.float32)
        coef32 = coef.astype(np.float32)
        plate = np.empty((H, W, 3), np.float32)
        for y0 in range(0, H, 64):  # in bands of rows: bounded memory at any picture size
            y1 = min(H, y0 + 64)
            v = (((np.arange(y0, y1) + 0.5) * s - 0.5) / h).astype(np.float32)
            gu, gv = np.meshgrid(u, v)
            plate[y0:y1] = _poly_basis(gu, gv) @ coef32
        core = polygon_mask(self.calib, self.table, self.size, 1.0, -0.1 * self.table.ball_radius)
        cut_pocket_holes(core, self.calib, self.table, MOUTH_MARGIN)
        core = cv2.erode(core, np.ones((3, 3), np.uint8)) > 0
        # the per-pixel median of the frames where it is used, but the cloth under balls
        # that stand there all video long (the median holds them: vision.detect.background)
        med = median_frames(images)
        core |= still_cloth(med, plate, core, self.calib, self.table, self.geo)
        np.copyto(plate, med, where=~core[..., None])
        self.plate_full = plate
        self.plate = self._work(plate)
        x, y, w, h = self._bbox
        self._plate_box = self.plate[y : y + h, x : x + w]
        self._region_box = self.region[y : y + h, x : x + w] > 0
        # the region's outer rim (work px of the bbox): a blob on it reaches in from beyond
        box = np.pad(self._region_box.astype(np.uint8), 1)
        self._rim = (box - cv2.erode(box, np.ones((3, 3), np.uint8)))[1:-1, 1:-1]
        self._reset()
        pn = np.median(self.plate[inner], axis=0)
        self.pn = (pn / max(1e-3, float(np.linalg.norm(pn)))).astype(np.float32)
        self._pn0, self.gain = self.pn, np.ones(3, np.float32)
        cloth = cv2.erode(self.geo.inner, self._local_kernel)[y : y + h, x : x + w] > 0
        self._exposure = ClothGain(self._plate_box, cloth)
        g0 = self._exposure.measure(work0[y : y + h, x : x + w].astype(np.uint8))
        first = work0 / g0 if g0 is not None else work0  # its noise, not its exposure
        d = plate_distance(first, self.plate, self.pn)[inner]
        mad = float(np.median(np.abs(d - np.median(d))))
        self.thr = float(np.clip(np.median(d) + 9.0 * 1.4826 * mad, 22.0, 60.0))

    # ------------------------------------------------------------ detection
    def cloth_empty(self, xy: np.ndarray) -> np.ndarray:
        """(N,) bool: True where a ball centred at ``xy`` (N,2 table mm) would cover
        visibly empty cloth in the last frame examined: under :data:`EMPTY_SHARE` of the
        work pixels of its disk differ from the cloth model by the threshold. A ball
        hidden by an arm, a cue or a body is not on empty cloth; positions off the
        examined picture are never empty (unknown)."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        if self._held is None or not len(xy):
            return np.zeros(len(xy), bool)
        s, (ox, oy) = self.scale, self._bbox[:2]
        uv = (self.calib.table_to_pixel(xy, height=self.table.ball_radius) + 0.5) * s - 0.5
        r = np.array([0.8 * self.geo.radius_at(u, v) * s for u, v in np.nan_to_num(uv)])
        inside = self._held[1] > self.thr
        return empty_disks(inside, self._region_box, uv - [ox, oy], r, EMPTY_SHARE)

    def still(self, frame: Frame) -> bool:
        """True when nothing on the table moved: the picture matches the reference and at
        least :data:`SETTLE_FRAMES` full detections since it did too, so :meth:`detect`
        answers with the last detections (re-dated to this frame)."""
        return self._last is not None and self._calm >= SETTLE_FRAMES and not self._changed(frame)

    def detect(self, frame: Frame) -> Detections:
        """Find the balls in one frame (the last detections again when :meth:`still`)."""
        if self.still(frame) and frame.index - self._measured < AVERAGE_EVERY:
            self.reused += 1
            return replace(self._last, frame=frame.index, t=frame.t)
        self._measured = frame.index
        self._expose(frame)
        if self._changed(frame):  # the reference: the first frame after the last change
            self._calm, self._ref = 0, self._crop(frame.image)
        else:
            self._calm += 1
        self._last = self._detect(frame)
        return self._last

    def _expose(self, frame: Frame) -> None:
        """Scale the cloth model to the frame's exposure and white balance when they
        changed beyond noise (:mod:`vision.detect.exposure`); the foreground is then computed
        again everywhere."""
        gain = self._exposure.update(self._crop(frame.image)) if self._exposure else None
        if gain is None:
            return
        ratio = gain / self.gain
        self.plate_full *= ratio
        if not np.shares_memory(self.plate, self.plate_full):  # _plate_box: a view of it
            self.plate *= ratio
        pn = self._pn0 * gain
        self.pn = (pn / max(1e-3, float(np.linalg.norm(pn)))).astype(np.float32)
        self.gain, self._held, self._static = gain, None, {}

    def _detect(self, frame: Frame) -> Detections:
        img = frame.image
        d, fg = self.foreground(img)
        n, labels, stats, cents = components(fg)
        ox, oy = self._bbox[:2]
        s = self.scale
        centres: list[np.ndarray] = []  # (K,2) video px per blob of balls
        blurred: list[float] = []  # smear length / width; 0: a sharp ball
        axes: list = []  # a smear's long axis (unit vector, work px); None: a sharp ball
        owner: list[tuple] = []  # blob key of each centre
        actors: list[np.ndarray] = []
        cache: dict[tuple, BlobFit] = {}
        # expected ball radius (work px) at each blob's centroid; smaller blobs are noise
        r_all = self.geo.radii_at(cents[:, 0] + ox, cents[:, 1] + oy) * s
        big = stats[:, 4] >= 0.35 * np.pi * r_all * r_all
        rows, radii = stats.tolist(), r_all.tolist()
        for i in np.nonzero(big[1:])[0] + 1:
            bx, by, w, h, area = rows[i]
            x, y = bx + ox, by + oy
            r = radii[i]
            key = (x, y, w, h, area)
            fit = self._cache.get(key)
            if fit is None:
                crop = (labels[by : by + h, bx : bx + w] == i).astype(np.uint8)
                warm = _warm_start(self._cache, x, y, w, h)
                edge = area >= THICK_FROM * np.pi * r * r and bool(
                    cv2.countNonZero(crop & self._rim[by : by + h, bx : bx + w])
                )
                alone = _alone(fg, labels, i, bx, by, w, h, r)  # asked of smear shapes only
                fit = fit_blob(crop, r, alone, warm, edge)
            cache[key] = fit
            if fit.actor:
                box_px = np.array([[x, y], [x + w, y], [x, y + h], [x + w, y + h]]) / s
                mm = self.calib.pixel_to_table(box_px, height=0.0)
                actors.append(np.concatenate([mm.min(axis=0), mm.max(axis=0)]))
                continue
            k = len(fit.centres)
            centres.append((fit.centres + [x, y] + 0.5) / s - 0.5)
            blurred += [fit.stretch if fit.smear else 0.0] * k
            axes += [fit.axis if fit.smear else None] * k
            owner += [key] * k
        self._cache = cache
        uv0 = np.concatenate(centres).reshape(-1, 2) if centres else np.zeros((0, 2))
        dets = self._pack(frame, d, uv0, blurred, owner, actors, axes)
        axis = dets.axis
        dets = self._streaks.look(self, self._crop(img), fg, dets)
        dets = self._add_skittles(frame.image, dets) if self.table.skittle_spots else dets
        return with_axes(dets, axis)  # streaks and skittles come after: no axis known

    def _carry_shift(
        self,
        uv: np.ndarray,
        radii: np.ndarray,
        todo: np.ndarray,
        sharp: np.ndarray,
        shift: np.ndarray,
    ) -> None:
        """One centre method per resting ball: a ball at rest is measured by its edge fit
        while its blob stands still (``sharp``) and by its plain centroid once the blob
        changes (a cue tip touching it), and the switch would move it (a strike dated early).
        The edge-minus-centroid ``shift`` (N,2 video px) measured on a sharp ball's frame is
        kept with its centroid and added to a centroid-measured ball near there, fading to
        nothing :data:`SHIFT_REACH` radii away (a struck ball leaves its rest smoothly).
        ``uv`` (N,2 video px) is adjusted in place for the balls refined (``todo``)."""
        old, n = self._rest_shift, len(uv)
        rows, keep = np.zeros((n, 4)), todo & sharp
        rows[keep, :2], rows[keep, 2:] = uv[keep] - shift[keep], shift[keep]  # its offset now
        other = np.nonzero(~keep)[0]
        if len(old) and len(other):  # each other ball's nearest rest, all at once
            d = np.hypot(old[None, :, 0] - uv[other, None, 0], old[None, :, 1] - uv[other, None, 1])
            j = np.argmin(d, axis=1)
            dj = d[np.arange(len(other)), j]
            reach = SHIFT_REACH * np.asarray(radii, float)[other]
            near = ~(dj >= reach)
            fix = near & todo[other]  # measured by the centroid near where it rested
            uv[other[fix]] += old[j[fix], 2:] * (1.0 - dj[fix] / reach[fix])[:, None]
            rows[other[near]], keep[other[near]] = old[j[near]], True
        self._rest_shift = rows[keep]

    def _pack(
        self,
        frame: Frame,
        d: np.ndarray,
        uv0: np.ndarray,
        blurred: list[float],
        owner: list[tuple],
        actors: list,
        axes: list | None = None,
    ) -> Detections:
        R = self.table.ball_radius
        act = np.asarray(actors, float).reshape(-1, 4)
        if len(uv0) == 0:
            self._static = {}
            e = Detections.empty(frame.index, frame.t)
            return Detections(
                frame.index, frame.t, e.uv, e.xy, e.radius, e.cls, e.score, e.blurred, act
            )
        w = (uv0 + 0.5) * self.scale - 0.5
        radii = self.geo.radii_at(w[:, 0], w[:, 1])
        # balls standing still: same blob, same pixels -> keep the last refined values
        n = len(uv0)
        uv, score, ring, bgr = uv0.copy(), np.zeros(n), np.zeros(n), np.zeros((n, 3))
        todo = np.ones(n, bool)
        static: dict[tuple, tuple] = {}
        ox, oy = self._bbox[:2]
        again: dict[tuple, tuple] = {}  # still blobs measured again: key -> (entry, balls)
        settled = np.full(n, self._first_look)  # balls at rest: their edge is sharp
        members: dict[tuple, list[int]] = {}  # blob key -> its balls
        for k, key in enumerate(owner):
            members.setdefault(key, []).append(k)
        for key, idx in members.items():
            x, y, w, h, _ = key
            patch = d[y - oy : y - oy + h, x - ox : x - ox + w]
            old = self._static.get(key)
            if old is not None and _mean_change(patch, old[0]) < STATIC_DIFF:
                for k, vals in zip(idx, old[1], strict=True):
                    uv[k], score[k], ring[k], bgr[k] = vals
                    todo[k] = False
                static[key] = old
                if old[3] < AVERAGE_MAX and frame.index - old[4] >= AVERAGE_EVERY:
                    again[key] = (old, idx)
                    todo[idx] = True  # from the mean so far
                    settled[idx] = True
            else:
                static[key] = (patch.copy(), None, idx, 1, frame.index)  # 1 measurement
        if todo.any():
            sharp = settled & (np.asarray(blurred, float) == 0)  # a moving ball's edge is not
            shift = np.zeros((n, 2))
            new = refine_centres(
                frame.image,
                self.plate_full,
                uv,
                radii,
                self.thr,
                self.pn,
                todo=todo,
                sharp=sharp,
                shift=shift,
            )
            for arr, fresh in zip((uv, score, ring, bgr), new, strict=True):
                arr[todo] = fresh[todo]
            self._carry_shift(uv, radii, todo, sharp, shift)
        self._first_look = False
        for key, (old, idx) in again.items():  # a still ball: the mean of its measurements
            m = old[3]
            uv[idx] = (np.array([v[0] for v in old[1]]) * m + uv[idx]) / (m + 1)
            static[key] = (old[0], None, idx, m + 1, frame.index)
        for key, entry in static.items():
            if entry[1] is None:
                idx = entry[2]
                vals = [(uv[k], score[k], ring[k], bgr[k]) for k in idx]
                static[key] = (entry[0], vals, *entry[2:])
        self._static = static
        xy = self.calib.pixel_to_table(uv, height=R)
        tol = 0.35 * R
        stretch = np.asarray(blurred, float)
        b = stretch > 0
        keep = (
            (xy[:, 0] > -tol)
            & (xy[:, 0] < self.table.L + tol)
            & (xy[:, 1] > -tol)
            & (xy[:, 1] < self.table.W + tol)
            & (score > np.where(b, MIN_SCORE / 2, MIN_SCORE))
            & ((ring < MAX_RING) | b)
        )
        for k in np.nonzero(b)[0]:  # a smear dilutes the ball's colour with the cloth's
            keep[k] &= basic_colour(bgr[k]) != "skin"  # an arm is as wide as a ball
            u, v = np.clip(np.round(uv[k]).astype(int), 0, [self.size[0] - 1, self.size[1] - 1])
            cloth = self.plate_full[v, u]
            bgr[k] = np.clip(cloth + (bgr[k] - cloth) * stretch[k], 0, 255)
        kind = self.table.kind
        basic = basic_colours(bgr)
        cls = np.array([game_class(b, kind) for b in basic], object)
        colour_ok = np.array([is_ball_colour(c, kind) for c in basic], bool)
        colour_ok |= ~b & np.array([c in IVORY.get(kind, ()) for c in basic], bool)  # asked
        blob_ids = {k: i for i, k in enumerate(dict.fromkeys(owner))}
        group = np.array([blob_ids[k] for k in owner], int)
        # a blob split into disks that mostly have no ball's colour is a hand or an arm
        keep &= colour_ok & majority(group, colour_ok, np.ones(len(group), bool))
        doubt = (score < DOUBT_SCORE) & ~b  # a sharp ball covers its whole disk
        doubt |= self._smears.standing(xy, b & keep, frame.index)  # no moving ball
        doubt |= np.bincount(group, weights=~keep)[group] > 0  # its blob has a disk of no ball
        crowds = join_crowds(uv, radii, group)  # a rack's ball cut off its blob: with it
        keep &= self._verified(frame.image, uv, radii, basic, keep, doubt, crowds)
        return Detections(
            frame.index,
            frame.t,
            uv[keep],
            xy[keep],
            radii[keep],
            cls[keep],
            score[keep],
            b[keep],
            act,
            axis=smear_axes_mm(self.calib, uv, axes, R)[keep],
        )
