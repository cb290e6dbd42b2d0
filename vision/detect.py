"""A fast classical ball detector: cloth model, ball-sized blobs, split clusters, sub-pixel centres.

Per frame: the video image is downscaled to a *work* image where a ball is about
``work_radius`` px across, compared with a model of the empty cloth (a smooth
polynomial fitted to the cloth inside the surface, and the temporal median of the
first frames in the band around it), thresholded inside the surface, and cut into
connected blobs. Each blob is explained as a union of ball-sized disks (k-means on
its pixels for 1..K balls, the K whose disks reproduce the blob best); blobs that no
set of disks explains are *actors* (arms, cues, bodies) and reported as boxes.
Centres are refined at full resolution in small windows (foreground-weighted
centroid inside the ball's Voronoi cell), classified by colour, and mapped to
table mm at the ball centre's height (parallax-corrected by the calibration).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from contract.calib import Calibration
from contract.tables import TableSpec
from vision.capture import Frame
from vision.colour import basic_colour, game_class, is_ball_colour
from vision.geometry import TableGeometry, ball_radius_px, polygon_mask
from vision.skittles import find_skittles
from vision.split import BlobFit, components, fit_blob


@dataclass(frozen=True)
class Detections:
    """Balls (and skittles) found in one frame, as a struct of arrays.

    ``uv`` video px (recorded), ``xy`` table mm of the centre's vertical projection,
    ``radius`` video px, ``cls`` class name, ``score`` 0..1 (disk coverage),
    ``blurred`` True for a motion smear; ``actors`` (K,4) boxes in table mm
    ``[xmin, ymin, xmax, ymax]`` of things that are not balls (arms, cues, bodies).
    """

    frame: int
    t: float
    uv: np.ndarray = field(repr=False)
    xy: np.ndarray = field(repr=False)
    radius: np.ndarray = field(repr=False)
    cls: np.ndarray = field(repr=False)
    score: np.ndarray = field(repr=False)
    blurred: np.ndarray = field(repr=False)
    actors: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.uv)

    @classmethod
    def empty(cls, frame: int = 0, t: float = 0.0) -> Detections:
        z = np.zeros((0, 2))
        return cls(
            frame,
            t,
            z,
            z,
            np.zeros(0),
            np.zeros(0, object),
            np.zeros(0),
            np.zeros(0, bool),
            np.zeros((0, 4)),
        )

    @classmethod
    def from_xy(cls, frame: int, t: float, xy, classes, actors=None) -> Detections:
        """Detections given directly in table mm (tests, other detectors)."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        n = len(xy)
        return cls(
            frame,
            t,
            np.full((n, 2), np.nan),
            xy,
            np.zeros(n),
            np.asarray(list(classes), object),
            np.ones(n),
            np.zeros(n, bool),
            np.zeros((0, 4)) if actors is None else np.asarray(actors, float).reshape(-1, 4),
        )


DARK_WEIGHT = 0.35  # a pure darkening (shadow) counts this much
BRIGHT_WEIGHT = 0.6  # a pure brightening (glare, projected light) counts this much
SHADOW_DEPTH = 0.5  # shadows darken the cloth by at most this share of its brightness


def _plate_distance(img: np.ndarray, plate: np.ndarray, pn: np.ndarray) -> np.ndarray:
    """Colour distance (float32) of ``img`` from the cloth ``plate`` (both float32 BGR).

    The change of colour counts in full; a change of brightness along the cloth's colour
    direction ``pn`` (unit 3-vector) counts by :data:`BRIGHT_WEIGHT` when brighter (glare,
    projected light) and by :data:`DARK_WEIGHT` when darker down to
    :data:`SHADOW_DEPTH` of the cloth's brightness (shadows), in full beyond (dark balls).
    """
    diff = cv2.subtract(img, plate)
    row = pn.reshape(1, 3).astype(np.float32)
    b = cv2.transform(diff, row)
    level = cv2.transform(plate, row)
    sq = cv2.transform(cv2.multiply(diff, diff), np.ones((1, 3), np.float32))
    bp, dark = cv2.max(b, 0.0), cv2.max(-b, 0.0)
    knee = SHADOW_DEPTH * level
    eff = DARK_WEIGHT * cv2.min(dark, knee) + cv2.max(dark - knee, 0.0)
    d2 = sq - (1 - BRIGHT_WEIGHT**2) * bp * bp - dark * dark + eff * eff
    return cv2.sqrt(cv2.max(d2, 0.0))


