"""``tablemon replay``: track a recorded video, write TRACKS.csv, MATCH.json and an annotated MP4.

MATCH.json carries the game, the table and the video's frame rate and length; its
shots come from the shots/events stage when that exists (``vision.events.shots``), else
it has none yet.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from contract.calib import (
    Calibration,
    calibration_uncertain,
    front_assumed,
    read_calibration,
    rough_frame,
)
from contract.errors import ContractError
from contract.match import Match, VideoInfo, write_match
from contract.tables import DEFAULT_TABLE, TableSpec, load_table
from contract.tracks import Tracks, TracksWriter
from vision.base.geometry import surface_outline_mm
from vision.capture.source import VideoSource, open_capture
from vision.detect.detector import Detector
from vision.events.lag import lag_sigma_mm
from vision.numbers.looks import StillRuns, with_looks
from vision.register import DriftWatch
from vision.stream import (
    RowSpill,
    SegmentShots,
    concat,
    join_names,
    renamed_events,
    renamed_shots,
    unsure_rows,
    write_rows,
)
from vision.track.tracker import Tracker

BACKGROUND_FRAMES = 7


@dataclass(frozen=True)
class ReplayResult:
    """What a replay produced: all rows, and the video's facts."""

    tracks: Tracks
    fps: float
    frames: int
    size: tuple[int, int]
    truncated: bool
    events: tuple = ()  # video-level events (camera_moved), contract Event values
    moved: tuple = ()  # [first, last] frames in which the camera moved (no strike there)


def sample_frames(
    path: str, count: int = BACKGROUND_FRAMES, first: np.ndarray | None = None
) -> list[np.ndarray]:
    """Up to ``count`` frames spread over a video file (for the empty-cloth model), the
    first one frame 0: ``first`` where its picture was decoded already (BGR, recorded px)."""
    cap = open_capture(path)
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    out: list[np.ndarray] = []
    idx = np.linspace(0, max(0, n - 2), count).astype(int) if n > 1 else [0]
    for i in sorted(set(int(k) for k in idx)):
        if i == 0 and first is not None:
            out.append(first)
            continue
        cap.set(cv2.CAP_PROP_POS_FRAMES, i)
        ok, img = cap.read()
        if ok and img is not None:
            out.append(img)
    cap.release()
    return out


def _check_size(calib: Calibration, size: tuple[int, int], source: str) -> None:
    if tuple(calib.data.image_size) != tuple(size):
        raise ContractError(
            source,
            "image_size",
            f"calibration is for {calib.data.image_size[0]}x{calib.data.image_size[1]} px, "
            f"the video is {size[0]}x{size[1]}",
        )


class Annotator:
    """Draws the calibrated table, each ball's id and a trail onto video frames."""

    def __init__(self, path: str, calib: Calibration, table: TableSpec, size, fps: float):
        self.calib, self.table = calib, table
        self.writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
        if not self.writer.isOpened():
            raise ContractError(path, "", "cannot write the annotated video")
        pts = calib.table_to_pixel(surface_outline_mm(table))
        self.outline = np.round(pts).astype(np.int32)
        self.pockets = [
            (calib.table_to_pixel(np.array([p.centre]))[0], p.mouth_mm / 2) for p in table.pockets
        ]
        self.trails: dict[str, deque] = defaultdict(lambda: deque(maxlen=30))

    def draw(self, img: np.ndarray, rows: Tracks) -> None:
        out = img.copy()
        cv2.polylines(out, [self.outline], True, (255, 255, 0), 1, cv2.LINE_AA)
        for c, r_mm in self.pockets:
            r = float(
                np.linalg.norm(
                    self.calib.table_to_pixel(np.array([[r_mm, 0.0]]))[0]
                    - self.calib.table_to_pixel(np.zeros((1, 2)))[0]
                )
            )
            cv2.circle(out, (int(c[0]), int(c[1])), max(2, int(r)), (255, 255, 0), 1, cv2.LINE_AA)
        R = self.table.ball_radius
        for i in range(len(rows)):
            name = str(rows.id[i])
            if rows.visible[i] and np.isfinite(rows.u[i]):
                p = np.array([rows.u[i], rows.v[i]])
            else:
                p = self.calib.table_to_pixel(np.array([[rows.x[i], rows.y[i]]]), height=R)[0]
            self.trails[name].append(p)
            col = (0, 255, 0) if rows.visible[i] else (0, 128, 255)
            tr = np.round(np.array(self.trails[name])).astype(np.int32)
            if len(tr) > 1:
                cv2.polylines(out, [tr], False, col, 1, cv2.LINE_AA)
            cv2.circle(out, (int(p[0]), int(p[1])), 4, col, -1, cv2.LINE_AA)
            cv2.putText(
                out,
                name,
                (int(p[0]) + 6, int(p[1]) - 6),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                col,
                1,
                cv2.LINE_AA,
            )
        self.writer.write(out)

    def close(self) -> None:
        self.writer.release()


