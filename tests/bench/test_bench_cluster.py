"""``tablemon bench cluster --quick`` for real (nats-server, PostgreSQL, two API processes,
four worker processes, pollers and SSE clients): what it counts must hold whatever the
machine's load: every shot the workers kept stored exactly once, every SSE client got every
shot, no poll failed, every write through one API process was served by the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import bench_cluster


def test_quick_hall_stores_every_shot_once(tmp_path: Path) -> None:
    res = bench_cluster.run(tmp_path, quick=True)
    if "skipped" in res:
        pytest.skip(f"bench cluster: {res['skipped']}")
    # the 4 fixtures have 1 + 1 + 2 + 2 shots; a worker that started after its file's
    # clock (a loaded machine) misses the shots begun before, as a camera would
    assert 0 < res["shots_kept_by_workers"] <= 6
    assert res["stored_once"] and res["missing"] == 0 and res["doubled"] == 0
    assert res["drain_s_after_last_worker"] is not None
    assert res["sse_missed"] == 0
    assert res["sse_deliveries"] == res["stored_as_shots"] * res["sse_clients"]
    assert res["poll_errors"] == 0 and res["polls"] > 0
    assert res["cross_writes"] > 0 and res["cross_write_failures"] == 0
