"""``tablemon serve --demo VIDEO``: a table replaying the video as live, its match, the
scoreboard URL printed; a fixture's truth shots reach the scoreboard as the video plays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from svc_helpers import free_port, shot

from service.live import write_test_video


def test_demo(tmp_path: Path) -> None:
    video = write_test_video(tmp_path / "clip.mp4", frames=60, fps=30)
    shots = [
        {**shot(frame=0), "index": 1, "end": {"frame": 9, "t": 0.3}},
        {**shot(frame=10), "index": 2, "end": {"frame": 30, "t": 1.0}},
    ]
    (tmp_path / "clip.truth.json").write_text(
        json.dumps({"format": "tablemon-match/1", "shots": shots})
    )
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEMON_")}
    env["TABLEMON_DATA"] = str(tmp_path / "data")
    root = str(Path(__file__).resolve().parents[2])  # runs in tmp_path: import from the tree
    env["PYTHONPATH"] = os.pathsep.join(x for x in (root, env.get("PYTHONPATH")) if x)
    p = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--demo", str(video), "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = p.stdout.readline()
        assert line.startswith(f"scoreboard: http://127.0.0.1:{port}/scoreboard/1"), (
            line + p.stderr.read()
        )
        url = line.split()[1]
        end, board = time.monotonic() + 40, {}
        while time.monotonic() < end:
            try:
                board = httpx.get(
                    f"http://127.0.0.1:{port}/scoreboard/matches/1.json", timeout=2
                ).json()
                if board.get("shots") == 2:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        assert (
            board["shots"] == 2 and board["tableName"] == "demo: clip.mp4" and board["lastVerdict"]
        )
        assert httpx.get(url, timeout=5).status_code == 200
        r = httpx.post(f"http://127.0.0.1:{port}/matches", json={}, timeout=5)
        assert r.status_code == 403 and "TABLEMON_TOKEN is not set" in r.json()["detail"]
    finally:
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        p.stdout.close()
        p.stderr.close()
