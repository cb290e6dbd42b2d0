"""Smears that stand still: a motion smear found again where one was is no moving ball.

The detector (``vision.detect.detector``) takes an isolated, elongated, convex blob one ball wide
for a fast ball smeared by motion and keeps it without the ONNX verifier (the model
knows no smears). A lighter streak of the cloth itself that the cloth model does not
hold (uk8ball after the recalibration at frame 49: the fresh model is darker than the
later frames, and a faint pale patch left of the rack passes the threshold) is found
the same way in frame after frame at the same place, and a track of a "red" ball grows
there (counts_real: 17 balls on the table instead of 16 at frames 150 and 178). A
moving ball's smear is somewhere else in the next frame (a smear is at least a few
tenths of a diameter longer than the ball, the distance it runs in the exposure). So a
smear within :data:`SAME` ball radii of a smear of the last :data:`MEMORY` frames
examined is handed to the verifier like any doubtful candidate.

Positions are table mm (the detections' ``xy``); frames are the video's indices.
"""

from __future__ import annotations

import numpy as np

SAME = 0.5  # ball radii: a smear this near an earlier one stands still
MEMORY = 5  # frames a smear's place is remembered (refreshed while one is found there)


class SmearMemory:
    """Where smears were found in the last frames (table mm), for one detector."""

    def __init__(self, radius_mm: float) -> None:
        self.reach = SAME * float(radius_mm)
        self._xy = np.zeros((0, 2))
        self._frame = np.zeros(0, int)

    def reset(self) -> None:
        self._xy, self._frame = np.zeros((0, 2)), np.zeros(0, int)

    def standing(self, xy: np.ndarray, smear: np.ndarray, frame: int) -> np.ndarray:
        """(N,) bool: the smears among the detections (``xy`` (N,2) table mm, ``smear``
        (N,) bool) of ``frame`` that lie within reach of a smear found in the last
        :data:`MEMORY` frames. Remembers this frame's smears."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        smear = np.asarray(smear, bool)
        live = (self._frame < frame) & (self._frame >= frame - MEMORY)
        old = self._xy[live]
        out = np.zeros(len(xy), bool)
        if len(old) and smear.any():
            d = np.hypot(xy[smear, None, 0] - old[None, :, 0], xy[smear, None, 1] - old[None, :, 1])
            out[smear] = (d < self.reach).any(axis=1)
        keep = self._frame >= frame - MEMORY
        self._xy = np.concatenate([self._xy[keep], xy[smear]])
        self._frame = np.concatenate([self._frame[keep], np.full(int(smear.sum()), frame)])
        return out
