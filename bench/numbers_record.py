"""Record a clip's number reads once, replay the tracker's number vote on them offline.

:func:`record` detects and tracks a clip (``NAME.mp4`` with ``NAME.calib.json``) as
``bench.bench_ballnet.live_rows`` does, reading white balls' numbers, but with the
tracker's assignment switched off: every read the tracker makes (frame, track, the
reader's log-probabilities, centre px, radius px, at rest) and, per frame, the undecided
tracks it would have handed to :func:`vision.numbers.reader.assign_numbers` are kept. A
track stops being read once it holds a number, and a read never depends on another
track's number, nor on what was read before (the ink-size gate is replayed too), so
:func:`replay_vote` reproduces the tracker's numbers frame by frame
from the record (and any variant of the vote, e.g. another threshold, without decoding
the video again). :func:`live_ids` gives each row the id it would have carried live.
"""

from __future__ import annotations

import pickle
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from contract.tracks import Tracks


@dataclass
class Record:
    """One clip's reads. ``reads``: (frame, track key, logp (16,) before the ink-size gate,
    uv px (2,), radius px, at rest); ``ink``: (N, 2) each read patch's
    :func:`vision.numbers.reader.ink_size` (share of the disc, spread in radii); ``asks``:
    frame -> undecided track keys; ``names``: key -> tracker name."""

    rows: Tracks
    reads: list[tuple[int, int, np.ndarray, np.ndarray, float, bool]]
    asks: dict[int, list[int]]
    names: dict[int, str]
    frames: int
    seconds: float
    size: tuple[int, int]
    ink: np.ndarray
    patches: np.ndarray | None = None
    """(N, P, P, 3) BGR uint8: each read's tight patch, aligned with ``reads`` (records
    made before patches were kept: None)."""
    second: np.ndarray | None = None
    """(N,) bool: the read was flagged for the second look (a slow ball)."""


def record(base: Path, min_read_px: float | None = None, reader_dir: Path | None = None) -> Record:
    """Track ``base``.mp4 reading numbers (see the module docstring)."""
    from contract.calib import read_calibration
    from contract.tables import load_table
    from vision.capture.source import VideoSource
    from vision.detect.detector import Detector
    from vision.numbers import reader as rd
    from vision.replay import sample_frames
    from vision.stream import concat
    from vision.track import numbering
    from vision.track.state import TrackerConfig
    from vision.track.tracker import Tracker

    cfg = TrackerConfig()
    if min_read_px is not None:
        from dataclasses import replace

        cfg = replace(cfg, min_read_radius_px=float(min_read_px))
    calib = read_calibration(f"{base}.calib.json")
    table = load_table(calib.data.table)
    reads: list = []
    asks: dict[int, list[int]] = {}
    keep: dict[int, object] = {}  # strong references: ids stay unique
    vote_of: dict[int, int] = {}  # id(vote) -> id(track)
    cur = {"frame": -1}
    orig_read, orig_assign, orig_add, orig_cut = (
        numbering.NumberReading._read_numbers,
        numbering.assign_numbers_how,
        rd.NumberVote.add,
        rd.NumberReader.read_cut,
    )
    inks: list[tuple] = []  # (ink size, patch, second) of the patches read, not yet added
    ink: list[tuple] = []  # the same, aligned with ``reads``

    def read_cut(self, patches, turns=4, second=None):
        flags = np.zeros(len(patches), bool) if second is None else np.asarray(second, bool)
        inks.extend(
            (rd.ink_size(p, self.span), p.copy(), bool(f))
            for p, f in zip(patches, flags.reshape(-1), strict=True)
        )
        return orig_cut(self, patches, turns, second, gate=False)  # the gate is replayed

    def read_numbers(self, image, det, matched):
        cur["frame"] = int(self._frame)
        for t in self.tracks:
            keep[id(t)], keep[id(t.numvote)] = t, t.numvote
            vote_of[id(t.numvote)] = id(t)
        return orig_read(self, image, det, matched)

    def assign(votes, taken, *a, **k):
        asks[cur["frame"]] = list(votes)
        return {}

    def add(self, logp, uv, radius_px, still=False):
        reads.append(
            (
                cur["frame"],
                id(self),
                np.array(logp, float),
                np.array(uv, float),
                float(radius_px),
                bool(still),
            )
        )
        ink.append(inks.pop(0))
        return orig_add(self, logp, uv, radius_px, still)

    numbering.NumberReading._read_numbers = read_numbers
    numbering.assign_numbers_how = assign
    rd.NumberVote.add = add
    rd.NumberReader.read_cut = read_cut
    t0 = time.perf_counter()
    try:
        with VideoSource(str(base.with_suffix(".mp4"))) as src:
            size = tuple(src.size)
            det = Detector(calib, table, src.size)
            det.fit_background(sample_frames(str(base.with_suffix(".mp4"))))
            tracker = Tracker(table, cfg)
            if reader_dir is not None:
                tracker._reader = rd.NumberReader.load(reader_dir)
            parts = [tracker.update(det.detect(fr), fr.image) for fr in src]
            parts.append(tracker.finish())
    finally:
        numbering.NumberReading._read_numbers = orig_read
        numbering.assign_numbers_how = orig_assign
        rd.NumberVote.add = orig_add
        rd.NumberReader.read_cut = orig_cut
    secs = time.perf_counter() - t0
    reads = [(f, vote_of[v], *rest) for f, v, *rest in reads]
    names = {k: t.name for k, t in keep.items() if hasattr(t, "numvote") and t.name}
    return Record(
        concat(parts),
        reads,
        asks,
        names,
        len(parts) - 1,
        secs,
        size,
        np.array([i for i, _, _ in ink], float).reshape(-1, 2),
        np.stack([p for _, p, _ in ink]) if ink else None,
        np.array([f for _, _, f in ink], bool),
    )


