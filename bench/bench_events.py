"""Shots and events benchmark (issue: shots and events), scored by ``bench.score``.

A synthetic set (pyramid break, mid-game pots, misses, cue ball pocketed, off the
table, re-spots, 5-pin) is simulated from seeds; events are cut from tracks of three
kinds:

- ``exact``: the simulator's own positions (the ceiling of the event logic);
- ``noisy``: the same with measurement noise (Gaussian, sigma mm) and dropped rows, as
  a detector gives them at rest and in motion;
- ``synthetic video`` (the issue's benchmark set, :data:`VIDEO_SET`: the first 13 clips
  and :data:`GROWN`, >= 200 shots): clips generated here (pyramid breaks, mid-game
  scenarios, 5-pin break and play; 1080p and 720p; the players' cue, arms and bodies
  occluding), cached in ``OUT/events-clips``, replayed through detection and tracking
  (``vision.replay.track_video``) with each clip's exact calibration, cut into shots and
  scored; the set's table, then one row per group, size and the old 13 clips
  (:mod:`bench.score_groups`); every missed or invented event, unmatched shot and wrong
  first contact is listed per clip;
- ``fixtures``: the rendered fixture clips (``fixtures/videos``) through automatic
  calibration as well, when ``--quick`` is off.

Contacts inside a frozen rack are scored twice: all of them, and the observable ones
(``bench.score_events.observable_contacts``) beside.

Prints one table per kind and returns the figures (``tablemon bench events``).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bench import score_groups as sg
from bench.score import combine, score_match
from bench.score_explain import explain, occluded_share, shot_lines, wrong_first_contacts
from bench.score_impulse import dv_error_noise, faint_contacts, impulse_threshold
from bench.score_lines import (
    cushion_line,
    impulse_json,
    impulse_line,
    obs_json,
    observable_line,
    sum_types,
)
from bench.score_observable import (
    hidden_contacts,
    score_observable,
    score_observable_contacts,
    unseen_cushions,
)
from contract.events import EventType
from contract.match import Match
from contract.tracks import Tracks
from vision.events.series import series_from_tracks
from vision.events.shots import cut_tracks

if TYPE_CHECKING:
    from contract.tables import TableSpec
    from vision.replay import ReplayResult

SET = [
    ("pyramid-break", (0, 2, 3)),
    ("pyramid-pots", (0, 1, 2)),
    ("pyramid-miss", (0, 1)),
    ("pyramid-cue-pocketed", (0, 1)),
    ("pyramid-off-table", (0, 1)),
    ("pyramid-respot", (0, 1)),
    ("carom-5pin-break", (0, 1)),
    ("carom-5pin-play", (0, 1, 2)),
]
QUICK = [(n, s[:1]) for n, s in SET]


def degrade(tracks: Tracks, sigma_mm: float, drop: float, seed: int) -> Tracks:
    """Tracks as a detector would give them: noise on x, y and rows dropped at random."""
    rng = np.random.default_rng(seed)
    keep = rng.random(len(tracks)) >= drop
    t = tracks.select(keep)
    noise = rng.normal(0.0, sigma_mm, size=(len(t), 2))
    return Tracks(
        t.frame, t.t, t.id, t.x + noise[:, 0], t.y + noise[:, 1], t.visible, t.u, t.v, t.state
    )


def _clips(quick: bool):
    from synth.clip import build_clip
    from synth.scenarios import scenario
    from synth.truth import truth_match, truth_tracks

    for name, seeds in QUICK if quick else SET:
        for seed in seeds:
            try:
                clip = build_clip(scenario(name)(seed))
            except ValueError as e:  # a scenario that finds no stroke for this seed
                print(f"  skip {name} seed {seed}: {e}")
                continue
            yield name, seed, clip, truth_match(clip, judge=False), truth_tracks(clip, None, None)


def _score(kind: str, items: list, exact: list | None = None) -> dict:
    """Events cut from the tracks of ``items`` (``exact``: the exact tracks of each, when
    ``items`` are degraded), scored; the impulse-observable contacts with the
    velocity-change noise of all the tracks (:mod:`bench.score_impulse`)."""
    reports, obs, obs_c, obs_i = [], [], [], []
    n_faint = n_unknown = 0
    truths = exact or items
    sig = [dv_error_noise(it[4], ex[4], str) for it, ex in zip(items, truths, strict=True)]
    sigma = float(np.median([x for x in sig if x is not None] or [0.0]))
    n_unseen = 0
    per_clip = {}
    t_cut = 0.0
    n_hidden = 0
    for k, (name, seed, clip, truth, tracks) in enumerate(items):
        t0 = time.perf_counter()
        cut = cut_tracks(tracks, clip.table, clip.spec.fps)
        t_cut += time.perf_counter() - t0
        pred = Match(game=truth.game, table=truth.table, video=truth.video, shots=cut.shots)
        rep = score_match(pred, truth)
        reports.append(rep)
        hidden = hidden_contacts(truth, (exact or items)[k][4], clip.table.ball_radius)
        n_hidden += len(hidden)
        obs.append(score_observable_contacts(pred, truth, rep.ids, hidden))
        unseen = unseen_cushions(truth, (exact or items)[k][4], clip.spec.fps)
        n_unseen += len(unseen)
        obs_c.append(score_observable(pred, truth, rep.ids, unseen))
        faint, unknown = faint_contacts(truth, impulse_threshold(sigma))
        n_faint, n_unknown = n_faint + len(faint), n_unknown + unknown
        obs_i.append(score_observable_contacts(pred, truth, rep.ids, faint))
        per_clip[f"{name}/{seed}"] = rep.to_json()["events"]["overall"]["f1"]
    total = combine(reports)
    observable = sum_types("contact (observable)", obs)
    print(f"\n== events from {kind} tracks: {len(items)} clips, cutting {t_cut:.2f} s in all")
    print(total.table())
    print(observable_line(observable, n_hidden))
    cushions = sum_types("cushion (observable)", obs_c)
    print(cushion_line(cushions, n_unseen))
    impulse = sum_types("contact (impulse observable)", obs_i)
    print(impulse_line(impulse, n_faint, f"{sigma:.3f} mm/frame, the clips' median"))
    return {
        "report": total.to_json(),
        "contact_observable": obs_json(observable, n_hidden),
        "contact_impulse_observable": impulse_json(impulse, n_faint, {"all": sigma}, n_unknown),
        "cushion_observable": obs_json(cushions, n_unseen, "unseen_truth_cushions"),
        "per_clip_f1": per_clip,
        "cut_seconds": t_cut,
    }


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "videos"


def _predicted(res: ReplayResult, truth: Match, table: TableSpec) -> Match:
    """The replay's tracks cut into shots and events, as MATCH.json to score against
    ``truth`` (same game and table; the replay's top-level events kept)."""
    from contract.match import VideoInfo
    from vision.events.shots import shots_from_tracks

    pred = Match(
        game=truth.game,
        table=truth.table,
        video=VideoInfo(fps=res.fps, frames=res.frames),
        events=res.events,
    )
    return shots_from_tracks(pred, res.tracks, table)


def _video(quick: bool) -> dict | None:
    """Events from the rendered fixture clips through the whole vision pipeline."""
    from calibration import calibrate_video
    from contract.match import read_match
    from contract.tables import load_table
    from vision.replay import track_video

    reports, per_clip = [], {}
    for mp4 in sorted(FIXTURES.glob("*.mp4")):
        truth = read_match(mp4.with_suffix(".truth.json"))
        table = load_table(truth.table)
        res = track_video(str(mp4), calibrate_video(mp4, table), table)
        rep = score_match(_predicted(res, truth, table), truth)
        reports.append(rep)
        per_clip[mp4.stem] = rep.to_json()["events"]["overall"]["f1"]
    if not reports:
        return None
    total = combine(reports)
    print(f"\n== events from rendered video ({len(reports)} fixture clips, auto calibration)")
    print(total.table())
    return {"report": total.to_json(), "per_clip_f1": per_clip}


# the benchmark set: name, scenario, seed, size, strokes kept (0: all)
VIDEO_SET = (
    ("pyr-break-1080", "pyramid-break", 0, "1080", 2),
    ("pyr-break-720", "pyramid-break", 2, "720", 2),
    ("pyr-pots-1080", "pyramid-pots", 1, "1080", 2),
    ("pyr-pots-720", "pyramid-pots", 2, "720", 2),
    ("pyr-miss-720", "pyramid-miss", 0, "720", 2),
    ("pyr-respot-720", "pyramid-respot", 7, "720", 0),  # hands re-spot balls: occlusion
    ("carom-break-1080", "carom-5pin-break", 1, "1080", 1),
    ("carom-play-720", "carom-5pin-play", 0, "720", 2),
    ("carom-play-1080", "carom-5pin-play", 2, "1080", 2),
)
VIDEO_QUICK = (("pyr-pots-720-1", "pyramid-pots", 2, "720", 1),)
# players really occluding (synth covers): balls along a cushion under a reaching player's
# cue, arm and torso; a ball in a pocket's jaws and one beside it under a body over the pocket;
# and more pins falling (skittle_down)
VIDEO_SET += (
    ("pyr-reach-720", "pyramid-reach", 0, "720", 0),
    ("pyr-jaws-720", "pyramid-jaws", 1, "720", 0),
    ("pyr-jaws-1080", "pyramid-jaws", 4, "1080", 0),
    ("carom-play-1-720", "carom-5pin-play", 1, "720", 0),  # four pins down
)
OLD_SET = tuple(VIDEO_SET)  # the 13 clips of the first figures, kept as they were
# the set grown to >= 200 shots (issue 5): per scenario, a count of new clips,
# every stroke kept; seeds by rule (:func:`new_seeds`), never by how tablemon does on them
GROWN = (
    ("pyr-break", "pyramid-break", 10),
    ("pyr-pots", "pyramid-pots", 11),
    ("pyr-miss", "pyramid-miss", 7),
    ("pyr-cuepot", "pyramid-cue-pocketed", 7),
    ("pyr-offtable", "pyramid-off-table", 7),
    ("pyr-respot", "pyramid-respot", 6),
    ("pyr-knock", "pyramid-knock", 6),
    ("pyr-reach", "pyramid-reach", 6),
    ("pyr-jaws", "pyramid-jaws", 6),
    ("carom-break", "carom-5pin-break", 7),
    ("carom-play", "carom-5pin-play", 8),
)
# seeds whose scenario finds no stroke (synth raises ValueError; found when first rendered,
# NAME.noclip.txt): skipped, the next seed taken
NO_STROKE = frozenset(
    {("pyramid-pots", 7), ("pyramid-pots", 12), ("pyramid-jaws", 7), ("pyramid-jaws", 8)}
    | {("pyramid-reach", 5), ("pyramid-reach", 7)}
    | {("carom-5pin-play", k) for k in (5, 9, 11, 13)}
)


def new_seeds(scen: str, n: int, old=OLD_SET, no_stroke=NO_STROKE) -> list[tuple[int, int]]:
    """``(seed, k)`` of the ``n`` lowest seeds of scenario ``scen`` the old set does not
    use and that find a stroke; ``k``: the seed's place among the unused seeds (skipped
    ones counted), which sets its picture size."""
    used = {seed for _, s, seed, *_ in old if s == scen}
    unused = (seed for seed in range(10**6) if seed not in used)
    out: list[tuple[int, int]] = []
    for k, seed in enumerate(unused):
        if len(out) == n:
            break
        if (scen, seed) not in no_stroke:
            out.append((seed, k))
    return out


def grown_entries(grown=GROWN, old=OLD_SET, no_stroke=NO_STROKE) -> tuple:
    """The new clips: ``(name, scenario, seed, size, 0)``, sizes alternating 1080p and
    720p in seed order (the first 1080p; a skipped seed keeps its turn); named
    ``PREFIX-SEED-SIZE``."""
    return tuple(
        (f"{pre}-{seed}-{('1080', '720')[k % 2]}", scen, seed, ("1080", "720")[k % 2], 0)
        for pre, scen, n in grown
        for seed, k in new_seeds(scen, n, old, no_stroke)
    )


VIDEO_SET += grown_entries()
LISTED = (
    *("contact", "cushion", "pocket", "off_table", "strike", "cross", "skittle_down"),
    *("early_strike", "ball_touched", "camera_moved"),
)


def _video_clip(out: Path, name: str, scen: str, seed: int, size: str, strokes: int) -> Path | None:
    """The clip's files (rendered once, then read from ``out``); its base path, or None
    for a seed whose scenario finds no stroke (synth's ValueError, kept in
    ``NAME.noclip.txt`` so the search runs once). A cached truth without contact
    impulses (written before the simulator wrote them) gets them (:func:`refresh_truth`)."""
    base = out / name
    need = (base.with_suffix(".mp4"), Path(f"{base}.truth.json"), Path(f"{base}.calib.json"))
    skip = Path(f"{base}.noclip.txt")
    if skip.is_file():
        return None
    if not all(p.is_file() for p in need):
        from synth.cli import make

        try:
            make(scen, seed, size, out, name, strokes=strokes)
        except ValueError as e:
            skip.write_text(f"{e}\n")
            return None
    else:
        refresh_truth(Path(f"{base}.truth.json"), scen, seed, size, strokes)
    return base


def _no_impulse(m: Match) -> list:
    return [
        [e.model_dump(mode="json", exclude={"impulse"}) for e in s.events] + [s.rest]
        for s in m.shots
    ]


def refresh_truth(path: Path, scen: str, seed: int, size: str, strokes: int) -> bool:
    """Re-simulate a cached clip whose truth contacts carry no ``impulse`` (no video
    rendered) and rewrite its truth.json when the run reproduces every event and rest
    position of the cached one (deterministic simulator); True when rewritten. A run
    that differs leaves the cached truth as it is (its contacts then count as
    observable) and says so."""
    from contract.match import read_match, write_match
    from synth.cli import SIZES
    from synth.clip import build_clip, first_strokes, replace_size
    from synth.scenarios import scenario
    from synth.truth import truth_match

    old = read_match(path)
    contacts = [e for s in old.shots for e in s.events if e.type == EventType.CONTACT]
    if not contacts or all(e.impulse is not None for e in contacts):
        return False
    spec = replace_size(scenario(scen)(seed), SIZES[size])
    clip = build_clip(first_strokes(spec, strokes) if strokes > 0 else spec)
    new = truth_match(clip)
    if _no_impulse(new) != _no_impulse(old):
        print(f"  {path.name}: the re-run differs from the cached truth; impulses not added")
        return False
    write_match(path, new)
    return True


def _listed(line: str) -> bool:
    return line.split()[1] in LISTED


def _clip_figures(clips: Path, entry: tuple) -> dict | None:
    """One clip of the set rendered (once), tracked, cut and scored; its figures (a
    picklable dict), or None for a seed without a stroke."""
    from contract.calib import read_calibration
    from contract.match import read_match
    from contract.tables import load_table
    from contract.tracks import read_tracks
    from vision.replay import track_video

    name, scen, seed, size, strokes = entry
    base = _video_clip(clips, name, scen, seed, size, strokes)
    if base is None:
        return None
    calib = read_calibration(f"{base}.calib.json")
    table = load_table(calib.data.table)
    truth = read_match(f"{base}.truth.json")
    t0 = time.perf_counter()
    res = track_video(str(base.with_suffix(".mp4")), calib, table)
    t_track = time.perf_counter() - t0
    pred = _predicted(res, truth, table)
    rep = score_match(pred, truth)
    exact = read_tracks(f"{base}.truth.csv")
    hidden = hidden_contacts(truth, exact, table.ball_radius)
    unseen = unseen_cushions(truth, exact, res.fps)
    sigma = dv_error_noise(res.tracks, exact, rep.ids) or 0.0
    faint, unknown = faint_contacts(truth, impulse_threshold(sigma))
    ev = rep.events
    series = series_from_tracks(res.tracks, res.fps)
    clip = {
        "scenario": f"{scen}/{seed}",
        "group": sg.group_of(scen),
        "size": size,
        "frames": res.frames,
        "occluded_rows": occluded_share(Path(f"{base}.truth.csv")),
        "track_seconds": t_track,
        "shots": [
            [pred.shots[i].start.frame, truth.shots[j].start.frame]
            + [pred.shots[i].end.frame, truth.shots[j].end.frame]
            for i, j in rep.shots.pairs
        ],
        "events_f1": ev.overall.f1,
        "shots_unmatched": shot_lines(pred, truth, rep.shots.pairs),
        "first_contact_wrong": wrong_first_contacts(pred, truth, rep.ids, rep.shots.pairs),
        "pockets_invented": ev.pockets_invented,
        "missed": [explain(m, series, rep.ids, table) for m in ev.missed if _listed(m)],
        "extra": [explain(m, series, rep.ids, table) for m in ev.extra if _listed(m)],
    }
    return {
        "rep": rep,
        "obs": score_observable_contacts(pred, truth, rep.ids, hidden),
        "obs_c": score_observable(pred, truth, rep.ids, unseen),
        "obs_i": score_observable_contacts(pred, truth, rep.ids, faint),
        "counts": (len(hidden), len(unseen), len(faint), unknown),
        "sigma": sigma,
        "clip": clip,
    }


def bench_jobs() -> int:
    """Worker processes for the rendered set (``TABLEMON_BENCH_JOBS``, default 1): clips
    are rendered, tracked and scored in parallel; the figures do not depend on it."""
    raw = os.environ.get("TABLEMON_BENCH_JOBS", "1")
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"TABLEMON_BENCH_JOBS must be a whole number >= 1, got {raw!r}")
    return int(raw)


