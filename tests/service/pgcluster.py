"""A throwaway PostgreSQL cluster for the tests: ``initdb`` + ``pg_ctl`` in a temp folder,
listening only on a unix socket there (no TCP), trust authentication. Run as the current
user, or as ``postgres`` (else ``nobody``) when that is root, which PostgreSQL refuses.

:func:`find_bin` says where the server binaries are (``None``: the tests skip); the
cluster gives each test its own schema (:meth:`Cluster.new_db`, a ``postgresql://`` URL).
The cluster runs with ``fsync=off``: the tests kill the service, never the database server,
so what a COMMIT returned is in the server either way.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "tablemon"


def find_bin() -> Path | None:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres`` (PATH first, then Debian's
    ``/usr/lib/postgresql/VERSION/bin``, newest first), or None."""
    found = shutil.which("pg_ctl")
    cands = [Path(found).resolve().parent] if found else []
    vers = glob.glob("/usr/lib/postgresql/*/bin")
    vers.sort(key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0)
    cands += [Path(p) for p in reversed(vers)]
    for d in cands:
        if all((d / x).is_file() for x in ("initdb", "pg_ctl", "postgres")):
            return d
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, bindir: Path) -> None:
        self.bin = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="tablemon-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self._names = itertools.count(1)
        self._as: list[str] = []
        if os.geteuid() == 0:  # the server refuses to run as root
            user = "postgres" if _has_user("postgres") else "nobody"
            pw = pwd.getpwnam(user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self._as = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups"]

    def _run(self, *args: str) -> None:
        cmd = [*self._as, *args]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.dir)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {(r.stderr or r.stdout)[-500:]}")

    def start(self) -> Cluster:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        opts = f"-k {self.dir} -p {self.port} -c listen_addresses='' -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l",
            str(self.dir / "log"), "-w", "-t", "60", "start",
        )  # fmt: skip
        return self

    def url(self, schema: str | None = None) -> str:
        """The URL of the cluster's ``postgres`` database; with ``schema``, one whose tables
        live in that schema (``search_path``)."""
        url = f"postgresql://{USER}@/postgres?host={self.dir}&port={self.port}"
        return url + (f"&options=-csearch_path%3D{schema}" if schema else "")

    def new_db(self) -> str:
        """A fresh empty schema (cheaper than a database): the URL that opens it."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as c:
            c.execute(f"CREATE SCHEMA {name}")
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
