"""The service benchmark's own measuring helpers (the load itself runs in ``tablemon bench
service``, not in the tests): which polls count as near a shot, percentiles, the per-process
CPU and CPU-wait readings from /proc, and the raw HTTP/1.1 client against a real server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bench.bench_service import _children, _Conn, _cpu_s, _near, _pct, _start_server, _wait_s


@pytest.mark.parametrize(
    ("at", "ms", "expected"),
    [
        ([9.0], [10.0], [False]),  # ended before the first shot
        ([10.0], [10.0], [True]),  # ended 10 ms after a shot
        ([10.2], [250.0], [True]),  # ended 0.45 s after it
        ([10.6], [0.0], [False]),  # 0.6 s after: quiet
        ([19.9, 20.1], [300.0, 1.0], [True, True]),  # the second shot counts
    ],
)
def test_near_shot(at: list[float], ms: list[float], expected: list[bool]) -> None:
    assert _near(np.array([10.0, 20.0]), at, ms) == expected


def test_percentiles() -> None:
    assert _pct([], 99) is None
    assert _pct(list(range(101)), 50) == 50.0 and _pct(list(range(101)), 99) == 99.0


def test_cpu_wait_and_children_from_proc() -> None:
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc")
    before = _cpu_s(os.getpid())
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    assert _cpu_s(os.getpid()) - before >= 0.2
    assert _wait_s(os.getpid()) >= 0.0 and _cpu_s(2**22 + 12345) == 0.0
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        assert p.pid in _children(os.getpid())
    finally:
        p.kill()
        p.wait()


def test_raw_client_against_the_server(tmp_path: Path) -> None:
    """The benchmark's client speaks HTTP/1.1 keep-alive to the real server: status, body,
    headers (the scoreboard's ETag) on one connection."""
    proc, url = _start_server(tmp_path)
    try:

        async def go() -> tuple:
            host, port = url.removeprefix("http://").split(":")
            c = _Conn(host, int(port))
            body = b'{"game":"pyramid-free","players":{"A":"a","B":"b"}}'
            auth = {"Authorization": "Bearer bench-token"}
            created = await c.request("POST", "/matches", auth, body)
            first = await c.request_h("GET", "/scoreboard/matches/1.json")
            again = await c.request_h(
                "GET", "/scoreboard/matches/1.json", {"If-None-Match": first[2]["etag"]}
            )
            missing = await c.request("GET", "/scoreboard/matches/9.json")
            c.close()
            return created, first, again, missing

        created, first, again, missing = asyncio.run(go())
    finally:
        proc.kill()
        proc.wait()
    assert created[0] == 201 and first[0] == 200 and b'"matchId":1' in first[1]
    assert again[0] == 304 and again[1] == b"" and missing[0] == 404