def _poly_basis(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v, u * u * v, u * v * v], axis=-1)


LOCAL_FRACTION = 0.4
STATIC_DIFF = 2.0  # mean change of the colour distance under which a blob stands still
MIN_SCORE = 0.55  # least foreground coverage of the ball's disk
MAX_RING = 0.85  # a ball stands alone: little foreground just outside it (arms fail)
AMBIGUOUS = {"skin", "pink", "orange", "brown"}  # colours a hand shares with some balls
CHANGE_LEVEL = 30  # a work pixel changed: one colour channel moved more than this (8-bit)
CHANGE_PIXELS = 2  # the picture changed: more changed work pixels than this
SETTLE_FRAMES = 6  # full detections after the last change before a still frame is reused


class Detector:
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
        k = 5 if r0 * self.scale >= 3.5 else 3  # removes lines, rings and spots thinner than a ball
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        rk = 2 * int(round(r0 * self.scale)) + 1
        self._local_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (rk, rk))
        x, y, w, h = self._bbox
        k = int(round(1 / self.scale))  # the bbox cut from the video frame resizes exactly
        exact = (
            self.geo.work_size == (size[0] // k, size[1] // k) and size[0] % k == size[1] % k == 0
        )
        self._bbox_full = (x * k, y * k, w * k, h * k) if exact and self._fast_resize else None
        self._region3 = np.repeat(self.region[y : y + h, x : x + w], 3, axis=1)
        self._small: tuple[np.ndarray, np.ndarray] | None = None  # (video frame, work bbox)
        self._ref: np.ndarray | None = None  # work bbox image of the first frame after a change
        self._seen: tuple | None = None  # (video frame, reference, changed): the last test
        self._last: Detections | None = None
        self._calm = 0  # full detections in a row that saw no change
        self.reused = 0  # frames answered with the last detections (nothing moved)

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
        work = np.stack([self._work(im) for im in images]).astype(np.float32)
        med = np.median(work, axis=0) if len(work) > 1 else work[0]
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
        for p in self.table.pockets:  # pocket holes are not cloth
            c = self.calib.table_to_pixel(np.array([p.centre]))[0]
            r = ball_radius_px(self.calib, self.table, np.array([p.centre]))[0]
            rr = r * (p.mouth_mm / 2 + 1.8 * self.table.ball_radius) / self.table.ball_radius
            cv2.circle(core, (int(round(c[0])), int(round(c[1]))), int(rr), 0, -1)
        core = cv2.erode(core, np.ones((3, 3), np.uint8)) > 0
        outside = ~core
        if len(images) > 1:  # per-pixel median of the frames, only where it is used
            plate[outside] = np.median(np.stack([im[outside] for im in images]), axis=0)
        else:
            plate[outside] = images[0][outside]
        self.plate_full = plate
        self.plate = self._work(plate)
        pn = np.median(self.plate[inner], axis=0)
        self.pn = (pn / max(1e-3, float(np.linalg.norm(pn)))).astype(np.float32)
        d = _plate_distance(work[0], self.plate, self.pn)[inner]
        mad = float(np.median(np.abs(d - np.median(d))))
        self.thr = float(np.clip(np.median(d) + 9.0 * 1.4826 * mad, 22.0, 60.0))

    # ------------------------------------------------------------ detection
    def foreground(self, img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(work-scale colour distance, cleaned work-scale foreground mask), both cropped
        to the table's bounding box ``self._bbox`` (x, y, w, h in work px)."""
        if self.plate is None:
            self.fit_background([img])
        x, y, w, h = self._bbox
        small = self._crop(img).astype(np.float32)
        d = _plate_distance(small, self.plate[y : y + h, x : x + w], self.pn)
        # relative threshold: a pixel must reach a fraction of the strongest contrast within
        # a ball radius (drops shadows, glare and halos next to a ball; splits touching balls)
        local = cv2.dilate(d, self._local_kernel)
        fg = (
            (d > self.thr) & (d >= LOCAL_FRACTION * local) & (self.region[y : y + h, x : x + w] > 0)
        )
        fg = fg.astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, self._kernel)
        return d, fg

    def _crop(self, img: np.ndarray) -> np.ndarray:
        """The work image of the table's bounding box (uint8 BGR, work px); only that part
        of the video frame is resized where the scale is an exact integer factor. The last
        frame's answer is kept (the change test and the detection share it)."""
        if self._small is not None and self._small[0] is img:
            return self._small[1]
        if self._bbox_full is None or img.shape[:2] != (self.size[1], self.size[0]):
            x, y, w, h = self._bbox
            small = self._work(img)[y : y + h, x : x + w]
        else:
            X, Y, W, H = self._bbox_full
            size = (self._bbox[2], self._bbox[3])
            small = cv2.resize(img[Y : Y + H, X : X + W], size, interpolation=cv2.INTER_LINEAR)
        self._small = (img, small)
        return small

    def _changed(self, frame: Frame) -> bool:
        """True when the table's picture differs from the reference (the first frame after
        the last change) by more than compression noise (:data:`CHANGE_LEVEL`,
        :data:`CHANGE_PIXELS`, work px): a slow drift adds up against a fixed reference."""
        if self._ref is None:
            return True
        if self._seen is not None and self._seen[0] is frame.image and self._seen[1] is self._ref:
            return self._seen[2]
        diff = cv2.absdiff(self._crop(frame.image), self._ref)
        _, hot = cv2.threshold(diff.reshape(diff.shape[0], -1), CHANGE_LEVEL, 255, 0)
        changed = cv2.countNonZero(cv2.bitwise_and(hot, self._region3)) > CHANGE_PIXELS
        self._seen = (frame.image, self._ref, changed)
        return changed

    def still(self, frame: Frame) -> bool:
        """True when nothing on the table moved: the picture matches the reference and at
        least :data:`SETTLE_FRAMES` full detections since it did too, so :meth:`detect`
        answers with the last detections (re-dated to this frame)."""
        return self._last is not None and self._calm >= SETTLE_FRAMES and not self._changed(frame)

    def detect(self, frame: Frame) -> Detections:
        """Find the balls in one frame (the last detections again when :meth:`still`)."""
        if self.still(frame):
            self.reused += 1
            return replace(self._last, frame=frame.index, t=frame.t)
        if self._changed(frame):  # the reference: the first frame after the last change
            self._calm, self._ref = 0, self._crop(frame.image)
        else:
            self._calm += 1
        self._last = self._detect(frame)
        return self._last

    def _detect(self, frame: Frame) -> Detections:
        img = frame.image
        d, fg = self.foreground(img)
        n, labels, stats, cents = components(fg)
        ox, oy = self._bbox[:2]
        s = self.scale
        centres: list[np.ndarray] = []
        blurred: list[float] = []  # smear length / width; 0: a sharp ball
        owner: list[tuple] = []  # blob key of each centre
        actors: list[np.ndarray] = []
        cache: dict[tuple, BlobFit] = {}
        for i in range(1, n):
            bx, by, w, h, area = (int(a) for a in stats[i])
            x, y = bx + ox, by + oy
            r = self.geo.radius_at(cents[i][0] + ox, cents[i][1] + oy) * s
            if area < 0.35 * np.pi * r * r:
                continue
            key = (x, y, w, h, area)
            fit = self._cache.get(key)
            if fit is None:
                crop = (labels[by : by + h, bx : bx + w] == i).astype(np.uint8)
                fit = fit_blob(crop, r, _isolated(fg, labels, i, bx, by, w, h, r))
            cache[key] = fit
            if fit.actor:
                box_px = np.array([[x, y], [x + w, y], [x, y + h], [x + w, y + h]]) / s
                mm = self.calib.pixel_to_table(box_px, height=0.0)
                actors.append(np.r_[mm.min(axis=0), mm.max(axis=0)])
                continue
            for c in fit.centres:
                centres.append((c + [x, y] + 0.5) / s - 0.5)
                blurred.append(fit.stretch if fit.smear else 0.0)
                owner.append(key)
        self._cache = cache
        uv0 = np.asarray(centres, float).reshape(-1, 2)
        dets = self._pack(frame, d, uv0, blurred, owner, actors)
        return self._add_skittles(frame.image, dets) if self.table.skittle_spots else dets

    def _verified(
        self, img: np.ndarray, uv: np.ndarray, radii: np.ndarray, basic: list[str], keep: np.ndarray
    ) -> np.ndarray:
        """Where a candidate's colour could be a hand's (skin, pink, orange, brown on a
        pool or snooker table), the ONNX patch model (``vision.classify``) decides whether
        it is a ball; elsewhere the classical stage stands. (N,) bool."""
        out = np.ones(len(uv), bool)
        if self.table.kind not in ("pool", "snooker"):
            return out
        ask = np.array([k and b in AMBIGUOUS for k, b in zip(keep, basic, strict=True)], bool)
        if not ask.any():
            return out
        if self._classifier is None:
            from vision.classify import BallClassifier

            self._classifier = BallClassifier.load()
        res = self._classifier.classify(img, uv[ask], radii[ask])
        out[np.nonzero(ask)[0]] = np.asarray(res.is_ball) >= 0.5
        return out

    def _add_skittles(self, img: np.ndarray, det: Detections) -> Detections:
        """``det`` with the 5-pin skittles found near their marks (class ``skittle``)."""

        def distance(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
            roi = img[y0:y1, x0:x1].astype(np.float32)
            return _plate_distance(roi, self.plate_full[y0:y1, x0:x1], self.pn)

        uv, xy = find_skittles(img, distance, self.calib, self.table, self.thr, det.uv, det.radius)
        n = len(uv)
        if n == 0:
            return det
        return Detections(
            det.frame,
            det.t,
            np.r_[det.uv, uv],
            np.r_[det.xy, xy],
            np.r_[det.radius, np.zeros(n)],
            np.r_[det.cls, np.full(n, "skittle", object)],
            np.r_[det.score, np.ones(n)],
            np.r_[det.blurred, np.zeros(n, bool)],
            det.actors,
        )

    def _pack(
        self,
        frame: Frame,
        d: np.ndarray,
        uv0: np.ndarray,
        blurred: list[float],
        owner: list[tuple],
        actors: list,
    ) -> Detections:
        R = self.table.ball_radius
        act = np.asarray(actors, float).reshape(-1, 4)
        if len(uv0) == 0:
            self._static = {}
            e = Detections.empty(frame.index, frame.t)
            return Detections(
                frame.index, frame.t, e.uv, e.xy, e.radius, e.cls, e.score, e.blurred, act
            )
        radii = np.array([self.geo.radius_at(*((c + 0.5) * self.scale - 0.5)) for c in uv0])
        # balls standing still: same blob, same pixels -> keep the last refined values
        n = len(uv0)
        uv, score, ring, bgr = uv0.copy(), np.zeros(n), np.zeros(n), np.zeros((n, 3))
        todo = np.ones(n, bool)
        static: dict[tuple, tuple] = {}
        ox, oy = self._bbox[:2]
        for key in set(owner):
            x, y, w, h, _ = key
            patch = d[y - oy : y - oy + h, x - ox : x - ox + w]
            idx = [k for k in range(n) if owner[k] == key]
            old = self._static.get(key)
            if old is not None and float(np.mean(np.abs(patch - old[0]))) < STATIC_DIFF:
                for k, vals in zip(idx, old[1], strict=True):
                    uv[k], score[k], ring[k], bgr[k] = vals
                    todo[k] = False
                static[key] = old
            else:
                static[key] = (patch.copy(), None, idx)
        if todo.any():
            new = refine_centres(
                frame.image, self.plate_full, uv, radii, self.thr, self.pn, todo=todo
            )
            for arr, fresh in zip((uv, score, ring, bgr), new, strict=True):
                arr[todo] = fresh[todo]
        for key, entry in static.items():
            if entry[1] is None:
                idx = entry[2]
                static[key] = (entry[0], [(uv[k], score[k], ring[k], bgr[k]) for k in idx], idx)
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
        basic = [basic_colour(c) for c in bgr]
        cls = np.array([game_class(b, kind) for b in basic], object)
        keep &= np.array([is_ball_colour(c, kind) for c in basic], bool)
        keep &= self._verified(frame.image, uv, radii, basic, keep)
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
        )


def _isolated(
    fg: np.ndarray, labels: np.ndarray, i: int, x: int, y: int, w: int, h: int, r: float
) -> bool:
    """True when little other foreground lies within ``r`` work px around blob ``i``."""
    pad = int(np.ceil(r)) + 1
    H, W = fg.shape
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    lab = labels[y0:y1, x0:x1]
    own = (lab == i).astype(np.uint8)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * pad - 1, 2 * pad - 1))
    ring = (cv2.dilate(own, k) > 0) & (own == 0)
    return not ring.any() or float(((lab > 0) & ring).mean() / ring.mean()) < 0.1