class Replayer:
    """One replay's stages, set up on an opened source: the detector (empty-cloth model
    fitted), the drift watch (registration onto the calibration's picture) and the
    tracker. :meth:`rows` yields each frame's rows (contract §7, table mm) in order;
    the tracker's late rows (balls confirmed at the end) come last."""

    def __init__(
        self,
        src: VideoSource,
        calib: Calibration,
        table: TableSpec,
        monitor: bool = True,
        reference: np.ndarray | None = None,
        read_numbers: bool = False,
    ) -> None:
        _check_size(calib, src.size, src.name)
        self.src, self.read_numbers = src, read_numbers
        self.det = Detector(calib, table, src.size)
        self.watch = (
            DriftWatch(calib, table, src, reference=reference) if monitor and not src.live else None
        )
        if src.frame_count > 1 and not src.live:
            samples = sample_frames(str(src.source), first=src._peek.image) or [src._peek.image]
            self.det.fit_background(self.watch.aligned(samples) if self.watch else samples)
        elif src._still is not None:
            self.det.fit_background([src._still])
        else:
            self.det.fit_background([src._peek.image])
        self.tracker = Tracker(table)
        self.frames = 0  # frames read so far

    def rows(self, ann: Annotator | None = None, bar=None) -> Iterator[Tracks]:
        """Each frame's rows, then the tracker's last rows (:meth:`Tracker.finish`)."""
        watch, tracker = self.watch, self.tracker
        for frame in self.src:
            if watch is not None:
                self.det, seen = watch.step(frame, self.det)
                found = watch.unwarp(self.det.detect(seen))
            else:
                found = self.det.detect(frame)
            image = frame.image if self.read_numbers else None
            rows = tracker.update(found, image, self.det.cloth_empty, self.det.attached)
            if ann is not None:
                ann.draw(frame.image, rows)
            self.frames += 1
            if bar is not None:
                bar.update(1)
            yield rows
        yield tracker.finish()

    @property
    def unsure(self) -> list[list[int]]:
        """[first, last] frames measured with a stale calibration (camera moves)."""
        return self.watch.unsure if self.watch is not None else []

    @property
    def events(self) -> tuple:
        """Video-level events (camera_moved), contract Event values."""
        return self.watch.events if self.watch is not None else ()

    @property
    def moved(self) -> list[list[int]]:
        """[first, last] frames in which the camera moved (``DriftWatch.moves``)."""
        return self.watch.moves if self.watch is not None else []

    @property
    def settled(self) -> bool:
        """True when no camera move is being confirmed or recalibrated just now."""
        w = self.watch
        return w is None or not (w._lost or w.monitor.recalibrating or w.monitor.suspect)


def progress_bar(total: int | None):
    """A tqdm bar on stderr (frames)."""
    from tqdm import tqdm

    return tqdm(total=total or None, unit="frame", file=sys.stderr)


def track_video(
    source: str | VideoSource,
    calib: Calibration,
    table: TableSpec,
    annotated: str | None = None,
    progress: bool = False,
    monitor: bool = True,
    reference: np.ndarray | None = None,
    read_numbers: bool = False,
) -> ReplayResult:
    """Detect and track every frame of ``source`` (a path, or an opened
    :class:`VideoSource` such as a :class:`LoopedSource`); rows in contract §7 form,
    all kept in memory (see ``vision.stream`` for a replay that keeps them on disk).
    ``reference``: the picture ``calib`` was fitted on (BGR, recorded px), where known: a
    camera that moved since is registered to it (``vision.register``).
    ``read_numbers``: the tracker reads the numbers of white pyramid balls
    (``vision.numbers.reader``) and the rows carry a read ball under its number from its first
    row (contract §3); off by default, because the reader still misreads some balls."""
    _one_thread()
    opened = source if isinstance(source, VideoSource) else VideoSource(source)
    with opened as src:
        rep = Replayer(src, calib, table, monitor, reference, read_numbers)
        ann = Annotator(annotated, calib, table, src.size, src.fps) if annotated else None
        bar = progress_bar(src.frame_count) if progress else None
        parts: list[Tracks] = []  # this chunk's rows, one Tracks a frame
        chunks: list[Tracks] = []  # earlier chunks, each one concatenated
        try:
            for rows in rep.rows(ann, bar):
                parts.append(rows)
                if len(parts) >= 900:  # few arrays; each row copied once: memory ~ the rows
                    chunks.append(concat(parts))
                    parts = []
        finally:
            if bar is not None:
                bar.close()
            if ann is not None:
                ann.close()
        rows = concat(chunks + parts)
        if read_numbers:
            rows = rep.tracker.renamed(rows)
        rows = unsure_rows(rows, rep.unsure)
        moved = tuple(tuple(m) for m in rep.moved)
        return ReplayResult(rows, src.fps, rep.frames, src.size, src.truncated, rep.events, moved)


