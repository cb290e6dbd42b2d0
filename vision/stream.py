"""A replay whose memory stays flat however long the video: the rows go to disk as they
come (:class:`RowSpill`) and shots are cut segment by segment (:class:`SegmentShots`),
each segment ending in a long still stretch of the table, where no shot can be under way.

A video shorter than :data:`MIN_SEGMENT_S` plus a still stretch is one segment: its shots
are exactly those of :func:`vision.events.shots.shots_from_tracks` on all its rows. Memory stays
flat while the table lies still for 2 x :data:`QUIET_S` now and then (between the shots
of any match); a video without such a stretch holds its rows since the last cut. Positions
are table mm, frames are video frame numbers.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from contract.events import Event
from contract.match import Shot
from contract.tables import TableSpec
from contract.tracks import HEADER, Tracks, TracksWriter
from vision.events.lag import is_lag
from vision.events.series import series_from_tracks
from vision.events.settings import ShotSettings
from vision.events.shots import cut_tracks
from vision.track.numbering import renamed_rows

SPILL_FRAMES = 900  # frames of rows gathered in memory before they go to disk
HOLD_FRAMES = 600  # the newest frames stay in memory: the tracker may still add rows there
MIN_SEGMENT_S = 120.0  # a segment spans at least this much video (noise figures per segment)
QUIET_S = 4.0  # a cut needs every ball still this long on each side of it
STILL_MM = 5.0  # "still": within this of the ball's median position over the stretch
CHECK_EVERY = 300  # frames between two searches for a cut


def concat(parts: list[Tracks]) -> Tracks:
    """Rows of ``parts`` as one :class:`Tracks` sorted by (frame, id); contract columns."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return Tracks.from_rows([])
    cols = {f: np.concatenate([getattr(p, f) for p in parts]) for f in HEADER}
    order = np.lexsort((cols["id"].astype(str), cols["frame"]))
    return Tracks(*(cols[f][order] for f in HEADER))


def unsure_rows(rows: Tracks, spans: list[list[int]]) -> Tracks:
    """Rows measured between a camera move and the recalibration after it came from the
    stale model: they are kept as predictions (``visible`` 0, no pixels), so no shot mixes
    positions of two calibrations. ``spans``: [first, last] frames."""
    if not spans or not len(rows):
        return rows
    bad = np.zeros(len(rows), bool)
    for a, b in spans:
        bad |= (rows.frame >= a) & (rows.frame <= b)
    vis = rows.visible & ~bad
    u = np.where(bad, np.nan, rows.u)
    v = np.where(bad, np.nan, rows.v)
    return Tracks(rows.frame, rows.t, rows.id, rows.x, rows.y, vis, u, v, rows.state)


