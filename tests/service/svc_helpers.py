"""Helpers of the service tests: settings on a tmp folder, a TestClient, shot builders."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from service.app import create_app  # noqa: E402
from service.serve import server_command  # noqa: E402
from service.settings import Settings, get_settings  # noqa: E402

TOKEN = "ref-secret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def make_settings(tmp: Path, **kw: object) -> Settings:
    (tmp / "videos").mkdir(exist_ok=True)
    base = {
        "token": TOKEN,
        "db": str(tmp / "t.db"),
        "data": tmp / "data",
        "video_dir": tmp / "videos",
        "auto_calibrate": False,
    }
    return Settings(**{**base, **kw})


def client_for(settings: Settings) -> TestClient:
    app = create_app(settings)
    app.dependency_overrides[get_settings] = lambda: settings
    return TestClient(app)


def new_match(c: TestClient, **kw: object) -> dict:
    body = {"game": "pyramid-free", "players": {"A": "Ivanov", "B": "Petrov"}, **kw}
    r = c.post("/matches", json=body, headers=AUTH)
    assert r.status_code == 201, r.text
    return r.json()


def live_table(c: TestClient, settings: Settings):
    """A table with a match whose live worker is taken as running (no process): returns
    (the live manager, the table's id, the match's id, the app's runtime), for feeding
    ``LiveManager._handle`` the worker's messages by hand."""
    from service.live import _Live

    t = c.post("/tables", json={"name": "T", "source": "0"}, headers=AUTH).json()
    mid = new_match(c, table_id=t["id"])["id"]
    rt = c.app.state.runtimes[settings.db_target]
    live = rt.extras["live"]
    live._live[t["id"]] = _Live(rt.db.table(t["id"]), mid)
    return live, t["id"], mid, rt


def shot(
    player: str = "A",
    cue: str = "w1",
    obj: str = "w2",
    pocket: str | None = "back-left",
    frame: int = 0,
) -> dict:
    """A pyramid shot: strike, contact, a pocket (or a cushion), balls at rest (mm)."""
    ev = [
        {"frame": frame + 1, "t": 0.1, "type": "strike", "ball": cue},
        {"frame": frame + 10, "t": 0.4, "type": "contact", "balls": [cue, obj]},
    ]
    if pocket:
        ev.append({"frame": frame + 20, "t": 0.8, "type": "pocket", "ball": obj, "pocket": pocket})
    else:
        ev.append(
            {"frame": frame + 20, "t": 0.8, "type": "cushion", "ball": obj, "cushion": "back"}
        )
    rest = {cue: [1000.0, 800.0], "w3": [2000.0, 500.0]}
    if not pocket:
        rest[obj] = [3400.0, 900.0]
    return {
        "player": player,
        "start": {"frame": frame + 1, "t": 0.1},
        "end": {"frame": frame + 40, "t": 1.3},
        "cue_ball": cue,
        "events": ev,
        "rest": rest,
    }


NO_CONTACT = "-contact@10:yellow-w2"  # the option of doubtful_break() without the contact


def doubtful_break(frame: int = 0) -> dict:
    """The break: yellow onto w2, w2 pocketed, the contact hidden (by the player's arm).
    With the contact it is legal (A +1, A plays on); without, no contact: a foul (B +1, B
    plays). No player letter: the adjudicator decides whose turn it is."""
    s = shot(cue="yellow", obj="w2", frame=frame)
    s.pop("player")
    s["events"][1]["uncertain"] = "the contact was hidden by the player's arm"
    return s


def plain(frame: int = 100) -> dict:
    s = shot(cue="yellow", obj="w3", frame=frame)
    s.pop("player")
    return s


def verdict(legal: bool, a: int, b: int, nxt: str, fouls: tuple[str, ...] = ()) -> dict:
    return {"legal": legal, "fouls": list(fouls), "scored": {"A": a, "B": b}, "next": nxt}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server(tmp: Path, db: str | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """uvicorn serving the app in a subprocess on ``db`` (default: a SQLite file in tmp)."""
    port = free_port()
    env = {
        **os.environ,
        "TABLEMON_TOKEN": TOKEN,
        "TABLEMON_DB": db or str(tmp / "k.db"),
        "TABLEMON_DATA": str(tmp / "data"),
    }
    p = subprocess.Popen(
        server_command(port),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 30
        while True:
            try:
                if httpx.get(url + "/openapi.json", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if p.poll() is not None or time.monotonic() > end:
                raise AssertionError(f"server did not start: {p.stderr.read().decode()[-2000:]}")
            time.sleep(0.1)
        yield url, p
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        p.stderr.close()


LAG_BALLS = {
    "pyramid": (("yellow", 450.0), ("1", 1325.0), 600.0),  # pyramid-12ft, from the house
    "carom": (("white", 410.0), ("yellow", 1010.0), 710.0),  # carom-match, the lag line
}


def lag_shot(
    rest_a: float, rest_b: float, extra: tuple[dict, ...] = (), kind: str = "pyramid"
) -> dict:
    """A lag: pyramid's yellow (A, left half) and 1 (B, right half) from the house, or
    5-pin's white (A) and yellow (B) from the lag line (``kind="carom"``), each off the back
    cushion, at rest ``rest_a`` / ``rest_b`` mm from the front cushion."""
    (a, ya), (b, yb), x0 = LAG_BALLS[kind]
    ev = [
        {"frame": 10, "t": 0.33, "type": "lag", "balls": [a, b]},
        {"frame": 10, "t": 0.33, "type": "strike", "ball": a, "at": [x0, ya]},
        {"frame": 13, "t": 0.43, "type": "strike", "ball": b, "at": [x0, yb]},
        {"frame": 60, "t": 2.0, "type": "cushion", "ball": a, "cushion": "back"},
        {"frame": 62, "t": 2.07, "type": "cushion", "ball": b, "cushion": "back"},
        *extra,
    ]
    return {
        "start": {"frame": 10, "t": 0.33},
        "end": {"frame": 200, "t": 6.67},
        "events": sorted(ev, key=lambda e: e["frame"]),
        "rest": {a: [rest_a, ya], b: [rest_b, yb]},
    }