def reread(rec: Record, reader_dir: Path | None) -> Record:
    """``rec`` with every read's log-probabilities read again from its kept patch by the
    reader in ``reader_dir`` (default: the shipped one), the second look where the tracker
    flagged it, as the tracker reads live (the ink-size gate is left to :func:`replay_vote`).
    ValueError when the record kept no patches."""
    from dataclasses import replace

    from vision.numbers import reader as rd

    if rec.patches is None:
        raise ValueError("this record kept no patches: record it again")
    reader = rd.NumberReader.load(reader_dir)
    logp = np.concatenate(
        [
            reader.read_cut(rec.patches[k : k + 256], 4, rec.second[k : k + 256], gate=False)
            for k in range(0, len(rec.patches), 256)
        ]
    )
    reads = [
        (f, k, lp, uv, r, st) for (f, k, _, uv, r, st), lp in zip(rec.reads, logp, strict=True)
    ]
    return replace(rec, reads=reads)


def cached(base: Path, cache: Path, **kw) -> Record:
    """:func:`record` of ``base``, kept in ``cache/NAME.pkl`` (delete it to record again)."""
    path = cache / f"{base.name}.pkl"
    if path.is_file():
        rec = pickle.loads(path.read_bytes())
        if rec.patches is not None or not rec.reads:  # older records kept no patches
            return rec
    rec = record(base, **kw)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(rec))
    return rec


def replay_vote(
    rec: Record, assign=None, transform=None, gate: bool = True
) -> dict[str, tuple[int, int, str]]:
    """Tracker name -> (number, frame it was given, how: "read" | "elimination") under the
    vote ``assign`` (default :func:`vision.numbers.reader.assign_numbers_how`) on the reads,
    each ``logp`` passed through ``transform`` first when given; with ``gate`` a read whose
    ink is smaller than the reader learnt (:func:`vision.numbers.reader.legible`) is "no
    number readable", as the reader says live."""
    from vision.numbers.reader import NumberVote, assign_numbers_how, legible, unreadable_where

    assign = assign or assign_numbers_how
    by_frame: dict[int, list] = defaultdict(list)
    for i, (f, k, lp, uv, r, still) in enumerate(rec.reads):
        if gate and not legible(*rec.ink[i]):
            lp = unreadable_where(lp[None], np.array([True]))[0]
        by_frame[f].append((k, lp, uv, r, still))
    votes: dict[int, NumberVote] = {}
    got: dict[int, tuple[int, int, str]] = {}
    for f in sorted(set(by_frame) | set(rec.asks)):
        for k, lp, uv, r, still in by_frame.get(f, ()):
            if k not in got:
                votes.setdefault(k, NumberVote()).add(
                    transform(lp) if transform else lp, uv, r, still
                )
        keys = [k for k in rec.asks.get(f, ()) if k not in got and k in votes]
        if not keys:
            continue
        taken = {n for n, _, _ in got.values()}
        for k, (n, how) in assign({k: votes[k] for k in keys}, taken).items():
            got[k] = (n, f, how)
    return {rec.names[k]: v for k, v in got.items() if k in rec.names}


def live_ids(rows: Tracks, got: dict[str, tuple[int, int, str]]) -> Tracks:
    """``rows`` (tracker names) with each row's id as it was live: the number from the
    frame it was given, the name before."""
    ids = np.array(
        [
            str(got[i][0]) if i in got and f >= got[i][1] else i
            for f, i in zip(rows.frame, rows.id.astype(str), strict=True)
        ],
        object,
    )
    return Tracks(rows.frame, rows.t, ids, rows.x, rows.y, rows.visible, rows.u, rows.v, rows.state)