def events_set() -> tuple:
    """The rendered set's clips: ``TABLEMON_EVENTS_SET`` ``full`` (default, the issue's
    set, :data:`VIDEO_SET`) or ``small`` (the first 13 clips, :data:`OLD_SET`)."""
    raw = os.environ.get("TABLEMON_EVENTS_SET", "full")
    sets = {"full": VIDEO_SET, "small": OLD_SET}
    if raw not in sets:
        raise ValueError(f"TABLEMON_EVENTS_SET must be 'full' or 'small', got {raw!r}")
    return sets[raw]


def _each_clip(clips: Path, entries: tuple, jobs: int):
    if jobs <= 1:
        yield from (_clip_figures(clips, e) for e in entries)
        return
    with ProcessPoolExecutor(jobs) as ex:
        yield from ex.map(partial(_clip_figures, clips), entries)


def synthetic_video(out_dir: Path, quick: bool, jobs: int = 1) -> dict:
    """The issue's set through the whole vision pipeline (video -> tracks -> events)."""
    clips = out_dir / "events-clips"
    clips.mkdir(parents=True, exist_ok=True)
    entries = VIDEO_QUICK if quick else events_set()
    reports, per_clip, obs, obs_c, obs_i, tags, sigmas = [], {}, [], [], [], [], {}
    n_hidden = n_unseen = n_faint = n_unknown = 0
    for (name, scen, _, size, _), f in zip(entries, _each_clip(clips, entries, jobs), strict=True):
        if f is None:
            why = (clips / f"{name}.noclip.txt").read_text().strip()
            print(f"  skip {name}: {why}")
            continue
        reports.append(f["rep"])
        tags.append((name, scen, size))
        obs.append(f["obs"])
        obs_c.append(f["obs_c"])
        obs_i.append(f["obs_i"])
        h, u, fa, un = f["counts"]
        n_hidden, n_unseen, n_faint, n_unknown = (
            n_hidden + h,
            n_unseen + u,
            n_faint + fa,
            n_unknown + un,
        )
        sigmas[name] = round(f["sigma"], 3)
        per_clip[name] = f["clip"]
    total = combine(reports)
    sizes = " and ".join(sorted({c["size"] + "p" for c in per_clip.values()}, reverse=True))
    print(
        f"\n== events through rendered video: {len(reports)} generated clips ({sizes}, "
        "players occluding; exact calibration)"
    )
    print(total.table())
    observable = sum_types("contact (observable)", obs)
    print(observable_line(observable, n_hidden))
    cushions = sum_types("cushion (observable)", obs_c)
    print(cushion_line(cushions, n_unseen))
    impulse = sum_types("contact (impulse observable)", obs_i)
    noise = ", ".join(f"{v:.2f}" for v in sigmas.values())
    print(impulse_line(impulse, n_faint, f"measured per clip, mm/frame: {noise}"))
    sets = sg.subsets(tags, {e[0] for e in OLD_SET}, f"old {len(OLD_SET)} clips")
    parts = sg.combine_subsets(reports, sets)
    parts_obs = sg.sum_subsets(obs_i, sets, "contact (impulse observable)")
    print("  per subset (F1 per event type; contact obs: impulse observable contacts only):")
    print(sg.summary_table(parts, parts_obs))
    for name, c in per_clip.items():
        print(
            f"  {name:18s} {c['size']:>5s} {c['frames']:5d} frames, occluded rows "
            f"{c['occluded_rows']:.3f}, events F1 {c['events_f1']:.3f}, "
            f"pockets invented {c['pockets_invented']}"
        )
        off = [sh for sh in c["shots"] if abs(sh[0] - sh[1]) > 2 or abs(sh[2] - sh[3]) > 2]
        if off:
            print(
                "    shots off by more than 2 frames (start pred/truth, end pred/truth): "
                + str(off)
            )
        for m in c["shots_unmatched"] + c["first_contact_wrong"]:
            print(f"    {m}")
        for kind in ("missed", "extra"):
            for m in c[kind]:
                print(f"    {kind:6s} {m}")
    return {
        "report": total.to_json(),
        "contact_observable": obs_json(observable, n_hidden),
        "contact_impulse_observable": impulse_json(impulse, n_faint, sigmas, n_unknown),
        "cushion_observable": obs_json(cushions, n_unseen, "unseen_truth_cushions"),
        "clips": per_clip,
        "subsets": sg.summary_json(parts, parts_obs, "contact_impulse_observable"),
    }


def run(out_dir: Path, quick: bool) -> dict:
    items = list(_clips(quick))
    out = {"clips": [f"{n}/{s}" for n, s, *_ in items]}
    out["exact"] = _score("exact", items)
    noisy = [(n, s, c, m, degrade(t, 0.5, 0.01, s)) for n, s, c, m, t in items]
    out["noisy_0.5mm"] = _score("noisy (sigma 0.5 mm, 1 % rows dropped)", noisy, items)
    out["synthetic_video"] = synthetic_video(Path(out_dir), quick, bench_jobs())
    if not quick:
        out["video"] = _video(quick)
    return out
