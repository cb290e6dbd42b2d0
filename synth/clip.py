"""From a scenario to a clip: strokes simulated one after another, with the players'
approach, rest periods, re-spots by hand, skittles re-stood and camera knocks in between,
as one :class:`synth.world.WorldFrame` per video frame plus the exact shot records.

Units: table mm, seconds, frames at ``fps``; a stroke always starts on a frame boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.spatial.transform import Rotation

from contract.tables import TableSpec, load_table
from synth.params import Params
from synth.physics import SimResult, simulate
from synth.players import (
    APPROACH,
    SLEEVES,
    WITHDRAW,
    hand_path,
    lean_actor,
    pocket_lean_actors,
    reach_actors,
    stroke_actors,
)
from synth.skittles import FALL_TIME, SkittleSet
from synth.world import BallInfo, BallPose, SkittlePose, WorldFrame

Point = tuple[float, float]
POCKET_FALL = 0.25  # s for a pocketed ball to sink out of sight
FLIGHT = 0.5  # s a ball leaving the table stays in the picture
REST = 0.6  # s of stillness after a shot


@dataclass(frozen=True)
class Cover:
    """A player over the table while the balls rest, before a stroke (an occlusion test).

    ``kind`` ``reach``: aiming along the cushion nearest ``at`` with the cue tip at ``at``
    and the cue, bridge arm and torso over the balls behind it (``along`` +1 or -1: the
    aim points toward larger x, or y on a short cushion, or smaller); ``pocket``: bending over the pocket nearest
    ``at``. Held ``seconds`` in all (coming in and going out included)."""

    kind: Literal["reach", "pocket"]
    at: Point
    seconds: float = 3.0
    along: float = 1.0


@dataclass(frozen=True)
class Stroke:
    """One planned stroke: ``cue`` struck in ``direction`` (radians, table frame) at
    ``speed`` mm/s with tip offset ``spin`` (fraction of R: + follow, - draw).

    ``jump``: balls allowed to fly off over a cushion they hit fast; ``respot``: balls a
    hand puts on the table (id, mm) before the stroke; ``lean``: a body leans over the
    table first; ``knock``: the camera is knocked in the pause before the stroke;
    ``cover``: players over the table before it (:class:`Cover`)."""

    cue: str
    direction: float
    speed: float
    spin: float = 0.0
    player: str = "A"
    jump: tuple[str, ...] = ()
    respot: tuple[tuple[str, Point], ...] = ()
    lean: bool = False
    knock: bool = False
    cover: tuple[Cover, ...] = ()
    also: tuple[tuple[str, float, float, float], ...] = ()
    """More balls struck in the same shot, a lag (pyramid 8, 5-pin 3): (ball, direction,
    speed, delay s after ``cue``); the shot's truth then carries a ``lag`` event."""


@dataclass(frozen=True)
class ClipSpec:
    """A scenario's clip: table, game, balls and where they start, and the strokes."""

    scenario: str
    seed: int
    table: str
    game: str
    balls: tuple[BallInfo, ...]
    start: dict[str, Point]
    strokes: tuple[Stroke, ...]
    size: tuple[int, int] = (1280, 720)
    fps: float = 30.0
    skittles: bool = False
    description: str = ""
    after: tuple[tuple[str, Point], ...] = ()
    """Balls a hand puts back after the last stroke (id, mm)."""
    results: tuple[SimResult, ...] = field(default=(), compare=False, repr=False)
    """Simulations the scenario already ran for ``strokes`` (reused, else re-simulated)."""


@dataclass(frozen=True)
class ShotRecord:
    """A simulated stroke placed in the clip: its frames, events (clip time) and rest."""

    index: int
    player: str
    cue: str
    start_frame: int
    end_frame: int
    events: tuple[dict, ...]
    rest: dict[str, Point]


@dataclass(frozen=True)
class Clip:
    spec: ClipSpec
    table: TableSpec
    frames: tuple[WorldFrame, ...]
    shots: tuple[ShotRecord, ...]
    knocks: tuple[int, ...]  # frames at which the camera index steps up


def _random_rot(rng: np.random.Generator) -> np.ndarray:
    return Rotation.random(random_state=rng).as_matrix()


def _rodrigues(phi: np.ndarray) -> np.ndarray:
    return Rotation.from_rotvec(phi).as_matrix()


