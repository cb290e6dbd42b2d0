"""Replay jobs: ``tablemon replay`` in a subprocess, one at a time, progress and errors
recorded in the database (a failure keeps the command's last error line)."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

from service.broker import Broker
from service.db import Database
from service.settings import Settings

_PCT = re.compile(rb"(\d{1,3})%")


class ReplayRunner:
    """A single worker thread draining a queue of replay ids."""

    def __init__(self, db: Database, settings: Settings, broker: Broker) -> None:
        self.db, self.settings, self.broker = db, settings, broker
        self._q: queue.Queue[int | None] = queue.Queue()
        self._proc: subprocess.Popen | None = None
        self._closing = False  # set on shutdown: a job cut short then records nothing
        self._thread = threading.Thread(target=self._loop, name="replays", daemon=True)
        self._thread.start()

    def out_dir(self, replay_id: int) -> Path:
        return self.settings.data / "replays" / str(replay_id)

    def submit(self, replay_id: int) -> None:
        self._q.put(replay_id)

    def close(self) -> None:
        self._closing = True
        self._q.put(None)
        p = self._proc
        if p is not None and p.poll() is None:
            p.kill()
        self._thread.join(timeout=5)

    def _event(self, replay_id: int) -> None:
        r = self.db.replay(replay_id)
        if r is None:
            return
        data = {"replay": r.id, "status": r.status, "progress": r.progress, "error": r.error}
        with self.db.write():
            self.db.add_event("replay", data)
        self.broker.publish()

    def _loop(self) -> None:
        while True:
            rid = self._q.get()
            if rid is None:
                return
            try:
                self._run(rid)
            except Exception as e:  # a job never kills the runner; the reason is recorded
                if self._closing:  # killed by the shutdown; the database may be closed
                    return
                self.db.update_replay(rid, status="failed", error=f"{type(e).__name__}: {e}")
                self._event(rid)

    def command(self, replay_id: int) -> list[str]:
        r = self.db.replay(replay_id)
        assert r is not None
        out = self.out_dir(replay_id)
        cmd = [sys.executable, "-m", "service.cli", "replay", r.video, "--game", r.game]
        cmd += ["--out", str(out / "MATCH.json"), "--annotated", str(out / "annotated.mp4")]
        if r.spec:
            cmd += ["--table", r.spec]
        if r.calibration is not None:
            out.mkdir(parents=True, exist_ok=True)  # also when called before the job runs
            calib = out / "CALIB.json"
            calib.write_text(json.dumps(r.calibration), encoding="utf-8")
            cmd += ["--calibration", str(calib)]
        return cmd

    def _run(self, replay_id: int) -> None:
        out = self.out_dir(replay_id)
        out.mkdir(parents=True, exist_ok=True)
        self.db.update_replay(replay_id, status="running", progress=0.0)
        self._event(replay_id)
        self._proc = p = subprocess.Popen(
            self.command(replay_id), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        tail, last_pct = b"", -1
        assert p.stderr is not None
        while chunk := p.stderr.read1(4096):  # type: ignore[union-attr]
            tail = (tail + chunk)[-4000:]
            found = _PCT.findall(chunk)
            if found:
                pct = min(100, int(found[-1]))
                if pct != last_pct:
                    last_pct = pct
                    self.db.update_replay(replay_id, progress=pct / 100)
                    self._event(replay_id)
        rc = p.wait()
        self._proc = None
        match, video = out / "MATCH.json", out / "annotated.mp4"
        if rc == 0 and match.is_file():
            self.db.update_replay(
                replay_id,
                status="done",
                progress=1.0,
                result=str(match),
                annotated=str(video) if video.is_file() else None,
            )
        else:
            lines = [x for x in re.split(rb"[\r\n]+", tail) if x.strip()]
            why = lines[-1].decode("utf-8", "replace").strip() if lines else ""
            if rc == 0:
                why = why or "the replay wrote no MATCH.json"
            self.db.update_replay(
                replay_id, status="failed", error=f"exit {rc}: {why or 'no message'}"
            )
        self._event(replay_id)
