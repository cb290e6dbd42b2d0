"""A small deterministic 2D billiards simulator (table mm, seconds, mm/s).

Balls slide, then roll (sliding friction on the slip of the contact point, a rolling
resistance plus a light speed-proportional cloth drag), collide with each other
(equal masses, restitution ``e_ball``, no friction between balls) and with the cushion
noses of :attr:`contract.tables.TableSpec.cushion_segments` and the pocket jaws
(restitution ``e_cushion``), drop into pockets when their centre enters a pocket's drop
circle, fly off the table when a scenario allows it, and knock over 5-pin skittles.

Integration: fixed sub-steps of ``1 / (fps * substeps)`` s; within a sub-step every ball
moves on a straight line, so the time of every impact is solved exactly (quadratics) and
the earliest is resolved first; friction is applied at the end of the sub-step (it only
ever lowers speeds, so the energy never grows). Spin is carried as the *rolling velocity*
``w`` (= omega x R, mm/s) of the ball's spin: rolling means ``w == v``; a centre-ball hit
has ``w == 0`` at first (stun, then slide into roll), follow / draw start with ``w`` along /
against the strike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contract.tables import TableSpec
from synth.params import Params
from synth.rails import Rails, pocket_targets, rails_for  # noqa: F401 (re-exported)
from synth.skittles import SkittleSet

G_MM = 9810.0  # gravity mm/s^2


@dataclass(frozen=True)
class SimResult:
    """A simulated shot sampled at video-frame times ``t0 + k / fps``.

    ``pos`` (K, N, 2) mm, ``vel`` (K, N, 2) mm/s, ``spin`` (K, N, 3) rotation vector (rad)
    turned during frame k-1 -> k, ``active`` (K, N) on the cloth; ``events`` are dicts with
    ``t`` (s since the strike) and the contract fields; ``skittle_down`` maps skittle ->
    (t, by, angle). ``duration``: seconds until everything is at rest.
    """

    ids: tuple[str, ...]
    pos: np.ndarray
    vel: np.ndarray
    spin: np.ndarray
    active: np.ndarray
    events: list[dict]
    gone: dict[str, tuple[float, str, tuple[float, float], tuple[float, float]]]
    skittle_down: dict[str, tuple[float, str, float]]
    duration: float
    energy: np.ndarray = field(repr=False)

    def rest(self) -> dict[str, tuple[float, float]]:
        """Final positions (mm) of the balls still on the table."""
        return {
            b: (float(self.pos[-1, i, 0]), float(self.pos[-1, i, 1]))
            for i, b in enumerate(self.ids)
            if self.active[-1, i]
        }


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n, 1)
    return i, j


def _first_root(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Earliest t >= 0 of a t^2 + b t + c = 0 while approaching (b < 0); inf if none.

    ``c <= 0`` with ``b < 0`` (already touching and closing) gives 0."""
    out = np.full(a.shape, np.inf)
    disc = b * b - 4 * a * c
    ok = (b < 0) & (disc >= 0) & (a > 1e-12)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (-b - np.sqrt(np.where(ok, disc, 0.0))) / (2 * np.where(ok, a, 1.0))
    out[ok] = np.maximum(t[ok], 0.0)
    out[(b < 0) & (c <= 0)] = 0.0
    return out


