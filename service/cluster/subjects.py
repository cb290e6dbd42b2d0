"""Subjects, streams and message ids of broker mode.

``tablemon.table.<id>.shots``      a shot (contract §8 JSON, events included) — stream
``tablemon.table.<id>.events``     a table event outside shots (camera_moved, the
                                   calibration in use) — stream
``tablemon.table.<id>.health``     the worker's status every ``health_every_s`` — core NATS
``tablemon.table.<id>.positions``  live ball positions (table mm) — core NATS

The stream ``TABLEMON`` keeps shots and events on disk until the API acknowledges them
(work-queue retention, duplicate window of an hour on ``Nats-Msg-Id``); health and positions
are latest-value data nobody needs replayed, sent on plain NATS.
"""

from __future__ import annotations

import re

PREFIX = "tablemon.table"
STREAM = "TABLEMON"
DURABLE = "tablemon-api"  # the consumers every API process pulls from: DURABLE-t<table id>
DUPLICATE_WINDOW_S = 3600.0
STORED = ("shots", "events")
LIVE = ("health", "positions")
_SUBJECT = re.compile(r"^tablemon\.table\.(\d+)\.(shots|events|health|positions)$")


def durable(table_id: int) -> str:
    """The table's consumer, shared by every API process."""
    return f"{DURABLE}-t{int(table_id)}"


def subject(table_id: int, kind: str) -> str:
    if kind not in STORED + LIVE:
        raise ValueError(f"unknown subject kind {kind!r}")
    return f"{PREFIX}.{int(table_id)}.{kind}"


def parse(subj: str) -> tuple[int, str] | None:
    """``(table id, kind)`` of a subject, or None when it is not one of ours."""
    m = _SUBJECT.match(subj)
    return None if m is None else (int(m.group(1)), m.group(2))


def shot_key(table_id: int, epoch: str, start_frame: int) -> str:
    """The message id of a shot: the table, the worker's stream epoch (the video file's
    identity, or the camera session), the shot's first frame. A shot re-sent from the
    outbox, or seen again by a worker restarted on the same file, has the same key."""
    return f"t{int(table_id)}/{epoch}/s{int(start_frame)}"


def event_key(table_id: int, epoch: str, name: str) -> str:
    return f"t{int(table_id)}/{epoch}/{name}"


async def ensure_stream(js: object) -> None:
    """Create (or update) the stream; an API process does this at start."""
    from nats.js.api import RetentionPolicy, StorageType, StreamConfig

    cfg = StreamConfig(
        name=STREAM,
        subjects=[f"{PREFIX}.*.{k}" for k in STORED],
        retention=RetentionPolicy.WORK_QUEUE,
        storage=StorageType.FILE,
        duplicate_window=DUPLICATE_WINDOW_S,
        max_age=14 * 86400.0,
    )
    try:
        await js.add_stream(cfg)  # type: ignore[attr-defined]
    except Exception as e:  # already there (with other settings): bring it up to date
        if "already in use" not in str(e) and "exists" not in str(e):
            raise
        await js.update_stream(cfg)  # type: ignore[attr-defined]