def _edge_outside(table: TableSpec, p: Point, out: float = 350.0) -> tuple[Point, Point]:
    """The nearest cushion point to ``p`` moved ``out`` mm off the table, and the unit
    vector pointing into the table there."""
    x, y = p
    d = {"front": x, "back": table.L - x, "left": y, "right": table.W - y}
    side = min(d, key=d.__getitem__)
    inward = {"front": (1.0, 0.0), "back": (-1.0, 0.0), "left": (0.0, 1.0), "right": (0.0, -1.0)}[
        side
    ]
    edge = {"front": (0.0, y), "back": (table.L, y), "left": (x, 0.0), "right": (x, table.W)}[side]
    return (edge[0] - inward[0] * out, edge[1] - inward[1] * out), inward


def pocket_inward(table: TableSpec, pk) -> np.ndarray:
    """Unit vector from pocket ``pk`` (a :class:`contract.tables.Pocket`) into the table:
    along the corner's diagonal, or square to the long cushion of a middle pocket."""
    sx = 1.0 if pk.x < table.L / 2 else -1.0
    sy = 1.0 if pk.y < table.W / 2 else -1.0
    if pk.corner:
        return np.array([sx, sy]) / math.sqrt(2)
    return np.array([0.0, sy])


def _edge_distance(table: TableSpec, p: Point, direction: float) -> float:
    """Distance (mm) from ``p`` along ``direction`` (radians) to the cushion-nose rectangle."""
    dx, dy = math.cos(direction), math.sin(direction)
    ts = []
    if dx > 1e-9:
        ts.append((table.L - p[0]) / dx)
    elif dx < -1e-9:
        ts.append(-p[0] / dx)
    if dy > 1e-9:
        ts.append((table.W - p[1]) / dy)
    elif dy < -1e-9:
        ts.append(-p[1] / dy)
    return max(0.0, min(ts)) if ts else 0.0


