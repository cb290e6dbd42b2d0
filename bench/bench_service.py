"""Service load benchmark (loopback only, bounded in time: about 45 s).

N pollers at 1 Hz on the scoreboard JSON plus M SSE clients on the whole event stream,
while one table plays a fixture video as if live (its worker process runs the live vision
on every frame it can take, restarted when the video ends) and a second match is fed a shot
every 2 s through ``POST /matches/{id}/shots``. The server is uvicorn in its own process;
the clients share one asyncio loop (uvloop when installed) in this one.

Poll latency is measured from the request's first byte sent to the full response read
(ms). Where it comes from is reported beside it: the clients' own loop lag (a 10 ms ticker's
overshoot: the client starving), the CPU seconds of the server, the live worker and the
clients and the seconds each spent runnable but waiting for a CPU (schedstat: the machine's
other load starving it), polls near a posted shot vs quiet ones, and the load average. Targets: 200 pollers
+ 50 SSE, poll p99 < 50 ms, no SSE miss. ``quick``: 20 pollers + 5 SSE for 8 s.
Environment: ``TABLEMON_BENCH_LIVE=0`` runs without the live table; ``TABLEMON_LIVE_NICE``
is the server's worker niceness (default 10); ``TABLEMON_BENCH_ETAG=1`` pollers send
If-None-Match.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from service.serve import server_command

TOKEN = "bench-token"
ROOT = Path(__file__).resolve().parent.parent
VIDEOS = ROOT / "fixtures" / "videos"
SHOT_INDEX = re.compile(r'"shot":\{"index":(\d+)')
LIVE_VIDEO = "pyramid-respot.mp4"  # the fixture the live table plays (with its CALIB.json)


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
        "TABLEMON_VIDEO_DIR": str(VIDEOS),
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


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used; 0 when it is gone."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _wait_s(pid: int) -> float:
    """Seconds a process's threads spent runnable but waiting for a CPU (Linux schedstat:
    the machine's other load starving it); 0 where unavailable."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def _children(pid: int) -> list[int]:
    """Child processes of ``pid`` (the live workers of the server; Linux /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


class _Cpu:
    """CPU seconds, and seconds spent waiting for a CPU, of the server, its workers (all,
    including restarted ones) and this process (the clients), while the load runs."""

    def __init__(self, server_pid: int) -> None:
        self.pids = {"server": server_pid, "client": os.getpid()}
        self.start = {k: (_cpu_s(p), _wait_s(p)) for k, p in self.pids.items()}
        self.workers: dict[int, tuple[tuple[float, float], tuple[float, float]]] = {}

    def sample(self) -> None:
        for pid in _children(self.pids["server"]):
            now = (_cpu_s(pid), _wait_s(pid))
            self.workers[pid] = (self.workers.get(pid, (now, now))[0], now)

    def result(self) -> dict[str, float]:
        self.sample()
        out = {}
        for k, p in self.pids.items():
            out[f"cpu_s_{k}"] = round(_cpu_s(p) - self.start[k][0], 2)
            out[f"wait_s_{k}"] = round(_wait_s(p) - self.start[k][1], 2)
        out["cpu_s_worker"] = round(sum(b[0] - a[0] for a, b in self.workers.values()), 2)
        out["wait_s_worker"] = round(sum(b[1] - a[1] for a, b in self.workers.values()), 2)
        return out


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
        status, data, _ = await self.request_h(method, path, headers, body)
        return status, data

    async def request_h(
        self, method: str, path: str, headers: dict | None = None, body: bytes = b""
    ) -> tuple[int, bytes, dict[str, str]]:
        """One request; the status, the body and the headers (lower-case names)."""
        if self.w is None:
            await self.open()
        await self.send(method, path, headers, body)
        status, hdr = await self.head()
        data = await self.r.readexactly(int(hdr.get("content-length", "0")))  # type: ignore[union-attr]
        return status, data, hdr

    def close(self) -> None:
        if self.w is not None:
            self.w.close()


async def _setup_live(ctl: _Conn, auth: dict) -> tuple[int | None, int | None, str | None]:
    """A table playing the fixture video as if live, its match, its worker started."""
    video = VIDEOS / LIVE_VIDEO
    calib_file = VIDEOS / LIVE_VIDEO.replace(".mp4", ".calib.json")
    if os.environ.get("TABLEMON_BENCH_LIVE", "1") == "0" or not video.is_file():
        return None, None, None
    calib = json.loads(calib_file.read_text()) if calib_file.is_file() else None
    body = {"name": "live", "source": LIVE_VIDEO, "spec": "pyramid-12ft", "calibration": calib}
    st, raw = await ctl.request("POST", "/tables", auth, json.dumps(body).encode())
    if st != 201:
        raise RuntimeError(f"bench_service: POST /tables -> {st}: {raw[:200]!r}")
    tid = json.loads(raw)["id"]
    m = {"game": "pyramid-free", "players": {"A": "A", "B": "B"}, "table_id": tid}
    mid = json.loads((await ctl.request("POST", "/matches", auth, json.dumps(m).encode()))[1])["id"]
    await ctl.request("POST", f"/tables/{tid}/live", auth, json.dumps({"match_id": mid}).encode())
    return tid, mid, LIVE_VIDEO


async def _load(
    url: str, server_pid: int, pollers: int, sse: int, seconds: float, shot_rate: float
) -> dict:
    host, port = url.removeprefix("http://").split(":")
    port_i = int(port)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    etag = os.environ.get("TABLEMON_BENCH_ETAG", "0") == "1"
    ctl = _Conn(host, port_i)
    st, body = await ctl.request(
        "POST",
        "/matches",
        auth,
        json.dumps({"game": "pyramid-free", "players": {"A": "A", "B": "B"}}).encode(),
    )
    mid = json.loads(body)["id"]
    live_tid, live_mid, live_video = await _setup_live(ctl, auth)
    polled = [mid] if live_mid is None else [mid, live_mid]
    n_shots = max(1, int(seconds * shot_rate))
    shots, source = _shots(n_shots)
    poll_ms: list[float] = []
    poll_at: list[float] = []
    errors = {"poll": 0, "shot": 0}
    posted: dict[int, float] = {}
    received: list[set[int]] = [set() for _ in range(sse)]
    lag_ms: list[float] = []
    post_ms: list[float] = []  # POST of a shot: sent -> 201 read (judged, committed)
    loop_lag_ms: list[float] = []
    loop_lag_at: list[float] = []
    live = {"restarts": 0, "frames": 0, "dropped": 0, "shots": 0}
    stop = asyncio.Event()
    connected = 0

    async def poller(k: int) -> None:
        conn = _Conn(host, port_i)
        await conn.open()
        path = f"/scoreboard/matches/{polled[k % len(polled)]}.json"
        tag: str | None = None
        await asyncio.sleep(random.random())
        nxt = time.monotonic()
        try:
            while not stop.is_set():
                hdr = {"If-None-Match": tag} if etag and tag else None
                t0 = time.perf_counter()
                try:
                    status, _, h = await conn.request_h("GET", path, hdr)
                    if status not in (200, 304):
                        raise OSError(status)
                    poll_ms.append((time.perf_counter() - t0) * 1000)
                    poll_at.append(t0)
                    tag = h.get("etag", tag)
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
        await conn.send("GET", "/stream")
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
                    if kind == "shot" and line.startswith(f'data: {{"match":{mid},'):
                        found = SHOT_INDEX.search(line)  # cheaper than parsing it all
                        idx = int(found[1]) if found else json.loads(line[6:])["shot"]["index"]
                        if idx in posted:
                            lag_ms.append((time.perf_counter() - posted[idx]) * 1000)
        finally:
            conn.close()

    async def ticker() -> None:  # the clients' own loop: how late does a 10 ms sleep wake?
        while not stop.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(0.01)
            loop_lag_ms.append((time.perf_counter() - t0) * 1000 - 10.0)
            loop_lag_at.append(t0)

    async def keep_live(cpu: _Cpu) -> None:  # restart the live table when its video ends
        mon = _Conn(host, port_i)
        while not stop.is_set():
            await asyncio.sleep(1.0)
            cpu.sample()
            if live_tid is None:
                continue
            st, raw = await mon.request("GET", f"/tables/{live_tid}")
            s = json.loads(raw)["status"] if st == 200 else {}
            if s.get("ended") or not s.get("running", True):
                live["frames"] += s.get("frames", 0)
                live["dropped"] += s.get("dropped", 0)
                live["restarts"] += 1
                body = json.dumps({"match_id": live_mid}).encode()
                await mon.request("POST", f"/tables/{live_tid}/live", auth, body)
        mon.close()

    sse_tasks = [asyncio.create_task(sse_client(k)) for k in range(sse)]
    while connected < sse:
        await asyncio.sleep(0.05)
    cpu = _Cpu(server_pid)
    side = [asyncio.create_task(ticker()), asyncio.create_task(keep_live(cpu))]
    poll_tasks = [asyncio.create_task(poller(k)) for k in range(pollers)]
    t_start = time.monotonic()
    for i, s in enumerate(shots):
        await asyncio.sleep(max(0.0, t_start + i / shot_rate - time.monotonic()))
        posted[i + 1] = t0 = time.perf_counter()
        status, _ = await ctl.request("POST", f"/matches/{mid}/shots", auth, json.dumps(s).encode())
        post_ms.append((time.perf_counter() - t0) * 1000)
        if status != 201:
            errors["shot"] += 1
    await asyncio.sleep(max(0.0, t_start + seconds - time.monotonic()))
    stop.set()
    await asyncio.gather(*poll_tasks, *side)
    cpu_s = cpu.result()
    if live_tid is not None:
        st, raw = await ctl.request("GET", f"/tables/{live_tid}")
        s = json.loads(raw)["status"]
        live["frames"] += s.get("frames", 0)
        live["dropped"] += s.get("dropped", 0)
        st, raw = await ctl.request("GET", f"/matches/{live_mid}/shots")
        live["shots"] = len(json.loads(raw)["shots"])
        await ctl.request("DELETE", f"/tables/{live_tid}/live", auth)
    await asyncio.sleep(1.0)  # let the last events arrive
    for t in sse_tasks:
        t.cancel()
    await asyncio.gather(*sse_tasks, return_exceptions=True)
    ctl.close()
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        text = (await c.get("/stream", params={"once": True})).text
    log = {int(x[4:]) for x in text.splitlines() if x.startswith("id: ")}
    misses = [len(log - got) for got in received]
    shot_at = np.array(sorted(posted.values()))
    near = _near(shot_at, poll_at, poll_ms)
    near_lag = _near(shot_at, loop_lag_at, loop_lag_ms)
    return {
        "poll_near_shot_ms": [m for m, n in zip(poll_ms, near, strict=True) if n],
        "poll_quiet_ms": [m for m, n in zip(poll_ms, near, strict=True) if not n],
        "poll_ms": poll_ms,
        "lag_ms": lag_ms,
        "post_ms": post_ms,
        "loop_lag_ms": loop_lag_ms,
        "loop_lag_near_ms": [m for m, n in zip(loop_lag_ms, near_lag, strict=True) if n],
        "errors": errors,
        "misses": misses,
        "events": len(log),
        "shots": len(shots),
        "source": source,
        "cpu_s": cpu_s,
        "live": {**live, "video": live_video},
    }


def _near(shot_at: np.ndarray, at: list[float], ms: list[float]) -> list[bool]:
    """Which measurements ended within 0.5 s after a shot was posted."""
    end = np.asarray(at, float) + np.asarray(ms, float) / 1000
    k = np.searchsorted(shot_at, end)
    prev = shot_at[np.maximum(k - 1, 0)] if len(shot_at) else end
    return list((k > 0) & (end - prev < 0.5))


def _pct(xs: list[float], q: float) -> float | None:
    return round(float(np.percentile(xs, q)), 2) if xs else None


def run(out_dir: Path, quick: bool) -> dict:
    """Run the load and return the figures (the bench CLI writes them as JSON)."""
    pollers, sse, seconds = (20, 5, 8.0) if quick else (200, 50, 30.0)
    shot_rate = 0.5  # a shot every 2 s: faster than real play
    load_before = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = _start_server(Path(tmp))
        try:
            r = _run_loop(_load(url, proc.pid, pollers, sse, seconds, shot_rate))
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
        "live_video": r["live"]["video"],
        "live_frames": r["live"]["frames"],
        "live_dropped": r["live"]["dropped"],
        "live_restarts": r["live"]["restarts"],
        "live_shots": r["live"]["shots"],
        "live_nice": int(os.environ.get("TABLEMON_LIVE_NICE", "10")),
        "etag_polls": os.environ.get("TABLEMON_BENCH_ETAG", "0") == "1",
        "polls": len(r["poll_ms"]),
        "poll_p50_ms": _pct(r["poll_ms"], 50),
        "poll_p99_ms": _pct(r["poll_ms"], 99),
        "poll_max_ms": round(max(r["poll_ms"]), 2) if r["poll_ms"] else None,
        "poll_p99_quiet_ms": _pct(r["poll_quiet_ms"], 99),
        "polls_near_shot": len(r["poll_near_shot_ms"]),
        "poll_p99_near_shot_ms": _pct(r["poll_near_shot_ms"], 99),
        "client_loop_lag_p50_ms": _pct(r["loop_lag_ms"], 50),
        "client_loop_lag_p99_ms": _pct(r["loop_lag_ms"], 99),
        "client_loop_lag_p99_near_shot_ms": _pct(r["loop_lag_near_ms"], 99),
        **r["cpu_s"],
        "sse_events_logged": r["events"],
        "sse_misses_total": int(sum(r["misses"])),
        "sse_clients_missing": int(sum(1 for m in r["misses"] if m)),
        "shot_post_p50_ms": _pct(r["post_ms"], 50),
        "shot_post_max_ms": round(max(r["post_ms"]), 2) if r["post_ms"] else None,
        "sse_lag_p50_ms": _pct(r["lag_ms"], 50),
        "sse_lag_p99_ms": _pct(r["lag_ms"], 99),
        "errors_poll": r["errors"]["poll"],
        "errors_shot": r["errors"]["shot"],
        "target_p99_ms": 50.0,
        "p99_ok": bool(r["poll_ms"]) and _pct(r["poll_ms"], 99) < 50.0,
        "cpu_count": os.cpu_count(),
        "load_avg_1m_before": load_before,
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    print(f"{'figure':<32} value")
    for k, v in res.items():
        print(f"{k:<32} {v}")
    return res


def _run_loop(coro: Any) -> dict:
    """Run the clients on uvloop when installed (cheaper per request), else asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coro)


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("bench/out")
    print(json.dumps(run(out, "--full" not in sys.argv), indent=1))
