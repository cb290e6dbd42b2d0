"""Replays: submit a recorded video (a server path inside ``TABLEMON_VIDEO_DIR`` or an upload),
follow its progress, fetch the result MATCH.json and the annotated video."""

from __future__ import annotations

import json
import uuid
from pathlib import Path as FsPath
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import FileResponse, Response

from contract.calib import calibration_from_json
from contract.match import Game
from service.core import Conflict, NotFound
from service.db import ReplayRow
from service.deps import MAX_ID, ReaderDep, ReplayId, RuntimeDep, WriterDep
from service.paths import spec_name, video_path
from service.questions import STILLS
from service.routers.matches import ERR
from service.schemas import ReplayIn, ReplayOut

router = APIRouter(prefix="/replays", tags=["replays"])
VIDEO_EXT = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"}


def replay_out(r: ReplayRow) -> ReplayOut:
    return ReplayOut(
        id=r.id,
        video=r.video,
        game=r.game,
        table=r.spec,
        status=r.status,  # type: ignore[arg-type]
        progress=r.progress,
        error=r.error,
        has_result=r.result is not None,
        has_annotated=r.annotated is not None,
        created=r.created,
        updated=r.updated,
    )


def _replay(rt: RuntimeDep, replay_id: ReplayId) -> ReplayRow:
    r = rt.db.replay(replay_id)
    if r is None:
        raise NotFound(f"replay {replay_id} not found")
    return r


def _spec_calib(
    rt: RuntimeDep, table: str | None, table_id: int | None, calibration: dict | None
) -> tuple[str | None, dict | None]:
    """The spec and CALIB.json a replay uses: given ones first, then the registered table's."""
    spec = spec_name(table) if table else None
    if table_id is not None:
        t = rt.db.table(table_id)
        if t is None:
            raise NotFound(f"table {table_id} not found")
        spec, calibration = spec or t.spec, calibration or t.calibration
    if calibration is not None:
        calibration_from_json(calibration, "calibration")
    return spec, calibration


@router.post("", status_code=202, responses=ERR)
def submit(body: ReplayIn, rt: RuntimeDep, who: WriterDep) -> ReplayOut:
    """Replay a video already on the server (a path inside the video folder)."""
    path = video_path(rt.settings, body.video)
    spec, calib = _spec_calib(rt, body.table, body.table_id, body.calibration)
    r = rt.db.add_replay(str(path), body.game.value, spec, calib)
    rt.extras["replays"].submit(r.id)
    return replay_out(r)


@router.post(
    "/upload",
    status_code=202,
    responses=ERR,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    },
)
async def upload(
    request: Request,
    rt: RuntimeDep,
    who: WriterDep,
    game: Annotated[Game, Query()],
    filename: Annotated[str, Query(min_length=1, max_length=200)] = "video.mp4",
    table: Annotated[str | None, Query(min_length=1, max_length=100)] = None,
    table_id: Annotated[
        int | None, Query(ge=1, le=MAX_ID, description="use its spec and CALIB")
    ] = None,
) -> ReplayOut:
    """Upload a video as the raw request body (``Content-Type: application/octet-stream``),
    at most ``max_upload_bytes``; then it is replayed like a server path."""
    ext = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if ext not in VIDEO_EXT:
        raise HTTPException(422, f"filename: not a video ({', '.join(sorted(VIDEO_EXT))})")
    spec, calib = _spec_calib(rt, table, table_id, None)
    folder = rt.settings.data / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / f"{uuid.uuid4().hex}{ext}"
    size = 0
    try:
        with dest.open("wb") as f:
            async for chunk in request.stream():
                size += len(chunk)
                f.write(chunk)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    if size == 0:
        dest.unlink(missing_ok=True)
        raise HTTPException(422, "empty upload: send the video as the request body")
    r = rt.db.add_replay(str(dest), game.value, spec, calib)
    rt.extras["replays"].submit(r.id)
    return replay_out(r)


@router.get("", responses=ERR)
def list_replays(rt: RuntimeDep, _: ReaderDep) -> list[ReplayOut]:
    return [replay_out(r) for r in rt.db.replays()]


@router.get("/{replay_id}", responses=ERR)
def get_replay(replay_id: ReplayId, rt: RuntimeDep, _: ReaderDep) -> ReplayOut:
    """Status (queued, running, done, failed), progress 0..1 and the error when it failed."""
    return replay_out(_replay(rt, replay_id))


@router.get("/{replay_id}/match.json", responses=ERR)
def result(replay_id: ReplayId, rt: RuntimeDep, _: ReaderDep) -> dict:
    """The replay's MATCH.json (409 until it is done)."""
    return _result(_replay(rt, replay_id))


def _result(r: ReplayRow) -> dict:
    if r.status != "done" or r.result is None:
        raise Conflict(f"replay {r.id} is {r.status}" + (f": {r.error}" if r.error else ""))
    return json.loads(open(r.result, encoding="utf-8").read())


@router.get(
    "/{replay_id}/stills/{frame}.jpg",
    responses={**ERR, 200: {"content": {"image/jpeg": {}}}},
    response_class=Response,
)
def still(
    replay_id: ReplayId,
    frame: Annotated[int, Path(ge=0, le=10**9, description="a frame one of its questions lists")],
    rt: RuntimeDep,
    _: ReaderDep,
) -> Response:
    """A decisive still of one of the replay's questions (contract §11 ``frames``) as JPEG,
    read from the replayed video: only frames its MATCH.json's questions list (409 until it
    is done)."""
    r = _replay(rt, replay_id)
    listed = {f for q in _result(r).get("questions") or () for f in q.get("frames") or ()}
    if frame not in listed:
        raise NotFound(f"no question of replay {replay_id} lists frame {frame}")
    video = FsPath(r.video)
    data = STILLS.jpeg(video, frame) if video.is_file() else None
    if data is None:
        raise NotFound(f"the video {video.name} has no frame {frame} (or is gone)")
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=3600"})


@router.get("/{replay_id}/annotated.mp4", response_class=FileResponse, responses=ERR)
def annotated(replay_id: ReplayId, rt: RuntimeDep, _: ReaderDep) -> FileResponse:
    r = _replay(rt, replay_id)
    if r.annotated is None:
        raise Conflict(f"replay {replay_id} has no annotated video ({r.status})")
    return FileResponse(r.annotated, media_type="video/mp4")
