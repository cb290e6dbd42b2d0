"""Service settings (contract §10), read from the environment or a settings file.

``TABLEMON_TOKEN``: the referee's bearer token for every write (unset: writes refused);
``TABLEMON_DB``: SQLite file path or ``sqlite:///PATH`` URL (default ``DATA/tablemon.db``), or
a ``postgresql://USER@HOST/DB`` URL (psycopg 3 needed);
``TABLEMON_DATA``: data folder (uploads, replay results); ``TABLEMON_VIDEO_DIR``: the
only folder server-side video paths may name. A settings file is read from
``TABLEMON_SETTINGS`` (default ``.env`` in the working folder) when it exists.
Tests override :func:`get_settings` through ``app.dependency_overrides``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob of the service. Sizes in bytes, times in seconds."""

    model_config = SettingsConfigDict(
        env_prefix="TABLEMON_",
        env_file=os.environ.get("TABLEMON_SETTINGS", ".env"),
        extra="ignore",
    )

    token: str | None = Field(default=None, description="referee bearer token; unset = read-only")
    db: str | None = Field(default=None, description="SQLite path, sqlite:/// or postgresql:// URL")
    data: Path = Field(default=Path("tablemon-data"), description="data folder")
    video_dir: Path | None = Field(default=None, description="server-side videos live here")
    reads_require_token: bool = False
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_body_bytes: int = Field(default=1_000_000, gt=0, description="JSON request body limit")
    max_upload_bytes: int = Field(default=4_000_000_000, gt=0, description="video upload limit")
    auto_calibrate: bool = Field(default=True, description="calibrate tables registered without")
    live_nice: int = Field(
        default=10, ge=0, le=19, description="CPU niceness of the live workers (API first)"
    )
    live_vision: str = Field(
        default="vision.live:make_processor",
        description="module:function building a table's live vision (spec, calibration) -> "
        "process(frame, t)",
    )
    live_buffer_mb: float = Field(
        default=512.0,
        ge=1,
        description="per live table: MiB of camera frames waiting for a vision that fell "
        "behind (1080p: 6 MiB a frame); past it frames are lost and their shots flagged",
    )
    switch_interval_ms: float = Field(
        default=1.0,
        gt=0,
        le=100,
        description="the API process's GIL switch interval: how long a busy thread (judging a "
        "shot) may keep the event loop waiting",
    )
    gc_freeze: bool = Field(
        default=True, description="after start, move every object to the permanent GC generation"
    )
    sse_ping_s: float = Field(default=15.0, gt=0, description="SSE keep-alive comment period")
    # broker mode (service/cluster): tables watched by remote `tablemon worker`s
    broker: str | None = Field(
        default=None,
        description="nats://HOST:PORT[,nats://...]: tables' shots come from remote workers "
        "through NATS JetStream (unset: the embedded default, child-process workers)",
    )
    broker_user: str | None = Field(
        default=None, description="NATS user (a worker's default: table-ID)"
    )
    broker_token: str | None = Field(
        default=None,
        description="NATS password of broker_user, or the server's token when no user is set",
    )
    broker_outbox: Path | None = Field(
        default=None, description="a worker's outbox folder (default DATA/worker-ID)"
    )

    @field_validator("broker", mode="after")
    @classmethod
    def _check_broker(cls, v: str | None) -> str | None:
        """``nats://`` / ``tls://`` URLs, comma-separated; empty = unset."""
        if v is None or not v.strip():
            return None
        for url in v.split(","):
            if not url.strip().startswith(("nats://", "tls://")):
                raise ValueError(f"TABLEMON_BROKER: {url.strip()!r} is not a nats:// URL")
        return v.strip()

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, v: object) -> object:
        """Comma-separated origins from the environment (``*`` or ``http://a,http://b``)."""
        if isinstance(v, str):
            return [s.strip() for s in v.split(",") if s.strip()]
        return v

    @property
    def db_target(self) -> str:
        """What :class:`service.db.Database` opens: a ``postgresql://`` URL as given, or the
        SQLite file's path. Another URL scheme is one clear error."""
        raw = self.db or str(self.data / "tablemon.db")
        if raw.startswith(("postgresql://", "postgres://")):
            return raw
        return str(self.db_path)

    @property
    def db_path(self) -> Path:
        """The SQLite file (for a PostgreSQL URL: one clear error; use :attr:`db_target`)."""
        raw = self.db or str(self.data / "tablemon.db")
        if raw.startswith("sqlite:///"):
            return Path(raw.removeprefix("sqlite:///"))
        if "://" in raw:
            scheme = raw.split("://", 1)[0]
            if scheme in ("postgresql", "postgres"):
                raise ValueError("TABLEMON_DB: a PostgreSQL URL has no file path")
            raise ValueError(
                f"TABLEMON_DB: database {scheme!r} is not supported; use a SQLite file path, "
                "sqlite:///PATH or postgresql://USER@HOST/DB"
            )
        return Path(raw)


@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
