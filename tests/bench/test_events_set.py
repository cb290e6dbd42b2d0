"""The events benchmark's set (issue 5): the grown clip list, its seed rule, the skip of
seeds without a stroke, and the per-subset figures (groups, sizes, the old set) summed
from per-clip reports. No rendering here."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

import bench.bench_events as be
from bench.score import combine, score_match
from bench.score_explain import shot_lines, wrong_first_contacts
from bench.score_groups import (
    combine_subsets,
    group_of,
    subsets,
    sum_subsets,
    summary_json,
    summary_table,
)
from contract.match import Match


@pytest.mark.parametrize(
    ("scenario", "group"),
    [
        ("pyramid-break", "break"),
        ("pyramid-pots", "pyramid mid-game"),
        ("pyramid-miss", "pyramid mid-game"),
        ("pyramid-knock", "pyramid mid-game"),
        ("pyramid-jaws", "pyramid mid-game"),
        ("carom-5pin-break", "carom"),
        ("carom-5pin-play", "carom"),
    ],
)
def test_group_of(scenario: str, group: str) -> None:
    assert group_of(scenario) == group


def test_group_of_unknown_is_one_line_error() -> None:
    with pytest.raises(ValueError, match="belongs to no group"):
        group_of("snooker-break")


CLIPS = [
    ("a", "pyramid-break", "1080"),
    ("b", "pyramid-pots", "720"),
    ("c", "carom-5pin-play", "720"),
    ("d", "pyramid-break", "720"),
]


def test_subsets_indices_and_empty_left_out() -> None:
    s = subsets(CLIPS, {"b", "c"}, "old 2 clips")
    assert s == {
        "all": [0, 1, 2, 3],
        "break": [0, 3],
        "pyramid mid-game": [1],
        "carom": [2],
        "1080p": [0],
        "720p": [1, 2, 3],
        "old 2 clips": [1, 2],
    }
    assert "old set" not in subsets(CLIPS[:1])  # no old clips: no such row
    assert list(subsets(CLIPS[1:2])) == ["all", "pyramid mid-game", "720p"]


def _reports(truth_dict: dict, truth: Match) -> list:
    """Four per-clip reports that differ: perfect, one shot lost, one contact lost, perfect."""
    lost_shot = copy.deepcopy(truth_dict)
    del lost_shot["shots"][2]
    lost_contact = copy.deepcopy(truth_dict)
    evs = lost_contact["shots"][0]["events"]
    evs.remove(next(e for e in evs if e["type"] == "contact"))
    preds = [truth, Match.model_validate(lost_shot), Match.model_validate(lost_contact), truth]
    return [score_match(p, truth) for p in preds]


def test_subsets_sum_to_the_whole(truth_dict: dict, truth: Match) -> None:
    reps = _reports(truth_dict, truth)
    sets = subsets(CLIPS, {"b", "c"}, "old 2 clips")
    parts = combine_subsets(reps, sets)
    whole = parts["all"]
    assert whole.to_json() == combine(reps).to_json()
    for split in (("break", "pyramid mid-game", "carom"), ("1080p", "720p")):
        assert sum(parts[k].shots.truth for k in split) == whole.shots.truth
        assert sum(parts[k].shots.matched for k in split) == whole.shots.matched
        assert sum(parts[k].events.overall.tp for k in split) == whole.events.overall.tp
        assert sum(parts[k].videos for k in split) == whole.videos == 4
    n = len(truth.shots)
    assert (parts["pyramid mid-game"].shots.truth, parts["pyramid mid-game"].shots.matched) == (
        n,
        n - 1,
    )
    contact = parts["carom"].events.get("contact")
    assert contact.tp == contact.truth - 1 and contact.precision == 1.0
    old = parts["old 2 clips"]
    assert old.to_json() == combine([reps[1], reps[2]]).to_json()
    assert parts["break"].events.overall.f1 == 1.0


def test_summary_table_and_json(truth_dict: dict, truth: Match) -> None:
    reps = _reports(truth_dict, truth)
    sets = subsets(CLIPS, {"b", "c"}, "old 2 clips")
    parts = combine_subsets(reps, sets)
    contact = [r.events.get("contact") for r in reps]
    obs = sum_subsets(contact, sets, "contact (impulse observable)")
    assert obs["all"].truth == sum(c.truth for c in contact)
    assert obs["carom"].tp == contact[2].tp
    text = summary_table(parts, obs).splitlines()
    assert len(text) == 1 + len(sets)
    row = {ln.split("  ")[1].strip(): ln for ln in text[1:]}
    n = len(truth.shots)
    fc = parts["pyramid mid-game"].events
    assert f"{fc.first_contact_right}/{fc.first_contact_total}" in row["pyramid mid-game"]
    assert row["all"].split()[1:3] == ["4", str(4 * n)]
    # the truth has no skittles: "-" in that column, not 0 or 1
    cols = text[0].split()
    assert len(cols) == len(row["break"].split()) + 2  # "contact obs", "pockets invented"
    assert row["break"].split()[cols.index("skittle")] == "-"
    assert row["break"].split()[cols.index("contact")] == "1.000"
    assert row["carom"].split()[cols.index("contact")] != "1.000"
    data = summary_json(parts, obs, "contact_impulse_observable")
    assert data["carom"]["contact_impulse_observable"]["tp"] == contact[2].tp
    assert data["1080p"]["report"]["shots"]["truth"] == n


def test_grown_set_keeps_the_old_clips_first_and_unchanged() -> None:
    assert be.VIDEO_SET[: len(be.OLD_SET)] == be.OLD_SET
    assert len(be.OLD_SET) == 13
    names = [e[0] for e in be.VIDEO_SET]
    assert len(names) == len(set(names))
    keys = [(scen, seed, size) for _, scen, seed, size, _ in be.VIDEO_SET]
    assert len(keys) == len(set(keys))  # no clip rendered twice under two names


def test_grown_set_mix() -> None:
    new = be.VIDEO_SET[len(be.OLD_SET) :]
    groups = Counter(group_of(e[1]) for e in be.VIDEO_SET)
    assert groups["break"] >= 8 and groups["carom"] >= 8 and groups["pyramid mid-game"] >= 40
    by_scen: dict[str, list] = {}
    for e in new:
        by_scen.setdefault(e[1], []).append(e)
    for scen, es in by_scen.items():
        sizes = {e[3] for e in es}
        assert sizes == {"1080", "720"}, scen
        assert all(e[4] == 0 for e in es)  # every stroke kept


@pytest.mark.parametrize(
    ("scen", "n", "old", "skip", "seeds"),
    [
        (
            "pyramid-break",
            4,
            (("x", "pyramid-break", 0), ("y", "pyramid-break", 2)),
            (),
            [1, 3, 4, 5],
        ),
        ("pyramid-pots", 2, (("x", "pyramid-break", 0),), (), [0, 1]),
        ("pyramid-jaws", 3, (("x", "pyramid-jaws", 1), ("y", "pyramid-jaws", 4)), (), [0, 2, 3]),
        ("carom-5pin-play", 0, (), (), []),
        # seeds without a stroke skipped, the next ones taken
        ("pyramid-pots", 3, (("x", "pyramid-pots", 1),), (("pyramid-pots", 2),), [0, 3, 4]),
        ("pyramid-pots", 2, (), (("pyramid-miss", 0),), [0, 1]),
    ],
)
def test_new_seeds_are_the_lowest_unused_with_a_stroke(
    scen: str, n: int, old: tuple, skip: tuple, seeds: list
) -> None:
    assert [s for s, _ in be.new_seeds(scen, n, old, frozenset(skip))] == seeds


def test_grown_entries_alternate_sizes_and_name_by_seed() -> None:
    old = (("pyr-break-720", "pyramid-break", 1, "720", 2),)
    got = be.grown_entries((("pb", "pyramid-break", 3),), old, frozenset())
    assert got == (
        ("pb-0-1080", "pyramid-break", 0, "1080", 0),
        ("pb-2-720", "pyramid-break", 2, "720", 0),
        ("pb-3-1080", "pyramid-break", 3, "1080", 0),
    )
    # a skipped seed keeps its turn of size: the others keep their names
    skip = frozenset({("pyramid-break", 2)})
    assert be.grown_entries((("pb", "pyramid-break", 3),), old, skip) == (
        got[0],
        got[2],
        ("pb-4-720", "pyramid-break", 4, "720", 0),
    )


def test_no_seed_of_the_set_is_known_to_find_no_stroke() -> None:
    assert not {(e[1], e[2]) for e in be.VIDEO_SET} & be.NO_STROKE


def test_seed_without_stroke_is_skipped_once(tmp_path, monkeypatch) -> None:
    import synth.cli

    calls = []

    def no_stroke(*a, **kw):
        calls.append(a)
        raise ValueError("no stroke found in 300 tries")

    monkeypatch.setattr(synth.cli, "make", no_stroke)
    assert be._video_clip(tmp_path, "c", "pyramid-pots", 9, "720", 0) is None
    assert (tmp_path / "c.noclip.txt").read_text().strip() == "no stroke found in 300 tries"
    assert be._video_clip(tmp_path, "c", "pyramid-pots", 9, "720", 0) is None
    assert len(calls) == 1  # the marker answers the second time, no second search


def test_wrong_first_contacts_and_unmatched_shots(truth_dict: dict, truth: Match) -> None:
    d = copy.deepcopy(truth_dict)
    d["shots"][0]["events"][1]["balls"] = ["3", "yellow"]  # striker swapped
    d["shots"][3]["events"].insert(1, ev_contact := dict(d["shots"][1]["events"][1]))
    ev_contact.update(frame=330, t=11.0)  # a contact in the miss: first contact invented
    del d["shots"][2]  # the third shot lost
    d["shots"].append({**copy.deepcopy(truth_dict["shots"][3]), "index": 5})
    d["shots"][-1].update(start={"frame": 500, "t": 16.7}, end={"frame": 560, "t": 18.7})
    pred = Match.model_validate(d)
    rep = score_match(pred, truth)
    lines = wrong_first_contacts(pred, truth, rep.ids, rep.shots.pairs)
    assert lines == [
        "shot 1 frames 10-100: first contact pred 3>yellow, truth yellow>3",
        "shot 4 frames 320-400: first contact pred yellow>1, truth none",
    ]
    assert len(lines) == rep.events.first_contact_total - rep.events.first_contact_right
    assert shot_lines(pred, truth, rep.shots.pairs) == [
        "missed shot 3 frames 220-300",
        "extra shot frames 500-560",
    ]
    assert wrong_first_contacts(truth, truth, str, score_match(truth, truth).shots.pairs) == []


@pytest.mark.parametrize(("raw", "jobs"), [(None, 1), ("1", 1), ("3", 3)])
def test_bench_jobs(monkeypatch, raw: str | None, jobs: int) -> None:
    if raw is None:
        monkeypatch.delenv("TABLEMON_BENCH_JOBS", raising=False)
    else:
        monkeypatch.setenv("TABLEMON_BENCH_JOBS", raw)
    assert be.bench_jobs() == jobs


@pytest.mark.parametrize("raw", ["0", "-2", "two", ""])
def test_bench_jobs_bad_value_is_one_line(monkeypatch, raw: str) -> None:
    monkeypatch.setenv("TABLEMON_BENCH_JOBS", raw)
    with pytest.raises(ValueError, match="TABLEMON_BENCH_JOBS must be"):
        be.bench_jobs()


@pytest.mark.parametrize(
    ("raw", "n"), [(None, len(be.VIDEO_SET)), ("full", len(be.VIDEO_SET)), ("small", 13)]
)
def test_events_set_choice(monkeypatch, raw: str | None, n: int) -> None:
    if raw is None:
        monkeypatch.delenv("TABLEMON_EVENTS_SET", raising=False)
    else:
        monkeypatch.setenv("TABLEMON_EVENTS_SET", raw)
    assert len(be.events_set()) == n


def test_events_set_bad_value_is_one_line(monkeypatch) -> None:
    monkeypatch.setenv("TABLEMON_EVENTS_SET", "huge")
    with pytest.raises(ValueError, match="must be 'full' or 'small', got 'huge'"):
        be.events_set()
