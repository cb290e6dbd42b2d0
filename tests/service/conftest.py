"""Service test fixtures.

``db_target``: the database a test's service opens, a SQLite file or a PostgreSQL URL by
the test's ``backend``. A module (or test) marked ``@pytest.mark.backends("sqlite",
"postgres")`` runs once per backend; unmarked ones run on SQLite. The PostgreSQL runs use
one throwaway cluster per session (:mod:`pgcluster`) with a fresh database per test, and
skip with the reason when no server binaries (``initdb``, ``pg_ctl``) or no psycopg exist,
or when ``TABLEMON_TEST_POSTGRES=0``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pgcluster import Cluster, find_bin
from svc_helpers import client_for, make_settings

from service.settings import Settings


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "backends(*names): run on these databases (sqlite, postgres)"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        mark = metafunc.definition.get_closest_marker("backends")
        metafunc.parametrize("backend", mark.args if mark else ("sqlite",))


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if os.environ.get("TABLEMON_TEST_POSTGRES", "1") == "0":
        pytest.skip("PostgreSQL tests turned off (TABLEMON_TEST_POSTGRES=0)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install 'psycopg[binary]')")
    bindir = find_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) found; see .ci/postgres.sh")
    c = Cluster(bindir)
    try:
        c.start()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        c.stop()
        pytest.skip(f"PostgreSQL cluster did not start: {str(e).splitlines()[0]}")
    yield c
    c.stop()


@pytest.fixture
def db_target(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> str:
    """A fresh database for this test: a SQLite file under tmp_path or a PostgreSQL URL."""
    if backend == "postgres":
        return request.getfixturevalue("pg_cluster").new_db()
    return str(tmp_path / "t.db")


@pytest.fixture
def settings(tmp_path: Path, db_target: str) -> Settings:
    return make_settings(tmp_path, db=db_target)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with client_for(settings) as c:
        yield c
