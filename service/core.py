"""What the routes do: matches, shots and referee corrections over the repository.

Every change is one transaction: the stored shot, an audit row (who, when, what, before,
after) and the event log rows the SSE streams send. The state is recomputed through
:mod:`service.judging` from the stored shots and cached by ``rev`` (the match's last event
id, which grows on every change and survives a restart).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from contract.calib import calibration_from_json, front_assumed, rough_frame
from contract.match import RefereeInput, Shot
from contract.tables import load_table
from service.broker import Broker
from service.db import Database, DatabaseUnavailable, MatchRow
from service.errors import Conflict, NotFound, Unprocessable
from service.judging import Judged, judge
from service.questions import question_view, signature, summary
from service.texts import verdict_text

CACHED_MATCHES = 256  # judged matches kept in memory


class _Stale(Exception):
    """Another API process changed the match between this one's read and its write."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id


def _retrying(fn: Callable) -> Callable:
    """A change that met another process's change of the match (:class:`_Stale`) is
    redone on the new state (3 tries); one cut by a lost database connection is redone once
    on a new connection, then :class:`DatabaseUnavailable` (503) goes to the caller."""

    @functools.wraps(fn)
    def run(self: MatchService, *args: object, **kw: object) -> object:
        db_retried = False
        for _ in range(3):
            before = self.db.commits()
            try:
                return fn(self, *args, **kw)
            except _Stale as e:
                self.forget(e.match_id)
            except DatabaseUnavailable as e:
                if self.db.commits() != before:  # recorded, then lost: never redone twice
                    why = str(e).split("; ")[0]
                    raise DatabaseUnavailable(
                        f"{why} after the change was recorded: reload to see it"
                    ) from None
                if db_retried:
                    raise
                db_retried = True
        raise Conflict("the match changed on another API process meanwhile; try again")

    return run


@dataclass(frozen=True)
class Current:
    match: MatchRow
    judged: Judged
    rev: int


