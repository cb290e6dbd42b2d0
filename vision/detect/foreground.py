"""The detector's foreground in work px: the colour distance to the cloth model,
thresholded inside the surface, recomputed only in tiles whose pixels changed.

A mixin of :class:`vision.detect.detector.Detector` (its attributes: ``plate``, ``_plate_box``,
``_region_box``, ``_bbox``, ``thr``, ``pn``, the kernels and the held arrays).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.base.colour import plate_distance
from vision.capture.source import Frame
from vision.detect.packed import enclosed_holes

LOCAL_FRACTION = 0.4
TILE = 16  # work px: the foreground is computed again only in tiles whose pixels changed
TILE_SETTLE = 6  # ... and in the frames after it changed
CHANGE_LEVEL = 30  # a work pixel changed: one colour channel moved more than this (8-bit)
CHANGE_PIXELS = 2  # the picture changed: more changed work pixels than this
COPY_RUNS = 24  # changed tiles in more runs than this are copied by one masked copy
MARKED_BALLS = ("pool",)  # table kinds whose balls carry a white number circle
INK_HOLE = 0.5  # ball areas: an enclosed hole up to this is a ball's printed figure ...
INK_BLOB = 2.5  # ... in a blob of up to this many ball areas (a rack's gaps are left alone)


class TileForeground:
    """Foreground, crop and change test of :class:`vision.detect.detector.Detector` (work px)."""

    # (colour distance array, list): the values of that array's regions before each
    # write, (y0, y1, x0, x1, old values), kept for a reader of the last frame's distance
    # (vision.detect.streak) instead of a copy of the whole array each frame; None: not kept
    _d_undo: tuple[np.ndarray, list] | None = None

    def foreground(self, img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(work-scale colour distance, cleaned work-scale foreground mask), both cropped
        to the table's bounding box ``self._bbox`` (x, y, w, h in work px).

        Only tiles (:data:`TILE` work px) whose pixels changed by more than compression
        noise (against the tile's pixels when it last changed) within the last
        :data:`TILE_SETTLE` frames are computed again (with the margin the filters
        reach); elsewhere the last values stand. The arrays returned are
        the detector's own and change with the next frame."""
        if self.plate is None:
            self.fit_background([img])
        small = self._crop(img)
        h, w = small.shape[:2]
        if self._held is None:
            self._held = (small.copy(), np.zeros((h, w), np.float32), np.zeros((h, w), np.uint8))
            self._update_tiles(small, (0, 0, w, h))
            return self._held[1], self._held[2]
        _, hot = cv2.threshold(
            cv2.absdiff(small, self._held[0]).reshape(h, -1), CHANGE_LEVEL, 255, 0
        )
        tiles = tiles_hot(hot, TILE)
        self._heat = np.where(tiles > 0, TILE_SETTLE, np.maximum(self._heat - 1, 0))
        if tiles.any():  # changed tiles: their pixels are the new reference (slow drift adds up)
            _copy_tiles(small, self._held[0], tiles, TILE)
        dirty = (self._heat > 0).astype(np.uint8)
        if dirty.any():
            _, _, stats, _ = cv2.connectedComponentsWithStats(dirty, connectivity=8)
            for tx, ty, tw, th, _ in stats[1:]:
                self._update_tiles(
                    small, (tx * TILE, ty * TILE, (tx + tw) * TILE, (ty + th) * TILE)
                )
        return self._held[1], self._held[2]

    def _update_tiles(self, small: np.ndarray, rect: tuple[int, int, int, int]) -> None:
        """Recompute the foreground inside ``rect`` (x0, y0, x1, y1 work px of the bbox)
        grown by the filters' reach ``m``, from the colour distance over twice that."""
        _, d, fg = self._held
        h, w = d.shape
        x0, y0, x1, y1 = rect
        m = self._margin
        X0, Y0, X1, Y1 = (
            max(0, x0 - 2 * m),
            max(0, y0 - 2 * m),
            min(w, x1 + 2 * m),
            min(h, y1 + 2 * m),
        )
        sub = small[Y0:Y1, X0:X1]
        dd = plate_distance(sub.astype(np.float32), self._plate_box[Y0:Y1, X0:X1], self.pn)
        if self._d_undo is not None and self._d_undo[0] is d:
            self._d_undo[1].append((Y0, Y1, X0, X1, d[Y0:Y1, X0:X1].copy()))
        d[Y0:Y1, X0:X1] = dd
        # relative threshold: a pixel must reach a fraction of the strongest contrast within
        # a ball radius (drops shadows, glare and halos next to a ball; splits touching balls)
        # (on a pool table the strongest contrast of a ball's body: the white number
        # circle on a dark ball is thinner than the opening kernel, so the erosion drops
        # it before the dilation)
        body = cv2.erode(dd, self._kernel) if self.table.kind in MARKED_BALLS else dd
        local = cv2.dilate(body, self._local_kernel)
        inside = self._region_box[Y0:Y1, X0:X1]
        f = ((dd > self.thr) & (dd >= LOCAL_FRACTION * local) & inside).astype(np.uint8)
        # lone holes (7 of their 8 neighbours foreground) are a ball's glare spots (a black
        # ball's, near the cloth's colour): filled, or the opening erodes the ball away
        f |= (cv2.boxFilter(f, -1, (3, 3), normalize=False) >= 7) & inside
        # a white ball's printed figure (dark ink, far from the cloth's colour but under the
        # fraction of the ball's contrast) leaves an enclosed hole: the opening sees it
        # filled, or it erodes the ring around it and the ball is lost; the hole stays a
        # hole (the gaps between racked balls are enclosed too, and split them)
        area = np.pi * (self._local_kernel.shape[0] / 2) ** 2  # a ball's, work px
        holes = _ink_holes(f, (dd > self.thr) & inside, INK_HOLE * area, INK_BLOB * area)
        f = cv2.morphologyEx(f | holes, cv2.MORPH_OPEN, self._kernel) & (1 - holes)
        a0, b0, a1, b1 = max(0, x0 - m), max(0, y0 - m), min(w, x1 + m), min(h, y1 + m)
        fg[b0:b1, a0:a1] = f[b0 - Y0 : b1 - Y0, a0 - X0 : a1 - X0]

    def _crop(self, img: np.ndarray) -> np.ndarray:
        """The work image of the table's bounding box (uint8 BGR, work px); only that part
        of the video frame is resized where the scale is an exact integer factor. The last
        frame's answer is kept (the change test and the detection share it)."""
        if self._small is not None and self._small[0] is img:
            return self._small[1]
        if self._bbox_full is None or img.shape[:2] != (self.size[1], self.size[0]):
            x, y, w, h = self._bbox
            small = self._work(img)[y : y + h, x : x + w]
        elif self._nearest is not None:  # the same pixels, picked without arithmetic
            X, Y, W, H = self._nearest
            size = (self._bbox[2], self._bbox[3])
            small = cv2.resize(img[Y : Y + H, X : X + W], size, interpolation=cv2.INTER_NEAREST)
        else:  # whole k x k blocks: the same values as resizing the whole frame
            X, Y, W, H = self._bbox_full
            size = (self._bbox[2], self._bbox[3])
            how = cv2.INTER_LINEAR if self._fast_resize else cv2.INTER_AREA
            small = cv2.resize(img[Y : Y + H, X : X + W], size, interpolation=how)
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
        # the changed bytes inside the surface: their sum (255 each) under the region's mask
        changed = round(cv2.norm(hot, cv2.NORM_L1, self._region3) / 255) > CHANGE_PIXELS
        self._seen = (frame.image, self._ref, changed)
        return changed


