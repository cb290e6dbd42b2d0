"""Ground truth of a synthetic clip (contract §9): NAME.truth.json (MATCH.json with the
exact events, rest positions and, when the adjudicator is present, verdicts),
NAME.truth.csv (TRACKS.csv of the exact positions every frame), NAME.calib.json (the exact
calibration of camera 0; NAME.calib.1.json after a knock) and NAME.mp4.

Positions table mm (ball centres projected vertically onto the cloth); ``u``, ``v`` the
recorded (distorted) pixels of the ball centre, R above the cloth; skittles: their spot,
``u``, ``v`` of the pin's middle (half its height standing, half its width lying) and the
``state`` column (standing / fallen). Contacts of one pair within two frames are merged
(:func:`coalesce_contacts`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from contract.calib import write_calibration
from contract.events import Event
from contract.match import FrameTime, Match, Shot, VideoInfo, write_match
from contract.tracks import Tracks, write_tracks
from synth.clip import Clip
from synth.world import WorldFrame


def _ft(frame: int, fps: float) -> FrameTime:
    return FrameTime(frame=frame, t=round(frame / fps, 4))


def coalesce_contacts(
    events: tuple[Event, ...], fps: float, frames: float = 2.0
) -> tuple[Event, ...]:
    """Contacts of the same two balls closer than ``frames`` video frames are one contact
    in the truth: a camera cannot separate them (a rack's balls touch again and again
    within microseconds of the break). The first, with its striking order, is kept; its
    ``impulse`` (mm/frame, when the simulator wrote one) is the sum of the merged ones'
    (one pair pushes apart along nearly the same line each time)."""
    out: list[Event] = []
    seen: list[tuple[float, frozenset, int]] = []
    for e in events:
        if e.type == "contact":
            key = frozenset(e.balls)
            kept = next((i for t, k, i in seen if k == key and e.t - t <= frames / fps), None)
            if kept is not None:
                if e.impulse is not None and out[kept].impulse is not None:
                    total = round(out[kept].impulse + e.impulse, 4)
                    out[kept] = out[kept].model_copy(update={"impulse": total})
                continue
            seen.append((e.t, key, len(out)))
        out.append(e)
    return tuple(out)


def truth_match(clip: Clip, judge: bool = True) -> Match:
    """The truth MATCH.json of ``clip``; verdicts from ``adjudicator.engine.judge_match``
    when that module exists and ``judge`` is set."""
    fps = clip.spec.fps
    shots = tuple(
        Shot(
            index=s.index,
            player=s.player,
            start=_ft(s.start_frame, fps),
            end=_ft(s.end_frame, fps),
            cue_ball=s.cue,
            events=coalesce_contacts(tuple(Event.model_validate(e) for e in s.events), fps),
            rest=s.rest,
        )
        for s in clip.shots
    )
    top = tuple(Event(frame=k, t=round(k / fps, 4), type="camera_moved") for k in clip.knocks)
    match = Match(
        game=clip.spec.game,
        table=clip.table.name,
        video=VideoInfo(fps=fps, frames=len(clip.frames)),
        shots=shots,
        events=top,
    )
    if judge:
        judge_match = _judge()
        if judge_match is not None:
            try:
                match, _ = judge_match(match)
            except (ValueError, KeyError, TypeError) as e:  # truth stays valid without verdicts
                msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                print(f"tablemon synth: no verdicts ({msg})", file=sys.stderr)
    return match


def _judge():
    try:
        mod = importlib.import_module("adjudicator.engine")
    except ModuleNotFoundError:
        return None
    return getattr(mod, "judge_match", None)


def cameras_for(clip: Clip) -> list:
    """The clip's camera poses: a random camera from the seed, then one knock per knock."""
    from synth.camera import knocked, random_camera

    rng = np.random.default_rng([clip.spec.seed, 7])
    cams = [random_camera(clip.table, clip.spec.size, rng)]
    for _ in clip.knocks:
        cams.append(knocked(cams[-1], rng))
    return cams


def truth_tracks(clip: Clip, cameras: list | None, visible: list[dict[str, bool]] | None) -> Tracks:
    """TRACKS.csv rows for every ball on the cloth (and every skittle) in every frame.

    ``visible[k]`` (from the renderer) says which ids frame k shows; without it every id
    counts as visible. Without ``cameras`` ``u``, ``v`` stay empty."""
    R = clip.table.ball_radius
    hs, ws = clip.table.skittle_height_mm, clip.table.skittle_width_mm
    rows: list[tuple] = []
    for f in clip.frames:
        ids, xyz, xy, state = [], [], [], []
        for b in sorted(f.balls):
            p = f.balls[b]
            if p.on_table:
                ids.append(b)
                xy.append((p.x, p.y))
                xyz.append((p.x, p.y, R))
                state.append("")
        for s in sorted(f.skittles):
            p = f.skittles[s]
            if p.on_table:
                ids.append(s)
                xy.append((p.x, p.y))
                xyz.append((p.x, p.y, ws / 2 if p.fallen else hs / 2))
                state.append("fallen" if p.fallen else "standing")
        if not ids:
            continue
        if cameras is not None:
            uv = cameras[f.camera].project(np.array(xyz, float))
        else:
            uv = np.full((len(ids), 2), np.nan)
        vis = visible[f.index] if visible is not None else {}
        for i, ident in enumerate(ids):
            seen = vis.get(ident, True) if visible is not None else True
            u, v = uv[i] if seen else (np.nan, np.nan)
            row = (f.index, f.t, ident, xy[i][0], xy[i][1], int(seen), u, v)
            rows.append((*row, state[i]) if state[i] else row)
    return Tracks.from_rows(rows)


class _Recording:
    """Wraps a renderer and keeps each frame's visibility (so a clip is rendered once)."""

    def __init__(self, renderer) -> None:
        self.inner = renderer
        self.visible: list[dict[str, bool]] = []

    def render(self, frame: WorldFrame):
        img, vis = self.inner.render(frame)
        self.visible.append(vis)
        return img, vis


def _frames(clip: Clip) -> Iterator[WorldFrame]:
    yield from clip.frames


def write_truth(clip: Clip, out: str | Path, name: str, render: bool = True) -> list[Path]:
    """Write NAME.truth.json, NAME.truth.csv, NAME.calib.json (+ .calib.N.json after
    knocks) and, with ``render``, NAME.mp4 into ``out``. Returns the paths written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        cameras = cameras_for(clip)
    except ModuleNotFoundError:
        cameras = None
        if render:
            raise ValueError("synth.camera is not available: cannot render") from None
    visible = None
    if render:
        from synth.render import Renderer, write_clip

        balls = {b.id: b for b in clip.spec.balls}
        rec = _Recording(Renderer(clip.table, cameras, balls, clip.spec.seed))
        path = out / f"{name}.mp4"
        write_clip(path, _frames(clip), rec, clip.spec.fps)
        visible = rec.visible
        written.append(path)
    match = truth_match(clip)
    write_match(out / f"{name}.truth.json", match)
    write_tracks(out / f"{name}.truth.csv", truth_tracks(clip, cameras, visible))
    written += [out / f"{name}.truth.json", out / f"{name}.truth.csv"]
    if cameras is not None:
        for i, cam in enumerate(cameras):
            p = out / (f"{name}.calib.json" if i == 0 else f"{name}.calib.{i}.json")
            write_calibration(p, cam.to_calibration(clip.table))
            written.append(p)
    return written
