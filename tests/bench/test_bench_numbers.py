"""``tablemon bench numbers``: the vote replayed on recorded reads gives what the tracker
would have given live, rows carry the number only from the frame it was given, shares pool
ball-shots, and truth files without pixel columns are read."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bench.bench_numbers import clip_list, pooled, truth_tracks
from bench.numbers_record import Record, live_ids, replay_vote
from contract.tracks import Tracks
from tests.vision.test_numbers import look


def rows_of(frames: int, names: list[str]) -> Tracks:
    f = np.repeat(np.arange(frames), len(names))
    ids = np.array(names * frames, object)
    n = len(f)
    return Tracks(
        f,
        f / 30.0,
        ids,
        np.arange(n, dtype=float),
        np.zeros(n),
        np.ones(n, bool),
        np.full(n, np.nan),
        np.full(n, np.nan),
    )


def record(
    reads_a: list[tuple[int, float]], frames: int = 10, ink: tuple[float, float] = (0.05, 0.15)
) -> Record:
    """Two tracks at rest: w1 read (number, p) frame by frame from frame 2, w2 never
    readable; both asked about every frame they were read; every patch's ink ``ink``
    (share of the disc, spread in radii: by default a printed figure's size)."""
    reads, asks = [], {}
    for i, (n, p) in enumerate(reads_a):
        f = 2 + i
        reads.append((f, 1, look(n, p), np.array([100.0, 100.0]), 15.0, True))
        reads.append((f, 2, look(0, 0.99), np.array([300.0, 100.0]), 15.0, True))
        asks[f] = [1, 2]
    return Record(
        rows_of(frames, ["w1", "w2"]),
        reads,
        asks,
        {1: "w1", 2: "w2"},
        frames,
        1.0,
        (1920, 1080),
        np.tile(ink, (len(reads), 1)),
    )


def test_replayed_vote_gives_a_sure_number_from_the_frame_it_is_sure():
    rec = record([(5, 0.99)] * 6)
    got = replay_vote(rec)
    assert set(got) == {"w1"}
    number, frame, how = got["w1"]
    assert (number, how) == (5, "read") and 2 <= frame <= 7
    ids = live_ids(rec.rows, got)
    w1 = ids.id[0::2]  # w1's rows, frame by frame
    assert list(w1[:frame]) == ["w1"] * frame and set(w1[frame:]) == {"5"}
    assert set(ids.id[1::2]) == {"w2"}  # never read: stays wN, so the adjudicator asks


def test_unsure_reads_give_no_number():
    assert replay_vote(record([(5, 0.4)] * 6)) == {}


def test_the_ink_size_gate_is_replayed():
    """A speck of ink (a figure far smaller than the reader learnt) reads as nothing, however
    sure the net was; without the gate (before it) the same reads give the number."""
    speck = record([(5, 0.99)] * 6, ink=(0.01, 0.04))
    assert replay_vote(speck) == {}
    assert replay_vote(speck, gate=False)["w1"][0] == 5


def test_transform_is_applied_to_every_look():
    # a look made unreadable by the transform counts for nothing
    none = np.r_[0.0, np.full(15, np.log(1e-12))]
    assert replay_vote(record([(5, 0.99)] * 6), transform=lambda lp: none) == {}


def test_pooled_shares_are_of_ball_shots():
    clips = [
        {
            "clip": "a",
            "set": "own",
            "height": "1080p",
            "ball_shots": 10,
            "right": 8,
            "wrong": 0,
            "unread": 2,
            "asked": 1,
            "visible_ball_shots": 8,
            "visible_right": 8,
        },
        {
            "clip": "b",
            "set": "own",
            "height": "1080p",
            "ball_shots": 30,
            "right": 2,
            "wrong": 1,
            "unread": 27,
            "asked": 3,
            "visible_ball_shots": 4,
            "visible_right": 2,
        },
        {
            "clip": "c",
            "set": "foreign",
            "height": "1080p",
            "ball_shots": 5,
            "right": 0,
            "wrong": 0,
            "unread": 5,
            "asked": 0,
        },
    ]
    p = pooled(clips, set="own", height="1080p")
    assert p["ball_shots"] == 40 and p["right"] == 10
    assert p["wrong_share"] == pytest.approx(1 / 40)
    assert p["visible_right_share"] == pytest.approx(10 / 12)
    assert "visible_ball_shots" not in pooled(clips, set="foreign")
    assert pooled(clips, set="none")["right_share"] is None


def test_truth_without_pixel_columns(tmp_path):
    path = tmp_path / "t.truth.csv"
    path.write_text("frame,t,id,x,y,visible\n1,0.033,2,10.0,20.0,1\n0,0.000,yellow,5.0,6.0,0\n")
    t = truth_tracks(path)
    assert list(t.frame) == [0, 1] and list(t.id) == ["yellow", "2"]
    assert list(t.visible) == [False, True] and np.isnan(t.u).all()


def test_missing_clips_are_listed_not_fatal(tmp_path):
    have, missing = clip_list(tmp_path)  # no own renders there
    assert all(kind != "own" or "fixtures" in str(base) for base, kind, _, _ in have)
    assert any(m.startswith("own pyr-pots-1080 ") for m in missing)


def _patches(n: int) -> np.ndarray:
    """White discs on cloth with a dark stroke across some: tight number patches."""
    rng = np.random.default_rng(0)
    x = np.full((n, 32, 32, 3), (40, 110, 40), np.uint8)
    yy, xx = np.mgrid[:32, :32]
    disc = (yy - 15.5) ** 2 + (xx - 15.5) ** 2 < 15**2
    for i in range(n):
        x[i][disc] = 215 + rng.integers(-10, 10)
        if i % 2:
            x[i, 10:22, 14 + i % 5 : 16 + i % 5] = 30
    return x


def test_reread_gives_the_readers_looks_of_the_kept_patches():
    """Any reader's figures come from the record's patches, read as the tracker reads them
    (the second look where it was flagged), the ink-size gate left to the vote."""
    from bench.numbers_record import reread
    from vision.numbers import reader as rd

    base = record([(5, 0.99)] * 3)
    x = _patches(len(base.reads))
    second = np.arange(len(x)) % 3 == 0
    rec = reread(replace(base, patches=x, second=second), None)
    want = rd.NumberReader.load().read_cut(x, 4, second, gate=False)
    got = np.stack([r[2] for r in rec.reads])
    assert np.allclose(got, want)
    assert [r[:2] for r in rec.reads] == [r[:2] for r in base.reads]  # same frames, tracks
    with pytest.raises(ValueError, match="kept no patches"):
        reread(base, None)


def test_a_record_without_patches_is_made_again(tmp_path, monkeypatch):
    import pickle

    from bench import numbers_record

    old = record([(5, 0.99)] * 2)
    (tmp_path / "clip.pkl").write_bytes(pickle.dumps(old))
    fresh = replace(old, patches=_patches(len(old.reads)), second=np.zeros(len(old.reads), bool))
    monkeypatch.setattr(numbers_record, "record", lambda base, **kw: fresh)
    got = numbers_record.cached(tmp_path / "clip", tmp_path)
    assert got.patches is not None and len(got.patches) == len(old.reads)
    again = pickle.loads((tmp_path / "clip.pkl").read_bytes())
    assert again.patches is not None  # kept for the next run