def _writer(path: str | None):
    """A TRACKS.csv writer opened now (a bad path fails before any tracking), or none."""
    return TracksWriter(path) if path else nullcontext(None)


def _one_thread() -> None:
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit():
        cv2.setNumThreads(int(threads))


@dataclass(frozen=True)
class StreamResult:
    """What a streamed replay produced: the video's facts, its shots and events; the
    rows went to TRACKS.csv (``rows`` of them) without being kept."""

    fps: float
    frames: int
    size: tuple[int, int]
    truncated: bool
    events: tuple  # video-level events (camera_moved)
    shots: tuple  # contract Shot values, numbered from 1
    loose: tuple  # events outside shots
    rows: int
    cuts: tuple[int, ...]  # frames the shot cutting cut the video at


def stream_video(
    source: str | VideoSource,
    calib: Calibration,
    table: TableSpec,
    tracks_path: str | None = None,
    annotated: str | None = None,
    progress: bool = False,
    reference: np.ndarray | None = None,
    read_numbers: bool = False,
) -> StreamResult:
    """Track ``source`` and cut its shots with memory that does not grow with the video:
    rows go to disk as they come (``vision.stream.RowSpill``), then to ``tracks_path``
    (TRACKS.csv) when given; shots are cut segment by segment at long still stretches
    (``vision.stream.SegmentShots``). A video too short to cut gives the rows of
    :func:`track_video` and, without ``read_numbers``, the shots of
    :func:`vision.events.shots.shots_from_tracks` on them exactly (with it, shots are cut on
    the tracker's names and renamed after). Interrupted or failed part-way, the rows
    tracked so far are still written to ``tracks_path``."""
    _one_thread()
    opened = source if isinstance(source, VideoSource) else VideoSource(source)
    with opened as src, RowSpill() as spill, _writer(tracks_path) as writer:
        rep = Replayer(src, calib, table, True, reference, read_numbers)
        cutter = SegmentShots(table, src.fps, lag_sigma_mm=lag_sigma_mm(calib.data))
        still = StillRuns()  # where unread balls lay still: the stills of a number asked
        ann = Annotator(annotated, calib, table, src.size, src.fps) if annotated else None
        bar = progress_bar(src.frame_count) if progress else None
        try:
            for rows in rep.rows(ann, bar):
                now = rep.frames - 1
                spill.add(rows, now)
                if read_numbers:
                    still.add(rows)
                cutter.add(rows, now, rep.unsure, rep.settled, rep.moved)
        except BaseException:  # interrupted or failed: keep the rows tracked so far
            if writer is not None:
                write_rows(writer, spill, {}, rep.unsure)
                writer.commit()
            raise
        finally:
            if bar is not None:
                bar.close()
            if ann is not None:
                ann.close()
        names = rep.tracker.renames() if read_numbers else {}
        try:
            seg = cutter.finish(rep.unsure, rep.moved)
        except BaseException:  # the cutting failed: the rows are written still
            if writer is not None:
                write_rows(writer, spill, names, rep.unsure)
                writer.commit()
            raise
        n = 0
        if writer is not None:  # tracks the cutting joined again are one ball there too
            n = write_rows(writer, spill, names, rep.unsure, seg.joined)
            writer.commit()
        every = join_names(seg.joined)  # a later segment's shots name the younger id
        every = {k: names.get(v, v) for k, v in every.items()} | names
        return StreamResult(
            src.fps,
            rep.frames,
            src.size,
            src.truncated,
            rep.events,
            with_looks(renamed_shots(seg.shots, every), still, every),
            renamed_events(seg.loose, every),
            n,
            seg.cuts,
        )


