"""An API process's side of broker mode: the shots of remote tables, their health.

:class:`RemoteTables` stands where :class:`service.live.LiveManager` stands in the embedded
default (``rt.extras["live"]``: ``status``, ``start``, ``stop``, ``pid``, ``close``), so the
routes do not change. It runs its own asyncio loop in a thread:

- one durable pull consumer per table (``tablemon-api-t<id>`` on the stream ``TABLEMON``,
  filtered on the table's subjects) shared by every API process: each message goes to one of
  them; ``max_ack_pending=1`` keeps a table's shots in order across processes while tables
  are stored side by side; a message is acknowledged after its transaction committed, so an
  API process killed in the middle leaves it to another after ``ACK_WAIT_S``; a worker that
  publishes before its table is registered has its messages kept until it is;
- a shot goes to the table's feed match (``POST /tables/{id}/live`` sets it, else the
  table's newest match) through :meth:`MatchService.add_shot` with its message id: stored once
  even when delivered twice; a refused shot is kept as a table event with the reason;
- a database that is away: the message is not acknowledged and comes again;
- health and positions: every API process subscribes (plain NATS) and keeps the latest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from service.cluster import subjects
from service.core import Conflict, NotFound, Unprocessable
from service.db import DatabaseUnavailable

ACK_WAIT_S = 5.0
STALE_S = 5.0  # no health for this long: the worker is taken as gone
TABLES_EVERY_S = 2.0  # a newly registered table's consumer starts within this


class RemoteTables:
    def __init__(self, service: Any, settings: Any) -> None:
        try:
            import nats  # noqa: F401
        except ImportError:
            raise ValueError(
                "TABLEMON_BROKER is set but nats-py is not installed "
                "(pip install 'tablemon[cluster]')"
            ) from None
        self.service, self.settings = service, settings
        self.db = service.db
        self._health: dict[int, dict] = {}
        self._positions: dict[int, dict] = {}
        self._errors: dict[int, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.connected = False
        self.handled = 0
        self.last_error: str | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="tablemon-broker", daemon=True)
        self._thread.start()

    # -- the LiveManager interface ----------------------------------------------------------
    def status(self, table_id: int) -> dict:
        with self._lock:
            raw = self._health.get(table_id)
            err = self._errors.get(table_id)
        h = _parse(raw) or {}
        fresh = bool(h) and time.time() - h.get("at", 0) < STALE_S
        st = {
            k: h[k] for k in ("connected", "fps", "frames", "dropped", "vision", "ended") if k in h
        }
        st["running"] = fresh
        if not fresh:
            st["connected"], st["fps"] = False, 0.0
        remote = f"remote worker: outbox {h.get('outbox', 0)}, broker {'up' if h.get('broker') else 'down'}"
        if h:
            st["vision"] = "; ".join(x for x in (h.get("vision"), remote) if x)
        else:
            st["vision"] = "remote table: no worker has reported on the broker"
        st["last_error"] = err or h.get("last_error")
        return st

    def positions(self, table_id: int) -> dict | None:
        with self._lock:
            raw = self._positions.get(table_id)
        return _parse(raw)

    def start(self, table: Any, match_id: int, read_numbers: bool = False) -> None:
        """The table's remote shots feed this match (the worker runs elsewhere).
        ``read_numbers`` is not passed on: a remote worker reads numbers when it was started
        with ``tablemon worker --read-numbers`` (a classic pyramid table); without it a
        classic pyramid match there asks every pocketed ball's number."""
        self.db.set_feed(table.id, match_id)

    def stop(self, table_id: int) -> None:
        self.db.set_feed(table_id, None)

    def pid(self, table_id: int) -> int | None:
        with self._lock:
            raw = self._health.get(table_id)
        return (_parse(raw) or {}).get("pid")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    # -- the loop ----------------------------------------------------------------------------
    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        finally:
            self._loop.close()

    async def _main(self) -> None:
        import nats

        s = self.settings
        kw: dict[str, Any] = {
            "servers": s.broker.split(","), "name": "tablemon-api", "connect_timeout": 2,
            "reconnect_time_wait": 0.5, "max_reconnect_attempts": -1, "allow_reconnect": True,
        }  # fmt: skip
        if s.broker_user and s.broker_token:
            kw.update(user=s.broker_user, password=s.broker_token)
        elif s.broker_token:
            kw["token"] = s.broker_token

        async def on_error(e: Exception) -> None:
            self.last_error = f"broker: {type(e).__name__}: {e}".splitlines()[0]

        nc = None
        while nc is None and not self._stop.is_set():
            try:
                nc = await nats.connect(**kw, error_cb=on_error)
            except Exception as e:
                self.last_error = f"broker unreachable: {type(e).__name__}: {e}".splitlines()[0]
                await asyncio.sleep(1.0)
        if nc is None:
            return
        await nc.subscribe(f"{subjects.PREFIX}.*.health", cb=self._on_live)
        await nc.subscribe(f"{subjects.PREFIX}.*.positions", cb=self._on_live)
        pull = asyncio.create_task(self._pull(nc))
        while not self._stop.is_set():
            self.connected = nc.is_connected
            await asyncio.sleep(0.2)
        pull.cancel()
        with contextlib.suppress(BaseException):
            await pull
        with contextlib.suppress(Exception):
            await nc.close()

    async def _on_live(self, msg: Any) -> None:
        where = subjects.parse(msg.subject)
        if where is None:
            return
        with self._lock:  # kept as bytes: parsed when asked (most are never read)
            (self._health if where[1] == "health" else self._positions)[where[0]] = msg.data

    async def _pull(self, nc: Any) -> None:
        """One pull loop per registered table (new tables are picked up every
        ``TABLES_EVERY_S``), each on the table's durable consumer."""
        js = nc.jetstream(timeout=5)
        loops: dict[int, asyncio.Task] = {}
        try:
            while not self._stop.is_set():
                try:
                    await subjects.ensure_stream(js)
                    ids = await asyncio.get_running_loop().run_in_executor(
                        None, lambda: [t.id for t in self.db.tables()]
                    )
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    self.last_error = f"broker: {type(e).__name__}: {e}".splitlines()[0]
                    await asyncio.sleep(1.0)
                    continue
                for tid in ids:
                    if tid not in loops or loops[tid].done():
                        loops[tid] = asyncio.create_task(self._pull_table(js, tid))
                await asyncio.sleep(TABLES_EVERY_S)
        finally:
            for t in loops.values():
                t.cancel()

    async def _pull_table(self, js: Any, table_id: int) -> None:
        """The table's messages, one at a time, whichever API process takes each."""
        from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

        name = subjects.durable(table_id)
        cfg = ConsumerConfig(
            durable_name=name, ack_policy=AckPolicy.EXPLICIT, deliver_policy=DeliverPolicy.ALL,
            ack_wait=ACK_WAIT_S, max_ack_pending=1, max_deliver=-1,
            filter_subject=f"{subjects.PREFIX}.{table_id}.>",
        )  # fmt: skip
        sub = None
        while not self._stop.is_set():
            try:
                if sub is None:
                    sub = await js.pull_subscribe(
                        cfg.filter_subject, durable=name, stream=subjects.STREAM, config=cfg
                    )
                msgs = await sub.fetch(1, timeout=5.0)
            except TimeoutError:
                continue
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self.last_error = f"broker: {type(e).__name__}: {e}".splitlines()[0]
                if "consumer" in str(e).lower() or "stream" in str(e).lower():
                    sub = None
                await asyncio.sleep(0.5)
                continue
            for m in msgs:
                await self._one(m)

    async def _one(self, m: Any) -> None:
        """Store one message (in a worker thread), then acknowledge it; a database that is
        away leaves it unacknowledged (it comes again)."""
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, self.handle, m.subject, m.data)
        except DatabaseUnavailable as e:
            self.last_error = str(e)
            with contextlib.suppress(Exception):
                await m.nak(delay=1.0)
            return
        except Exception as e:  # not ours to judge: kept unacknowledged, logged
            self.last_error = f"message {m.subject}: {type(e).__name__}: {e}".splitlines()[0]
            with contextlib.suppress(Exception):
                await m.nak(delay=2.0)
            return
        with contextlib.suppress(Exception):
            await m.ack_sync(timeout=2)
        self.handled += 1

    # -- storing (a worker thread) ---------------------------------------------------------
    def handle(self, subject: str, data: bytes) -> None:
        """Store one stream message: a shot into the table's match, an event into the log."""
        where = subjects.parse(subject)
        if where is None:
            return
        table_id, kind = where
        try:
            body = json.loads(data)
        except ValueError:
            self._errors[table_id] = f"a message on {subject} is not JSON: dropped"
            return
        key = str(body.get("key") or "")[:200] or None
        if key and self.db.ingested(key) is not None:
            return
        if self.db.table(table_id) is None:
            self._keep(table_id, None, key, {"unknown_table": True, **body})
            return
        if kind == "shots":
            self._shot(table_id, key, body)
        else:
            self._event(table_id, key, body.get("event") or {})

    def _shot(self, table_id: int, key: str | None, body: dict) -> None:
        match_id = self.db.feed(table_id)
        if match_id is None:
            self._errors[table_id] = "a shot came with no match on the table: kept as an event"
            self._keep(table_id, None, key, {"unplaced_shot": body.get("shot")})
            return
        who = f"worker:table {table_id}"
        try:
            self.service.add_shot(match_id, body.get("shot") or {}, who, key=key)
        except (Unprocessable, Conflict, NotFound, ValueError) as e:
            reason = str(e).splitlines()[0]
            self._errors[table_id] = f"shot refused: {reason}"
            self._keep(
                table_id, match_id, key, {"refused_shot": body.get("shot"), "reason": reason}
            )
            return
        with self._lock:
            self._errors.pop(table_id, None)

    def _event(self, table_id: int, key: str | None, ev: dict) -> None:
        match_id = self.db.feed(table_id)
        if ev.get("type") == "calibration" and isinstance(ev.get("calibration"), dict):
            calib = ev["calibration"]
            data = {"calibration": {"state": "from the worker"}}
            self._keep(table_id, None, key, data, lambda: self.db.set_calibration(table_id, calib))
            return
        self._keep(table_id, match_id, key, {"event": ev})

    def _keep(
        self,
        table_id: int,
        match_id: int | None,
        key: str | None,
        data: dict,
        also: Callable[[], None] | None = None,
    ) -> None:
        """A table event in the log (once per message id) with ``also()`` in the same
        transaction; then, the transaction over, the streams are woken (never while holding
        the database: the broker's fetch takes it too)."""
        with self.db.write():
            if key is not None:
                if self.db.ingested(key) is not None:
                    return
                self.db.add_ingested(key, table_id, match_id, None)
            if also is not None:
                also()
            self.db.add_event("table", {"table": table_id, **data}, match_id, table_id)
        self.service.broker.publish()


def _parse(raw: bytes | None) -> dict | None:
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
