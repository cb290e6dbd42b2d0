"""Multi-ball tracker in table mm: constant-velocity Kalman filters, Hungarian assignment.

Call :meth:`Tracker.update` once per frame with that frame's :class:`Detections` (empty or not). It
returns the TRACKS.csv rows (contract §7) that the update produced: this frame's rows of every
confirmed ball (``visible=0`` and no ``u``,``v`` when predicted through an occlusion), and, when a
new ball is confirmed, its rows of the frames before; :meth:`Tracker.finish` flushes the rest.

Identities belong to the tracker instance: names follow contract §3 (``yellow`` / ``w1``, ``w2`` …
for pyramid; ``white`` / ``yellow`` / ``red`` for carom; ``cue`` and colour names with a count on
pool and snooker tables). A ball that disappears near a pocket mouth while moving toward it is
*pocketed* and ends at once; one that disappears near an actor (arm, cue, body) or at rest is
*occluded* and coasts at its predicted position; a ball that reappears where no track is expecting
it takes the name of a lost ball of the same class (a hand re-spotting a ball).

On a pyramid table, pass the frame's picture to :meth:`Tracker.update` and the white balls' numbers
are read (``vision.numbers.reader``): each white track votes over its views, takes a number once
the vote is sure and no other track on the table holds it, and keeps it; from then on its rows
carry the number as id (contract §3). :meth:`Tracker.renamed` gives a whole video's rows with every
numbered ball under its number from its first row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from contract.tables import TableSpec
from contract.tracks import Tracks
from vision.base.assign import linear_sum_assignment
from vision.base.camera_motion import lose_unseen
from vision.base.geometry import MAX_BALL_SPEED_MM_S, pocket_shelf_mm
from vision.base.geometry import mouth_lines as _mouth_lines
from vision.detect.detector import Detections
from vision.track.birth import Attached, births, young_tracks
from vision.track.depart import end_holds, judge_holds, start_holds
from vision.track.numbering import NumberReading
from vision.track.reach import leaving_home
from vision.track.rest import at_rest_pairs, nearest_leftovers
from vision.track.state import TrackerConfig, _Track
from vision.track.swap import colour_swaps

NAN = float("nan")
# ball radii: a detection this near a sure ball's track is that ball, any colour. Off (0): at 0.5
# a ball of another colour passing a resting one took its track (clip8's pocket was missed)
SAME_BALL = 0.0
RESEEN_FRAMES = 2  # settled frames after a camera move in which a held ball must be seen


class Tracker(NumberReading):
    """Tracks the balls of one table; ids and names belong to this instance."""

    def __init__(self, table: TableSpec, config: TrackerConfig | None = None) -> None:
        self.table = table
        self.cfg = config or TrackerConfig()
        self.tracks: list[_Track] = []
        self._next_tid = 1
        self._name_counts: Counter = Counter()
        self._last_t: float | None = None
        self._frames_seen = 0
        self._start: int | None = None  # the first frame this tracker was given
        self._reader = None  # vision.numbers.reader.NumberReader, loaded when first needed
        self._pockets = np.array(  # drop circles: centre x, y and radius, mm
            [(*p.centre, p.mouth_mm / 2) for p in table.pockets], float
        ).reshape(-1, 3)
        self._mouths = _mouth_lines(table)
        self._shelf = pocket_shelf_mm(table)  # a ball on a pocket's shelf is still on the cloth
        self._moved: list[int] | None = None  # [first unsure frame of a move, settled since]

    # ------------------------------------------------------------ kalman
    def _predict(self, live: list[_Track], dt: float) -> None:
        """Constant-velocity prediction of every live track over ``dt`` seconds, as one
        batch (white acceleration noise ``accel_mm_s2``); a coasting track (not seen last
        frame) slows down, and one believed at rest stays where it was last seen."""
        if not live:
            return
        X = np.array([t.x for t in live], float)  # (N, 4)
        P = np.array([(t.pa, t.pb, t.pc) for t in live], float)  # (N, 3)
        q = self.cfg.accel_mm_s2**2
        X[:, :2] += dt * X[:, 2:]
        a, b, c = P[:, 0], P[:, 1], P[:, 2]
        pa = a + 2 * dt * b + dt * dt * c + q * dt**4 / 4
        pb = b + dt * c + q * dt**3 / 2
        pc = c + q * dt * dt
        for k, (t, na, nb, nc) in enumerate(
            zip(live, pa.tolist(), pb.tolist(), pc.tolist(), strict=True)
        ):
            t.x, t.pa, t.pb, t.pc = X[k], na, nb, nc
            self._bounce(t)
            if t.last_seen < self._frame - 1:  # coasting: a hidden ball slows down, stays put
                t.x[2:] *= 0.7
                if self._coast_speed(t) < self.cfg.rest_speed_mm_s:
                    t.x[:2], t.x[2:] = t.last_xy, 0.0  # a hidden ball at rest stays where it was

    def _bounce(self, tr: _Track) -> None:
        """A prediction carried past a cushion nose (the centre nearer to it than a radius)
        by a ball rolling into it bounces back off it, as the ball does (the carom white
        lost in the smear at a corner is found again coming out of it), except within
        reach of a pocket's mouth, where the ball may be dropping."""
        if tr.state != "active" or tr.moving_run < 2:  # a rolling ball, not a flicker
            return
        R = self.table.ball_radius
        for p in self.table.pockets:
            if np.hypot(tr.x[0] - p.x, tr.x[1] - p.y) < p.mouth_mm + R:
                return
        for axis, hi in ((0, self.table.L), (1, self.table.W)):
            if tr.x[axis] < R and tr.x[axis + 2] < -self.cfg.rest_speed_mm_s:
                tr.x[axis], tr.x[axis + 2] = 2 * R - tr.x[axis], -tr.x[axis + 2]
            elif tr.x[axis] > hi - R and tr.x[axis + 2] > self.cfg.rest_speed_mm_s:
                tr.x[axis], tr.x[axis + 2] = 2 * (hi - R) - tr.x[axis], -tr.x[axis + 2]

    def _correct(self, tracks: list[_Track], z: np.ndarray, sigma: np.ndarray) -> None:
        """Kalman update of ``tracks`` with their measurements ``z`` (N,2 mm) of standard
        deviation ``sigma`` (N,) mm, as one batch."""
        if not tracks:
            return
        X = np.array([t.x for t in tracks], float)
        P = np.array([(t.pa, t.pb, t.pc) for t in tracks], float)
        a, b, c = P[:, 0], P[:, 1], P[:, 2]
        s = a + np.asarray(sigma, float) ** 2
        k1, k2 = a / s, b / s  # gains on position and velocity
        e = np.asarray(z, float) - X[:, :2]  # innovation, mm
        X[:, :2] += k1[:, None] * e
        X[:, 2:] += k2[:, None] * e
        pa, pb, pc = (1 - k1) * a, (1 - k1) * b, c - k2 * b
        for k, (t, na, nb, nc) in enumerate(
            zip(tracks, pa.tolist(), pb.tolist(), pc.tolist(), strict=True)
        ):
            t.x, t.pa, t.pb, t.pc = X[k], na, nb, nc

    def _new_track(self, z: np.ndarray, cls: str, frame: int, t: float) -> _Track:
        z = np.array(z, float)
        tr = _Track(self._next_tid, np.r_[z, 0.0, 0.0], 4.0, 0.0, 4000.0**2, frame, frame, t)
        tr.last_xy = z.copy()
        self._next_tid += 1
        tr.vote(cls)
        return tr

    # ------------------------------------------------------------ names
    def _free(self, name: str) -> bool:
        return all(t.name != name for t in self.tracks)

    def _counted(self, stem: str) -> str:
        self._name_counts[stem] += 1
        return f"{stem}{self._name_counts[stem]}"

    def _name_for(self, cls: str, xy: np.ndarray) -> str:
        kind = self.table.kind
        if cls == "skittle":  # named by the nearest free mark (contract §3)
            free = {k: v for k, v in self.table.skittle_spots.items() if self._free(k)}
            if free:
                return min(free, key=lambda k: float(np.hypot(*(np.asarray(free[k]) - xy))))
            return self._counted("skittle")
        if kind == "pyramid":
            if cls == "yellow" and self._free("yellow"):
                return "yellow"
            return self._counted("w")
        if kind == "carom":
            return cls if self._free(cls) else self._counted(cls)
        if cls == "white" and self._free("cue"):
            return "cue"
        return self._counted(cls)

    # ------------------------------------------------------------ assignment
    def _assign(
        self,
        tracks: list[_Track],
        det: Detections,
        cols: np.ndarray,
        gate: float,
        from_last: bool,
        same_class: bool,
    ) -> list[tuple[int, int]]:
        if not tracks or len(cols) == 0:
            return []
        pred = np.array([t.x[:2] for t in tracks])
        xy = det.xy[cols]
        d = np.linalg.norm(pred[:, None, :] - xy[None, :, :], axis=2)
        if from_last:
            last = np.array([t.last_xy for t in tracks])
            d = np.minimum(d, np.linalg.norm(last[:, None, :] - xy[None], axis=2))
        tcls = np.array([t.cls for t in tracks], object)
        mismatch = tcls[:, None] != np.asarray(det.cls, object)[cols][None, :]
        cost = d + mismatch * 0.4 * self.table.ball_mm
        # a ball whose colour is well known never takes a sharp detection of another colour,
        # but within SAME_BALL radii of it (off; a resting ball read in another colour, as
        # clip1's 4, is given its leftover detection by vision.track.rest.at_rest_pairs)
        sure = np.array([t.sure for t in tracks], bool)[:, None] & ~det.blurred[cols][None, :]
        cost[mismatch & sure & (d > SAME_BALL * self.table.ball_radius)] = np.inf
        if same_class:
            cost[mismatch] = np.inf
        cost[d > gate] = np.inf
        big = 1e9
        r, c = linear_sum_assignment(np.where(np.isfinite(cost), cost, big))
        return [(int(i), int(cols[j])) for i, j in zip(r, c, strict=True) if cost[i, j] < big]

    def _home(
        self, live: list[_Track], det: Detections, used_t: set[int], used_d: set[int]
    ) -> list[tuple[int, int]]:
        """A ball seen again where it rested (within a radius of its home, table mm) while
        its track coasts elsewhere (a false detection under an arm drew it away) is that
        ball: no other ball can lie within a radius of a resting one. Its filter restarts
        at rest there. Pairs (index in ``live``, detection)."""
        R = self.table.ball_radius
        ts = [
            i
            for i, t in enumerate(live)
            if i not in used_t
            and t.state == "active"
            and t.home_xy is not None
            and np.hypot(*(t.x[:2] - t.home_xy)) > R
        ]
        ds = np.array([j for j in range(len(det)) if j not in used_d], int)
        if not ts or not len(ds):
            return []
        home = np.array([live[i].home_xy for i in ts])
        out = nearest_leftovers(live, ts, home, det, ds, True, R)
        for i, j in out:
            t = live[i]
            t.x = np.r_[det.xy[j], 0.0, 0.0]
            t.pa, t.pb = 4.0, 0.0
            t.last_xy = det.xy[j].copy()
        return out

    def _lately(self, tr: _Track, frame: int) -> bool:
        """Seen last frame, or within ``far_gate_misses`` frames with no actor near: a ball
        struck hard smears into the cloth for a frame or two (a dark ball on dark cloth, a
        red read as pink) and is found again far away; a ball hidden by an arm is not."""
        return tr.last_seen >= frame - 1 or (
            not tr.occluded and tr.last_seen >= frame - 1 - self.cfg.far_gate_misses
        )

    # ------------------------------------------------------------ update
    def update(
        self,
        det: Detections,
        image: np.ndarray | None = None,
        empty: Callable[[np.ndarray], np.ndarray] | None = None,
        attached: Attached | None = None,
    ) -> Tracks:
        """Advance one frame with this frame's detections; return the rows it produced.
        ``image`` (the frame, BGR uint8, video px) lets the tracker read ball numbers.
        ``empty`` (table mm (N,2) -> (N,) bool, e.g. :meth:`Detector.cloth_empty`) says
        where this frame shows empty cloth: a ball predicted there for
        ``empty_frames`` frames is not hidden but gone (lost). On a frame whose
        detections are ``unsure`` (a camera not placed well, :mod:`vision.register`) the
        balls are followed but none is pocketed or lost, and none is born there or in the
        few frames after once a ball was confirmed (phantoms: ``camera_motion.lose_unseen``).
        ``attached`` (:meth:`Detector.attached`): no birth to fingertips (``track_birth``)."""
        self._frame = det.frame
        self._frames_seen += 1
        if self._start is None:
            self._start = det.frame
        dt = 1 / 30 if self._last_t is None else max(1e-3, det.t - self._last_t)
        self._last_t = det.t
        live = [t for t in self.tracks if t.state in ("tentative", "active")]
        self._predict(live, dt)
        D, cfg = self.table.ball_mm, self.cfg
        cols = np.arange(len(det))
        pairs = self._assign(live, det, cols, cfg.near_gate_balls * D, True, False)
        used_t = {i for i, _ in pairs}
        used_d = {j for _, j in pairs}
        rest_t = [  # the far gate only for balls seen lately (a break), not coasting ones
            i
            for i in range(len(live))
            if i not in used_t and live[i].state == "active" and self._lately(live[i], det.frame)
        ]
        rest_d = np.array([j for j in cols if j not in used_d], int)
        far = self._assign(
            [live[i] for i in rest_t], det, rest_d, self.cfg.far_gate_balls * D, True, True
        )
        far = leaving_home([live[i] for i in rest_t], far, det, self.table.ball_radius)
        pairs += [(rest_t[i], j) for i, j in far]
        young = young_tracks(live, det.frame, {i for i, _ in pairs})  # no velocity yet
        left = np.array([j for j in cols if j not in {j for _, j in pairs}], int)
        fast = self._assign(
            [live[i] for i in young], det, left, MAX_BALL_SPEED_MM_S * dt, True, True
        )
        pairs += [(young[i], j) for i, j in fast]
        pairs = colour_swaps(live, det, pairs, cfg.near_gate_balls * D, cfg.far_gate_balls * D)
        used_d = {j for _, j in pairs}
        pairs += self._home(live, det, {i for i, _ in pairs}, used_d)
        used_d |= {j for _, j in pairs}
        ball_r = self.table.ball_radius  # a resting ball read in another colour (clip1's 4)
        pairs += at_rest_pairs(live, det, {i for i, _ in pairs}, used_d, ball_r)
        used_d |= {j for _, j in pairs}
        still = lambda t: self._coast_speed(t) < cfg.rest_speed_mm_s  # noqa: E731 (_predict's)
        start_holds(live, det, pairs, ball_r, still)  # a hidden resting ball's far detection
        rows: list[tuple] = []
        matched = {}
        got = [live[i] for i, _ in pairs]
        js = np.array([j for _, j in pairs], int)
        sigma = np.where(det.blurred[js], self.cfg.blur_meas_mm, self.cfg.meas_mm)
        self._correct(got, det.xy[js], sigma)
        last = np.array([tr.last_xy for tr in got]).reshape(-1, 2)
        # measured, mm/s (a smear missed in between: over the frames since it was seen)
        gaps = np.maximum([det.t - tr.last_t for tr in got], dt)
        steps = (np.linalg.norm(det.xy[js] - last, axis=1) / gaps).tolist()
        for tr, j, step in zip(got, js.tolist(), steps, strict=True):
            matched[id(tr)] = j
            tr.last_v = tr.x[2:].copy()
            moving = self._lately(tr, det.frame) and step >= self.cfg.rest_speed_mm_s
            tr.moving_run = tr.moving_run + 1 if moving else 0
            tr.rest_run = 0 if moving else tr.rest_run + 1
            if tr.moving_run >= 2:  # rolling for real: it has left its home
                tr.home_xy = None
            elif tr.rest_run >= self.cfg.home_frames:
                tr.home_xy = det.xy[j].copy()
            tr.last_xy = det.xy[j].copy()
            tr.last_seen, tr.last_t, tr.hits = det.frame, det.t, tr.hits + 1
            tr.occluded, tr.empty_run = False, 0
            tr.vote(det.cls[j])
        unseen = [tr for tr in live if id(tr) not in matched and tr.state == "active"]
        bare = empty(np.array([tr.x[:2] for tr in unseen])) if empty and unseen else None
        if unseen and not det.unsure:
            # two balls never overlap: a ball predicted onto one measured now is a ghost
            seen = det.xy[js]
            pred = np.array([tr.x[:2] for tr in unseen])
            near = np.linalg.norm(seen[None, :, :] - pred[:, None, :], axis=2) < 0.6 * D
            gone = near.any(axis=1) if len(seen) else np.zeros(len(unseen), bool)
            if bare is not None:
                gone |= np.asarray(bare, bool)
            for tr, g in zip(unseen, gone.tolist(), strict=True):
                tr.empty_run = tr.empty_run + 1 if g else 0
        sunk = self._in_pockets(  # matched balls now inside a pocket or sinking into one
            np.array([t.last_xy for t in got]).reshape(-1, 2),
            np.array([t.x[2:] for t in got]).reshape(-1, 2),
        )
        sunk_ids = {id(t) for t, s in zip(got, sunk.tolist(), strict=True) if s}
        self._moved = lose_unseen(self._moved, live, det.frame, det.unsure, RESEEN_FRAMES)
        for tr in live:
            if det.unsure:  # positions of a frame not placed well: no ball leaves the table
                continue
            if id(tr) not in matched:
                self._missed(tr, det)
            elif id(tr) in sunk_ids:
                tr.state = "pocketed" if tr.state == "active" else "dropped"
        rows += judge_holds(live, det, matched, cfg, ball_r, None if det.unsure else empty)
        new: list[_Track] = []
        opening = not any(t.state in ("active", "lost", "pocketed") for t in self.tracks)
        free = opening or self._moved is None  # no birth in a camera move or just after it
        for j in births(det, used_d, self._in_pockets(det.xy), self.table, free, attached):
            new.append(self._new_track(det.xy[j], det.cls[j], det.frame, det.t))
            matched[id(new[-1])] = j
        self.tracks += new
        if image is not None and self.table.kind == "pyramid":
            self._read_numbers(image, det, matched)
        for tr in live + new:  # in the order of self.tracks (names are given in it)
            if tr.state not in ("tentative", "active"):
                continue
            j = matched.get(id(tr))
            row = self._row(tr, det, j)
            if tr.state == "tentative":
                tr.pending.append(row)
                if tr.hits >= self.cfg.confirm_hits:
                    rows += self._confirm(tr)
                elif det.frame - tr.first_frame >= self._window(tr)[0]:
                    tr.state = "dropped"
            else:  # a held departure's rows wait (vision.track.depart)
                (rows if tr.hold is None else tr.pending).append((*row[:2], tr.label, *row[3:]))
        self.tracks = [t for t in self.tracks if t.state != "dropped"]
        return Tracks.from_rows(rows)

    def _row(self, tr: _Track, det: Detections, j: int | None) -> tuple:
        if j is None:
            return (det.frame, det.t, tr.name, tr.x[0], tr.x[1], 0, None, None)
        u, v = det.uv[j]
        return (
            det.frame,
            det.t,
            tr.name,
            float(det.xy[j, 0]),
            float(det.xy[j, 1]),
            1,
            None if np.isnan(u) else u,
            None if np.isnan(v) else v,
        )

    def _window(self, tr: _Track) -> tuple[int, int]:
        """(frames to gather ``confirm_hits`` in, misses allowed) for a tentative track: a
        ball already there in the video's first frame (at rest, the table as play left it)
        gets ``start_window``/``start_misses``, every later newcomer the usual ones."""
        if tr.first_frame == self._start:
            return self.cfg.start_window, self.cfg.start_misses
        return self.cfg.confirm_window, self.cfg.tentative_misses

    def _missed(self, tr: _Track, det: Detections) -> None:
        if tr.state == "tentative":  # it may still gather its hits within the window ...
            tr.misses += 1
            window, misses = self._window(tr)
            late = det.frame - tr.first_frame >= window
            # ... where a ball's centre can lie (not on or beyond a cushion's nose)
            inside = self.table.on_surface(tr.x[0], tr.x[1], margin=0.5 * self.table.ball_radius)
            if late or tr.misses > misses or not inside:
                tr.state = "dropped"
            return
        cfg, D = self.cfg, self.table.ball_mm
        age_s = det.t - tr.last_t
        speed = self._coast_speed(tr)
        near_actor = any(
            a[0] - D <= tr.x[0] <= a[2] + D and a[1] - D <= tr.x[1] <= a[3] + D for a in det.actors
        )
        tr.occluded = tr.occluded or near_actor
        if det.frame - tr.last_seen <= 2 and self._into_pocket(tr, speed):
            tr.state = "pocketed"
            return
        R = self.table.ball_radius
        if not self.table.on_surface(tr.x[0], tr.x[1], margin=-2 * R):
            tr.state = "lost"
            return
        if tr.occluded:
            limit = cfg.coast_occluded_s
        elif speed < cfg.rest_speed_mm_s and tr.hits >= cfg.mature_hits:
            limit = cfg.coast_rest_s
        else:
            limit = cfg.coast_moving_s
        if tr.cls == "skittle":  # skittles fall, they do not leave: a lost one is unseen
            limit = max(limit, cfg.coast_skittle_s)
        if age_s > limit or (tr.empty_run >= cfg.empty_frames and tr.cls != "skittle"):
            tr.state = "lost"

    def _coast_speed(self, tr: _Track) -> float:
        """The speed (mm/s) a vanished ball is believed to have had. A ball long at rest
        that an arm or cue half covers seems to move before it vanishes (its visible part
        shifts the centre): motion measured in fewer than ``confirm_hits`` frames after a
        long rest is not believed."""
        if tr.moving_run < self.cfg.confirm_hits and tr.hits >= self.cfg.mature_hits:
            return 0.0
        return float(np.linalg.norm(tr.last_v))

    def _in_pockets(self, xy: np.ndarray, v: np.ndarray | None = None) -> np.ndarray:
        """(N,) bool: True where a centre ``xy`` (N,2 mm) is inside a pocket's drop circle
        (contract tables.Pocket), or past a pocket's mouth line (between the cushion nose
        ends) by ``pocket_drop_balls`` radii, or past it at all while moving on into the
        pocket (``v`` (N,2) mm/s): a ball sinking into the pocket is no longer on the
        table. One distance test over all centres and pockets. Where the table's pockets
        have a shelf (:func:`vision.base.geometry.pocket_shelf_mm`) a ball rolling over it is
        still on the cloth: the depths count from the shelf's end."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        if not len(self._pockets) or not len(xy):
            return np.zeros(len(xy), bool)
        d2 = ((xy[:, None, :] - self._pockets[None, :, :2]) ** 2).sum(axis=2)  # (N, pockets)
        out = (d2 < self._pockets[None, :, 2] ** 2).any(axis=1)
        if not len(self._mouths):
            return out
        m = self._mouths
        depth = ((xy[:, None, :] - m[None, :, :2]) * m[None, :, 2:]).sum(axis=2)  # mm past
        drop = self.cfg.pocket_drop_balls * self.table.ball_radius
        out |= (depth > max(drop, self._shelf)).any(axis=1)
        if v is None:
            return out
        v = np.asarray(v, float).reshape(-1, 2)
        moving = np.linalg.norm(v, axis=1) >= self.cfg.rest_speed_mm_s
        into = (v[:, None, :] * m[None, :, 2:]).sum(axis=2) > 0
        return out | (moving & ((depth > max(0.0, self._shelf - drop)) & into).any(axis=1))

    def _into_pocket(self, tr: _Track, speed: float) -> bool:
        reach = self.cfg.pocket_reach_balls * self.table.ball_mm
        for p in self.table.pockets:
            c = np.asarray(p.centre)
            to = c - tr.last_xy
            dist = float(np.linalg.norm(to))
            if dist > p.mouth_mm / 2 + reach:
                continue
            toward = speed > self.cfg.rest_speed_mm_s and float(to @ tr.last_v) > 0
            if toward or dist <= p.mouth_mm / 2 + self.table.ball_radius:
                return True
        return False

    def _confirm(self, tr: _Track) -> list[tuple]:
        cls = tr.cls
        lost = [
            t
            for t in self.tracks
            if t.state in ("lost", "pocketed") and t.cls == cls and t.name is not None
        ]
        if lost:  # a re-spotted ball: the one that left the table last, then the nearest
            old = min(
                lost,
                key=lambda t: (-t.last_seen, float(np.linalg.norm(t.last_xy - tr.x[:2]))),
            )
            tr.name, tr.tid, tr.votes = old.name, old.tid, old.votes + tr.votes
            tr._cls = None
            tr.number, tr.numvote = old.number, old.numvote
            old.state = "dropped"
        else:
            tr.name = self._name_for(cls, tr.x[:2])
        tr.state = "active"
        rows = [(*r[:2], tr.label, *r[3:]) for r in tr.pending]
        tr.pending = []
        return rows

    def finish(self) -> Tracks:
        """End of the video: confirm new balls seen in every frame since they appeared
        (a still image is a one-frame video) and return their rows."""
        rows: list[tuple] = end_holds(self.tracks)
        for tr in self.tracks:
            if tr.state == "tentative" and tr.last_seen == self._frame:
                rows += self._confirm(tr)
        return Tracks.from_rows(rows)

    def names(self) -> dict[str, str]:
        """Name -> state (active, lost, pocketed) of every confirmed ball."""
        return {t.name: t.state for t in self.tracks if t.name is not None}