class Simulator:
    """Simulates one shot on ``table`` from given positions; see :func:`simulate`."""

    def __init__(self, table: TableSpec, params: Params | None = None) -> None:
        self.table = table
        self.p = params or Params()
        self.R = table.ball_radius
        self.rails = rails_for(table, self.p)
        self._pocket_reach = 2.0 * table.ball_mm
        seg = self.rails.b - self.rails.a
        self.seg_len = np.hypot(seg[:, 0], seg[:, 1])
        self.seg_dir = seg / self.seg_len[:, None]
        self._fps = 30.0  # the video's frame rate of the run under way (impulses per frame)

    # ---------------------------------------------------------------- impacts
    def _near_edge(self, p: np.ndarray, reach: np.ndarray) -> np.ndarray:
        """Mask of balls that could touch a rail, jaw or drop line within ``reach`` mm."""
        m = self.R + 2.0 + reach
        L, W = self.table.L, self.table.W
        return (
            (p[:, 0] < m)
            | (p[:, 0] > L - m)
            | (p[:, 1] < m)
            | (p[:, 1] > W - m)
            | (
                (np.abs(p[:, 0] - L / 2) < m + self.table.ball_mm)
                & ((p[:, 1] < 2 * m) | (p[:, 1] > W - 2 * m))
            )
            if len(self.rails.pockets)
            else ((p[:, 0] < m) | (p[:, 0] > L - m) | (p[:, 1] < m) | (p[:, 1] > W - m))
        )

    def _ball_ball(self, pos, vel, act, horizon):
        i, j = self._pi, self._pj
        ok = act[i] & act[j] & (self._moving[i] | self._moving[j])
        dp = pos[j] - pos[i]
        dv = vel[j] - vel[i]
        a = (dv * dv).sum(1)
        b = 2 * (dp * dv).sum(1)
        c = (dp * dp).sum(1) - (2 * self.R) ** 2
        t = _first_root(a, b, c)
        t[~ok] = np.inf
        k = int(np.argmin(t)) if len(t) else 0
        return (t[k], int(i[k]), int(j[k])) if len(t) and t[k] <= horizon else None

    def _ball_rail(self, pos, vel, idx, horizon):
        """Earliest hit of moving balls ``idx`` on a segment (face) or a nose end point."""
        best = None
        if not len(idx):
            return None
        p, v = pos[idx], vel[idx]
        a, d = self.rails.a, self.seg_dir
        nrm = np.stack([-d[:, 1], d[:, 0]], 1)  # (S,2)
        rel = p[:, None, :] - a[None]  # (B,S,2)
        dist = (rel * nrm[None]).sum(2)  # signed distance
        vn = (v[:, None, :] * nrm[None]).sum(2)
        side = np.sign(dist)
        side[side == 0] = -np.sign(vn[side == 0])
        closing = vn * side < 0
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (np.abs(dist) - self.R) / np.abs(vn)
        t = np.where(closing, np.maximum(t, 0.0), np.inf)
        t[~np.isfinite(t)] = np.inf
        hit = p[:, None, :] + v[:, None, :] * np.where(np.isfinite(t), t, 0)[..., None]
        along = ((hit - a[None]) * d[None]).sum(2)
        t[(along < 0) | (along > self.seg_len[None])] = np.inf
        t[np.abs(dist) < self.R - 1.0] = np.inf  # behind a facing already: ignore that face
        if t.size:
            k = np.unravel_index(int(np.argmin(t)), t.shape)
            if t[k] <= horizon:
                n = nrm[k[1]] * side[k]
                best = (float(t[k]), int(idx[k[0]]), n, self.rails.names[k[1]])
        if len(self.rails.points):
            q = self.rails.points
            dp = p[:, None, :] - q[None]
            aa = np.broadcast_to((v * v).sum(1)[:, None], dp.shape[:2])
            bb = 2 * (dp * v[:, None, :]).sum(2)
            cc = (dp * dp).sum(2) - self.R**2
            tp = _first_root(aa, bb, cc)
            k = np.unravel_index(int(np.argmin(tp)), tp.shape)
            if tp[k] <= horizon and (best is None or tp[k] < best[0]):
                hitp = p[k[0]] + v[k[0]] * tp[k]
                n = hitp - q[k[1]]
                best = (
                    float(tp[k]),
                    int(idx[k[0]]),
                    n / np.hypot(*n),
                    self.rails.point_names[k[1]],
                )
        return best

    def _ball_pocket(self, pos, vel, idx, horizon):
        """Earliest crossing of a drop line by a moving ball near that pocket."""
        if not len(idx) or not len(self.rails.pockets):
            return None
        p, v = pos[idx], vel[idx]
        rel = p[:, None, :] - self.rails.drop_p[None]
        dist = (rel * self.rails.drop_n[None]).sum(2)  # < 0 on the table side
        vn = (v[:, None, :] * self.rails.drop_n[None]).sum(2)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(vn > 0, -dist / vn, np.inf)
        t = np.where(dist >= 0, np.where(vn > 0, 0.0, np.inf), t)
        near = np.hypot(rel[..., 0], rel[..., 1]) < self._pocket_reach + np.abs(vn) * horizon
        t[~near] = np.inf
        k = np.unravel_index(int(np.argmin(t)), t.shape)
        return (float(t[k]), int(idx[k[0]]), k[1]) if t[k] <= horizon else None

    # ---------------------------------------------------------------- run
    def run(
        self,
        positions: dict[str, tuple[float, float]],
        cue: str,
        velocity: tuple[float, float],
        spin: tuple[float, float] = (0.0, 0.0),
        fps: float = 30.0,
        jump: tuple[str, ...] = (),
        skittles: SkittleSet | None = None,
        later: tuple[tuple[str, float, tuple[float, float], tuple[float, float]], ...] = (),
    ) -> SimResult:
        """Strike ball ``cue`` with ``velocity`` (mm/s) and rolling-spin velocity ``spin``
        (mm/s) at t = 0 and simulate until every ball is at rest. ``later``: more balls
        struck in the same shot (a lag): (ball, seconds after t = 0, velocity, spin)."""
        if cue not in positions:
            raise ValueError(f"cue ball {cue!r} is not on the table")
        ids = tuple(positions)
        n = len(ids)
        P = self.p
        R = self.R
        pos = np.array([positions[b] for b in ids], float).reshape(n, 2)
        vel = np.zeros((n, 2))
        w = np.zeros((n, 2))
        ci = ids.index(cue)
        vel[ci] = velocity
        w[ci] = spin
        act = np.ones(n, bool)
        self._pi, self._pj = _pairs(n)
        self._fps = fps
        jumpers = np.array([b in jump for b in ids])
        dt = 1.0 / (fps * P.substeps)
        events: list[dict] = [{"t": 0.0, "type": "strike", "ball": cue}]
        gone: dict = {}
        sk = skittles.copy() if skittles is not None else None
        frames_pos, frames_vel, frames_spin, frames_act, energy = (
            [pos.copy()],
            [vel.copy()],
            [],
            [act.copy()],
            [],
        )
        energy.append(self._energy(vel, w, act))
        phi = np.zeros((n, 3))
        t = 0.0
        step = 0
        cl = self.table.centre_line_x
        pending = sorted(later, key=lambda s: s[1])
        while True:
            while pending and pending[0][1] <= t + 1e-9:
                b2, _, v2, w2 = pending.pop(0)
                k2 = ids.index(b2)
                vel[k2], w[k2] = v2, w2
                events.append({"t": t, "type": "strike", "ball": b2})
            speed = np.hypot(vel[:, 0], vel[:, 1])
            self._moving = act & ((speed > 0) | (np.hypot(w[:, 0], w[:, 1]) > 0))
            remaining = dt
            guard = 0
            while remaining > 0:
                idx = np.flatnonzero(self._moving & (speed > 0))
                cand = []
                bb = self._ball_ball(pos, vel, act, remaining)
                if bb:
                    cand.append((bb[0], 0, bb))
                edge = idx[self._near_edge(pos[idx], speed[idx] * remaining)]
                br = self._ball_rail(pos, vel, edge, remaining)
                if br:
                    cand.append((br[0], 1, br))
                bp = self._ball_pocket(pos, vel, edge, remaining)
                if bp:
                    cand.append((bp[0], 2, bp))
                if sk is not None:
                    bs = sk.first_reach(pos, vel, idx, remaining, R)
                    if bs:
                        cand.append((bs[0], 3, bs))
                h = min(cand, key=lambda c: (c[0], c[1])) if cand else None
                adv = remaining if h is None else h[0]
                old = pos.copy()
                pos[act] += vel[act] * adv
                self._crossings(old, pos, act, cl, t + dt - remaining, adv, ids, events)
                remaining -= adv
                tnow = t + dt - remaining
                if h is None:
                    break
                guard += 1
                if guard > 400:  # a jam of resting contacts: stop everything that closes
                    break
                kind, hit = h[1], h[2]
                if kind == 0:
                    self._collide(hit[1], hit[2], pos, vel, ids, events, tnow)
                elif kind == 1:
                    _, b, nrm, name = hit
                    if jumpers[b] and np.hypot(*vel[b]) >= P.jump_speed:
                        events.append({"t": tnow, "type": "off_table", "ball": ids[b]})
                        gone[ids[b]] = (tnow, "off_table", tuple(pos[b]), tuple(vel[b]))
                        act[b] = False
                        vel[b] = 0
                        w[b] = 0
                    else:
                        vn = vel[b] @ nrm
                        if vn < 0:
                            vel[b] -= (1 + P.e_cushion) * vn * nrm
                        wn = w[b] @ nrm
                        if wn < 0:  # the spin into the cushion is killed by the impact
                            w[b] -= wn * nrm
                        events.append(
                            {"t": tnow, "type": "cushion", "ball": ids[b], "cushion": name}
                        )
                elif kind == 2:
                    _, b, q = hit
                    name = self.rails.pockets[q]
                    events.append({"t": tnow, "type": "pocket", "ball": ids[b], "pocket": name})
                    gone[ids[b]] = (tnow, name, tuple(pos[b]), tuple(vel[b]))
                    act[b] = False
                    vel[b] = 0
                    w[b] = 0
                else:
                    _, b, s = hit
                    for ev in sk.knock(s, ids[b], tnow, vel[b]):
                        events.append(ev)
                speed = np.hypot(vel[:, 0], vel[:, 1])
                self._moving = act & ((speed > 0) | (np.hypot(w[:, 0], w[:, 1]) > 0))
            t += dt
            step += 1
            phi[:, 0] += -w[:, 1] * dt / R
            phi[:, 1] += w[:, 0] * dt / R
            self._friction(vel, w, act, dt)
            if step % P.substeps == 0:
                frames_pos.append(pos.copy())
                frames_vel.append(vel.copy())
                frames_spin.append(phi.copy())
                frames_act.append(act.copy())
                energy.append(self._energy(vel, w, act))
                phi[:] = 0
                still = not np.any(act & ((np.abs(vel).sum(1) > 0) | (np.abs(w).sum(1) > 0)))
                if (still and not pending and (sk is None or sk.settled(t))) or t > P.max_time:
                    break
        events.sort(key=lambda e: e["t"])
        spin_arr = np.array([np.zeros((n, 3))] + frames_spin)
        return SimResult(
            ids=ids,
            pos=np.array(frames_pos),
            vel=np.array(frames_vel),
            spin=spin_arr,
            active=np.array(frames_act),
            events=events,
            gone=gone,
            skittle_down=sk.down if sk is not None else {},
            duration=t,
            energy=np.array(energy),
        )

    def _collide(self, i, j, pos, vel, ids, events, tnow):
        d = pos[j] - pos[i]
        n = d / np.hypot(*d)
        vi, vj = vel[i] @ n, vel[j] @ n
        if vi - vj <= 0:
            return
        e = self.p.e_ball
        ni = 0.5 * (1 - e) * vi + 0.5 * (1 + e) * vj
        nj = 0.5 * (1 + e) * vi + 0.5 * (1 - e) * vj
        si, sj = np.hypot(*vel[i]), np.hypot(*vel[j])
        vel[i] += (ni - vi) * n
        vel[j] += (nj - vj) * n
        first, second = (i, j) if si >= sj else (j, i)
        at = pos[i] + n * self.R
        events.append(
            {
                "t": tnow,
                "type": "contact",
                "balls": [ids[first], ids[second]],
                "at": [round(float(at[0]), 1), round(float(at[1]), 1)],
                # velocity each ball took (equal masses: the same size), mm per video frame
                "impulse": round(abs(float(ni - vi)) / self._fps, 4),
            }
        )

    def _crossings(self, old, new, act, cl, t0, adv, ids, events):
        s = (old[:, 0] - cl) * (new[:, 0] - cl)
        for b in np.flatnonzero(act & (s < 0)):
            f = (cl - old[b, 0]) / (new[b, 0] - old[b, 0])
            events.append({"t": t0 + f * adv, "type": "cross", "ball": ids[b], "line": "centre"})

    def _friction(self, vel, w, act, dt):
        P = self.p
        slip = vel - w
        sn = np.hypot(slip[:, 0], slip[:, 1])
        sliding = act & (sn > 1e-6)
        if np.any(sliding):
            ds = 3.5 * P.mu_slide * G_MM * dt  # slip decay this step
            k = sliding
            frac = np.minimum(1.0, ds / np.maximum(sn[k], 1e-12))
            u = slip[k]
            # slip drops by frac; v loses 2/7 of that, w gains 5/7 (solid sphere)
            vel[k] -= (2.0 / 7.0) * frac[:, None] * u
            w[k] += (5.0 / 7.0) * frac[:, None] * u
            done = np.flatnonzero(k)[frac >= 1.0]
            w[done] = vel[done]
        rolling = act & ~sliding
        if np.any(rolling):
            sp = np.hypot(vel[rolling, 0], vel[rolling, 1])
            new = np.maximum(sp - (P.mu_roll * G_MM + P.drag * sp) * dt, 0.0)
            f = np.where(sp > 0, new / np.maximum(sp, 1e-12), 0.0)
            f[new < P.v_rest] = 0.0
            vel[rolling] *= f[:, None]
            w[rolling] = vel[rolling]

    @staticmethod
    def _energy(vel, w, act):
        """Kinetic energy per unit mass (mm^2/s^2): translation plus spin (2/5 m w^2 / 2)."""
        return float(0.5 * ((vel[act] ** 2).sum() + 0.4 * (w[act] ** 2).sum()))


def simulate(
    table: TableSpec,
    positions: dict[str, tuple[float, float]],
    cue: str,
    direction: float,
    speed: float,
    spin: float = 0.0,
    fps: float = 30.0,
    jump: tuple[str, ...] = (),
    skittles: SkittleSet | None = None,
    params: Params | None = None,
    also: tuple[tuple[str, float, float, float], ...] = (),
) -> SimResult:
    """Strike ``cue`` in ``direction`` (radians in the table frame) at ``speed`` mm/s.

    ``spin``: tip offset as a fraction of R (+ follow, - draw, |spin| <= 0.6). ``also``:
    more balls struck in the same shot (a lag), each (ball, direction, speed, delay s)."""

    def vw(direction: float, speed: float) -> tuple[tuple, tuple]:
        d = np.array([np.cos(direction), np.sin(direction)])
        w = d * speed * 2.5 * float(np.clip(spin, -0.6, 0.6))
        return tuple(d * speed), tuple(w)

    v, w = vw(direction, speed)
    later = tuple((b, dt, *vw(a, sp)) for b, a, sp, dt in also)
    sim = Simulator(table, params)
    return sim.run(positions, cue, v, w, fps, jump, skittles, later)
