"""The live shot cutter keeps a bounded buffer: a table worker runs all day, so feeding
it frames must not grow its memory (issue 4: memory stays flat)."""

from __future__ import annotations

import tracemalloc

import pytest

from contract.tables import load_table
from vision.events.shots_live import LiveShotCutter


def _feed(cutter: LiveShotCutter, start: int, n: int, moving: bool) -> None:
    for f in range(start, start + n):
        x = 500.0 + (3.0 * (f % 60) if moving and f % 120 < 60 else 0.0)
        cutter.update(f, {"yellow": (x, 400.0, True), "1": (900.0, 700.0, True)})


def _held() -> int:
    """Bytes now held by allocations made with a ``vision`` module on the stack: the
    process's other threads (a service test's worker left running) are not counted."""
    only = [tracemalloc.Filter(True, "*/vision/*", all_frames=True)]
    return sum(t.size for t in tracemalloc.take_snapshot().filter_traces(only).traces)


@pytest.mark.parametrize("moving", [False, True])
def test_live_cutter_memory_does_not_grow_with_frames(moving):
    cutter = LiveShotCutter(load_table("pyramid-12ft"), 30.0)
    _feed(cutter, 0, 600, moving)  # warm-up: buffers reach their steady size
    tracemalloc.start(25)
    try:
        _feed(cutter, 600, 600, moving)
        held = [_held()]
        for start in (1200, 4200):  # two windows: a leak grows in each, a cache filled once
            _feed(cutter, start, 3000, moving)
            held.append(_held())
    finally:
        tracemalloc.stop()
    # 3000 more frames: a list growing by one int a frame alone would add ~100 kB
    assert min(b - a for a, b in zip(held, held[1:], strict=False)) < 40_000
