"""Birth candidates that are not round balls: a blob whose thresholded colour runs on over
the cloth (a fingertip with its finger and hand behind it, a cue's tip).

A ball lies alone on the cloth: beyond its own disk, the pixels that differ from the
empty cloth (the detector's colour distance over its threshold, inside the examined
region) belong to other balls or to nothing. A fingertip resting on the cloth by a
cushion is cut off its hand by the detector's opening (the fingers are thinner than a
ball) and may pass for a ball, but its thresholded colour runs on, connected, well past
a ball's reach. :func:`runs_on` measures that run-on around one centre, with the cores
of the other detected balls cut out (a rack's neighbours and the gaps between them are
not a hand); :func:`attached` applies the rule to the few candidates a tracker is about
to give birth to, so the work is done only for them (:class:`ReachCheck`, a mixin of
:class:`vision.detect.detector.Detector`). Units: work px of the detector's table box unless said.
"""

from __future__ import annotations

import cv2
import numpy as np

CORE = 1.2  # ball radii around a centre: the ball and the gaps a rack leaves beside it
WINDOW = 4.0  # ball radii: how far from the centre the run-on is followed
RUN_FAR = 2.5  # a run-on reaching this far from the centre (ball radii) ...
RUN_AREA = 0.5  # ... over at least this many ball areas of pixels: attached, not a ball
OWN = 0.6  # ball radii around the centre whose median colour is the ball's own
NEARER = 0.7  # a pixel of the ball's colour: this much nearer it than the empty cloth's


def runs_on(
    over: np.ndarray,
    centre: np.ndarray,
    radius: float,
    others: np.ndarray,
    other_radii: np.ndarray,
) -> tuple[float, float]:
    """How far (ball radii from ``centre``) and how much (ball areas) the pixels of
    ``over`` (bool, work px: colour distance over the threshold) connected to the ball's
    core (:data:`CORE` radii) run on beyond it, within :data:`WINDOW` radii; the cores of
    the balls at ``others`` (M,2 work px, radii ``other_radii``) are cut out. ``centre``
    (2,) and ``radius`` in work px. (0, 0) for a ball alone or off the picture."""
    cu, cv = float(centre[0]), float(centre[1])
    h, w = over.shape
    if not (np.isfinite(cu) and np.isfinite(cv) and radius > 0 and 0 <= cu < w and 0 <= cv < h):
        return 0.0, 0.0
    ys, xs = _window(over.shape, centre, radius)
    y0, x0 = ys.start, xs.start
    win = over[ys, xs].astype(np.uint8)
    yy, xx = np.mgrid[ys, xs].astype(np.float32)
    for (ou, ov), orad in zip(np.reshape(others, (-1, 2)), np.ravel(other_radii), strict=True):
        win[(xx - ou) ** 2 + (yy - ov) ** 2 <= (CORE * orad) ** 2] = 0
    d2 = (xx - cu) ** 2 + (yy - cv) ** 2
    core = d2 <= (CORE * radius) ** 2
    win[core] = 1
    _, lab = cv2.connectedComponents(win, connectivity=8)
    run = (lab == lab[int(cv) - y0, int(cu) - x0]) & ~core
    if not run.any():
        return 0.0, 0.0
    far = float(np.sqrt(d2[run].max())) / radius
    return far, float(np.count_nonzero(run)) / (np.pi * radius * radius)


def _window(shape: tuple[int, ...], centre: np.ndarray, radius: float) -> tuple[slice, slice]:
    """The rows and columns within :data:`WINDOW` radii of ``centre`` (work px), clipped."""
    reach = WINDOW * radius
    cu, cv = float(centre[0]), float(centre[1])
    x0, y0 = max(0, int(cu - reach)), max(0, int(cv - reach))
    x1, y1 = (
        min(shape[1], int(np.ceil(cu + reach)) + 1),
        min(shape[0], int(np.ceil(cv + reach)) + 1),
    )
    return slice(y0, y1), slice(x0, x1)


