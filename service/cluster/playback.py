"""What a worker plays and watches: a fixture's ground-truth shots on a clock, play in
progress from the live positions, a file's stream epoch and length."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

MOVE_MM = 3.0  # a ball moved more than this between two frames: play is on
REST_S = 1.0  # no ball moved for this long: play is over


class TruthShots:
    """A fixture's ground-truth shots as a processor (``process(frame, t)``), each when the
    clock passes its end; ``in_shot(t)``: a shot has started and not ended by ``t``."""

    def __init__(self, path: Path, after_t: float = 0.0) -> None:
        shots = json.loads(path.read_text(encoding="utf-8")).get("shots", [])
        self.pending = sorted(
            ({k: v for k, v in s.items() if k != "verdict"} for s in shots),
            key=lambda s: s["end"]["t"],
        )
        self.skipped = [s for s in self.pending if s["start"]["t"] < after_t]
        self.pending = [s for s in self.pending if s["start"]["t"] >= after_t]

    def __call__(self, frame: Any, t: float) -> list[dict]:
        out = []
        while self.pending and self.pending[0]["end"]["t"] <= t:
            out.append(self.pending.pop(0))
        return out

    def in_shot(self, t: float) -> dict | None:
        s = next((s for s in self.pending if s["start"]["t"] <= t), None)
        return None if s is None else {"t": s["start"]["t"], "frame": s["start"]["frame"]}


class MotionWatch:
    """Play in progress from the live positions (table mm): a ball moved more than
    ``MOVE_MM`` between frames opens it, ``REST_S`` without a move or a shot closes it."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[float, float]] = {}
        self.open: dict | None = None
        self.quiet_since = 0.0

    def update(self, t: float, frame: int, pos: dict[str, tuple[float, float, bool]]) -> None:
        moved = any(
            b in self.last and abs(x - self.last[b][0]) + abs(y - self.last[b][1]) > MOVE_MM
            for b, (x, y, vis) in pos.items()
            if vis
        )
        self.last = {b: (x, y) for b, (x, y, vis) in pos.items() if vis}
        if moved:
            self.open = self.open or {"t": t, "frame": frame}
            self.quiet_since = t
        elif self.open is not None and t - self.quiet_since > REST_S:
            self.open = None


def length_s(source: str) -> float:
    """A file's length (s) from its frame count, or (a placeholder, not a video) its
    ground truth's last shot end + 0.5 s."""
    import cv2

    cap = cv2.VideoCapture(source)
    n, fps = cap.get(7), cap.get(5)
    cap.release()
    if n and n > 0 and fps and fps > 0:
        return float(n / fps)
    side = Path(source).with_name(Path(source).name.rsplit(".", 1)[0] + ".truth.json")
    shots = json.loads(side.read_text(encoding="utf-8")).get("shots", [])
    return max((s["end"]["t"] for s in shots), default=0.0) + 0.5


def file_epoch(source: str, t0: float) -> str:
    """A file source's stream epoch: its identity and the wall time its clock started."""
    p = Path(source).resolve()
    st = p.stat()
    h = hashlib.sha1(f"{p}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:10]
    return f"f{h}-{int(t0)}"
