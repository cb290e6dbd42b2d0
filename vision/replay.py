"""``tablemon replay``: track a recorded video, write TRACKS.csv, MATCH.json and an annotated MP4.

MATCH.json carries the game, the table and the video's frame rate and length; its
shots come from the shots/events stage when that exists (``vision.shots``), else
it has none yet.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from contract.calib import Calibration, read_calibration
from contract.errors import ContractError
from contract.match import Match, VideoInfo, write_match
from contract.tables import DEFAULT_TABLE, TableSpec, load_table
from contract.tracks import HEADER, Tracks, write_tracks
from vision.capture import VideoSource, open_capture
from vision.detect import Detector
from vision.geometry import surface_outline_mm
from vision.register import DriftWatch
from vision.track import Tracker

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


def sample_frames(path: str, count: int = BACKGROUND_FRAMES) -> list[np.ndarray]:
    """Up to ``count`` frames spread over a video file (for the empty-cloth model)."""
    cap = open_capture(path)
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    out: list[np.ndarray] = []
    idx = np.linspace(0, max(0, n - 2), count).astype(int) if n > 1 else [0]
    for i in sorted(set(int(k) for k in idx)):
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
    :class:`VideoSource` such as a :class:`LoopedSource`); rows in contract §7 form.
    ``reference``: the picture ``calib`` was fitted on (BGR, recorded px), where known: a
    camera that moved since is registered to it (``vision.register``).
    ``read_numbers``: the tracker reads the numbers of white pyramid balls
    (``vision.numbers``) and the rows carry a read ball under its number from its first
    row (contract §3); off by default, because the reader still misreads some balls."""
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit():
        cv2.setNumThreads(int(threads))
    opened = source if isinstance(source, VideoSource) else VideoSource(source)
    with opened as src:
        _check_size(calib, src.size, src.name)
        det = Detector(calib, table, src.size)
        watch = (
            DriftWatch(calib, table, src, reference=reference) if monitor and not src.live else None
        )
        if src.frame_count > 1 and not src.live:
            samples = sample_frames(str(src.source)) or [src._peek.image]
            det.fit_background(watch.aligned(samples) if watch is not None else samples)
        elif src._still is not None:
            det.fit_background([src._still])
        else:
            det.fit_background([src._peek.image])
        tracker = Tracker(table)
        ann = Annotator(annotated, calib, table, src.size, src.fps) if annotated else None
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=src.frame_count or None, unit="frame", file=sys.stderr)
        parts: list[Tracks] = []  # this chunk's rows, one Tracks a frame
        chunks: list[Tracks] = []  # earlier chunks, each one concatenated
        n = 0
        try:
            for frame in src:
                if watch is not None:
                    det, seen = watch.step(frame, det)
                    found = watch.unwarp(det.detect(seen))
                else:
                    found = det.detect(frame)
                image = frame.image if read_numbers else None
                rows = tracker.update(found, image, empty=det.cloth_empty)
                parts.append(rows)
                if len(parts) >= 900:  # few arrays; each row copied once: memory ~ the rows
                    chunks.append(_concat(parts))
                    parts = []
                if ann is not None:
                    ann.draw(frame.image, rows)
                n += 1
                if bar is not None:
                    bar.update(1)
            parts.append(tracker.finish())
        finally:
            if bar is not None:
                bar.close()
            if ann is not None:
                ann.close()
        events = watch.events if watch is not None else ()
        rows = _concat(chunks + parts)
        if read_numbers:
            rows = tracker.renamed(rows)
        if watch is not None:
            rows = _unsure(rows, watch.unsure)
        return ReplayResult(rows, src.fps, n, src.size, src.truncated, events)


def _unsure(rows: Tracks, spans: list[list[int]]) -> Tracks:
    """Rows measured between a camera move and the recalibration after it came from the
    stale model: they are kept as predictions (``visible`` 0, no pixels), so no shot mixes
    positions of two calibrations."""
    if not spans or not len(rows):
        return rows
    bad = np.zeros(len(rows), bool)
    for a, b in spans:
        bad |= (rows.frame >= a) & (rows.frame <= b)
    vis = rows.visible & ~bad
    u = np.where(bad, np.nan, rows.u)
    v = np.where(bad, np.nan, rows.v)
    return Tracks(rows.frame, rows.t, rows.id, rows.x, rows.y, vis, u, v, rows.state)


def _concat(parts: list[Tracks]) -> Tracks:
    parts = [p for p in parts if len(p)]
    if not parts:
        return Tracks.from_rows([])
    cols = {f: np.concatenate([getattr(p, f) for p in parts]) for f in HEADER}
    order = np.lexsort((cols["id"].astype(str), cols["frame"]))
    return Tracks(*(cols[f][order] for f in HEADER))


def _calibration(
    args: argparse.Namespace, table_name: str | None
) -> tuple[Calibration, np.ndarray | None]:
    """--calibration CALIB.json, else the automatic calibration of the video itself (with
    the picture it was fitted on, for registration: ``vision.register``)."""
    if args.calibration:
        return read_calibration(args.calibration), None
    try:
        from calibration.cli import calibrate
    except ImportError:
        raise ContractError(
            args.video,
            "calibration",
            "no automatic calibration available: pass --calibration CALIB.json",
        ) from None
    if not Path(args.video).is_file():
        raise ContractError(args.video, "", "no such video file")
    table = load_table(table_name or DEFAULT_TABLE[args.game])
    fit, plate = calibrate(args.video, table)
    rms = f"{fit.calib.rms_mm:.2f} mm" if fit.calib.rms_mm is not None else "n/a"
    print(f"tablemon: {args.video}: calibrated automatically (rms {rms})", file=sys.stderr)
    return Calibration(fit.calib), plate


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


def run_cli(args: argparse.Namespace) -> int:
    """``tablemon replay``: exit 0 when the outputs were written."""
    calib, reference = _calibration(args, args.table)
    table = load_table(args.table or calib.data.table or DEFAULT_TABLE[args.game])
    res = track_video(
        args.video,
        calib,
        table,
        args.annotated,
        progress=not args.no_progress,
        reference=reference,
        read_numbers=getattr(args, "read_numbers", False),
    )
    if res.truncated:
        print(
            f"tablemon: warning: {args.video}: video ends early after {res.frames} frames; "
            "writing what was read",
            file=sys.stderr,
        )
    if args.tracks:
        write_tracks(args.tracks, res.tracks)
    match = Match(
        game=args.game,
        table=table.name,
        video=VideoInfo(fps=res.fps, frames=res.frames),
        events=res.events,
    )
    try:
        from vision.shots import shots_from_tracks  # type: ignore[import-not-found]
    except ImportError:
        shots_from_tracks = None
    if shots_from_tracks is not None:
        match = shots_from_tracks(match, res.tracks, table)
    match = _judged(match)
    write_match(args.out, match)
    return 0
