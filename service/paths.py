"""Server-side paths named by clients: only files inside ``TABLEMON_VIDEO_DIR``; table specs
only by built-in name (a client never names a server file any other way)."""

from __future__ import annotations

from pathlib import Path

from fastapi import HTTPException

from contract.tables import table_names
from service.settings import Settings


def video_path(settings: Settings, raw: str) -> Path:
    """The file ``raw`` names (relative to the video folder, or absolute inside it).

    403 when the video folder is unset or the path leaves it (``..``, symlinks); 404 when
    there is no such file."""
    if settings.video_dir is None:
        raise HTTPException(
            403, "server-side video paths are disabled: TABLEMON_VIDEO_DIR is not set"
        )
    root = settings.video_dir.resolve()
    shown = raw if len(raw) <= 200 else raw[:200] + "..."
    try:
        p = Path(raw)
        full = (p if p.is_absolute() else root / p).resolve()
        if not full.is_relative_to(root):
            raise HTTPException(403, f"path outside the video folder: {shown}")
        if not full.is_file():
            raise HTTPException(404, f"no such video in the video folder: {shown}")
    except (OSError, ValueError) as e:  # too long, embedded NUL ...
        raise HTTPException(422, f"not a usable path: {shown}: {e}".splitlines()[0]) from None
    return full


def spec_name(name: str) -> str:
    """A built-in table spec name, or 422 listing them."""
    names = table_names()
    if name not in names:
        raise HTTPException(422, f"unknown table spec {name!r}; built-in: {', '.join(names)}")
    return name


def is_camera_url(source: str) -> bool:
    return source.isdigit() or source.startswith(("rtsp://", "rtsps://", "http://", "https://"))
