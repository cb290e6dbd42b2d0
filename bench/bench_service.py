"""Service load benchmark (loopback only, bounded in time).

N pollers at 1 Hz on the scoreboard JSON plus M SSE clients, while one table's shots are fed
as live (a fixture's truth shots when ``fixtures/videos/*.truth.json`` exists, else made-up
pyramid shots) through ``POST /matches/{id}/shots``. The server is uvicorn in its own
process; the clients share one asyncio loop in this one. Reports poll latency (ms) p50/p99/
max, SSE delivery latency of the ``shot`` events (POST start -> received, ms) and the SSE
events each client missed against the server's log. Targets: 200 pollers + 50 SSE, poll p99
< 50 ms, no SSE miss. ``quick``: 20 pollers + 5 SSE for 8 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from service.serve import server_command

TOKEN = "bench-token"
ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _shots(n: int) -> tuple[list[dict], str]:
    """Shots to feed: a fixture's truth (verdicts dropped: the service judges) or made up."""
    for truth in sorted((ROOT / "fixtures" / "videos").glob("*.truth.json")):
        data = json.loads(truth.read_text())
        if data.get("game", "").startswith("pyramid") and data.get("shots"):
            base = [
                {k: v for k, v in s.items() if k not in ("verdict", "index")} for s in data["shots"]
            ]
            return [base[i % len(base)] for i in range(n)], truth.name
    out = []
    for i in range(n):
        obj, f = f"w{2 + i % 14}", i * 100
        out.append(
            {
                "player": "A",
                "start": {"frame": f + 1, "t": f / 30},
                "end": {"frame": f + 60, "t": (f + 60) / 30},
                "cue_ball": "w1",
                "events": [
                    {"frame": f + 1, "t": f / 30, "type": "strike", "ball": "w1"},
                    {"frame": f + 10, "t": (f + 10) / 30, "type": "contact", "balls": ["w1", obj]},
                    {
                        "frame": f + 20,
                        "t": (f + 20) / 30,
                        "type": "cushion",
                        "ball": obj,
                        "cushion": "back",
                    },
                ],
                "rest": {"w1": [1000.0 + i, 800.0], obj: [3300.0, 900.0]},
            }
        )
    return out, "generated"