class RowSpill:
    """A replay's rows on disk, in chunks of frames, read back in frame order.

    :meth:`add` each frame's rows; between :data:`HOLD_FRAMES` and :data:`SPILL_FRAMES` +
    :data:`HOLD_FRAMES` of the newest frames stay in memory (the tracker adds rows of a
    confirmed ball for frames already passed). A row arriving for a frame already written
    (none seen so far: the tracker's confirmation window is far shorter) is kept aside in
    memory and merged back when read. A context manager: the folder goes on exit."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tablemon-rows-", dir=folder)
        self.dir = Path(self._tmp.name)
        self._parts: list[Tracks] = []
        self._frames = 0
        self._files: list[tuple[int, Path]] = []  # (last frame written, file)
        self._written = -1  # every row up to this frame is on disk
        self._late: list[Tracks] = []

    def add(self, rows: Tracks, now: int) -> None:
        """Rows of frame ``now`` (and maybe late rows of earlier frames)."""
        if len(rows) and int(rows.frame.min()) <= self._written:
            late = rows.frame <= self._written
            self._late.append(rows.select(late))
            rows = rows.select(~late)
        self._parts.append(rows)
        self._frames += 1
        if self._frames >= SPILL_FRAMES + HOLD_FRAMES:
            self._flush(now - HOLD_FRAMES)

    def _flush(self, upto: int) -> None:
        rows = concat(self._parts)
        old = rows.frame <= upto
        if old.any():
            path = self.dir / f"rows_{len(self._files):05d}.npz"
            done = rows.select(old)
            np.savez(path, **{f: _plain(getattr(done, f)) for f in HEADER})
            self._files.append((upto, path))
            self._written = upto
        self._parts = [rows.select(~old)]
        self._frames = HOLD_FRAMES

    def chunks(self):
        """Every row, in chunks of whole frames sorted by (frame, id)."""
        late = concat(self._late)
        lo = -1
        for upto, path in self._files:
            with np.load(path, allow_pickle=False) as z:
                got = Tracks(*(z[f].astype(object) if f == "id" else z[f] for f in HEADER))
            mine = (late.frame > lo) & (late.frame <= upto)
            yield concat([got, late.select(mine)]) if mine.any() else got
            lo = upto
        rest = concat([*self._parts, late.select(late.frame > lo)])
        if len(rest):
            yield rest

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> RowSpill:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _plain(a: np.ndarray) -> np.ndarray:
    return a.astype(str) if a.dtype == object else a


@dataclass(frozen=True)
class Segmented:
    """Shots and loose events of a whole video, cut segment by segment."""

    shots: tuple[Shot, ...]
    loose: tuple[Event, ...]
    cuts: tuple[int, ...]  # the frames the video was cut at
    joined: tuple[tuple[str, str, int, int], ...] = ()  # tracks joined again (relink)


class SegmentShots:
    """Shots cut from rows fed frame by frame, a segment at a time.

    Rows gather until they span :data:`MIN_SEGMENT_S`; then, every
    :data:`CHECK_EVERY` frames, the earliest frame ``c`` around which every ball on the
    table lies still (within :data:`STILL_MM`, seen at ``c`` and in half the frames, none
    coming or going) for :data:`QUIET_S` each side, with no camera move there, cuts the video: the
    rows up to ``c + quiet`` are cut into shots (:func:`vision.events.shots.cut_tracks`) and the
    shots starting before ``c`` are kept; the rows from ``c - quiet`` on are kept for the
    next segment, whose shots start at ``c`` or later."""

    def __init__(
        self,
        table: TableSpec,
        fps: float,
        settings: ShotSettings | None = None,
        lag_sigma_mm: float | None = None,
    ):
        self.table, self.fps, self.settings = table, fps, settings
        self.lag_sigma_mm = lag_sigma_mm  # one lag ball's rest uncertainty (mm), calibration
        self.quiet = max(2, int(round(QUIET_S * fps)))
        self.min_frames = int(round(MIN_SEGMENT_S * fps))
        self._parts: list[Tracks] = []
        self._first: int | None = None
        self._lo = -(10**9)  # shots of the current segment start here or later
        self._shots: list[Shot] = []
        self._loose: list[Event] = []
        self._cuts: list[int] = []
        self._joined: dict[str, tuple[str, str, int, int]] = {}  # younger id -> its join
        self._seen = 0
        self._scan = 0  # the first frame not yet searched for a cut

    def add(self, rows: Tracks, now: int, unsure: list[list[int]], settled: bool, moved=()) -> None:
        """Rows of frame ``now``; ``unsure``: the camera-move spans known so far;
        ``settled``: no camera move is being confirmed or recalibrated now; ``moved``: the
        frames in which the camera moved (no strike there, ``vision.events.shots.cut_series``)."""
        self._parts.append(rows)
        if self._first is None and len(rows):
            self._first = int(rows.frame.min())
        self._seen += 1
        if self._first is None or not settled or self._seen % CHECK_EVERY:
            return
        lo = max(self._scan, self._first + self.min_frames)
        hi = now - HOLD_FRAMES - self.quiet
        if hi < lo:
            return
        buf = concat(self._parts)
        self._parts = [buf]
        part = buf.select(buf.frame >= lo - self.quiet)  # frames not searched yet
        c = find_cut(part, lo, hi, self.quiet, unsure, self.fps)
        if c is None:
            self._scan = hi + 1  # the next search starts after this one's candidates
        else:
            self._segment(buf, c, unsure, moved)
            self._scan = 0

    def _segment(self, buf: Tracks, c: int | None, unsure: list[list[int]], moved=()) -> None:
        seg = buf if c is None else buf.select(buf.frame <= c + self.quiet)
        rows = unsure_rows(seg, unsure)
        lag = all(is_lag(s) for s in self._shots)  # the lag comes before the first shot
        cut = cut_tracks(
            rows,
            self.table,
            self.fps,
            self.settings,
            moved,
            lag=lag,
            lag_sigma_mm=self.lag_sigma_mm,
        )
        top = 10**12 if c is None else c
        self._shots += [s for s in cut.shots if self._lo <= s.start.frame < top]
        self._loose += [e for e in cut.loose_events if self._lo <= e.frame < top]
        for j in cut.joined:  # a join seen again in the next segment's overlap: once
            self._joined.setdefault(j[0], j)
        if c is not None:
            self._cuts.append(c)
            self._lo = c
            self._parts = [buf.select(buf.frame >= c - self.quiet)]
            self._first = c - self.quiet

    def finish(self, unsure: list[list[int]], moved=()) -> Segmented:
        """The last segment's shots; every shot renumbered from 1."""
        self._segment(concat(self._parts), None, unsure, moved)
        self._parts = []
        shots = tuple(s.model_copy(update={"index": i + 1}) for i, s in enumerate(self._shots))
        return Segmented(shots, tuple(self._loose), tuple(self._cuts), tuple(self._joined.values()))