def refine_centres(
    img: np.ndarray,
    plate: np.ndarray,
    uv: np.ndarray,
    radii: np.ndarray,
    thr: float,
    pn: np.ndarray,
    iters: int = 3,
    passes: int = 2,
    todo: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sub-pixel centres at full resolution: the foreground-weighted centroid of the
    pixels within 1.3 r of the estimate and inside its Voronoi cell among neighbours.
    A second pass re-runs the balls that have neighbours, with the neighbours refined.

    Returns (uv (N,2) video px, coverage of the disk (N,), share of foreground in the
    ring 1.25 r..1.6 r outside the ball's neighbours (N,; high for arms and bodies),
    median core BGR (N,3))."""
    out = uv.astype(float).copy()
    n = len(uv)
    score, ring, bgr = np.zeros(n), np.zeros(n), np.zeros((n, 3))
    for p in range(passes):
        crowded = False
        for i in range(n):
            nb = np.delete(out, i, axis=0)
            nb = nb[np.linalg.norm(nb - out[i], axis=1) < 3.0 * radii[i]]
            crowded |= len(nb) > 0
            if (p > 0 and len(nb) == 0) or (todo is not None and not todo[i]):
                continue
            res = _refine_one(img, plate, pn, out[i], float(radii[i]), nb, thr, iters)
            if res is not None:
                out[i], score[i], ring[i], bgr[i] = res
        if not crowded:
            break
    return out, np.clip(score, 0, 1), ring, bgr


def _refine_one(
    img: np.ndarray,
    plate: np.ndarray,
    pn: np.ndarray,
    c: np.ndarray,
    r: float,
    nb: np.ndarray,
    thr: float,
    iters: int,
) -> tuple[np.ndarray, float, float, np.ndarray] | None:
    """Refine one centre ``c`` (video px) of radius ``r`` px among neighbours ``nb``."""
    H, W = img.shape[:2]
    half = int(np.ceil(1.7 * r)) + 1
    x0, y0 = max(0, int(c[0]) - half), max(0, int(c[1]) - half)
    x1, y1 = min(W, int(c[0]) + half + 1), min(H, int(c[1]) + half + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    roi = img[y0:y1, x0:x1].astype(np.float32)
    ax = np.arange(x0, x1, dtype=np.float32)[None, :]  # pixel columns, broadcast over rows
    ay = np.arange(y0, y1, dtype=np.float32)[:, None]
    wgt = np.clip((_plate_distance(roi, plate[y0:y1, x0:x1], pn) - 0.5 * thr) / thr, 0.0, 1.0)

    def cell(centre: np.ndarray) -> np.ndarray:
        ok = np.ones(wgt.shape, bool)
        for q in nb:
            m = 0.5 * (centre + q)
            ok &= (ax - m[0]) * (q[0] - centre[0]) + (ay - m[1]) * (q[1] - centre[1]) < 0
        return ok

    def dist2(centre: np.ndarray) -> np.ndarray:
        return (ay - centre[1]) ** 2 + (ax - centre[0]) ** 2

    for _ in range(iters):
        w = np.where((dist2(c) <= (1.3 * r) ** 2) & cell(c), wgt, 0.0)
        sw = float(w.sum())
        if sw < 1e-6:
            break
        c = np.array([float(w.sum(axis=0) @ ax[0]) / sw, float(w.sum(axis=1) @ ay[:, 0]) / sw])
    d2 = dist2(c)
    score = float(wgt[d2 <= r * r].sum()) / max(1.0, np.pi * r * r)
    ann = (d2 >= (1.25 * r) ** 2) & (d2 <= (1.6 * r) ** 2) & cell(c)
    ring = float((wgt[ann] > 0.5).mean()) if ann.any() else 0.0
    core = (d2 <= (0.6 * r) ** 2) & (wgt > 0.5)
    bgr = np.median(roi[core], axis=0) if core.any() else np.zeros(3)
    return c, score, ring, bgr
