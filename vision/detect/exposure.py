"""A frame's exposure and white balance against the empty-cloth model.

A camera's automatic exposure or white balance (or a light dimmed over the table)
makes a whole picture darker, brighter or tinted against the cloth model the detector
differences it with: a darker frame moves a red ball on red cloth under the threshold,
a brighter one can lift the cloth over it. :class:`ClothGain` measures the frame's
per-channel gain on a sparse fixed sample of cloth pixels (work px of the detector's
table box, well inside the playing surface, where the model shows plain cloth) and the
detector scales its cloth model by that gain before differencing, only when the gain
leaves 1 by more than noise (:data:`DEAD_BAND`) and moves by more than :data:`STEP`
from the gain applied last (so the model is rescaled only when the exposure changes).

The measurement reads a few hundred pixels (about 0.1-0.3 ms a frame, only on frames
the detector examines in full); balls, hands,
cues and a shadow over part of the table are outliers of the per-channel ratio and left
out; a frame where too few samples agree (a body over half the cloth, a shadow over
half of it) gives no measurement and the gain applied stands.
"""

from __future__ import annotations

import numpy as np

SAMPLES = 300  # cloth pixels sampled (work px)
AGREE = 0.15  # a sample agrees: each channel's ratio within this share of the median's
MIN_AGREE = 0.5  # more than this share of the samples agree for a measurement
DEAD_BAND = 0.05  # a gain within this of 1 in every channel is noise: the model as fitted
STEP = 0.03  # the model is rescaled when the gain moved this much from the applied one
DARKEST = 20.0  # samples darker than this in the model (8-bit) are not cloth to measure
# the model is only darkened: a frame brighter than it already differs from it mostly
# along the cloth's colour, which counts at colour.BRIGHT_WEIGHT, while a model brightened
# towards 255 leaves saturated balls too little contrast (uk8ball frames 140-152, gain
# 1.36/1.49/1.23 BGR: the rack went missing in most frames)
BRIGHTEN = False
GAIN_RANGE = (0.4, 2.5)  # gains beyond this are not an exposure change (lights off, a cover)


class ClothGain:
    """Per-channel gain of frames against a cloth model, from a fixed sparse sample.

    ``plate``: the cloth model (H,W,3 float BGR, work px of the examined box);
    ``cloth``: (H,W) bool, where the model shows plain cloth to measure on (inside the
    surface, away from cushions and pockets). ``seed`` fixes the sample's positions."""

    def __init__(self, plate: np.ndarray, cloth: np.ndarray, seed: int = 0) -> None:
        ys, xs = np.nonzero(cloth & (plate.min(axis=2) > DARKEST))
        if len(ys) > SAMPLES:
            pick = np.random.default_rng(seed).choice(len(ys), SAMPLES, replace=False)
            ys, xs = ys[np.sort(pick)], xs[np.sort(pick)]
        self.ys, self.xs = ys, xs
        self._flat = ys * plate.shape[1] + xs  # sample indices into the (H*W, 3) picture
        self.ref = plate[ys, xs].astype(np.float32)  # (N,3) the model's cloth at the samples
        self._inv = 1.0 / self.ref
        self._ref_sum = self.ref.sum(axis=0)
        self.applied = np.ones(3, np.float32)  # the gain the model is scaled by now

    def measure(self, small: np.ndarray) -> np.ndarray | None:
        """The frame's per-channel gain (3,) against the model (frame / model, BGR) on the
        samples of ``small`` (the frame's work picture of the same box, uint8 BGR); None
        when too few samples agree (no reliable measurement) or the gain is out of
        :data:`GAIN_RANGE`."""
        n = len(self.ys)
        if n < 20:
            return None
        px = small.reshape(-1, 3)[self._flat].astype(np.float32)
        ratio = px * self._inv
        med = np.partition(ratio, n // 2, axis=0)[n // 2]  # the upper median, per channel
        if not np.all(med > 0):
            return None
        ok = (np.abs(ratio - med) < AGREE * med).all(axis=1)
        k = int(np.count_nonzero(ok))
        if k <= MIN_AGREE * n:
            return None
        gain = px.sum(axis=0) / self._ref_sum if k == n else ok @ px / (ok @ self.ref)
        if np.any(gain < GAIN_RANGE[0]) or np.any(gain > GAIN_RANGE[1]):
            return None
        return gain.astype(np.float32)

    def update(self, small: np.ndarray) -> np.ndarray | None:
        """Measure ``small``; the new gain (3,) to scale the model by when it differs from
        the applied one by more than :data:`STEP` (1 when back within :data:`DEAD_BAND` of
        1), else None (keep the model as it is)."""
        gain = self.measure(small)
        if gain is None:
            return None
        if not BRIGHTEN:  # a channel brighter than the model keeps the model's level
            gain = np.minimum(gain, 1.0)
        if np.all(np.abs(gain - 1.0) < DEAD_BAND):
            gain = np.ones(3, np.float32)
        if np.all(np.abs(gain - self.applied) < STEP):
            return None
        self.applied = gain
        return gain
