"""``tablemon bench cluster``: a hall on one machine: nats-server -js, PostgreSQL, two API
processes, one ``tablemon worker`` process per table, pollers and SSE clients.

Each table plays a recorded fixture (``fixtures/videos``, table i the i-th of them in turn)
as a live camera at its real rate, ``passes`` times (a new match on the table each pass).
``decoding`` of the workers decode their video frame by frame (``--truth``); the rest run
``--simulate`` (the same clock and shots, no decoding), since this machine has 2 cores;
every worker takes its shots from the fixture's ground truth (no vision: its CPU cost is
the vision bench's subject). Every worker is a real process with its own NATS connection and
on-disk outbox. Measured:

- shots kept by the workers (their outbox log) vs shots stored (PostgreSQL: one row each,
  its message id in ``ingested``): stored exactly once, none missing, none doubled;
- poll latency (scoreboard JSON, request sent -> response read), over both API processes;
- SSE delivery of a shot: the worker's outbox write (right before its publish) -> the event
  read by an SSE client (both clocks are this machine's), every client;
- load average before/after, the processes that ran at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_service import SHOT_INDEX, _Conn, _cpu_s, _pct, _shots, _wait_s
from bench.cluster_store import kept_shots, stored_shots
from service.cluster.playback import length_s

ROOT = Path(__file__).resolve().parent.parent
VIDEOS = ROOT / "fixtures" / "videos"
TOKEN = "bench-token"
KEY = re.compile(r'"key":"([^"]+)"')


def _helpers() -> tuple:
    """The tests' nats-server and PostgreSQL starters (tests/service)."""
    sys.path.insert(0, str(ROOT / "tests" / "service"))
    from natsd import Nats, find_nats
    from pgcluster import Cluster, find_bin

    return Nats, find_nats, Cluster, find_bin


WORKER_NICE = 10


def _niced() -> None:
    """A worker's CPU is its own table's computer in a hall, not the API's: here, on the
    same cores, it runs at a lower priority (nice 10) than the API processes."""
    os.nice(WORKER_NICE)


def _api(port: int, env: dict, log: Path) -> subprocess.Popen:
    from service.serve import server_command

    with open(log, "ab") as f:
        return subprocess.Popen(
            server_command(port), env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=f
        )


def _wait_http(url: str, p: subprocess.Popen, log: Path) -> None:
    import httpx

    end = time.monotonic() + 90
    while time.monotonic() < end:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url + "/openapi.json", timeout=2).status_code == 200:
                return
        if p.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError(f"bench_cluster: the API did not start: {log.read_text()[-800:]}")


