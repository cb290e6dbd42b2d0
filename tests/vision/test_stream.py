"""The streamed replay's pieces: rows spilled to disk come back whole and in order, and
shots cut segment by segment equal the shots cut from the whole video at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from contract.tables import load_table
from contract.tracks import Tracks, TracksWriter, read_tracks, write_tracks
from vision import stream
from vision.events.shots import cut_tracks
from vision.stream import (
    RowSpill,
    SegmentShots,
    concat,
    renamed_events,
    renamed_shots,
    write_rows,
)

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "videos"
FPS = 30.0


def _frames(rows: Tracks) -> list[Tracks]:
    return [rows.select(rows.frame == f) for f in range(int(rows.frame.max()) + 1)]


def _still(rows: Tracks, at: int, frame0: int, n: int) -> Tracks:
    """``n`` frames from ``frame0`` on with the balls of frame ``at`` lying still there."""
    one = rows.select(rows.frame == at)
    out = []
    for k in range(n):
        f = frame0 + k
        out.append(
            Tracks(
                np.full(len(one), f),
                np.full(len(one), f / FPS),
                one.id,
                one.x,
                one.y,
                np.ones(len(one), bool),
                one.u,
                one.v,
            )
        )
    return concat(out)


def _shifted(rows: Tracks, df: int) -> Tracks:
    return Tracks(
        rows.frame + df,
        (rows.frame + df) / FPS,
        rows.id,
        rows.x,
        rows.y,
        rows.visible,
        rows.u,
        rows.v,
    )


@pytest.fixture(scope="module")
def long_rows() -> Tracks:
    """Three copies of the pyramid break's exact tracks, each followed by 6 s of the
    balls lying still, then the rack put back by hand and 6 s still before the next."""
    one = read_tracks(FIX / "pyramid-break.truth.csv")
    n = int(one.frame.max()) + 1
    parts, f0 = [], 0
    for _ in range(3):
        parts.append(_shifted(one, f0))
        parts.append(_still(one, n - 1, f0 + n, 180))
        parts.append(_still(one, 0, f0 + n + 180, 180))
        f0 += n + 360
    return concat(parts)


def _key(shots) -> list[tuple]:
    return [
        (
            s.start.frame,
            s.end.frame,
            s.cue_ball,
            [(e.type, e.frame, e.ball, e.balls) for e in s.events],
        )
        for s in shots
    ]


@pytest.fixture
def short_segments(monkeypatch) -> None:
    """Segments of 5 s cut in 4 s still stretches, checked every second."""
    monkeypatch.setattr(stream, "MIN_SEGMENT_S", 5.0)
    monkeypatch.setattr(stream, "QUIET_S", 2.0)
    monkeypatch.setattr(stream, "HOLD_FRAMES", 30)
    monkeypatch.setattr(stream, "CHECK_EVERY", 30)


def _cut(rows: Tracks, spans: list) -> stream.Segmented:
    cutter = SegmentShots(load_table("pyramid-12ft"), FPS)
    for f, one in enumerate(_frames(rows)):
        cutter.add(one, f, spans, True)
    return cutter.finish(spans)


def test_segments_give_the_whole_video_shots(long_rows, short_segments):
    table = load_table("pyramid-12ft")
    whole = cut_tracks(long_rows, table, FPS)
    seg = _cut(long_rows, [])
    assert len(seg.cuts) >= 2  # the video was really cut
    assert len(whole.shots) >= 3
    assert _key(seg.shots) == _key(whole.shots)
    assert [s.index for s in seg.shots] == list(range(1, len(seg.shots) + 1))


def test_no_cut_while_a_camera_move_is_unsure(long_rows, short_segments):
    spans = [[0, int(long_rows.frame.max())]]
    assert _cut(long_rows, spans).cuts == ()


def test_short_video_is_one_segment(long_rows, short_segments, monkeypatch):
    """Searched for cuts all along (short checks), but a segment must span more than
    the whole video: one segment, the whole video's shots."""
    monkeypatch.setattr(stream, "MIN_SEGMENT_S", long_rows.frame.max() / FPS - 1.0)
    seg = _cut(long_rows, [])
    assert seg.cuts == ()
    assert _key(seg.shots) == _key(cut_tracks(long_rows, load_table("pyramid-12ft"), FPS).shots)