def find_cut(
    rows: Tracks, lo: int, hi: int, quiet: int, unsure: list[list[int]], fps: float
) -> int | None:
    """The earliest frame in ``lo..hi`` (step 15) around which every ball of ``rows``
    lies still for ``quiet`` frames each side (see :class:`SegmentShots`); None if none."""
    s = series_from_tracks(rows, fps)
    present = s.present()
    for c in range(lo, hi + 1, 15):
        a, b = c - quiet - s.first, c + quiet - s.first + 1
        if a < 0 or b > s.n_frames:
            continue
        if any(x <= c + quiet and y >= c - quiet for x, y in unsure):
            continue
        if _still(s.xy[:, a:b], present[:, a:b], s.visible[:, a:b]):
            return c
    return None


def _still(xy: np.ndarray, present: np.ndarray, visible: np.ndarray) -> bool:
    """Every ball in a window (B, W) absent throughout, or present throughout, seen in
    the middle frame (the cut) and in half the frames (a player leaning over the table
    hides some), and within :data:`STILL_MM` of its median position."""
    some = present.any(axis=1)
    if not (present[some].all()):
        return False
    seen = visible[some]
    if some.any() and (~seen[:, seen.shape[1] // 2] | (seen.mean(axis=1) < 0.5)).any():
        return False
    p = xy[some]
    med = np.nanmedian(p, axis=1, keepdims=True)
    return bool((np.linalg.norm(p - med, axis=2) < STILL_MM).all())


def write_rows(
    writer: TracksWriter, spill: RowSpill, names: dict[str, str], unsure, joined=()
) -> int:
    """The spilled rows into ``writer`` (TRACKS.csv), tracks joined again by the shots'
    cutting as one ball (:func:`joined_rows`), read balls renamed and camera-move spans
    marked (the same rows as an in-memory replay writes); the count written."""
    n = 0
    for chunk in spill.chunks():
        rows = unsure_rows(renamed_rows(joined_rows(chunk, joined), names), unsure)
        writer.write(rows)
        n += len(rows)
    return n


def join_names(joined) -> dict[str, str]:
    """Younger id -> the id it was joined to (followed to the oldest, a chain of joins)."""
    out = {young: old for young, old, *_ in joined}
    for young in out:
        seen = {young}
        while out[young] in out and out[young] not in seen:
            seen.add(out[young])
            out[young] = out[out[young]]
    return out


def joined_rows(rows: Tracks, joined) -> Tracks:
    """``rows`` with each join (``(younger, older, first bridged, first seen)`` video
    frames, :func:`vision.events.series.relink`) applied as the shots were cut: the younger
    track's rows take the older id; the older track's own rows from the younger's first
    frame on (the tracker still predicting a ball it lost) go, and those bridged before it
    (a ghost, a prediction) are kept as predictions (``visible`` 0, no pixels)."""
    if not joined or not len(rows):
        return rows
    names = join_names(joined)
    drop = np.zeros(len(rows), bool)
    guess = np.zeros(len(rows), bool)
    for young, _, bridged, start in joined:
        old = names[young]
        mine = rows.id == old
        drop |= mine & (rows.frame >= start)
        guess |= mine & (rows.frame >= bridged) & (rows.frame < start)
    u = np.where(guess, np.nan, rows.u)
    v = np.where(guess, np.nan, rows.v)
    kept = Tracks(rows.frame, rows.t, rows.id, rows.x, rows.y, rows.visible & ~guess, u, v,
                  rows.state).select(~drop)  # fmt: skip
    return renamed_rows(kept, names)


def _renamer(names: dict[str, str]):
    return lambda i: None if i is None else names.get(i, i)


def renamed_events(events, names: dict[str, str]) -> tuple[Event, ...]:
    """``events`` with tracker names replaced by ``names`` (read numbers) in their ball
    fields (``ball``, ``balls``, ``by``)."""
    if not names:
        return tuple(events)
    n = _renamer(names)
    return tuple(
        e.model_copy(
            update={
                "ball": n(e.ball),
                "balls": None if e.balls is None else (n(e.balls[0]), n(e.balls[1])),
                "by": n(e.by),
            }
        )
        for e in events
    )


def renamed_shots(shots: tuple[Shot, ...], names: dict[str, str]) -> tuple[Shot, ...]:
    """``shots`` with tracker names replaced by ``names`` (read numbers) in the cue ball,
    every event's ball fields and the rest positions."""
    if not names:
        return shots
    n = _renamer(names)
    return tuple(
        s.model_copy(
            update={
                "cue_ball": n(s.cue_ball),
                "events": renamed_events(s.events, names),
                "rest": {n(k): v for k, v in s.rest.items()},
            }
        )
        for s in shots
    )
