"""Events at the table's edge, for :class:`vision.events.finder.EventFinder`: cushion bounces
(the V of a ball's distance to a cushion nose, and a kink against a pocket's jaw just
before the ball drops), and a ball leaving the surface (pocket, dated where its centre
crossed the mouth line, or off the table); and centre-line crossings (a ball falling into
a middle pocket may still cross it). Positions table mm, times fractional frames
relative to the series' first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from contract.events import Event, EventType
from vision.base.geometry import MAX_BALL_SPEED_MM_S, pocket_shelf_mm
from vision.events.motion import Movement

if TYPE_CHECKING:
    from contract.tables import TableSpec
    from vision.events.series import Series
    from vision.events.settings import ShotSettings

OFF_TABLE_MM_S = 800.0  # a ball leaves the table over a cushion only faster than this
JAW_MM = 2.0  # a jaw bends a ball at least this far (mm) before the mouth line
DROP_PAST_R = 0.25  # a ball drops when its centre is this far (radii) past a pocket's mouth
# a path runs into a jaw's nose end when it passes its point closer than R less this many
# radii (plus 2 noise sigmas) before its centre is JAW_PAST_R radii past the mouth line:
# the spec's mouth is measured between the rubber noses above the ball's equator, and a
# ball rolls past a rounded nose that overlaps its path by less. On the synthetic set's
# pocketed balls the touches after the last sample overlap by 8.8 to 17.4 mm there and the
# balls that touched nothing by at most 4.8 mm (R = 34 mm).
JAW_OVERLAP_R = 0.2
JAW_PAST_R = 0.1


def _comes_on(g: np.ndarray, k: int, floor: float) -> bool:
    """After the V at sample ``k`` of gaps ``g`` (mm to a cushion line) the ball comes on
    towards the cushion again: the two samples after ``k + 1`` (or the one there is) lie
    more than ``floor`` (mm, the noise) nearer the line than sample ``k + 1``, short of
    it. A bounced ball goes on away from the cushion (or past the line, falling into a
    pocket by the jaw it touched); this V was one sample pulled aside (a blob merged with
    a ball it struck), the ball still on its way to the cushion."""
    after = g[k + 2 : k + 4]
    after = after[~np.isnan(after)]
    if k + 1 >= len(g) or np.isnan(g[k + 1]) or len(after) == 0:
        return False
    return bool(((after < g[k + 1] - floor) & (after >= 0.0)).all())


class EdgeEvents:
    """Mixin: needs ``s`` (Series), ``table``, ``R``, ``settings`` and ``_ev``."""

    s: Series
    table: TableSpec
    R: float
    settings: ShotSettings

    def _ev(self, f: float, type_: EventType, **kw) -> Event:  # pragma: no cover - overridden
        raise NotImplementedError

    def cushion_hits(self, b: int, m: Movement) -> list[tuple[float, str]]:
        """(fractional frame, cushion) where ball ``b`` bounced off a cushion nose during
        ``m``: its distance to the nose less R has a V-shaped minimum near 0. The three
        samples after the run count as the retreat's (a slow ball leaving the cushion
        creeps below the motion threshold); a V's bottom lies within the run."""
        xy = self.s.xy[b, m.first : m.last + 5]
        seen = self.s.visible[b, m.first : m.last + 5]
        if len(xy) < 3:
            return []
        last_k = m.last - m.first
        R, L, W = self.R, self.table.L, self.table.W
        gaps = {
            "front": xy[:, 0] - R,
            "back": L - R - xy[:, 0],
            "left": xy[:, 1] - R,
            "right": W - R - xy[:, 1],
        }
        reach = MAX_BALL_SPEED_MM_S / self.s.fps  # mm a ball can travel in one frame
        out = []
        for name, g in gaps.items():
            for k in range(1, min(len(g) - 1, last_k + 1)):
                g0, g1, g2 = g[k - 1], g[k], g[k + 1]
                if np.isnan(g0) or np.isnan(g1) or np.isnan(g2):
                    continue
                if not (g1 <= g0 and g1 < g2):
                    continue
                app, rec = g0 - g1, g2 - g1
                floor = max(0.3, 4.0 * self.settings.sigma_mm)
                # a bounce halfway between two samples leaves them level, and a slow ball
                # moves less than the noise in one frame: look over two frames there
                if app < floor and k >= 2 and not np.isnan(g[k - 2]):
                    app = g[k - 2] - g1 if g[k - 2] > g0 else app
                if rec < floor and k + 2 < len(g) and not np.isnan(g[k + 2]):
                    rec = g[k + 2] - g1 if g[k + 2] > g2 else rec
                if (app < floor or rec < floor) and not self._v_evidence(g, seen, k, app, floor):
                    continue
                app, rec = max(app, floor), max(rec, floor)
                if g1 > 0.3 * R + max(app, rec) + 1.0 + 3.0 * self.settings.sigma_mm:
                    continue
                if g1 + min(g0, g2) > reach:  # to the nose and back in a frame: no ball is
                    continue  # that fast (a ghost sample a long way off the path)
                if self._left_rest(m, xy, k, name, floor) or _comes_on(g, k, floor):
                    continue
                # the straight approach and retreat lines meet at the bounce
                pre = g[max(0, k - 2) : k]
                post = g[k + 1 : k + 3]
                va = (pre[-1] - pre[0]) / max(len(pre) - 1, 1) if len(pre) > 1 else g1 - g0
                vr = (post[-1] - post[0]) / max(len(post) - 1, 1) if len(post) > 1 else g2 - g1
                tf = float(k)
                if va < 0 < vr:
                    # g = g0 + va (t - (k-1)) and g = g2 + vr (t - (k+1)) meet at t
                    tf = float(
                        np.clip((g2 - g0 + va * (k - 1) - vr * (k + 1)) / (va - vr), k - 1, k + 1)
                    )
                f = m.first + tf
                if not any(n == name and abs(f - h) < 2.0 for h, n in out):
                    out.append((f, name))
        return out

    def _left_rest(self, m: Movement, xy: np.ndarray, k: int, name: str, floor: float) -> bool:
        """The V at sample ``k`` of ``xy`` (the run's positions from ``m.first``, mm) is
        ball ``m`` leaving its rest beside cushion ``name``, no bounce: the ball stood
        until the frame before (``m.start_f``), at sample ``k`` it lay nearer its rest
        than the cushion line (it had hardly left: a centre pulled by the ball striking
        it), and its straight retreat (the line through the three samples after ``k``)
        passes nearer its rest, by more than ``floor`` (mm, the noise), than the rest's
        mirror image in the cushion line, through which it would pass had it bounced."""
        if m.start_f < m.first + k - 1:
            return False
        post = xy[k + 1 : k + 4]
        post = post[~np.isnan(post[:, 0])]
        if len(post) < 2 or np.isnan(xy[k, 0]):
            return False
        d = post[-1] - post[0]
        if float(np.hypot(*d)) < 1e-9:
            return False
        d = d / np.hypot(*d)
        R, L, W = self.R, self.table.L, self.table.W
        axis, line = {"front": (0, R), "back": (0, L - R), "left": (1, R)}.get(name, (1, W - R))
        rest = np.asarray(m.start_at, float)
        if np.hypot(*(xy[k] - rest)) >= abs(line - xy[k, axis]):
            return False
        image = rest.copy()
        image[axis] = 2.0 * line - rest[axis]

        def off(p: np.ndarray) -> float:
            q = p - post[0]
            return abs(float(q[0] * d[1] - q[1] * d[0]))

        return off(rest) + floor < off(image)

    def _v_evidence(
        self, g: np.ndarray, seen: np.ndarray, k: int, app: float, floor: float
    ) -> bool:
        """A V at sample ``k`` of gaps ``g`` (mm to a cushion line; ``seen``: measured) that
        the one- and two-frame test (both sides over ``floor``) misses, shown another way:
        a fast approach (over 3 floors a frame, as fast the frame before, all measured: a
        track that jumped between two balls approaches nothing) that would have put the centre past
        the line by the next sample, yet the gap did not shrink (a bounce a jaw or a soft
        contact mostly absorbed: one sample after it, the ball then dropped); or, for a
        slow ball under noise, straight fits over four samples each side sloping down then
        up by more than 3 sigmas of a fit's slope (and 0.5 mm a frame)."""
        prev = g[k - 2] - g[k - 1] if k >= 2 else np.nan  # the step before: a straight
        steady = abs(prev - (g[k - 1] - g[k])) <= max(floor, 0.3 * app)  # approach, no jump
        if app >= 3.0 * floor and g[k] - app < -floor and steady and seen[k - 2 : k + 1].all():
            return True
        if k < 3 or k + 3 >= len(g) or np.isnan(g[k - 3 : k + 4]).any():
            return False
        t = np.arange(4.0)
        va = float(np.polyfit(t, g[k - 3 : k + 1], 1)[0])
        vr = float(np.polyfit(t, g[k : k + 4], 1)[0])
        thr = max(0.5, 3.0 * self.settings.sigma_mm / np.sqrt(5.0))
        return va < -thr and vr > thr

    def leave_point(self, m: Movement) -> tuple[float, np.ndarray]:
        """Fractional frame and point (mm) where a vanished ball's centre crossed the
        surface's edge (extrapolated from its last samples when it vanished inside)."""
        at, v = np.asarray(m.stop_at), np.asarray(m.v_end)
        L, W = self.table.L, self.table.W
        if not self.table.on_surface(at[0], at[1]):
            return m.stop_f, at
        ts = []
        for axis, lo, hi in ((0, 0.0, L), (1, 0.0, W)):
            if v[axis] > 1e-6:
                ts.append((hi - at[axis]) / v[axis])
            elif v[axis] < -1e-6:
                ts.append((lo - at[axis]) / v[axis])
        dt = float(np.clip(min(ts), 0.0, 3.0)) if ts else 0.0
        return m.stop_f + dt, at + v * dt

    def pocket_at(self, c: np.ndarray) -> str | None:
        """The pocket whose mouth contains the edge point ``c`` (mm), if any."""
        for p in self.table.pockets:
            half = (p.mouth_mm / 2**0.5 if p.corner else p.mouth_mm / 2) + 0.6 * self.R
            if p.corner:
                near = np.hypot(c[0] - p.x, c[1] - p.y) < half * 2**0.5
            else:
                near = abs(c[0] - p.x) < half and abs(c[1] - p.y) < 3 * self.R
            if near:
                return p.name
        return None

    def gone_event(self, m: Movement) -> Event | None:
        """pocket / off_table for a ball that vanished during the shot; None when it
        vanished far from the edge (hidden, not gone: no pocket is invented)."""
        f, c = self.leave_point(m)
        if np.hypot(c[0] - m.stop_at[0], c[1] - m.stop_at[1]) > 3 * self.R + 2 * float(
            np.linalg.norm(m.v_end)
        ):
            return None
        if self._seen_again(m):
            return None  # hidden near the rail (an arm, a body), then seen again there
        if self._doubled(m):
            return None  # a second track of a ball still there (its colour read twice)
        x, y = m.stop_at
        edge = min(x, self.table.L - x, y, self.table.W - y)
        run = np.hypot(x - m.start_at[0], y - m.start_at[1]) / max(m.stop_f - m.start_f, 0.5)
        if edge > 2 * self.R + 3 * max(float(np.linalg.norm(m.v_end)), float(run)):
            return None  # last seen far from any edge: lost mid-table, not gone
        pocket = self.pocket_at(c)
        if pocket:
            entry = self._pocket_entry(m, pocket)
            if pocket_shelf_mm(self.table) > 0 and np.isfinite(entry):
                f = entry  # it left the rectangle on the shelf; it drops past the shelf
            return self._ev(min(f, entry), EventType.POCKET, ball=m.ball, pocket=pocket)
        sudden = m.stop_f - m.start_f <= 3.0  # hit at rest and gone at once: it flew
        if not sudden and float(np.linalg.norm(m.v_end)) * self.s.fps < OFF_TABLE_MM_S:
            return None  # too slow to jump a cushion: hidden at the rail, not gone
        return self._ev(f, EventType.OFF_TABLE, ball=m.ball)

    def _pocket_entry(self, m: Movement, name: str) -> float:
        """Fractional frame at which the ball's centre crossed the mouth line of pocket
        ``name`` (the line between the cushion noses' ends; for a middle pocket the nose
        line), from its samples: a ball the camera still sees falling inside the pocket
        has dropped already. ``inf`` when no sample lies past the line. Where the pockets
        have a shelf (:func:`vision.base.geometry.pocket_shelf_mm`, mm) the ball drops that far
        past the line: a ball last seen on the shelf is followed on along its last
        velocity (up to 3 frames) to the shelf's end."""
        shelf = pocket_shelf_mm(self.table)
        xy = self.s.xy[self.s.index(m.ball), m.first : m.last + 1]
        depth = self._depth(name, xy, signed=shelf > 0)
        past = np.nonzero(np.nan_to_num(depth, nan=-np.inf) >= shelf)[0]
        if len(past) == 0 and shelf > 0 and m.gone:
            at, v = np.asarray(m.stop_at), np.asarray(m.v_end)
            ts = np.arange(0.0, 3.0001, 0.05)
            ahead = self._depth(name, at + ts[:, None] * v, signed=True) >= shelf
            return m.stop_f + float(ts[np.argmax(ahead)]) if ahead.any() else float("inf")
        if len(past) == 0:
            return float("inf")
        k = int(past[0])
        if k == 0 or not np.isfinite(depth[k - 1]):
            return float(m.first + k)
        a, b = float(depth[k - 1]) - shelf, float(depth[k]) - shelf
        return m.first + k - 1 + (-a) / (b - a) if b > a else float(m.first + k)

    def _depth(self, name: str, xy: np.ndarray, signed: bool = False) -> np.ndarray:
        """How far (mm) centres ``xy`` (N, 2) lie past the mouth line of pocket ``name``
        (negative on the table side; -inf beside a middle pocket's mouth). A middle
        pocket's is measured outward from the nose line where ``signed`` (without it, the
        distance from the nose line with a minus sign: never past it)."""
        p = self.table.pocket(name)
        dx, dy = np.abs(xy[:, 0] - p.x), np.abs(xy[:, 1] - p.y)
        if p.corner:
            return (self.table.corner_mouth_mm / 2**0.5 - dx - dy) / 2**0.5
        out = (xy[:, 1] - p.y) * (1.0 if p.y > 0 else -1.0) if signed else -dy
        return np.where(dx < self.table.middle_mouth_mm / 2 + self.R, out, -np.inf)

    def jaw_hits(
        self, m: Movement, pocket: str, near: list[tuple[float, str]]
    ) -> list[tuple[float, str]]:
        """(fractional frame, cushion) of kinks of a pocketed ball within the pocket's
        mouth in its last frames: a bounce off a jaw, the cushion named by the direction
        the ball was pushed (its velocity change); none within 1.5 frames of a cushion
        already found (``near``: frame, cushion) or of the drop. Then the touches after
        its last sample that its path makes certain (:meth:`jaw_ahead`)."""
        out = self._jaw_kinks(m, pocket, [f for f, _ in near])
        return out + self.jaw_ahead(m, pocket, near + out)

    def nose_ends(self, pocket: str) -> list[tuple[str, np.ndarray]]:
        """(cushion, point mm) of the cushion-nose ends beside pocket ``pocket`` (the ends
        of :attr:`contract.tables.TableSpec.cushion_segments` within its mouth's reach),
        where each cushion's jaw begins."""
        p = self.table.pocket(pocket)
        corner = np.array([p.x, p.y], float)
        return [
            (seg.name, np.asarray(e, float))
            for seg in self.table.cushion_segments
            for e in (seg.a, seg.b)
            if np.hypot(*(np.asarray(e, float) - corner)) <= 0.75 * p.mouth_mm + 1e-6
        ]

    def jaw_ahead(
        self, m: Movement, pocket: str, near: list[tuple[float, str]]
    ) -> list[tuple[float, str]]:
        """(fractional frame, cushion) of jaw touches after a pocketed ball's last sample,
        which no later sample can show (it dropped before the next frame): its straight
        path on from its last two measured samples (consecutive frames) runs into a
        cushion's nose end (:meth:`nose_ends`) by more than ``JAW_OVERLAP_R`` radii before
        its centre is ``JAW_PAST_R`` radii past the mouth line, as a ball running along
        a rail into a corner pocket meets the far jaw. Dated where the path comes within
        R of the nose end (not before the last sample); none of a cushion already found
        within 1.5 frames (``near``)."""
        b = self.s.index(m.ball)
        xy, vis = self.s.xy[b], self.s.visible[b]
        k = m.last
        if k < 1 or not (vis[k] and vis[k - 1]) or np.isnan(xy[[k - 1, k], 0]).any():
            return []
        p0, v = xy[k], xy[k] - xy[k - 1]
        ts = np.arange(0.0, 2.0001, 0.05)
        path = p0 + ts[:, None] * v
        past = self._depth(pocket, path, signed=True) >= JAW_PAST_R * self.R
        if past[0]:
            return []  # last seen in the throat already: falling, past the jaws
        ts = ts[: int(np.argmax(past)) + 1] if past.any() else ts
        overlap = JAW_OVERLAP_R * self.R + 2.0 * self.settings.sigma_mm
        out = []
        for name, q in self.nose_ends(pocket):
            d = np.linalg.norm(p0 + ts[:, None] * v - q, axis=1)
            if d.min() >= self.R - overlap:
                continue
            f = k + float(ts[int(np.argmax(d <= self.R))])
            if any(n == name and abs(g - f) < 1.5 for g, n in near):
                continue
            out.append((f, name if self.table.has_pockets else name.split("-")[0]))
        return out

    def _jaw_kinks(self, m: Movement, pocket: str, near: list[float]) -> list[tuple[float, str]]:
        """Kinks of a pocketed ball against a jaw (:meth:`jaw_hits`)."""
        p = self.table.pocket(pocket)
        reach = p.mouth_mm + 2 * self.R
        past = self._pocket_entry(m, pocket)
        entry = min(past, m.stop_f)
        out = []
        for k in m.kinks:
            # on the cloth still, and seen there after the bend (a sample before the mouth
            # line): past it the ball falls, and the bend at the line is the fall
            after = int(round(k.f)) + 1  # the first sample after the bend's own
            if k.f < entry - 4.0 or after > m.last or after >= past:
                continue
            if np.hypot(k.at[0] - p.x, k.at[1] - p.y) > reach:
                continue
            if self._depth(pocket, np.asarray([k.at]))[0] > -JAW_MM:
                continue  # bent at the mouth line: the ball falling, not a jaw
            if any(abs(k.f - g) < 1.5 for g in near):
                continue
            dv = np.subtract(k.v_after, k.v_before)
            if abs(dv[0]) >= abs(dv[1]):
                name = "front" if dv[0] > 0 else "back"
            else:
                side = "left" if dv[1] > 0 else "right"
                name = f"{side}-{'front' if k.at[0] < self.table.L / 2 else 'back'}"
                if not self.table.has_pockets:
                    name = side
            out.append((k.f, name))
        return out

    def flown_from_rest(self, vanished: list[Movement]) -> list[Event]:
        """off_table (or pocket) of a ball at rest that vanished in the frame a moving ball
        of the shot reached it (``vanished``: :meth:`rest_vanished`): hit so hard it left
        the surface before the next frame (no sample of it moving). Its last row must be
        measured, not one predicted under an arm, and it must not be seen there again
        (``gone_event``)."""
        return [ev for m in vanished if (ev := self.gone_event(m)) is not None]

    def rest_vanished(self, moves: list[Movement], skip: frozenset[str]) -> list[Movement]:
        """Balls at rest (not in ``moves`` nor ``skip``) whose last measured row is in the
        frame a moving ball of the shot reached them and that are not seen in the second
        after: a one-frame :class:`Movement` (``gone``) at their rest each."""
        mine = {m.ball for m in moves}
        lo = min(m.first for m in moves)
        hi = min(self.s.n_frames - 1, max(m.last for m in moves) + 1)
        out: list[Movement] = []
        for b, ident in enumerate(self.s.ids):
            if ident in mine or ident in skip:
                continue
            seen = ~np.isnan(self.s.xy[b, :, 0])
            rows = np.nonzero(seen[: hi + 1])[0]
            if not len(rows) or not lo <= rows[-1] < hi or not self.s.visible[b, rows[-1]]:
                continue
            e = int(rows[-1])
            if seen[e + 1 : e + 1 + int(self.s.fps)].any():
                continue
            at = self.s.xy[b, e]
            if any(self._reaches(o, at, e) for o in moves):
                out.append(
                    Movement(
                        ident,
                        e,
                        e,
                        tuple(at),
                        tuple(at),
                        (0.0, 0.0),
                        (0.0, 0.0),
                        (),
                        True,
                        False,
                        e,
                        e,
                    )
                )
        return out

    def _reaches(self, o: Movement, at: np.ndarray, e: int) -> bool:
        """Ball ``o`` (moving) came within touching reach of ``at`` (mm) between frames
        ``e`` and ``e + 1``."""
        if not o.first - 1 <= e <= o.last:
            return False
        xy = self.s.xy[self.s.index(o.ball), e : e + 2]
        if np.isnan(xy[:, 0]).any():
            xy = xy[~np.isnan(xy[:, 0])]
        if not len(xy):
            return False
        step = float(np.linalg.norm(xy[-1] - xy[0]))
        d = np.linalg.norm(xy - at, axis=1).min()
        return bool(d < 2 * self.R + 0.3 * self.R + step)

    def _doubled(self, m: Movement, frames: int = 2) -> bool:
        """Another ball's track stands within one radius of where the vanished ball was
        last seen, in that frame or the ``frames`` after it, and goes on: two balls never
        overlap, so the two tracks were one ball (a ball whose colour the camera read two
        ways, the tracker holding both), and the one that ended did not leave."""
        b = self.s.index(m.ball)
        k = int(round(m.stop_f))
        lo, hi = max(0, k), min(self.s.n_frames, k + frames + 1)
        at = np.asarray(m.stop_at)
        for o in range(len(self.s.ids)):
            if o == b or hi >= self.s.n_frames or np.isnan(self.s.xy[o, hi, 0]):
                continue
            d = np.hypot(*(self.s.xy[o, lo:hi] - at).T)
            if np.any(np.nan_to_num(d, nan=np.inf) < self.R):
                return True
        return False

    def _seen_again(self, m: Movement, within_s: float = 2.0) -> bool:
        """The vanished ball is seen again within ``within_s`` seconds and six radii of
        where it was lost: it was hidden, it did not leave (a re-spotted ball comes back
        on a spot, by hand, after the shot)."""
        xy = self.s.xy[self.s.index(m.ball)]
        lo, hi = m.last + 1, min(len(xy), m.last + 1 + int(within_s * self.s.fps))
        later = xy[lo:hi]
        later = later[~np.isnan(later[:, 0])]
        if len(later) == 0:
            return False
        d = np.hypot(later[:, 0] - m.stop_at[0], later[:, 1] - m.stop_at[1])
        return bool(np.any(d < 6 * self.R))

    def _crossings(self, b: int, m: Movement) -> list[Event]:
        """Centre-line crossings of ball ``b`` during movement ``m`` (for a ball that
        vanished, up to where it left the surface)."""
        x = self.s.xy[b, m.first : m.last + 1, 0]
        c = self.table.centre_line_x
        out = []
        if m.gone:
            f_leave, at = self.leave_point(m)
            v = np.asarray(m.v_end)
            if self.pocket_at(at) is not None and float(np.linalg.norm(v)) > 1e-6:
                # a ball falls once its centre is past the mouth line by about a quarter
                # radius: it rolls on (and may cross the centre line in a middle pocket)
                side = min(at[1], self.table.W - at[1]) < min(at[0], self.table.L - at[0])
                dt = DROP_PAST_R * self.R / max(abs(float(v[1 if side else 0])), 1e-6)
                dt = min(dt, 3.0)
                f_leave, at = f_leave + dt, at + v * dt
            x0, x1 = m.stop_at[0], float(at[0])
            if (x0 - c) * (x1 - c) < 0:
                f = m.stop_f + (f_leave - m.stop_f) * (c - x0) / (x1 - x0)
                out.append(self._ev(f, EventType.CROSS, ball=m.ball, line="centre"))
        for i in range(len(x) - 1):
            x0, x1 = x[i], x[i + 1]
            if np.isnan(x0) or np.isnan(x1) or (x0 - c) * (x1 - c) > 0 or x0 in (x1, c):
                continue
            f = m.first + i + (c - x0) / (x1 - x0)
            out.append(self._ev(f, EventType.CROSS, ball=m.ball, line="centre"))
        return out
