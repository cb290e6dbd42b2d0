"""``tablemon worker``: one table's vision on any machine, publishing to NATS JetStream.

    tablemon worker --table 3 --camera rtsp://cam3/stream --broker nats://hall:4222 \\
        --spec pyramid-12ft --calibration table3.calib.json

Shots (with their events) and table events (camera moved, a shot cut by a restart, the
calibration in use) go to the table's subjects with a message id each (``Nats-Msg-Id``:
:func:`service.cluster.subjects.shot_key`); they are written to the on-disk outbox first and
removed once JetStream acknowledged them, so a worker that loses the broker keeps them and
sends them when it is back, and a re-sent one is stored once. Health (every second) and live
ball positions (``--positions-hz``) go on plain NATS: latest values, not kept.

A file source plays as a live camera would: at its frame rate, on a clock kept in the
outbox, so a worker restarted on it goes on where the video is now (what played while it
was down is missed, as with a camera). A shot under way when the worker died is sent on
restart as a shot with ``unseen`` frames (contract §11: from its start to where the new run
resumed, no events): the adjudicator asks the referee about it; nothing is guessed.

``--simulate`` (benchmarks): no video is decoded; the file's ground-truth shots
(``NAME.truth.json``) are published as its clock passes their end, so more tables can run
than this machine has cores. The table's health says so.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.cluster import subjects
from service.cluster.outbox import Outbox
from service.cluster.playback import MotionWatch, TruthShots, file_epoch, length_s
from service.settings import Settings, get_settings


class TableWorker:
    """One table: capture, vision, outbox, NATS. ``run()`` returns the exit status."""

    def __init__(
        self,
        table_id: int,
        source: str,
        settings: Settings,
        spec: str | None = None,
        calibration: dict | None = None,
        simulate: bool = False,
        truth: bool = False,
        start_at: float | None = None,
        loops: int = 1,
        loop_gap_s: float = 3.0,
        positions_hz: float = 5.0,
        health_every_s: float = 1.0,
        drain_s: float = 30.0,
        log: Callable[[str], None] | None = None,
        read_numbers: bool = False,
    ) -> None:
        if not settings.broker:
            raise ValueError(
                "tablemon worker: no broker (--broker nats://HOST:4222 or TABLEMON_BROKER)"
            )
        self.table, self.source, self.settings = table_id, source, settings
        self.spec, self.calibration, self.simulate = spec, calibration, simulate
        self.truth = truth  # decode the frames, take the shots from the ground truth
        self.start_at = start_at  # a file's first frame at this Unix time (benchmarks)
        self.loops, self.loop_gap_s = max(1, loops), loop_gap_s  # a file played again
        self.positions_hz, self.health_every_s, self.drain_s = positions_hz, health_every_s, drain_s
        self.log = log or (lambda s: print(s, flush=True))
        self.read_numbers = read_numbers  # a classic pyramid table: read the balls' numbers
        folder = settings.broker_outbox or settings.data / f"worker-{table_id}"
        self.outbox = Outbox(Path(folder) / "outbox.db")
        self.stop = threading.Event()
        self.state: dict[str, Any] = {
            "connected": False, "frames": 0, "dropped": 0, "ended": False, "fps": 0.0,
            "vision": None, "sent": 0, "duplicates": 0, "broker": False, "last_error": None,
        }  # fmt: skip
        self._positions: dict | None = None
        self._open: dict | None = None  # the shot under way, as kept in the outbox
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- what the vision thread hands over --------------------------------------------
    def _keep(self, key: str, kind: str, body: dict) -> None:
        """On disk first, then wake the sender."""
        payload = {"table": self.table, "key": key, "at": time.time(), **body}
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        if self.outbox.put(key, subjects.subject(self.table, kind), data):
            self.log(f"kept {key} {kind} at {payload['at']:.6f}")
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def _open_shot(self, open_: dict | None, epoch: str = "", fps: float = 30.0) -> None:
        """Keep on disk whether a shot is under way (``{t, frame}`` of its start, in the
        stream's clock), so a restart after a crash can record it as unseen."""
        was = self._open
        if (open_ or {}).get("frame") == (was or {}).get("frame"):
            return
        self._open = open_ and {**open_, "epoch": epoch, "fps": fps, "wall": time.time()}
        self.outbox.set("shot_open", self._open)

    def _mark_cut(self, epoch: str, t0: float) -> None:
        """A shot was under way when the last run of this worker died: it is recorded as a
        shot whose frames from its start to where this run resumes were not processed
        (contract §11 ``unseen``: the adjudicator asks the referee about it), with the key
        the shot itself would have had, so a shot that was kept before the crash wins."""
        cut = self.outbox.get("shot_open")
        if not cut:
            return
        fps = float(cut.get("fps") or 30.0)
        if cut.get("epoch") == epoch:  # a file resumed on its clock: where it is now
            to_t = max(cut["t"], time.time() - t0)
        else:  # a camera: the stream's clock went on while the worker was down
            to_t = cut["t"] + max(0.0, time.time() - float(cut.get("wall") or time.time()))
        to_frame = max(int(cut["frame"]), int(round(to_t * fps)))
        shot = {
            "start": {"frame": int(cut["frame"]), "t": float(cut["t"])},
            "end": {"frame": to_frame, "t": round(to_t, 4)},
            "events": [], "rest": {}, "unseen": {"from": int(cut["frame"]), "to": to_frame},
        }  # fmt: skip
        key = subjects.shot_key(self.table, cut.get("epoch") or epoch, int(cut["frame"]))
        self._keep(key, "shots", {"shot": shot})
        self.log(f"shot from frame {cut['frame']} cut by a restart: sent as unseen to {to_frame}")
        self.outbox.set("shot_open", None)

    # -- the clock of a file played as live ----------------------------------------------
    def _clock(self) -> tuple[str, float]:
        """``(epoch, t0)``: a file source goes on with the clock it had (its video time is
        now - t0) unless it ended (then it starts at ``start_at`` or now); a camera starts a
        new epoch."""
        from service.live_worker import _is_file

        if not _is_file(self.source):
            t0 = time.time()
            return f"c{int(t0 * 1000)}", t0
        old = self.outbox.get("clock")
        if old and old.get("source") == str(Path(self.source).resolve()) and not old.get("ended"):
            return old["epoch"], old["t0"]
        t0 = self.start_at or time.time()
        clock = {
            "epoch": file_epoch(self.source, t0),
            "t0": t0,
            "source": str(Path(self.source).resolve()),
        }
        self.outbox.set("clock", clock)
        return clock["epoch"], t0

    # -- vision -----------------------------------------------------------------------
    def _processor(
        self, after_t: float
    ) -> tuple[Callable, Callable[[float], dict | None], str | None]:
        """``(process, in_shot, why)``: the live vision with a tap for positions, else the
        ground truth beside a file (the status says so)."""
        from service.live_worker import PROCESSOR, _load_processor, truth_sidecar

        side = truth_sidecar(self.source)
        if self.simulate or self.truth:
            if side is None:
                raise ValueError(f"{self.source}: --simulate/--truth need its NAME.truth.json")
            truth = TruthShots(side, after_t)
            how = "no video decoded" if self.simulate else "frames decoded, no vision run"
            return truth, truth.in_shot, f"simulated: ground-truth shots of {side.name}, {how}"
        watch = MotionWatch()
        last_pub = [0.0]

        def tap(rows: Any) -> None:
            if len(rows) == 0:
                return
            idx = int(rows.frame.max())
            pos = {
                str(rows.id[i]): (float(rows.x[i]), float(rows.y[i]), bool(rows.visible[i]))
                for i in range(len(rows)) if int(rows.frame[i]) == idx
            }  # fmt: skip
            t = float(rows.t.max()) if hasattr(rows, "t") else idx / 30.0
            watch.update(t, idx, pos)
            now = time.monotonic()
            if now - last_pub[0] >= 1.0 / max(self.positions_hz, 1e-6):
                last_pub[0] = now
                self._positions = {
                    "t": t,
                    "frame": idx,
                    "balls": {b: [x, y] for b, (x, y, v) in pos.items() if v},
                }

        mod, _, func = PROCESSOR.partition(":")

        def make(spec: str, calib: dict | None, **kw: Any) -> Callable:
            import importlib

            factory = getattr(importlib.import_module(mod), func)
            try:
                return factory(spec, calib, tap=tap, **kw)
            except TypeError:
                return factory(spec, calib, **kw)

        process, why = _load_processor(self.spec or "", self.calibration, make, self.read_numbers)
        if process is None and side is not None:
            truth = TruthShots(side, after_t)
            return truth, truth.in_shot, f"{why}; shots come from the ground truth {side.name}"
        if process is None:
            return (lambda f, t: []), (lambda t: None), why
        return process, (lambda t: watch.open), why

    def _vision(self, epoch: str, t0: float) -> float | None:
        """The capture and vision loop (a thread): frames at the source's rate, the newest
        one taken when the vision is free (the others counted as dropped). Returns the
        length played (s; None: the source did not open)."""
        from service.live_worker import _is_file, _open

        is_file = _is_file(self.source)
        offset = max(0.0, time.time() - t0) if is_file else 0.0
        process, in_shot, why = self._processor(offset)
        self.state["vision"] = why
        if offset > 0.5:
            self.log(f"resuming the file's clock at {offset:.2f} s")
        cap, fps = None, 30.0
        if not self.simulate:
            cap = _open(self.source)
            if cap is None:
                self.state["last_error"] = f"cannot open {self.source}"
                self.log(f"tablemon worker: cannot open {self.source}")
                return None
            fps = cap.get(5) or 30.0
            if is_file and offset > 0:
                cap.set(1, int(offset * fps))  # CAP_PROP_POS_FRAMES
        self.state["connected"] = True
        n = int(offset * fps)
        counted, t_rate = 0, time.monotonic()
        end_t = length_s(self.source) if self.simulate else None
        while not self.stop.is_set():
            due = t0 + n / fps if is_file else time.time()
            wait = due - time.time()
            if wait > 0:
                self.stop.wait(wait)
            elif is_file and -wait > 2.0 / fps and cap is not None:  # behind: skip a frame
                if not cap.grab():
                    break
                n += 1
                self.state["dropped"] += 1
                continue
            frame = None
            if cap is not None:
                ok, frame = cap.read()
                if not ok:
                    break
            elif end_t is not None and n / fps > end_t:
                break
            t = n / fps
            n += 1
            self.state["frames"] += 1
            counted += 1
            for item in process(frame, t) or ():
                if "type" in item:  # camera_moved
                    key = subjects.event_key(
                        self.table, epoch, f"{item['type']}{item.get('frame', n)}"
                    )
                    self._keep(key, "events", {"event": item})
                else:
                    key = subjects.shot_key(self.table, epoch, item["start"]["frame"])
                    self._keep(key, "shots", {"shot": item})
            self._open_shot(in_shot(t), epoch, fps)
            now = time.monotonic()
            if now - t_rate >= 1.0:
                self.state["fps"] = round(counted / (now - t_rate), 2)
                counted, t_rate = 0, now
            if self.simulate:
                self._positions = {"t": t, "frame": n, "balls": {}, "simulated": True}
        if cap is not None:
            cap.release()
        self.state["connected"], self.state["fps"] = False, 0.0
        if is_file:
            self.state["ended"] = True
            clock = self.outbox.get("clock") or {}
            self.outbox.set("clock", {**clock, "ended": True})
            self._open_shot(None)
        return n / fps

    def _play(self, epoch: str, t0: float) -> None:
        """The vision loop, ``loops`` times for a file (each play a new epoch, starting
        ``loop_gap_s`` after the last one ended on its clock); then the worker stops."""
        length = 0.0
        try:
            for k in range(self.loops):
                if k > 0:
                    t0 = t0 + length + self.loop_gap_s
                    epoch = file_epoch(self.source, t0)
                    self.outbox.set("clock", {**(self.outbox.get("clock") or {}), "epoch": epoch,
                                              "t0": t0, "ended": False})  # fmt: skip
                    self.state["ended"] = False
                length = self._vision(epoch, t0)
                if self.stop.is_set() or length is None:
                    break
        finally:
            self.stop.set()

    # -- NATS ---------------------------------------------------------------------------
    async def _connect(self) -> Any:
        import nats

        s = self.settings
        kw: dict[str, Any] = {
            "servers": s.broker.split(","), "name": f"tablemon-worker-table-{self.table}",
            "connect_timeout": 2, "reconnect_time_wait": 0.5, "max_reconnect_attempts": -1,
            "allow_reconnect": True,
        }  # fmt: skip
        user = s.broker_user or (f"table-{self.table}" if s.broker_token else None)
        if user and s.broker_token:
            kw.update(user=user, password=s.broker_token)
        elif s.broker_token:
            kw["token"] = s.broker_token

        async def on_error(e: Exception) -> None:
            self.state["last_error"] = f"broker: {type(e).__name__}: {e}".splitlines()[0]

        delay = 0.2
        while not self.stop.is_set() or len(self.outbox):
            try:
                return await nats.connect(**kw, error_cb=on_error)
            except Exception as e:
                self.state["last_error"] = (
                    f"broker unreachable: {type(e).__name__}: {e}".splitlines()[0]
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                if self.stop.is_set() and time.monotonic() > self._deadline:
                    return None
        return None

    async def _send(self, nc: Any) -> None:
        """Outbox -> JetStream, oldest first; a message leaves the outbox once acknowledged."""
        js = nc.jetstream(timeout=2)
        while True:
            batch = self.outbox.pending(100)
            if not batch:
                if self.stop.is_set():
                    return
                self._wake.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 0.5)
                continue
            for key, subj, payload in batch:
                try:
                    ack = await js.publish(subj, payload, timeout=2, headers={"Nats-Msg-Id": key})
                except Exception as e:
                    self.outbox.tried(key)
                    why = f"publish: {type(e).__name__}: {e}".splitlines()[0]
                    if why != self.state["last_error"]:
                        self.log(f"not sent {key} ({len(self.outbox)} kept): {why}")
                    self.state["last_error"] = why
                    if self.stop.is_set() and time.monotonic() > self._deadline:
                        return
                    await asyncio.sleep(0.5)
                    break
                self.outbox.done(key)
                self.state["sent"] += 1
                self.state["duplicates"] += int(bool(ack.duplicate))
                self.log(f"sent {key} seq {ack.seq}{' (duplicate)' if ack.duplicate else ''}")

    async def _live(self, nc: Any) -> None:
        """Health every ``health_every_s``, positions at ``positions_hz`` (plain NATS)."""
        next_health = next_pos = 0.0
        while not self.stop.is_set():
            now = time.monotonic()
            with contextlib.suppress(Exception):
                if now >= next_health:
                    next_health = now + self.health_every_s
                    await nc.publish(subjects.subject(self.table, "health"), self._health())
                if now >= next_pos and self._positions is not None:
                    next_pos = now + 1.0 / max(self.positions_hz, 0.01)
                    pos, self._positions = self._positions, None
                    body = json.dumps({"table": self.table, "at": time.time(), **pos}).encode()
                    await nc.publish(subjects.subject(self.table, "positions"), body)
            await asyncio.sleep(0.05)
        with contextlib.suppress(Exception):
            await nc.publish(subjects.subject(self.table, "health"), self._health())
            await nc.flush(1)

    def _health(self) -> bytes:
        st = {**self.state, "outbox": len(self.outbox), "at": time.time(), "pid": os.getpid()}
        return json.dumps({"table": self.table, **st}).encode()

    async def _main(self) -> int:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._deadline = float("inf")
        epoch, t0 = self._clock()
        self._mark_cut(epoch, t0)
        if self.calibration is not None:
            key = subjects.event_key(self.table, epoch, "calibration")
            self._keep(
                key, "events", {"event": {"type": "calibration", "calibration": self.calibration}}
            )
        vision = threading.Thread(target=self._play, args=(epoch, t0), daemon=True)
        vision.start()
        nc = await self._connect()
        while nc is None and not self.stop.is_set():
            nc = await self._connect()
        if nc is None:
            self.log(
                f"tablemon worker: broker unreachable; {len(self.outbox)} messages kept in {self.outbox.path}"
            )
            return 1
        self.state["broker"] = True
        live = asyncio.create_task(self._live(nc))
        sender = asyncio.create_task(self._send(nc))
        while not self.stop.is_set():
            await asyncio.sleep(0.2)
            self.state["broker"] = nc.is_connected
        self._deadline = time.monotonic() + self.drain_s
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(sender, self.drain_s + 1)
        await live
        left = len(self.outbox)
        with contextlib.suppress(Exception):
            await nc.drain()
        if left:
            self.log(
                f"tablemon worker: {left} messages not acknowledged, kept in {self.outbox.path}: sent on the next start"
            )
        vision.join(timeout=2)
        return 1 if (self.state.get("last_error") or "").startswith("cannot open") else 0

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(ValueError):
                signal.signal(sig, lambda *_: self.stop.set())
        try:
            return asyncio.run(self._main())
        finally:
            self.outbox.close()


def run_cli(args: argparse.Namespace) -> int:
    settings = get_settings()
    update: dict[str, Any] = {}
    if args.broker:
        update["broker"] = args.broker
    if args.outbox:
        update["broker_outbox"] = Path(args.outbox)
    if update:
        settings = Settings(**{**settings.model_dump(exclude_unset=True), **update})
    try:
        import nats  # noqa: F401
    except ImportError:
        raise ValueError("tablemon worker needs nats-py: pip install 'tablemon[cluster]'") from None
    source = args.camera
    from service.live_worker import _is_file

    if _is_file(source) and not Path(source).is_file():
        raise ValueError(f"{source}: no such video file")
    calib = None
    cpath = Path(args.calibration) if args.calibration else None
    if cpath is None and _is_file(source):
        side = Path(source).with_name(Path(source).name.rsplit(".", 1)[0] + ".calib.json")
        cpath = side if side.is_file() else None
    if cpath is not None:
        try:
            calib = json.loads(cpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ValueError(f"{cpath}: cannot read the calibration: {e}") from None
    spec = args.spec
    if spec is None and _is_file(source):
        truth = Path(source).with_name(Path(source).name.rsplit(".", 1)[0] + ".truth.json")
        if truth.is_file():
            spec = json.loads(truth.read_text(encoding="utf-8")).get("table")
    w = TableWorker(
        args.table, source, settings, spec=spec, calibration=calib, simulate=args.simulate,
        truth=args.truth, start_at=args.start_at, loops=args.loops,
        positions_hz=args.positions_hz, read_numbers=args.read_numbers,
    )  # fmt: skip
    code = w.run()
    if w.state.get("last_error") and code:
        print(f"tablemon worker: {w.state['last_error']}", file=sys.stderr)
    return code