def test_spill_gives_back_every_row_in_order(long_rows, monkeypatch, tmp_path):
    monkeypatch.setattr(stream, "SPILL_FRAMES", 50)
    monkeypatch.setattr(stream, "HOLD_FRAMES", 20)
    frames = _frames(long_rows)
    spill = RowSpill(tmp_path)
    late = frames[5].select(frames[5].id == frames[5].id[0])
    for f, rows in enumerate(frames):
        if f == 5:
            rows = rows.select(rows.id != rows.id[0])  # this ball's row comes late ...
        if f == 200:
            rows = concat([rows, late])  # ... after its frame went to disk
        spill.add(rows, f)
    assert len(list(spill.dir.glob("*.npz"))) >= 3
    names = {"1": "one"}
    out = tmp_path / "TRACKS.csv"
    with TracksWriter(out) as w:
        n = write_rows(w, spill, names, [[10, 12]])
    spill.close()
    want = tmp_path / "want.csv"
    ids = np.array([names.get(i, i) for i in long_rows.id], object)
    bad = (long_rows.frame >= 10) & (long_rows.frame <= 12)
    w = Tracks(
        long_rows.frame,
        long_rows.t,
        ids,
        long_rows.x,
        long_rows.y,
        long_rows.visible & ~bad,
        np.where(bad, np.nan, long_rows.u),
        np.where(bad, np.nan, long_rows.v),
    )
    write_tracks(want, concat([w]))
    assert n == len(long_rows)
    assert out.read_text() == want.read_text()
    assert not spill.dir.exists()


def test_renamed_shots_rename_every_ball_field(long_rows):
    table = load_table("pyramid-12ft")
    shots = cut_tracks(long_rows, table, FPS).shots
    contacts = [e for s in shots for e in s.events if e.balls]
    assert contacts
    a = contacts[0].balls[0]
    out = renamed_shots(shots, {a: "renamed"})
    text = "".join(s.model_dump_json() for s in out)
    assert '"renamed"' in text
    assert f'"{a}"' not in text
    loose = renamed_events([e for s in shots for e in s.events], {a: "renamed"})
    assert all(a not in (e.ball, e.by, *(e.balls or ())) for e in loose)
    assert any("renamed" in (e.balls or ()) for e in loose)


def test_streamed_replay_writes_what_the_in_memory_replay_keeps(tmp_path, monkeypatch):
    """``tablemon replay``'s path (rows to disk in chunks, shots per segment) on a fixture
    gives the in-memory replay's rows byte for byte and the same shots."""
    monkeypatch.setattr(stream, "SPILL_FRAMES", 50)  # several chunks on disk
    monkeypatch.setattr(stream, "HOLD_FRAMES", 20)
    from contract.calib import read_calibration
    from contract.match import Match, VideoInfo
    from vision.events.shots import shots_from_tracks
    from vision.replay import stream_video, track_video

    video = FIX / "pyramid-knock-1080.mp4"
    calib = read_calibration(FIX / "pyramid-knock-1080.calib.json")
    table = load_table(calib.data.table)
    res = stream_video(str(video), calib, table, str(tmp_path / "s.csv"))
    mem = track_video(str(video), calib, table)
    write_tracks(tmp_path / "m.csv", mem.tracks)
    assert res.rows == len(mem.tracks) > 0
    assert (tmp_path / "s.csv").read_bytes() == (tmp_path / "m.csv").read_bytes()
    match = Match(
        game="pyramid-free", table=table.name, video=VideoInfo(fps=mem.fps, frames=mem.frames)
    )
    assert res.shots == shots_from_tracks(match, mem.tracks, table).shots
    assert res.shots  # the knock clip has a shot
    assert res.events == mem.events


class _Broken(Exception):
    pass


def test_streamed_replay_keeps_the_rows_of_a_failed_run(tmp_path, monkeypatch):
    """A replay stopped part-way (here: the tracker fails at frame 120) still writes the
    rows it tracked before, and re-raises."""
    from contract.calib import read_calibration
    from vision.replay import stream_video
    from vision.track.tracker import Tracker

    calib = read_calibration(FIX / "pyramid-knock-1080.calib.json")
    update = Tracker.update

    def failing(self, det, *a, **k):
        if det.frame == 120:
            raise _Broken("boom")
        return update(self, det, *a, **k)

    monkeypatch.setattr(Tracker, "update", failing)
    monkeypatch.setattr(stream, "SPILL_FRAMES", 50)
    monkeypatch.setattr(stream, "HOLD_FRAMES", 20)
    out = tmp_path / "T.csv"
    with pytest.raises(_Broken):
        stream_video(
            str(FIX / "pyramid-knock-1080.mp4"), calib, load_table(calib.data.table), str(out)
        )
    rows = read_tracks(out)
    assert len(rows) > 0
    assert rows.frame.max() == 119
    assert not list(tmp_path.glob("*.tmp"))


def test_streamed_replay_bad_tracks_path_fails_before_tracking(tmp_path):
    from contract.calib import read_calibration
    from vision.replay import stream_video

    calib = read_calibration(FIX / "pyramid-knock-1080.calib.json")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        stream_video(
            str(FIX / "pyramid-knock-1080.mp4"),
            calib,
            load_table(calib.data.table),
            str(tmp_path / "file" / "T.csv"),  # a folder that is a file
        )
