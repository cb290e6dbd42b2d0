"""A live vision slower than the camera, for the tests of a table that falls behind:
``TABLEMON_LIVE_VISION=slowvision:make`` (this folder on ``PYTHONPATH``; the worker process
imports it by name). ``SLOW_VISION_S``: seconds per frame (default 0.08)."""

from __future__ import annotations

import os
import time


def make(spec: str, calibration: dict | None):
    per_frame = float(os.environ.get("SLOW_VISION_S", "0.08"))

    def process(frame, t: float) -> list[dict]:
        time.sleep(per_frame)
        return []

    return process