async def _hall(cfg: dict, urls: list[str], broker: str, tmp: Path, api_pids: list[int]) -> dict:
    """Tables, workers and clients; returns the raw measurements."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    hosts = [u.removeprefix("http://").split(":") for u in urls]
    ctl = _Conn(hosts[0][0], int(hosts[0][1]))
    fixtures = sorted(VIDEOS.glob("*.truth.json"))
    current: dict[int, int] = {}  # table -> its current match
    matches: list[int] = []
    for i in range(cfg["tables"]):
        fx = fixtures[i % len(fixtures)]
        truth = json.loads(fx.read_text())
        body = {"name": f"table {i + 1}", "source": "0", "spec": truth["table"]}
        st, raw = await ctl.request("POST", "/tables", auth, json.dumps(body).encode())
        assert st == 201, raw
        tid = json.loads(raw)["id"]
        m = {"game": truth["game"], "players": {"A": "A", "B": "B"}, "table_id": tid}
        st, raw = await ctl.request("POST", "/matches", auth, json.dumps(m).encode())
        assert st == 201, raw
        current[tid] = json.loads(raw)["id"]
        matches.append(current[tid])
    m = {"game": "pyramid-free", "players": {"A": "A", "B": "B"}}
    st, raw = await ctl.request("POST", "/matches", auth, json.dumps(m).encode())
    m0 = json.loads(raw)["id"]  # the referee's writes through one API, read on the other
    cross = {"poll_ms": [], "poll_from_sent_ms": [], "sse_ms": [], "sse_ok_ms": [], "posts": 0,
             "failed": 0}  # fmt: skip
    sent_at: dict[int, tuple[float, float, int]] = {}  # shot index -> (sent, 201, API index)
    cross_got: list[dict[int, float]] = [{} for _ in range(cfg["sse"])]
    lag_ms: list[float] = []
    cpu: dict[int, list[tuple[float, float]]] = {}
    poll_ms: list[float] = []
    poll_at: list[float] = []
    errors = {"poll": 0}
    got: list[dict[str, float]] = [{} for _ in range(cfg["sse"])]
    stop = asyncio.Event()
    connected = [0]
    tids = sorted(current)

    async def poller(k: int) -> None:
        host, port = hosts[k % len(hosts)]
        conn = _Conn(host, int(port))
        await conn.open()
        await asyncio.sleep(random.random())
        nxt = time.monotonic()
        while not stop.is_set():
            path = f"/scoreboard/matches/{current[tids[k % len(tids)]]}.json"
            t0 = time.perf_counter()
            try:
                status, _ = await conn.request("GET", path)
                if status != 200:
                    raise OSError(status)
                poll_ms.append((time.perf_counter() - t0) * 1000)
                poll_at.append(time.time())
            except (OSError, asyncio.IncompleteReadError, ValueError):
                errors["poll"] += 1
                conn.close()
                conn = _Conn(host, int(port))
                with contextlib.suppress(OSError):
                    await conn.open()
            nxt += 1.0
            await asyncio.sleep(max(0.0, nxt - time.monotonic()))
        conn.close()

    async def sse_client(k: int) -> None:
        host, port = hosts[k % len(hosts)]
        conn = _Conn(host, int(port))
        await conn.open()
        await conn.send("GET", "/stream")
        await conn.head()
        connected[0] += 1
        kind = None
        try:
            while True:
                line = (await conn.r.readline()).decode()  # type: ignore[union-attr]
                if not line:
                    return
                if line.startswith("event: "):
                    kind = line[7:].strip()
                elif line.startswith("data: ") and kind == "shot":
                    found = KEY.search(line)
                    if found and found[1] not in got[k]:
                        got[k][found[1]] = time.time()
                    elif line.startswith(f'data: {{"match":{m0},'):
                        idx = SHOT_INDEX.search(line)
                        if idx:
                            cross_got[k].setdefault(int(idx[1]), time.time())
        finally:
            conn.close()

    worker_pids: list[int] = []
    start_at = time.time() + cfg["warmup_s"]  # every worker started and connected by then
    gap_s = 3.0

    async def table(i: int, tid: int) -> None:
        """The table's worker (one process, the file played ``passes`` times from
        ``start_at``); between two plays, a new match on the table (its shots feed it)."""
        fx = fixtures[i % len(fixtures)]
        video = fx.with_name(fx.name.replace(".truth.json", ".mp4"))
        how = "--truth" if i < cfg["decoding"] else "--simulate"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TABLEMON_DATA": str(tmp / "w")}
        env.pop("TABLEMON_BROKER_USER", None)
        with open(tmp / f"worker-{tid}.log", "ab") as log:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "service.cli", "worker", "--table", str(tid),
                "--camera", str(video), "--broker", broker, how, "--start-at", str(start_at),
                "--loops", str(cfg["passes"]), "--outbox", str(tmp / f"outbox-{tid}"),
                env=env, cwd=ROOT, stdout=log, stderr=log, preexec_fn=_niced,
            )  # fmt: skip
        worker_pids.append(proc.pid)
        length = length_s(video)
        for p in range(1, cfg["passes"]):
            # the middle of the gap between play p-1 and play p, on the worker's clock
            at = start_at + p * (length + gap_s) - gap_s / 2
            await asyncio.sleep(max(0.0, at - time.time()))
            m = {"game": json.loads(fx.read_text())["game"], "players": {"A": "A", "B": "B"},
                 "table_id": tid}  # fmt: skip
            host, port = hosts[p % len(hosts)]
            c = _Conn(host, int(port))
            st, raw = await c.request("POST", "/matches", auth, json.dumps(m).encode())
            c.close()
            current[tid] = json.loads(raw)["id"]
            matches.append(current[tid])
        await proc.wait()

    clients = [asyncio.create_task(sse_client(k)) for k in range(cfg["sse"])]
    clients += [asyncio.create_task(poller(k)) for k in range(cfg["pollers"])]
    while connected[0] < cfg["sse"]:
        await asyncio.sleep(0.05)
    ready: list[int] = []
    done = asyncio.Event()

    async def referee() -> None:
        """Every second a shot POSTed through one API (alternately); the other API's
        scoreboard polled every 2 ms until it shows it: how soon a change made through one
        process is served by another (and by its SSE clients, read in ``sse_client``)."""
        await asyncio.sleep(max(0.0, start_at - time.time()))
        shots, _ = _shots(1000)
        conns = [_Conn(h, int(p)) for h, p in hosts]
        n = 0
        while not done.is_set() and n < len(shots):
            src, dst = n % 2, (n + 1) % 2
            t_sent = time.time()
            st, raw = await conns[src].request("POST", f"/matches/{m0}/shots", auth,
                                               json.dumps(shots[n]).encode())  # fmt: skip
            t_ok = time.time()
            if st != 201:
                cross["failed"] += 1
                break
            body = json.loads(raw)
            rev, idx = body["state"]["rev"], body["index"]
            sent_at[idx] = (t_sent, t_ok, src)
            cross["posts"] += 1
            while True:
                _, b = await conns[dst].request("GET", f"/scoreboard/matches/{m0}.json")
                if json.loads(b)["rev"] >= rev:
                    cross["poll_ms"].append((time.time() - t_ok) * 1000)
                    cross["poll_from_sent_ms"].append((time.time() - t_sent) * 1000)
                    break
                await asyncio.sleep(0.002)
            n += 1
            await asyncio.sleep(max(0.0, t_sent + 1.0 - time.time()))
        for c in conns:
            c.close()

    async def ticker() -> None:  # the clients' own loop: how late does a 10 ms sleep wake?
        while not done.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(0.01)
            if time.time() >= start_at:
                lag_ms.append((time.perf_counter() - t0) * 1000 - 10.0)

    async def sampler() -> None:  # CPU s and CPU-wait s of every process, from the start
        await asyncio.sleep(max(0.0, start_at - time.time()))
        while True:
            for pid in [*api_pids, os.getpid(), *worker_pids]:
                now = (_cpu_s(pid), _wait_s(pid))
                if now[0] > 0:  # (a thread that ended takes its wait with it: keep the max)
                    first, last = cpu.setdefault(pid, [now, now])
                    cpu[pid][1] = (max(now[0], last[0]), max(now[1], last[1]))
            if done.is_set():
                return
            await asyncio.sleep(0.5)

    async def readiness() -> None:  # how many workers had reported when the files began
        await asyncio.sleep(max(0.0, start_at - time.time()))
        c = _Conn(hosts[0][0], int(hosts[0][1]))
        _, raw = await c.request("GET", "/tables")
        c.close()
        ready.append(sum(bool(t["status"]["running"]) for t in json.loads(raw)))

    side = [asyncio.create_task(f()) for f in (referee, ticker, sampler)]
    await asyncio.gather(readiness(), *(table(i, tid) for i, tid in enumerate(tids)))
    done.set()
    await asyncio.gather(*side)
    played_s = time.time() - start_at
    drain_s = await _drained(broker)  # the API processes have stored every message
    await asyncio.sleep(cfg["settle_s"])  # the last shots reach every client
    stop.set()
    await asyncio.sleep(1.2)
    for c in clients:
        c.cancel()
    await asyncio.gather(*clients, return_exceptions=True)
    ctl.close()
    played = [ms for ms, at in zip(poll_ms, poll_at, strict=True) if at >= start_at]
    for k, g in enumerate(cross_got):  # SSE clients of the API that did not take the write
        for idx, at in g.items():
            if idx in sent_at and sent_at[idx][2] != k % len(hosts):
                cross["sse_ms"].append((at - sent_at[idx][0]) * 1000)
                cross["sse_ok_ms"].append((at - sent_at[idx][1]) * 1000)
    use = {"api": [0.0, 0.0], "client": [0.0, 0.0], "workers": [0.0, 0.0]}
    for pid, (a, b) in cpu.items():
        who = "api" if pid in api_pids else "client" if pid == os.getpid() else "workers"
        use[who][0] += b[0] - a[0]
        use[who][1] += b[1] - a[1]
    return {"cross": cross, "loop_lag_ms": lag_ms, "cpu": use, "ready": ready[0], "poll_ms": poll_ms, "poll_ms_playing": played, "errors": errors, "got": got,
            "played_s": played_s, "matches": matches, "drain_s": drain_s}  # fmt: skip


async def _drained(broker: str, limit_s: float = 120.0) -> float | None:
    """Seconds until the API processes have acknowledged every message of the stream
    (None: not within ``limit_s``)."""
    import nats

    from service.cluster import subjects

    nc = await nats.connect(broker)
    js = nc.jetstream()
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < limit_s:
            info = await js.stream_info(subjects.STREAM)  # work queue: acked ones are gone
            if info.state.messages == 0:
                return round(time.monotonic() - t0, 2)
            await asyncio.sleep(0.1)
        return None
    finally:
        await nc.close()


def run(out_dir: Path, quick: bool) -> dict:
    cfg = (
        {
            "tables": 4,
            "passes": 1,
            "decoding": 1,
            "pollers": 40,
            "sse": 10,
            "settle_s": 2.0,
            "warmup_s": 20.0,
        }
        if quick
        else {
            "tables": 16,
            "passes": 2,
            "decoding": 2,
            "pollers": 400,
            "sse": 100,
            "settle_s": 3.0,
            "warmup_s": 45.0,
        }
    )
    try:
        import nats  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as e:
        print(
            f"bench cluster: skipped: {e.name} is not installed (pip install 'tablemon[cluster]')"
        )
        return {"skipped": f"{e.name} not installed"}
    Nats, find_nats, Cluster, find_bin = _helpers()
    if find_nats() is None or find_bin() is None:
        why = "no nats-server binary" if find_nats() is None else "no PostgreSQL server binaries"
        print(f"bench cluster: skipped: {why}")
        return {"skipped": why}
    # a SIGTERM (a CI time-out, kill) stops every server and worker started here too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="tablemon-bench-cluster-"))
    nats_srv = Nats(find_nats()).start()
    pg = Cluster(find_bin()).start()
    apis: list[subprocess.Popen] = []
    load0 = os.getloadavg()[0]
    try:
        db = pg.url()
        env = {**os.environ, "TABLEMON_TOKEN": TOKEN, "TABLEMON_DB": db,
               "TABLEMON_DATA": str(tmp / "data"), "TABLEMON_BROKER": nats_srv.url,
               "TABLEMON_AUTO_CALIBRATE": "false", "PYTHONPATH": str(ROOT)}  # fmt: skip
        ports, urls = [], []
        for i in range(2):
            import socket

            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                ports.append(s.getsockname()[1])
            urls.append(f"http://127.0.0.1:{ports[-1]}")
            apis.append(_api(ports[-1], env, tmp / f"api-{i}.log"))
        for u, p, i in zip(urls, apis, range(2), strict=True):
            _wait_http(u, p, tmp / f"api-{i}.log")
        raw = asyncio.run(_hall(cfg, urls, nats_srv.url, tmp, [p.pid for p in apis]))
        kept = kept_shots(tmp)
        n_rows, stored, stored_at, as_events, reasons = stored_shots(db)
    finally:
        for p in apis:
            p.kill()
            p.wait()
        nats_srv.close()
        pg.stop()
    load1 = os.getloadavg()[0]
    lag = [(at - kept[k]) * 1000 for g in raw["got"] for k, at in g.items() if k in kept]
    store_ms = [(at - kept[k]) * 1000 for k, at in stored_at.items() if k in kept]
    missed = sum(1 for g in raw["got"] for k in kept if k in stored and k not in g)
    doubled = sum(1 for v in stored.values() if v > 1)
    res = {
        "tables": cfg["tables"],
        "passes": cfg["passes"],
        "workers_decoding": cfg["decoding"],
        "workers_simulated": cfg["tables"] - cfg["decoding"],
        "api_processes": 2,
        "pollers": cfg["pollers"],
        "sse_clients": cfg["sse"],
        "workers_reporting_at_start": raw["ready"],
        "processes_at_once": cfg["tables"] + 2 + 2 + 1,  # workers, APIs, NATS+PostgreSQL, bench
        "workers_nice": WORKER_NICE,
        "cores": os.cpu_count(),
        "played_s": round(raw["played_s"], 1),
        "shots_kept_by_workers": len(kept),
        "shot_rows": n_rows,
        # every kept shot recorded once: as a shot, or as a table event with the reason
        "stored_once": n_rows == len(stored)
        and set(kept) <= set(stored) | as_events
        and doubled == 0,
        "stored_as_shots": len(stored),
        "kept_as_table_events": len(set(kept) & as_events),
        "table_event_reasons": reasons,
        "missing": len(set(kept) - set(stored) - as_events),
        "doubled": doubled,
        "drain_s_after_last_worker": raw["drain_s"],
        "store_p50_ms": _pct(store_ms, 50),
        "store_p99_ms": _pct(store_ms, 99),
        "polls": len(raw["poll_ms"]),
        "poll_errors": raw["errors"]["poll"],
        "poll_p50_ms": _pct(raw["poll_ms"], 50),
        "poll_p99_ms": _pct(raw["poll_ms"], 99),
        "poll_p99_ms_while_playing": _pct(raw["poll_ms_playing"], 99),
        "sse_deliveries": len(lag),
        "sse_missed": missed,
        "sse_p50_ms": _pct(lag, 50),
        "sse_p99_ms": _pct(lag, 99),
        "cross_writes": raw["cross"]["posts"],
        "cross_write_failures": raw["cross"]["failed"],
        "cross_poll_p50_ms": _pct(raw["cross"]["poll_ms"], 50),
        "cross_poll_p99_ms": _pct(raw["cross"]["poll_ms"], 99),
        "cross_poll_max_ms": _pct(raw["cross"]["poll_ms"], 100),
        "cross_poll_from_sent_p99_ms": _pct(raw["cross"]["poll_from_sent_ms"], 99),
        "cross_sse_from_sent_p50_ms": _pct(raw["cross"]["sse_ms"], 50),
        "cross_sse_from_sent_p99_ms": _pct(raw["cross"]["sse_ms"], 99),
        "cross_sse_p50_ms": _pct(raw["cross"]["sse_ok_ms"], 50),
        "cross_sse_p99_ms": _pct(raw["cross"]["sse_ok_ms"], 99),
        "client_loop_lag_p50_ms": _pct(raw["loop_lag_ms"], 50),
        "client_loop_lag_p99_ms": _pct(raw["loop_lag_ms"], 99),
        **{f"cpu_s_{k}": round(v[0], 1) for k, v in raw["cpu"].items()},
        **{f"cpu_wait_s_{k}": round(v[1], 1) for k, v in raw["cpu"].items()},
        "load_before": round(load0, 1),
        "load_after": round(load1, 1),
    }
    print(
        "| tables | workers (decoding/simulated) | shots kept | stored once | stored p50 / p99 ms | polls | poll p50 / p99 ms | SSE deliveries (missed) | SSE p50 / p99 ms | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {res['tables']} x {res['passes']} passes | {res['workers_decoding']}/{res['workers_simulated']} "
        f"| {res['shots_kept_by_workers']} | {res['stored_once']} (shots {n_rows}, as table events {res['kept_as_table_events']}, missing {res['missing']}, doubled {doubled}) "
        f"| {res['store_p50_ms']} / {res['store_p99_ms']} "
        f"| {res['polls']} ({res['poll_errors']} failed) | {res['poll_p50_ms']} / {res['poll_p99_ms']} "
        f"| {res['sse_deliveries']} ({missed}) | {res['sse_p50_ms']} / {res['sse_p99_ms']} "
        f"| {res['load_before']} -> {res['load_after']} |"
    )  # fmt: skip
    print(
        f"cross-process (a shot POSTed through one API, {res['cross_writes']} of them): the "
        f"other's poll shows it {res['cross_poll_p50_ms']} / {res['cross_poll_p99_ms']} ms "
        f"(p50/p99; max {res['cross_poll_max_ms']}) after the 201; its SSE clients get it "
        f"{res['cross_sse_p50_ms']} / {res['cross_sse_p99_ms']} ms after the 201 "
        f"({res['cross_sse_from_sent_p50_ms']} / {res['cross_sse_from_sent_p99_ms']} ms after "
        f"the POST was sent). Polls while the hall played p99 "
        f"{res['poll_p99_ms_while_playing']} ms. Clients' own loop lag p50/p99 {res['client_loop_lag_p50_ms']} / "
        f"{res['client_loop_lag_p99_ms']} ms. CPU s (waiting for a CPU s): APIs "
        f"{res['cpu_s_api']} ({res['cpu_wait_s_api']}), workers {res['cpu_s_workers']} "
        f"({res['cpu_wait_s_workers']}), clients {res['cpu_s_client']} "
        f"({res['cpu_wait_s_client']}) over {res['played_s']} s."
    )
    return res