class MatchService:
    def __init__(self, db: Database, broker: Broker | None = None) -> None:
        self.db = db
        self.broker = broker or Broker()
        self._cache: OrderedDict[int, Current] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._match_locks: dict[int, threading.Lock] = {}
        self._memo: OrderedDict[tuple, tuple[int, object]] = OrderedDict()
        # called with the new Current after each committed change, in the writer's thread;
        # each returns views {memo key: value} of it (the scoreboards' bytes), published
        # with the new state so no poll waits for them
        self.on_change: list[Callable[[Current], dict[tuple, object]]] = []
        self._sources: dict[int, str | None] = {}  # table id -> its source (never changes)

    # -- reading --------------------------------------------------------------------------
    def match(self, match_id: int) -> MatchRow:
        m = self.db.match(match_id)
        if m is None:
            raise NotFound(f"match {match_id} not found")
        return m

    def current(self, match_id: int) -> Current:
        """The match, its judged shots and state at the latest rev.

        Cached: every change of a match goes through this object and refreshes its entry,
        so a cached entry is the latest and a read needs no database call (one API process
        is the only writer of the database; see :mod:`service.db`)."""
        with self._cache_lock:
            c = self._cache.get(match_id)
        if c is not None:
            with self._cache_lock:
                if match_id in self._cache:
                    self._cache.move_to_end(match_id)
            return c
        with self.db.snapshot():  # a consistent snapshot (no writer in between)
            m = self.match(match_id)
            rev = self.db.last_event_id(match_id)
            shots = [s.shot for s in self.db.shots(match_id)]
        try:
            j = judge(m.settings, shots)
        except ValueError as e:
            raise Unprocessable(f"match {match_id}: {str(e).splitlines()[0]}") from None
        c = Current(m, j, rev)
        with self._cache_lock:
            old = self._cache.get(match_id)
            # never replace a newer entry, nor cache a snapshot a writer has overtaken
            if (old is None or old.rev < rev) and self.db.last_event_id(match_id) == rev:
                self._remember(match_id, c)
        return c

    def memo(self, key: tuple, match_id: int, build: Callable[[Current], object]) -> object:
        """``build(current)`` computed once per rev of the match (scoreboards, state JSON)."""
        return self.memo_rev(key, match_id, build)[1]

    def memo_rev(
        self, key: tuple, match_id: int, build: Callable[[Current], object]
    ) -> tuple[int, object]:
        """:meth:`memo` with the rev the value was built for."""
        c = self.current(match_id)
        full = (match_id, *key)
        with self._cache_lock:
            hit = self._memo.get(full)
        if hit is not None and hit[0] == c.rev:
            return hit
        value = build(c)
        with self._cache_lock:
            old = self._memo.get(full)
            if old is None or old[0] <= c.rev:  # never replace a newer rev's value
                self._memo[full] = (c.rev, value)
                self._memo.move_to_end(full)
            while len(self._memo) > 4 * CACHED_MATCHES:
                self._memo.popitem(last=False)
        return c.rev, value

    def peek(self, key: tuple, match_id: int) -> tuple[int, object] | None:
        """``(rev, value)`` memoised by :meth:`memo` for the match's latest cached rev, or
        None (not cached, or built for an older rev). Never touches the database or blocks
        on a writer: an event-loop fast path for pollers."""
        with self._cache_lock:
            c = self._cache.get(match_id)
            hit = self._memo.get((match_id, *key))
        if c is None or hit is None or hit[0] != c.rev:
            return None
        return hit

    def state_json(self, match_id: int) -> dict:
        c = self.current(match_id)
        st = c.judged.state.to_json()
        names = c.match.settings["players"]
        v = c.judged.state.last_verdict
        return {
            "match_id": match_id,
            "rev": c.rev,
            **st,
            "pending_call": c.match.pending.get("call"),
            "last_verdict_text": {lang: verdict_text(v, lang, names) for lang in ("ru", "en")},
            **summary(c, self.has_video(c)),
        }

    def table_source(self, table_id: int | None) -> str | None:
        """A table's source (camera index, URL or video file path), cached: it never changes."""
        if table_id is None:
            return None
        with self._cache_lock:
            if table_id in self._sources:
                return self._sources[table_id]
        t = self.db.table(table_id)
        src = t.source if t is not None else None
        if t is not None:
            with self._cache_lock:
                self._sources[table_id] = src
        return src

    def has_video(self, c: Current) -> bool:
        """Whether the match's table plays a video file (stills can be served)."""
        from service.paths import is_camera_url

        src = self.table_source(c.match.table_id)
        return src is not None and not is_camera_url(src)

    # -- writing --------------------------------------------------------------------------
    @_retrying
    def create_match(self, data: dict, who: str) -> MatchRow:
        """``data``: a validated MatchIn dump. The table spec defaults to the table's."""
        if data.get("table_id") is not None:
            t = self.db.table(data["table_id"])
            if t is None:
                raise NotFound(f"table {data['table_id']} not found")
            data.setdefault("table", None)
            data["table"] = data["table"] or t.spec
            cal = calibration_from_json(t.calibration) if t.calibration is not None else None
            if cal is not None and front_assumed(cal):
                data["ends"] = "assumed"  # the lag and 5-pin's break half are then asked
            if cal is not None and rough_frame(cal):
                data["calibration"] = "rough"  # every verdict is then asked
        data["table"] = data.get("table") or (
            "carom-match" if str(data["game"]).startswith("carom") else "pyramid-12ft"
        )
        try:
            load_table(data["table"])
        except ValueError as e:
            raise Unprocessable(str(e).splitlines()[0]) from None
        data["breaker_player"] = None if data["breaker"] == "lag" else data["breaker"]
        try:  # the adjudicator must accept the settings before anything is stored
            j = judge(data, [])
        except ValueError as e:
            raise Unprocessable(str(e).splitlines()[0]) from None
        with self.db.write():
            m = self.db.add_match(data.get("table_id"), data)
            self.db.add_audit(m.id, None, who, "create_match", None, data)
            self.db.add_event("match", {"match": m.id, "settings": data}, m.id, m.table_id)
            c = self._state_event(m, j)
        self._settle(c)
        return self.match(m.id)

    @_retrying
    def add_shot(
        self, match_id: int, shot: dict, who: str, key: str | None = None
    ) -> tuple[int, Judged]:
        """Store a shot (a contract §8 shot as JSON; index optional) after the adjudicator
        accepts it. A pending classic call goes into its referee input. The judging runs
        under the match's own lock, not the database's, so readers never wait for it.
        ``key``: the message id of a shot from a remote table (broker mode): stored with the
        shot in its transaction, and a shot whose key is stored already is not stored again
        (its stored index is returned)."""
        with self._lock_for(match_id):
            if key is not None and (seen := self.db.ingested(key)) is not None:
                return seen[1] or 0, self.current(match_id).judged
            base = self.db.last_event_id(match_id)
            old = self.current(match_id).judged
            m = self.match(match_id)
            last = self.db.last_shot_index(match_id)
            idx = shot.get("index") or last + 1
            if idx != last + 1:
                raise Conflict(
                    f"match {match_id}: shot index {idx} out of order; the next is {last + 1}"
                )
            shot = {**shot, "index": idx}
            call = m.pending.get("call")
            if call:
                ref = dict(shot.get("referee") or {})
                ref.setdefault("call", call)
                shot["referee"] = ref
            shot = Shot.model_validate(shot).model_dump(mode="json", exclude_none=True)
            stored = [s.shot for s in self.db.shots(match_id)]
            j = self._judge(m, [*stored, shot])
            judged_shot = j.match.shots[-1].model_dump(mode="json", exclude_none=True)
            with self.db.write():
                self._check(match_id, base)
                if key is not None:
                    if (seen := self.db.ingested(key)) is not None:
                        return seen[1] or 0, self.current(match_id).judged
                    self.db.add_ingested(key, m.table_id, match_id, idx)
                self.db.add_shot(match_id, idx, shot)
                if call:
                    pending = {k: v for k, v in m.pending.items() if k != "call"}
                    self.db.set_pending(match_id, pending)
                    m = MatchRow(m.id, m.table_id, m.settings, pending, m.created)
                data = {"match": match_id, "shot": judged_shot}
                if key is not None:  # a remote table's shot: its message id
                    data["key"] = key
                self.db.add_event("shot", data, match_id, m.table_id)
                c = self._state_event(m, j, old)
            self._settle(c)
        return idx, j

    @_retrying
    def correct(
        self,
        match_id: int,
        shot_idx: int | None,
        action: str,
        change: Callable[[RefereeInput], RefereeInput],
        who: str,
    ) -> Judged:
        """Apply a referee correction to one shot's referee input (default: the last shot),
        audit it, recompute the state. 409 when the match has no such shot."""
        with self._lock_for(match_id):
            cur = self.current(match_id)
            old, base = cur.judged, cur.rev
            m = self.match(match_id)
            rows = self.db.shots(match_id)
            if not rows:
                raise Conflict(f"match {match_id} has no shot yet to correct")
            idx = rows[-1].idx if shot_idx is None else shot_idx
            pos = next((i for i, r in enumerate(rows) if r.idx == idx), None)
            if pos is None:
                raise NotFound(f"match {match_id} has no shot {idx}")
            shot = rows[pos].shot
            before_ref = RefereeInput.model_validate(shot.get("referee") or {})
            after_ref = change(before_ref)
            new_shot = {**shot, "referee": after_ref.model_dump(mode="json", exclude_none=True)}
            shots = [r.shot for r in rows]
            shots[pos] = new_shot
            j = self._judge(m, shots)
            before = {"referee": _dump(before_ref), "verdict": _verdict(old, pos)}
            after = {"referee": _dump(after_ref), "verdict": _verdict(j, pos)}
            with self.db.write():
                self._check(match_id, base)
                self.db.replace_shot(match_id, idx, new_shot)
                self.db.add_audit(match_id, idx, who, action, before, after)
                data = {"match": match_id, "shot": idx, "action": action, "who": who, **after}
                self.db.add_event("referee", data, match_id, m.table_id)
                c = self._state_event(m, j, old)
            self._settle(c)
        return j

    @_retrying
    def set_pending_call(self, match_id: int, call: dict, who: str) -> None:
        with self._lock_for(match_id):
            cur = self.current(match_id)
            j = cur.judged
            m = self.match(match_id)
            with self.db.write():
                self._check(match_id, cur.rev)
                self.db.set_pending(match_id, {**m.pending, "call": call})
                self.db.add_audit(match_id, None, who, "call", m.pending.get("call"), call)
                data = {"match": match_id, "action": "call", "call": call}
                self.db.add_event("referee", data, match_id, m.table_id)
                c = self._state_event(self.match(match_id), j)
            self._settle(c)

    @_retrying
    def set_lag(self, match_id: int, winner: str, who: str) -> None:
        """The lag's winner breaks; only before the first shot."""
        with self._lock_for(match_id):
            base = self.db.last_event_id(match_id)
            m = self.match(match_id)
            if self.db.last_shot_index(match_id):
                raise Conflict(f"match {match_id}: the lag is settled before the first shot")
            settings = {**m.settings, "breaker_player": winner}
            m2 = MatchRow(m.id, m.table_id, settings, m.pending, m.created)
            j = self._judge(m2, [])
            with self.db.write():
                self._check(match_id, base)
                self.db.set_match_settings(match_id, settings)
                before = m.settings.get("breaker_player")
                self.db.add_audit(match_id, None, who, "lag", before, winner)
                data = {"match": match_id, "action": "lag", "winner": winner}
                self.db.add_event("referee", data, match_id, m.table_id)
                c = self._state_event(m2, j)
            self._settle(c)

    # -- other API processes' changes (broker mode, service.cluster.notify) ---------------
    def forget(self, match_id: int) -> None:
        """Drop the match's cached state (read again from the database when next asked)."""
        with self._cache_lock:
            self._cache.pop(match_id, None)

    def refresh(self, match_id: int, rev: int) -> None:
        """Another process committed the match's change ``rev``: where this process has the
        match cached at an older rev, read it again and build its views, so the next poll is
        answered from memory with the new state."""
        with self._cache_lock:
            c = self._cache.get(match_id)
        if c is None or c.rev >= rev:  # not cached: read from the database when asked
            return
        with self._lock_for(match_id):
            self.forget(match_id)
            try:
                c = self.current(match_id)
            except (NotFound, Unprocessable):
                return
            self._settle(c, publish=False)

    # -- helpers --------------------------------------------------------------------------
    def _check(self, match_id: int, base: int) -> None:
        """Inside the write transaction: the match is still at ``base`` (else another API
        process changed it after this one read it: :class:`_Stale`, the change is redone).
        On PostgreSQL every write transaction holds one advisory lock, so this is exact."""
        if self.db.last_event_id(match_id) != base:
            raise _Stale(match_id)

    def _settle(self, c: Current, publish: bool = True) -> None:
        """After the commit: the new state and the views built from it by the
        :attr:`on_change` hooks (the scoreboards' bytes) become visible together, so a
        reader sees the old rev or the new one, each complete, and no reader builds them;
        then the SSE streams are woken."""
        views: dict[tuple, object] = {}
        for hook in list(self.on_change):
            try:
                views.update(hook(c))
            except Exception:  # noqa: S112 (a view that fails is built by its first reader)
                continue
        with self._cache_lock:
            old = self._cache.get(c.match.id)
            if old is None or old.rev <= c.rev:
                self._remember(c.match.id, c)
                for key, value in views.items():
                    full = (c.match.id, *key)
                    self._memo[full] = (c.rev, value)
                    self._memo.move_to_end(full)
                while len(self._memo) > 4 * CACHED_MATCHES:
                    self._memo.popitem(last=False)
        if publish:
            self.broker.publish()

    def _judge(self, m: MatchRow, shots: list[dict]) -> Judged:
        try:
            return judge(m.settings, shots)
        except ValueError as e:
            raise Unprocessable(f"the adjudicator refuses it: {str(e).splitlines()[0]}") from None

    def _lock_for(self, match_id: int) -> threading.Lock:
        """The lock that serialises one match's read-judge-write sequences."""
        with self._cache_lock:
            return self._match_locks.setdefault(match_id, threading.Lock())

    def _state_event(self, m: MatchRow, j: Judged, old: Judged | None = None) -> Current:
        """Append the state event (inside the caller's transaction), and a ``question`` event
        first when the referee's questions changed since ``old``; the new current state,
        made visible by :meth:`_settle` once committed."""
        if old is not None and signature(old.match) != signature(j.match):
            names = m.settings["players"]
            video = self.has_video(Current(m, j, 0))
            qs = [question_view(q, j.match, names, video, m.id) for q in j.match.questions]
            data = {
                "match": m.id,
                "open": sum(q["answer"] is None for q in qs),
                "score": dict(j.state.score),
                "pending": j.match.pending,
                "questions": qs,
            }
            self.db.add_event("question", data, m.id, m.table_id)
        data = {"match": m.id, "state": j.state.to_json()}
        rev = self.db.add_event("state", data, m.id, m.table_id)
        return Current(m, j, rev)

    def _remember(self, match_id: int, c: Current) -> None:
        """Cache (caller holds ``_cache_lock``); the least recently used beyond
        ``CACHED_MATCHES`` are dropped and reloaded from the database when read again."""
        self._cache[match_id] = c
        self._cache.move_to_end(match_id)
        while len(self._cache) > CACHED_MATCHES:
            self._cache.popitem(last=False)


def _dump(r: RefereeInput) -> dict:
    return r.model_dump(mode="json", exclude_none=True, exclude_defaults=True)


def _verdict(j: Judged, pos: int) -> dict | None:
    if pos >= len(j.match.shots):
        return None
    s = j.match.shots[pos]
    v = s.referee.verdict if s.referee and s.referee.verdict else s.verdict
    return None if v is None else v.model_dump(mode="json", exclude_none=True)