class _Builder:
    """Accumulates frames while the world state advances (internal to :func:`build_clip`)."""

    def __init__(self, spec: ClipSpec) -> None:
        self.spec = spec
        self.table = load_table(spec.table)
        self.R = self.table.ball_radius
        self.fps = spec.fps
        rng = np.random.default_rng([spec.seed, 11])
        self.rng = rng
        self.pos: dict[str, Point] = dict(spec.start)
        self.rot = {b.id: _random_rot(rng) for b in spec.balls}
        self.sk = SkittleSet.for_table(self.table) if spec.skittles else None
        self.fallen: dict[str, float] = {}  # skittle -> fall angle (lying)
        self.camera = 0
        self.knocks: list[int] = []
        self.frames: list[WorldFrame] = []
        self.shots: list[ShotRecord] = []
        self.sleeves = {
            "A": SLEEVES[int(rng.integers(len(SLEEVES)))],
            "B": SLEEVES[int(rng.integers(len(SLEEVES)))],
        }

    # ------------------------------------------------------------ frames
    def _rest_poses(self, extra: dict[str, BallPose] | None = None) -> dict[str, BallPose]:
        out = {
            b: BallPose(p[0], p[1], self.R, rot=tuple(self.rot[b].ravel().tolist()))
            for b, p in self.pos.items()
        }
        if extra:
            out.update(extra)
        return out

    def _skittle_poses(
        self, down_at: dict[str, tuple[float, str, float]] | None = None, t_rel: float = math.inf
    ) -> dict[str, SkittlePose]:
        if self.sk is None:
            return {}
        out = {}
        for name, (x, y) in self.table.skittle_spots.items():
            if name in self.fallen:
                out[name] = SkittlePose(x, y, True, self.fallen[name])
            elif down_at and name in down_at and t_rel >= down_at[name][0] + FALL_TIME * 0.5:
                out[name] = SkittlePose(x, y, True, down_at[name][2])
            else:
                out[name] = SkittlePose(x, y)
        return out

    def _emit(self, balls, actors=(), skittles=None) -> None:
        k = len(self.frames)
        self.frames.append(
            WorldFrame(
                index=k,
                t=k / self.fps,
                balls=balls,
                skittles=self._skittle_poses() if skittles is None else skittles,
                actors=tuple(actors),
                camera=self.camera,
            )
        )

    def hold(self, seconds: float) -> None:
        for _ in range(max(1, round(seconds * self.fps))):
            self._emit(self._rest_poses())

    # ------------------------------------------------------------ between strokes
    def respot(self, ball: str, at: Point, player: str) -> None:
        start, _ = _edge_outside(self.table, at)
        n = round(1.6 * self.fps)
        for i in range(n):
            s = i / (n - 1)
            actors, hp, h = hand_path(start, at, s, self.sleeves[player])
            extra = {}
            if s < 0.5:
                extra[ball] = BallPose(
                    hp[0],
                    hp[1],
                    self.R + h,
                    rot=tuple(self.rot[ball].ravel().tolist()),
                    on_table=False,
                )
            elif ball not in self.pos:
                self.pos[ball] = at
            self._emit(self._rest_poses(extra), actors)

    def restand_skittles(self, player: str) -> None:
        for name in sorted(self.fallen):
            spot = self.table.skittle_spots[name]
            start, _ = _edge_outside(self.table, spot)
            n = round(1.0 * self.fps)
            for i in range(n):
                s = i / (n - 1)
                actors, _, _ = hand_path(start, spot, s, self.sleeves[player])
                if s >= 0.5:
                    self.fallen.pop(name, None)
                self._emit(self._rest_poses(), actors)

    def lean(self, near: Point, player: str) -> None:
        start, inward = _edge_outside(self.table, near, out=0.0)
        n = round(1.2 * self.fps)
        for i in range(n):
            self._emit(
                self._rest_poses(), lean_actor(start, inward, i / (n - 1), self.sleeves[player])
            )

    def cover(self, c: Cover, player: str) -> None:
        """Frames of a player over the table (``c``) while every ball rests."""
        n = max(2, round(c.seconds * self.fps))
        sleeve = self.sleeves[player]
        if c.kind == "pocket":
            pk = min(self.table.pockets, key=lambda q: math.hypot(q.x - c.at[0], q.y - c.at[1]))
            inward = pocket_inward(self.table, pk)
            for i in range(n):
                actors = pocket_lean_actors((pk.x, pk.y), tuple(inward), i / (n - 1), sleeve)
                self._emit(self._rest_poses(), actors)
            return
        _, inward = _edge_outside(self.table, c.at, out=0.0)
        along = (abs(inward[1]) * c.along, abs(inward[0]) * c.along)
        for i in range(n):
            actors = reach_actors(c.at, along, inward, i / (n - 1), sleeve)
            self._emit(self._rest_poses(), actors)

    # ------------------------------------------------------------ the stroke
    def stroke(self, st: Stroke, res: SimResult) -> None:
        R, fps = self.R, self.fps
        c = self.pos[st.cue]
        sleeve = self.sleeves[st.player]
        lefty = bool(self.rng.random() < 0.15)
        edge = _edge_distance(self.table, c, st.direction + math.pi)
        n_app = round(APPROACH * fps)
        k0 = len(self.frames) + n_app
        for i in range(n_app):
            tau = (i - n_app) / fps
            self._emit(
                self._rest_poses(),
                stroke_actors(c, st.direction, tau, R, st.speed, sleeve, lefty, edge),
            )
        ids = res.ids
        for k in range(len(res.pos)):
            tau = k / fps
            balls: dict[str, BallPose] = {}
            for i, b in enumerate(ids):
                if k > 0:
                    self.rot[b] = _rodrigues(res.spin[k, i]) @ self.rot[b]
                rot = tuple(self.rot[b].ravel().tolist())
                if res.active[k, i]:
                    x, y = res.pos[k, i]
                    vx, vy = res.vel[k, i]
                    balls[b] = BallPose(float(x), float(y), R, float(vx), float(vy), rot)
                elif b in res.gone:
                    pose = self._gone_pose(res.gone[b], tau, rot)
                    if pose is not None:
                        balls[b] = pose
            actors = (
                stroke_actors(c, st.direction, tau, R, st.speed, sleeve, lefty, edge)
                if tau <= WITHDRAW
                else ()
            )
            self._emit(balls, actors, self._skittle_poses(res.skittle_down, tau))
        end = k0 + len(res.pos) - 1
        t0 = k0 / fps
        events = []
        for e in res.events:
            t = t0 + e["t"]
            ev = {k: v for k, v in e.items() if k != "t"}
            events.append({"frame": round(t * fps), "t": round(t, 4), **ev})
        if st.also:
            events = lag_truth(self.table, st, res, k0, fps, c, events)
        self.pos = res.rest()
        for name, (_, _, ang) in res.skittle_down.items():
            self.fallen[name] = ang
        self.shots.append(
            ShotRecord(
                len(self.shots) + 1,
                st.player,
                st.cue,
                k0,
                end,
                tuple(events),
                {b: (round(p[0], 1), round(p[1], 1)) for b, p in self.pos.items()},
            )
        )

    def _gone_pose(self, gone, tau: float, rot) -> BallPose | None:
        tg, where, p, v = gone
        s = tau - tg
        if s < 0:
            return None
        if where == "off_table":
            if s > FLIGHT:
                return None
            sp = math.hypot(*v)
            z = self.R + 0.3 * sp * s - 0.5 * 9810.0 * s * s
            if z < -self.R:
                return None
            return BallPose(p[0] + v[0] * s, p[1] + v[1] * s, z, v[0], v[1], rot, on_table=False)
        if s > POCKET_FALL:
            return None
        pk = self.table.pocket(where).centre
        f = s / POCKET_FALL
        x = p[0] + (pk[0] - p[0]) * min(1.0, 2 * f)
        y = p[1] + (pk[1] - p[1]) * min(1.0, 2 * f)
        return BallPose(x, y, self.R - 2.2 * self.R * f, rot=rot, on_table=False)