def _start_server(tmp: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {
        **os.environ,
        "TABLEMON_TOKEN": TOKEN,
        "TABLEMON_DB": str(tmp / "bench.db"),
        "TABLEMON_DATA": str(tmp),
    }
    cmd = server_command(port, "--backlog", "2048")
    p = subprocess.Popen(
        cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            if httpx.get(url + "/openapi.json", timeout=1).status_code == 200:
                return p, url
        except httpx.TransportError:
            time.sleep(0.1)
    p.kill()
    raise RuntimeError("bench_service: the server did not start")


class _Conn:
    """A minimal HTTP/1.1 keep-alive client on raw asyncio streams: one request at a time.
    Much cheaper per request than a general client, so 250 of them in one process measure
    the server, not the client."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.r: asyncio.StreamReader | None = None
        self.w: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.r, self.w = await asyncio.open_connection(self.host, self.port)

    async def send(
        self, method: str, path: str, headers: dict | None = None, body: bytes = b""
    ) -> None:
        h = {"Host": f"{self.host}:{self.port}", **(headers or {})}
        if body:
            h["Content-Length"] = str(len(body))
            h["Content-Type"] = "application/json"
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
        self.w.write(head.encode() + b"\r\n" + body)  # type: ignore[union-attr]
        await self.w.drain()  # type: ignore[union-attr]

    async def head(self) -> tuple[int, dict[str, str]]:
        raw = await self.r.readuntil(b"\r\n\r\n")  # type: ignore[union-attr]
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        hdr = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)}
        return status, hdr

    async def request(
        self, method: str, path: str, headers: dict | None = None, body: bytes = b""
    ) -> tuple[int, bytes]:
        if self.w is None:
            await self.open()
        await self.send(method, path, headers, body)
        status, hdr = await self.head()
        data = await self.r.readexactly(int(hdr.get("content-length", "0")))  # type: ignore[union-attr]
        return status, data

    def close(self) -> None:
        if self.w is not None:
            self.w.close()


async def _load(url: str, pollers: int, sse: int, seconds: float, shot_rate: float) -> dict:
    host, port = url.removeprefix("http://").split(":")
    port_i = int(port)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    ctl = _Conn(host, port_i)
    st, body = await ctl.request(
        "POST",
        "/matches",
        auth,
        json.dumps({"game": "pyramid-free", "players": {"A": "A", "B": "B"}}).encode(),
    )
    mid = json.loads(body)["id"]
    n_shots = max(1, int(seconds * shot_rate))
    shots, source = _shots(n_shots)
    poll_ms: list[float] = []
    poll_at: list[float] = []
    errors = {"poll": 0, "shot": 0}
    posted: dict[int, float] = {}
    received: list[set[int]] = [set() for _ in range(sse)]
    lag_ms: list[float] = []
    stop = asyncio.Event()
    connected = 0

    async def poller() -> None:
        conn = _Conn(host, port_i)
        await conn.open()
        await asyncio.sleep(random.random())
        nxt = time.monotonic()
        try:
            while not stop.is_set():
                t0 = time.perf_counter()
                try:
                    status, _ = await conn.request("GET", f"/scoreboard/matches/{mid}.json")
                    if status != 200:
                        raise OSError(status)
                    poll_ms.append((time.perf_counter() - t0) * 1000)
                    poll_at.append(t0)
                except (OSError, asyncio.IncompleteReadError, ValueError):
                    errors["poll"] += 1
                    conn.close()
                    conn = _Conn(host, port_i)
                    await conn.open()
                nxt += 1.0
                await asyncio.sleep(max(0.0, nxt - time.monotonic()))
        finally:
            conn.close()

    async def sse_client(k: int) -> None:
        nonlocal connected
        conn = _Conn(host, port_i)
        await conn.open()
        await conn.send("GET", f"/stream?match_id={mid}")
        await conn.head()
        connected += 1
        ev_id, kind = None, None
        try:
            while True:
                line = (await conn.r.readline()).decode()  # type: ignore[union-attr]
                if not line:
                    return
                line = line.rstrip("\r\n")
                # chunked framing: chunk-size lines are hex digits only; skip them
                if line.startswith("id: "):
                    ev_id = int(line[4:])
                elif line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and ev_id is not None:
                    received[k].add(ev_id)
                    if kind == "shot":
                        idx = json.loads(line[6:])["shot"]["index"]
                        if idx in posted:
                            lag_ms.append((time.perf_counter() - posted[idx]) * 1000)
        finally:
            conn.close()

    sse_tasks = [asyncio.create_task(sse_client(k)) for k in range(sse)]
    while connected < sse:
        await asyncio.sleep(0.05)
    poll_tasks = [asyncio.create_task(poller()) for _ in range(pollers)]
    t_start = time.monotonic()
    for i, s in enumerate(shots):
        await asyncio.sleep(max(0.0, t_start + i / shot_rate - time.monotonic()))
        posted[i + 1] = time.perf_counter()
        status, _ = await ctl.request("POST", f"/matches/{mid}/shots", auth, json.dumps(s).encode())
        if status != 201:
            errors["shot"] += 1
    await asyncio.sleep(max(0.0, t_start + seconds - time.monotonic()))
    stop.set()
    await asyncio.gather(*poll_tasks)
    await asyncio.sleep(1.0)  # let the last events arrive
    for t in sse_tasks:
        t.cancel()
    await asyncio.gather(*sse_tasks, return_exceptions=True)
    ctl.close()
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        text = (await c.get("/stream", params={"match_id": mid, "once": True})).text
    log = {int(x[4:]) for x in text.splitlines() if x.startswith("id: ")}
    misses = [len(log - got) for got in received]
    shot_at = np.array(sorted(posted.values()))
    near = []
    for at, ms in zip(poll_at, poll_ms, strict=True):
        k = np.searchsorted(shot_at, at + ms / 1000)  # shots posted before the poll ended
        near.append(k > 0 and at + ms / 1000 - shot_at[k - 1] < 0.5)
    return {
        "poll_near_shot_ms": [m for m, n in zip(poll_ms, near, strict=True) if n],
        "poll_quiet_ms": [m for m, n in zip(poll_ms, near, strict=True) if not n],
        "poll_ms": poll_ms,
        "lag_ms": lag_ms,
        "errors": errors,
        "misses": misses,
        "events": len(log),
        "shots": len(shots),
        "source": source,
    }


def _pct(xs: list[float], q: float) -> float | None:
    return round(float(np.percentile(xs, q)), 2) if xs else None


def run(out_dir: Path, quick: bool) -> dict:
    """Run the load and return the figures (the bench CLI writes them as JSON)."""
    pollers, sse, seconds = (20, 5, 8.0) if quick else (200, 50, 30.0)
    shot_rate = 0.5  # a shot every 2 s: faster than real play
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = _start_server(Path(tmp))
        try:
            r = asyncio.run(_load(url, pollers, sse, seconds, shot_rate))
        finally:
            proc.kill()
            proc.wait()
    res = {
        "pollers": pollers,
        "sse_clients": sse,
        "seconds": seconds,
        "shots_fed": r["shots"],
        "shots_per_s": shot_rate,
        "shot_source": r["source"],
        "polls": len(r["poll_ms"]),
        "poll_p50_ms": _pct(r["poll_ms"], 50),
        "poll_p99_ms": _pct(r["poll_ms"], 99),
        "poll_max_ms": round(max(r["poll_ms"]), 2) if r["poll_ms"] else None,
        "poll_p99_quiet_ms": _pct(r["poll_quiet_ms"], 99),
        "polls_near_shot": len(r["poll_near_shot_ms"]),
        "poll_p99_near_shot_ms": _pct(r["poll_near_shot_ms"], 99),
        "sse_events_logged": r["events"],
        "sse_misses_total": int(sum(r["misses"])),
        "sse_clients_missing": int(sum(1 for m in r["misses"] if m)),
        "sse_lag_p50_ms": _pct(r["lag_ms"], 50),
        "sse_lag_p99_ms": _pct(r["lag_ms"], 99),
        "errors_poll": r["errors"]["poll"],
        "errors_shot": r["errors"]["shot"],
        "target_p99_ms": 50.0,
        "p99_ok": bool(r["poll_ms"]) and _pct(r["poll_ms"], 99) < 50.0,
        "cpu_count": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    print(f"{'figure':<22} value")
    for k, v in res.items():
        print(f"{k:<22} {v}")
    return res


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("bench/out")
    print(json.dumps(run(out, "--full" not in sys.argv), indent=1))