def _calibration(
    args: argparse.Namespace, table_name: str | None
) -> tuple[Calibration, np.ndarray | None]:
    """--calibration CALIB.json, else the automatic calibration of the video itself (with
    the picture it was fitted on, for registration: ``vision.register``)."""
    if args.calibration:
        return read_calibration(args.calibration), None
    try:
        from calibration.cli import calibrate, require_sure_front
    except ImportError:
        raise ContractError(
            args.video,
            "calibration",
            "no automatic calibration available: pass --calibration CALIB.json",
        ) from None
    if not Path(args.video).is_file():
        raise ContractError(args.video, "", "no such video file")
    table = load_table(table_name or DEFAULT_TABLE[args.game])
    # where the fit refuses a table whose ends decide no verdict: the rough frame of its
    # cloth's outline, the balls still found in px, every verdict asked (video.calibration)
    fit, plate = calibrate(args.video, table, front_side=getattr(args, "front", None), rough=True)
    if rough_frame(fit.calib):
        print(
            f"tablemon: warning: {args.video}: {fit.notes[0]}; rough frame from the cloth's "
            "outline (positions in px measured, table mm rough): every verdict asked",
            file=sys.stderr,
        )
        return Calibration(fit.calib), plate
    require_sure_front(fit, table)  # a guessed front end would turn every position
    rms = f"{fit.calib.rms_mm:.2f} mm" if fit.calib.rms_mm is not None else "n/a"
    print(f"tablemon: {args.video}: calibrated automatically (rms {rms})", file=sys.stderr)
    doubt = calibration_uncertain(fit.calib)
    if doubt:
        print(f"tablemon: warning: {args.video}: {doubt}", file=sys.stderr)
    return Calibration(fit.calib), plate


def _ends(calib: Calibration) -> dict[str, str]:
    """``{"ends": "assumed"}`` for MATCH.json's ``video`` when the calibration's front end
    was not read from the table (contract §11: the adjudicator asks where it decides)."""
    out = {"ends": "assumed"} if front_assumed(calib) else {}
    return out | ({"calibration": "rough"} if rough_frame(calib) else {})


def _judged(match: Match) -> Match:
    """Verdicts from the adjudicator (the rules of ``match.game``) for the shots found."""
    if not match.shots:
        return match
    from adjudicator.engine import judge_match

    try:
        judged, _ = judge_match(match)
    except ValueError as e:  # the rules cannot judge this table: keep the shots found
        print(f"tablemon: warning: no verdicts: {e}".splitlines()[0], file=sys.stderr)
        return match
    return judged


def reads_numbers(game: str, flag: bool | None) -> bool:
    """Whether the replay reads white balls' numbers: ``flag`` when given
    (``--read-numbers`` / ``--no-read-numbers``), else only for classic pyramid, where a
    pocketed ball scores its number (the referee corrects what is unread or misread)."""
    return game == "pyramid-classic" if flag is None else flag


def run_cli(args: argparse.Namespace) -> int:
    """``tablemon replay``: exit 0 when the outputs were written. The replay streams
    (:func:`stream_video`): its memory does not grow with the video's length."""
    calib, reference = _calibration(args, args.table)
    table = load_table(args.table or calib.data.table or DEFAULT_TABLE[args.game])
    res = stream_video(
        args.video,
        calib,
        table,
        args.tracks,
        args.annotated,
        progress=not args.no_progress,
        reference=reference,
        read_numbers=reads_numbers(args.game, getattr(args, "read_numbers", None)),
    )
    if res.truncated:
        print(
            f"tablemon: warning: {args.video}: video ends early after {res.frames} frames; "
            "writing what was read",
            file=sys.stderr,
        )
    match = Match(
        game=args.game,
        table=table.name,
        video=VideoInfo(fps=res.fps, frames=res.frames, **_ends(calib)),
        events=tuple(res.events) + tuple(res.loose),
        shots=res.shots,
    )
    match = _judged(match)
    write_match(args.out, match)
    open_q = [q for q in match.questions if q.answer is None]
    if open_q:
        shots = ", ".join(str(q.shot) for q in open_q)
        print(
            f"tablemon: {len(open_q)} question(s) for the referee (shots {shots}): "
            "the score counts only settled shots",
            file=sys.stderr,
        )
    return 0