def _copy_tiles(src: np.ndarray, dst: np.ndarray, tiles: np.ndarray, tile: int) -> None:
    """Copy the pixels of the ``tiles`` (th, tw nonzero: ``tile`` px squares, cut short at
    the edges) from ``src`` into ``dst`` (same shape), a run of tiles along a row at once
    (a few runs: a ball's) or by one masked copy (many: an arm's)."""
    ty, tx = np.nonzero(tiles)
    cut = np.flatnonzero((np.diff(tx) != 1) | (np.diff(ty) != 0)) + 1
    if len(cut) >= COPY_RUNS:  # many runs: one masked copy of the whole picture
        th, tw = tiles.shape
        grid = cv2.resize(tiles, (tw * tile, th * tile), interpolation=cv2.INTER_NEAREST)
        cv2.copyTo(src, grid[: src.shape[0], : src.shape[1]], dst)
        return
    firsts, lasts = np.r_[0, cut], np.r_[cut, len(tx)] - 1
    for y, a, b in zip(ty[firsts].tolist(), tx[firsts].tolist(), tx[lasts].tolist(), strict=True):
        rows, cols = slice(y * tile, (y + 1) * tile), slice(a * tile, (b + 1) * tile)
        dst[rows, cols] = src[rows, cols]


def tiles_hot(hot: np.ndarray, tile: int, ch: int = 3) -> np.ndarray:
    """(th, tw) uint8 0/1: the ``tile`` x ``tile`` px tiles (work px; the last row and
    column of tiles may be cut short) holding a nonzero byte of ``hot`` (h, ``ch`` w:
    an interleaved image's rows, uint8). The rows of each tile row are folded by halves,
    then its columns: a few cheap passes, no summed table."""
    h, wb = hot.shape
    th, full = -(-h // tile), h // tile
    rows = np.empty((th, wb), np.uint8)
    if full:
        a = hot[: full * tile].reshape(full, tile, wb)
        while a.shape[1] > 1:
            k = a.shape[1] // 2
            odd = a[:, 2 * k :]  # the row left over from an odd count
            a = np.maximum(a[:, :k], a[:, k : 2 * k])
            if odd.shape[1]:
                a[:, :1] = np.maximum(a[:, :1], odd)
        rows[:full] = a[:, 0]
    if full < th:
        rows[full] = hot[full * tile :].max(axis=0)
    step = ch * tile
    tw = -(-wb // step)
    pad = np.zeros((th, tw * step), np.uint8)
    pad[:, :wb] = rows
    return (pad.reshape(th, tw, step).max(axis=2) > 0).astype(np.uint8)


def _ink_holes(f: np.ndarray, differs: np.ndarray, most: float, blob: float) -> np.ndarray | int:
    """The holes of the foreground ``f`` (uint8 0/1, work px) that a ball's printed figure
    punches (uint8 0/1 mask, or 0 when none): background regions (4-connected) enclosed
    by foreground (not touching the window's edge), of at most ``most`` work px, every
    pixel of which ``differs`` from the cloth by the threshold (dark ink on a white
    pyramid ball fails only the relative test), in a blob of at most ``blob`` work px
    with its holes (one ball or two: in a rack the opening keeps the balls, and the
    split is made on the gaps between them). Shadows and cloth beside a ball are open
    to the cloth around, so the relative test still drops them."""
    lab, ok = enclosed_holes(f, most)
    if not ok.any():
        return 0
    ok &= np.bincount(lab[~differs], minlength=len(ok)) == 0  # no pixel of plain cloth
    if not ok.any():
        return 0
    holes = ok[lab].astype(np.uint8)
    _, blobs, bstats, _ = cv2.connectedComponentsWithStats(f | holes, connectivity=8)
    small = bstats[:, 4] <= blob
    small[0] = False
    return holes & small[blobs].astype(np.uint8)