def ball_coloured(
    image: np.ndarray, plate: np.ndarray, over: np.ndarray, centre: np.ndarray, radius: float
) -> np.ndarray:
    """``over`` (bool) where the pixel's colour in ``image`` (BGR, work px) lies nearer the
    ball's own (the median within :data:`OWN` radii of ``centre``) than :data:`NEARER`
    times its distance to the empty cloth there (``plate``, BGR float): the blob's
    thresholded colour (a hand's skin beside a fingertip; not a black pocket beside a
    red ball, nor the dark gaps of a rack)."""
    h, w = over.shape
    yy, xx = np.mgrid[0:h, 0:w]
    own = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2 <= (OWN * radius) ** 2
    img = image.astype(np.float32)
    if not own.any():
        return np.zeros_like(over)
    ref = np.median(img[own], axis=0)
    near = np.linalg.norm(img - ref, axis=2) < NEARER * np.linalg.norm(img - plate, axis=2)
    return over & near


def attached(
    image: np.ndarray,
    plate: np.ndarray,
    over: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    others: np.ndarray,
    other_radii: np.ndarray,
) -> np.ndarray:
    """(N,) bool: the candidates at ``centres`` (N,2 work px, ``radii`` (N,)) whose
    thresholded colour (``over``, bool: the colour distance over the detector's threshold;
    of those pixels, the ones of the ball's colour, :func:`ball_coloured`, in ``image``
    against the cloth ``plate``) runs on (:func:`runs_on`) at least :data:`RUN_FAR`
    radii and :data:`RUN_AREA` ball areas: a hand or a cue attached, not a round ball.
    ``others`` (M,2 work px, ``other_radii``): the frame's detected balls (a candidate
    among them is left out of its own cut by distance). Only a window around each
    candidate is examined."""
    others = np.reshape(others, (-1, 2))
    other_radii = np.ravel(other_radii)
    out = np.zeros(len(centres), bool)
    for k, (c, r) in enumerate(zip(np.reshape(centres, (-1, 2)), radii, strict=True)):
        h, w = over.shape
        if not (np.all(np.isfinite(c)) and r > 0 and 0 <= c[0] < w and 0 <= c[1] < h):
            continue
        ys, xs = _window(over.shape, c, float(r))
        at = np.array([xs.start, ys.start], float)
        mask = ball_coloured(image[ys, xs], plate[ys, xs], over[ys, xs], c - at, float(r))
        rest = np.hypot(*(others - c).T) > 0.5 * r
        far, area = runs_on(mask, c - at, float(r), others[rest] - at, other_radii[rest])
        out[k] = far >= RUN_FAR and area >= RUN_AREA
    return out


class ReachCheck:
    """:meth:`attached` of :class:`vision.detect.detector.Detector` (a mixin: its ``calib``,
    ``table``, ``geo``, ``scale``, ``_bbox``, ``_region_box``, ``_plate_box``, ``thr``,
    ``_held`` foreground, ``_small`` work image and ``_last`` detections)."""

    def _work_px(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Centres (N,2 work px of the table box) and ball radii (N,) of balls at ``xy``
        (N,2 table mm)."""
        s, (ox, oy) = self.scale, self._bbox[:2]
        uv = (self.calib.table_to_pixel(xy, height=self.table.ball_radius) + 0.5) * s - 0.5
        uv = np.nan_to_num(uv, nan=-1.0)
        r = np.array([self.geo.radius_at(u, v) * s for u, v in uv]).reshape(-1)
        return uv - [ox, oy], r

    def attached(self, xy: np.ndarray) -> np.ndarray:
        """(N,) bool: True where a ball centred at ``xy`` (N,2 table mm) in the last frame
        examined is a blob whose thresholded colour runs on over the cloth
        (:func:`attached`): a fingertip or a cue, not a ball to give birth to. Nothing
        examined yet: all False."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        if self._held is None or self._last is None or self._small is None or not len(xy):
            return np.zeros(len(xy), bool)
        over = (self._held[1] > self.thr) & self._region_box
        centres, radii = self._work_px(xy)
        others, other_radii = self._work_px(self._last.xy)
        return attached(self._small[1], self._plate_box, over, centres, radii, others, other_radii)