def lag_truth(
    table: TableSpec,
    st: Stroke,
    res: SimResult,
    k0: int,
    fps: float,
    at: Point,
    events: list[dict],
) -> list[dict]:
    """``events`` (clip frames) of a two-ball stroke with the exact lag truth added: the
    ``lag`` event (the left half's ball first, ``uncertainty_mm`` 0.01: the truth is
    exact), each strike's place, and the first frame each ball's centre is past
    ``y = W/2`` (``cross``, ``line: "half"``)."""
    mid = table.W / 2
    starts = {st.cue: at} | {b: tuple(res.pos[0, res.ids.index(b)]) for b, *_ in st.also}
    balls = sorted(starts, key=lambda b: starts[b][1])[:2]
    t0 = k0 / fps
    out = [{"frame": k0, "t": round(t0, 4), "type": "lag", "balls": balls, "uncertainty_mm": 0.01}]
    for b in balls:
        i = res.ids.index(b)
        side = starts[b][1] < mid
        past = (res.pos[:, i, 1] > mid) if side else (res.pos[:, i, 1] < mid)
        hit = np.flatnonzero(past & res.active[:, i])
        if len(hit):
            k = int(hit[0])
            out.append({"frame": k0 + k, "t": round(t0 + k / fps, 4), "type": "cross",
                        "ball": b, "line": "half"})  # fmt: skip
    for e in events:
        if e["type"] == "strike":
            e = e | {"at": [round(float(v), 1) for v in starts[e["ball"]]]}
        out.append(e)
    return sorted(out, key=lambda e: (e["frame"], e["type"] != "lag"))


def build_clip(spec: ClipSpec, params: Params | None = None) -> Clip:
    """Simulate every stroke of ``spec`` and lay the clip out frame by frame."""
    b = _Builder(spec)
    b.hold(0.5)
    for i, st in enumerate(spec.strokes):
        if st.knock and i > 0:
            b.hold(0.3)
            b.camera += 1
            b.knocks.append(len(b.frames))
        for ball, at in st.respot:
            b.respot(ball, at, st.player)
        if b.fallen:
            b.restand_skittles(st.player)
        for c in st.cover:
            b.cover(c, st.player)
        if st.lean:
            b.lean(b.pos[st.cue], st.player)
        if i < len(spec.results):
            res = spec.results[i]
        else:
            sk = SkittleSet.for_table(b.table) if spec.skittles else None
            res = simulate(
                b.table,
                b.pos,
                st.cue,
                st.direction,
                st.speed,
                st.spin,
                spec.fps,
                st.jump,
                sk,
                params,
                st.also,
            )
        b.stroke(st, res)
        b.hold(REST)
    if spec.after:
        for ball, at in spec.after:
            b.respot(ball, at, spec.strokes[-1].player if spec.strokes else "A")
        b.hold(REST)
    return Clip(spec, b.table, tuple(b.frames), tuple(b.shots), tuple(b.knocks))


def replace_size(spec: ClipSpec, size: tuple[int, int]) -> ClipSpec:
    """The same clip for another picture size (the world and truth stay the same)."""
    return ClipSpec(**{**spec.__dict__, "size": tuple(size)})


def first_strokes(spec: ClipSpec, n: int) -> ClipSpec:
    """The clip cut after its first ``n`` strokes (a shorter clip of the same world)."""
    if n >= len(spec.strokes):
        return spec
    return ClipSpec(
        **{**spec.__dict__, "strokes": spec.strokes[:n], "results": spec.results[:n], "after": ()}
    )
