"""Tables: register a table with its camera source, spec and calibration; its status; start
and stop its live worker."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body
from pydantic import BaseModel, Field

from contract.calib import calibration_from_json
from service.core import NotFound
from service.db import TableRow
from service.deps import MAX_ID, ReaderDep, RuntimeDep, TableId, WriterDep
from service.paths import is_camera_url, spec_name, video_path
from service.routers.matches import ERR
from service.schemas import TableIn, TableOut, TableStatus

router = APIRouter(prefix="/tables", tags=["tables"])


class LiveIn(BaseModel):
    match_id: int = Field(ge=1, le=MAX_ID, description="the match the table's shots feed")


def table_out(rt: RuntimeDep, t: TableRow) -> TableOut:
    st = rt.extras["live"].status(t.id)
    cal = rt.extras["calibrate"].status(t.id)
    st = {**st, "calibration": cal, "last_calibration_check": cal.get("at")}
    return TableOut(
        id=t.id,
        name=t.name,
        source=t.source,
        spec=t.spec,
        calibrated=t.calibration is not None,
        created=t.created,
        status=TableStatus(**st),
    )


def _table(rt: RuntimeDep, table_id: TableId) -> TableRow:
    t = rt.db.table(table_id)
    if t is None:
        raise NotFound(f"table {table_id} not found")
    return t


@router.post("", status_code=201, responses=ERR)
def register_table(body: TableIn, rt: RuntimeDep, who: WriterDep) -> TableOut:
    """Register a table. A file source must lie inside ``TABLEMON_VIDEO_DIR``."""
    spec = spec_name(body.spec)
    source = (
        body.source if is_camera_url(body.source) else str(video_path(rt.settings, body.source))
    )
    if body.calibration is not None:
        calibration_from_json(body.calibration, "calibration")
    t = rt.db.add_table(body.name, source, spec, body.calibration)
    if body.calibration is None and rt.settings.auto_calibrate:
        rt.extras["calibrate"].start(t)
    return table_out(rt, t)


@router.get("", responses=ERR)
def list_tables(rt: RuntimeDep, _: ReaderDep) -> list[TableOut]:
    return [table_out(rt, t) for t in rt.db.tables()]


@router.get("/{table_id}", responses=ERR)
def get_table(table_id: TableId, rt: RuntimeDep, _: ReaderDep) -> TableOut:
    """The table and its status: camera connected, fps, dropped frames, gaps, restarts."""
    return table_out(rt, _table(rt, table_id))


@router.put("/{table_id}/calibration", responses=ERR)
def put_calibration(
    table_id: TableId,
    body: Annotated[dict, Body(description="CALIB.json")],
    rt: RuntimeDep,
    who: WriterDep,
) -> TableOut:
    """Upload a CALIB.json (contract §6) for the table."""
    _table(rt, table_id)
    calibration_from_json(body, "CALIB.json")
    rt.db.set_calibration(table_id, body)
    return table_out(rt, _table(rt, table_id))


@router.post("/{table_id}/calibrate", status_code=202, responses=ERR)
def calibrate(table_id: TableId, rt: RuntimeDep, who: WriterDep) -> TableOut:
    """Calibrate the table automatically from its source (a video file, or one camera frame);
    follow ``status.calibration``; on success the table's CALIB.json is replaced."""
    t = _table(rt, table_id)
    rt.extras["calibrate"].start(t)
    return table_out(rt, t)


@router.post("/{table_id}/live", responses=ERR)
def start_live(table_id: TableId, body: LiveIn, rt: RuntimeDep, who: WriterDep) -> TableOut:
    """Start the table's live worker (a process) feeding shots into the match."""
    t = _table(rt, table_id)
    m = rt.service.match(body.match_id)
    numbers = m.settings.get("game") == "pyramid-classic"  # its points are the ball numbers
    rt.extras["live"].start(t, body.match_id, read_numbers=numbers)
    return table_out(rt, t)


@router.delete("/{table_id}/live", responses=ERR)
def stop_live(table_id: TableId, rt: RuntimeDep, who: WriterDep) -> TableOut:
    t = _table(rt, table_id)
    rt.extras["live"].stop(table_id)
    return table_out(rt, t)


@router.get("/{table_id}/positions", responses=ERR)
def live_positions(table_id: TableId, rt: RuntimeDep, _: ReaderDep) -> dict:
    """The balls' latest positions on the table, ``{"t", "frame", "balls": {id: [x, y]}, "at"}``
    (table mm; ``at`` Unix s), as its remote worker published them (broker mode); 404 when
    none has come."""
    _table(rt, table_id)
    get = getattr(rt.extras["live"], "positions", None)
    pos = get(table_id) if get is not None else None
    if pos is None:
        raise NotFound(f"table {table_id}: no live positions (a remote worker sends them)")
    return pos
