"""Events of one shot from the movements of its balls (contract §8).

strike: the first ball to start with no contact to explain it; contact: a ball starts
or its path kinks where another ball is one diameter away (the faster ball is the
striking one); cushion: a kink one radius from a cushion nose with the normal velocity
reversed; pocket / off_table: a ball leaves the surface, into a pocket mouth or not;
cross: a ball's centre crosses the centre line. Positions mm, times fractional frames.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from contract.events import Event, EventType
from contract.tables import TableSpec
from vision.contact_checks import untouched
from vision.edges import EdgeEvents
from vision.impulse import (
    RackContact,
    closest_approaches,
    component,
    impulse_scan,
    rack_contacts,
    rest_positions,
)
from vision.motion import Movement, rolls_away, seen_moving
from vision.series import Series, line_fit

if TYPE_CHECKING:
    from vision.shots import ShotSettings


RACK_GAP_R = 0.1  # a gap (radii) still touching in a rack: measured centres err by mm
RACK_MIN_IMPULSE = 0.3  # mm/frame a pair inside a rack must carry
# and this many position noise sigmas: a member's start velocity through its rest position
# and two samples (about 1 and 2 frames on) carries 0.45 sigma, so 2 sigma is 4.4 of its own
RACK_SIGMAS = 2.0
# impulse scan: the least velocity change (mm/frame, and in noise sigmas) a contact
# must carry, and how far apart (mm, plus 3 sigma) two balls may be to be touching
SCAN_MIN_IMPULSE = 0.4
SCAN_SIGMAS = 6.0
SCAN_GAP_MM = 4.0  # a detector places balls that touch a mm or two apart


class EventFinder(EdgeEvents):
    """Finds the events of shots within one series (read-only after construction)."""

    def __init__(self, series: Series, table: TableSpec, settings: ShotSettings) -> None:
        self.s = series
        self.table = table
        self.settings = settings
        self.R = table.ball_radius
        self.speed_tol = 0.3  # share of a frame's travel allowed as timing error
        names = set(table.skittle_spots) if table.kind == "carom" else set()
        self.skittles = tuple(i for i in series.ids if i in names)

    # ------------------------------------------------------------------ helpers
    def _ev(self, f: float, type_: EventType, **kw) -> Event:
        frame = int(round(self.s.first + f))
        t = max((self.s.first + f) / self.s.fps, 0.0)
        return Event(frame=frame, t=round(t, 4), type=type_, **kw)

    def pos_before(self, b: int, f: float) -> np.ndarray | None:
        """Position (mm) of ball ``b`` at fractional frame ``f`` from its straight motion
        just before ``f`` (so a kink at ``f`` does not pull it)."""
        xy = self.s.xy[b]
        lo = int(np.floor(f))
        fr = np.arange(max(0, lo - 2), min(lo, len(xy) - 1) + 1)
        fr = fr[~np.isnan(xy[fr, 0])]
        if len(fr) == 0:
            return None
        a, v = line_fit(fr.astype(float), xy[fr])
        if len(fr) == 1:
            return xy[fr[0]]
        return a + v * f

    def speed_before(self, b: int, f: float) -> float:
        xy = self.s.xy[b]
        lo = int(np.floor(f))
        if lo < 1 or lo >= len(xy) or np.isnan(xy[lo, 0]) or np.isnan(xy[lo - 1, 0]):
            return 0.0
        return float(np.linalg.norm(xy[lo] - xy[lo - 1]))

    def pos_interp(self, b: int, f: float) -> np.ndarray | None:
        """Position (mm) of ball ``b`` at fractional frame ``f`` by linear interpolation."""
        xy = self.s.xy[b]
        lo = int(np.floor(f))
        if lo < 0 or lo + 1 >= len(xy):
            return None
        a, c = xy[lo], xy[lo + 1]
        if np.isnan(a[0]) or np.isnan(c[0]):
            return None if np.isnan(a[0]) else a
        return a + (c - a) * (f - lo)

    def partner(
        self,
        ball: str,
        at: np.ndarray,
        f: float,
        started: dict[str, float] | None = None,
        exclude: frozenset[str] = frozenset(),
    ) -> tuple[str, float] | None:
        """The ball one diameter from ``at`` at frame ``f``: (id, its speed before).

        A partner's position is taken both from its straight motion before ``f`` and by
        interpolating its samples (a kink of its own at ``f`` bends one or the other)."""
        best: tuple[bool, float, str, float] | None = None
        for b, ident in enumerate(self.s.ids):
            if ident == ball or ident in self.skittles or ident in exclude:
                continue
            sp = self.speed_before(b, f)
            still = sp < self.settings.rest_mm
            if started is not None and still and started.get(ident, 1e18) > f + 0.3:
                continue
            for p in (self.pos_before(b, f), self.pos_interp(b, f)):
                if p is None:
                    continue
                err = abs(float(np.linalg.norm(p - at)) - 2 * self.R)
                # a moving partner explains a start better than one that just started
                key = (still and started is not None, err)
                if err < 0.3 * self.R + self.speed_tol * sp and (best is None or key < best[:2]):
                    best = (key[0], err, ident, sp)
        return None if best is None else (best[2], best[3])

    def skittle_events(self, lo: float, hi: float) -> list[Event]:
        """skittle_down events within frames [lo, hi): a skittle turns ``fallen`` (or,
        without a state column, leaves its mark by more than its base). ``by``: the
        nearest ball within reach then, else a skittle that fell just before nearby."""
        out: list[Event] = []
        reach = self.R + self.table.skittle_base_mm + 6.0
        fallen_at: list[tuple[float, str, np.ndarray]] = []
        for ident in self.skittles:
            b = self.s.index(ident)
            xy = self.s.xy[b]
            gone = np.zeros(len(xy), bool)
            if self.s.fallen is not None:
                down = self.s.fallen[b]
            else:
                seen = ~np.isnan(xy[:, 0])
                home = xy[seen][:1]
                down = (
                    np.linalg.norm(xy - home, axis=1) > self.table.skittle_base_mm
                    if len(home)
                    else np.zeros(len(xy), bool)
                )
                # a lying skittle the detector no longer finds: its track ends
                gone = ~seen & (np.cumsum(seen) > 0)
                down = down | gone
            idx = np.nonzero(
                down[int(max(lo, 1)) : int(hi)] & ~down[int(max(lo, 1)) - 1 : int(hi) - 1]
            )[0]
            if len(idx):
                f = int(max(lo, 1)) + int(idx[0])
                home = xy[f - 1] if not np.isnan(xy[f - 1, 0]) else xy[f]
                fallen_at.append((float(f), ident, home, bool(gone[f])))
        fallen_at = [r[:3] for r in fallen_at if not r[3] or self._near_ball(r[2], r[0], reach)]
        for f, ident, home in sorted(fallen_at, key=lambda r: r[0]):
            # a skittle shows as fallen a few frames after the knock: the ball that passed
            # nearest its mark shortly before is the knocker
            by, best, when = None, reach, f - 0.5
            for b, other in enumerate(self.s.ids):
                if other in self.skittles:
                    continue
                for g in np.arange(f - 8.0, f + 0.25, 0.25):
                    p = self.pos_interp(b, float(g))
                    if p is not None and np.linalg.norm(p - home) < best:
                        by, best, when = other, float(np.linalg.norm(p - home)), float(g)
            if by is not None:  # the knock: when that ball first came within reach
                b = self.s.index(by)
                for g in np.arange(f - 8.0, when + 0.25, 0.25):
                    p = self.pos_interp(b, float(g))
                    if p is not None and np.linalg.norm(p - home) < reach:
                        when = float(g)
                        break
            if by is None:
                prior = [
                    (abs(f - g), s)
                    for g, s, h in fallen_at
                    if g <= f
                    and s != ident
                    and np.linalg.norm(h - home) < 2 * self.table.skittle_height_mm + 10
                ]
                by = min(prior)[1] if prior else None
            extra = {"by": by} if by else {}
            out.append(self._ev(when, EventType.SKITTLE_DOWN, skittle=ident, **extra))
        return out

    def _near_ball(self, at: np.ndarray, f: float, reach: float) -> bool:
        """A ball came within ``reach`` mm of ``at`` in the eight frames up to ``f``: a
        skittle whose track ended then was knocked, not hidden by an arm."""
        for b, other in enumerate(self.s.ids):
            if other in self.skittles:
                continue
            for g in np.arange(f - 8.0, f + 0.25, 0.25):
                p = self.pos_interp(b, float(g))
                if p is not None and np.linalg.norm(p - at) < reach:
                    return True
        return False

    # ------------------------------------------------------------------ shots
    def shot_events(self, group: list[Movement]) -> tuple[list[Event], str | None]:
        """Events of one shot (its movements), and the cue ball."""
        events: list[Event] = []
        contacts: list[tuple[float, frozenset]] = []
        moves = sorted(group, key=lambda m: m.start_f)
        moves = moves[:1] + [m for m in moves[1:] if self._plausible(m, moves)]
        first = moves[0]
        cue = first.ball
        starts = {first.ball: first.start_f}
        events.append(self._ev(first.start_f, EventType.STRIKE, ball=cue))

        def add_contact(f: float, striker: str, struck: str, at: np.ndarray) -> None:
            key = frozenset((striker, struck))
            if any(k == key and abs(f - g) < 2.0 for g, k in contacts):
                return
            contacts.append((f, key))
            events.append(
                self._ev(
                    f,
                    EventType.CONTACT,
                    balls=(striker, struck),
                    at=(round(float(at[0]), 1), round(float(at[1]), 1)),
                )
            )

        for m in moves[1:]:
            starts.setdefault(m.ball, m.start_f)
        cluster: list[tuple[float, Movement, Movement]] = []
        handled: set[str] = {cue}
        set_off: list[tuple[float, str]] = []  # members of frozen clusters, when hit
        for m in moves[1:]:
            if m.ball in handled:
                continue
            rest = np.asarray(m.start_at)
            racked = self._rack(m, starts, cue)
            if racked is not None:
                for c in racked[1]:
                    add_contact(c.f, c.striker, c.struck, np.asarray(c.at))
                handled |= racked[0]
                set_off += [(racked[1][0].f, b) for b in racked[0]] if racked[1] else []
                continue
            p = self.partner(m.ball, rest, m.start_f, started=starts)
            if p is not None:
                add_contact(m.start_f, p[0], m.ball, rest)
            # frozen neighbours set off together (a rack): the camera cannot order the
            # impulses inside a cluster, so every touching pair that started together
            # counts as a contact, the ball that started first named first
            for o in moves:
                if o.ball == m.ball or abs(o.start_f - m.start_f) > 2.0:
                    continue
                gap = np.hypot(o.start_at[0] - rest[0], o.start_at[1] - rest[1]) - 2 * self.R
                if gap < 1.5 and (o.start_f, o.ball) < (m.start_f, m.ball):
                    cluster.append((max(o.start_f, m.start_f), o, m))
            if (
                p is None
                and m.ball != cue
                and not any(
                    o.ball != m.ball
                    and abs(o.start_f - m.start_f) <= 2.0
                    and np.hypot(o.start_at[0] - rest[0], o.start_at[1] - rest[1])
                    < 2 * self.R + 1.5
                    for o in moves
                )
                and self._was_still(m)
                and (rolled := self._seen_rolling(m)) is not None
            ):
                fast = float(np.linalg.norm(m.v_start)) > self.settings.early_strike_mm_per_frame
                kind = EventType.EARLY_STRIKE if fast else EventType.BALL_TOUCHED
                events.append(self._ev(max(m.start_f, rolled), kind, ball=m.ball))
        self._add_cluster(cluster, cue, events, add_contact)
        for m in moves:
            b = self.s.index(m.ball)
            hits = self.cushion_hits(b, m)
            for f, name in hits:
                events.append(self._ev(f, EventType.CUSHION, ball=m.ball, cushion=name))
            for k in m.kinks:
                p = self.partner(m.ball, np.asarray(k.at), k.f)
                if p is None:
                    continue
                mine = float(np.linalg.norm(k.v_before))
                striker, struck = (m.ball, p[0]) if mine >= p[1] else (p[0], m.ball)
                add_contact(k.f, striker, struck, np.asarray(k.at))
            if m.gone and (ev := self.gone_event(m)) is not None:
                events.append(ev)
                if ev.pocket is not None:
                    for f, name in self.jaw_hits(m, ev.pocket, hits):
                        events.append(self._ev(f, EventType.CUSHION, ball=m.ball, cushion=name))
            events += self._crossings(b, m)
        events += self.flown_from_rest(moves, frozenset(self.skittles))
        self._touches(moves, contacts, add_contact)
        self._scan(moves, contacts, add_contact, set_off)
        if self.skittles:
            hi = max(m.stop_f for m in moves) + 2
            events += self.skittle_events(first.start_f, hi)
        events = _explained(self._causal(events, cue))
        events.sort(key=lambda e: (e.frame, e.t))
        return events, cue

    def _seen_rolling(self, m: Movement) -> float | None:
        """The frame from which the ball of ``m`` is seen rolling
        (:func:`vision.motion.seen_moving`), None when it never is: a detection that
        jumped a few mm and stays (an arm's edge, a ball beside it pulling its centre)
        touched nothing. A start dated early by such a jump moves to that frame."""
        from vision.shots import seen_step_mm

        b = self.s.index(m.ball)
        return seen_moving(m, self.s.xy[b], self.s.visible[b], seen_step_mm(self.settings))

    def _was_still(self, m: Movement) -> bool:
        """The ball stood still in the six frames before movement ``m``: the medians of
        their first and last three positions within 1 mm and 4 sigma. A slow ball whose
        motion the noise cut in two never stopped; its second run was set off by nothing."""
        xy = self.s.xy[self.s.index(m.ball), max(0, m.first - 6) : m.first]
        xy = xy[~np.isnan(xy[:, 0])]
        if len(xy) < 4:
            return True
        drift = np.linalg.norm(np.median(xy[-3:], axis=0) - np.median(xy[:3], axis=0))
        return bool(drift < max(1.0, 4.0 * self.settings.sigma_mm))

    def _plausible(self, m: Movement, moves: list[Movement]) -> bool:
        """A ball's movement in a shot is real when a moving ball was near enough to have
        set it off, or it rolls away as a struck or touched ball does; a detection
        hopping in a rack before anything reached it is neither."""
        if m.gone or rolls_away(m, self.s.xy[self.s.index(m.ball)]):
            return True
        at = np.asarray(m.start_at)
        for o in moves:
            if o.ball == m.ball or o.start_f > m.start_f + 1.0:
                continue
            b = self.s.index(o.ball)
            p = self.pos_interp(b, m.start_f)
            reach = 4 * self.R + 2 * self.speed_before(b, m.start_f)
            if p is not None and np.linalg.norm(p - at) < reach:
                return True
        return False

    def _rack(
        self, m: Movement, starts: dict[str, float], cue: str
    ) -> tuple[set[str], list[RackContact]] | None:
        """Contacts of the frozen cluster ``m``'s ball belongs to (itself and the balls at
        rest touching it), set off by a moving ball from outside; None when the ball
        touched nothing at rest or no outside ball explains the cluster's start."""
        sigma = self.settings.sigma_mm
        tol = 1.5 + 3.0 * sigma + RACK_GAP_R * self.R
        rest = rest_positions(self.s, m.start_f, set(self.skittles))
        if m.ball not in rest:
            return None
        comp = component(m.ball, rest, self.R, tol)
        if len(comp) < 2 or cue in comp:
            return None
        out = frozenset(comp)
        thr = max(RACK_MIN_IMPULSE, RACK_SIGMAS * sigma)
        early = sorted(
            (c for c in comp if abs(starts.get(c, 1e18) - m.start_f) <= 2.0), key=starts.get
        )
        for c in early:
            p = self.partner(c, rest[c], starts[c], started=starts, exclude=out)
            if p is not None:
                found = rack_contacts(
                    self.s, p[0], c, starts[c], comp, rest, self.R, tol, thr, starts.get(p[0])
                )
                return set(comp), found
        # a start dated a little early misses the partner by more than its tolerance:
        # the moving ball that came nearest to a member that started then
        best: tuple[float, str, str] | None = None
        for c in early:
            for b, other in enumerate(self.s.ids):
                if other in out or other in self.skittles:
                    continue
                sp = self.speed_before(b, starts[c] + 1.0)
                if sp < 2.0 * self.settings.move_mm:
                    continue
                for g in np.arange(starts[c] - 0.5, starts[c] + 1.01, 0.25):
                    q = self.pos_interp(b, float(g))
                    if q is None:
                        continue
                    gap = abs(float(np.linalg.norm(q - rest[c])) - 2 * self.R)
                    if gap < 0.5 * self.R + 0.5 * sp and (best is None or gap < best[0]):
                        best = (gap, other, c)
        if best is None:
            return None
        _, striker, c = best
        return set(comp), rack_contacts(
            self.s, striker, c, starts[c], comp, rest, self.R, tol, thr, starts.get(striker)
        )

    def _touches(self, moves: list[Movement], contacts, add_contact) -> None:
        """Contacts of balls that came within one diameter of each other (a kiss too
        thin to bend either path visibly): closest approaches of every moving ball to
        every other ball, the faster one before named first."""
        lo = max(0, int(min(m.first for m in moves)) - 2)
        hi = min(self.s.n_frames, int(max(m.last for m in moves)) + 3)
        sig = self.settings.sigma_mm
        spans: dict[str, list[tuple[int, int]]] = {}
        for m in moves:
            spans.setdefault(m.ball, []).append((m.first - 1, m.last + 1))
        others = [i for i in self.s.ids if i not in self.skittles]
        done: set[frozenset] = set()
        for a in sorted(spans):
            for b in others:
                key = frozenset((a, b))
                if b == a or key in done:
                    continue
                done.add(key)
                ia, ib = self.s.index(a), self.s.index(b)
                xa, xb = self.s.xy[ia, lo:hi], self.s.xy[ib, lo:hi]
                tight = 0.5 + 3.0 * sig
                for t, d in closest_approaches(xa, xb, self.R, tight + 4.0, 0.5 + 4 * sig):
                    f = lo + t
                    if not any(p <= f <= q for c in (a, b) for p, q in spans.get(c, ())):
                        continue  # neither ball was moving: noise on two balls at rest
                    if any(k == key and abs(f - g) < 2.5 for g, k in contacts):
                        continue
                    if d > 2 * self.R + tight and not self._pushed_apart(ia, ib, f):
                        continue  # near, but neither path shows the push of a contact
                    if untouched(self.s, ia, ib, f, self.R, sig) or untouched(
                        self.s, ib, ia, f, self.R, sig
                    ):
                        continue  # a ball at rest that stayed put took no push
                    sa, sb = self.speed_before(ia, f), self.speed_before(ib, f)
                    striker, struck = (a, b) if sa >= sb else (b, a)
                    pa, pb = self.pos_interp(ia, f), self.pos_interp(ib, f)
                    at = (pa + pb) / 2 if pa is not None and pb is not None else xa[int(t)]
                    add_contact(f, striker, struck, at)

    def _scan(self, moves: list[Movement], contacts, add_contact, set_off) -> None:
        """Contacts from the balls' velocity changes (:func:`vision.impulse.impulse_scan`)
        over the shot's frames, for pairs no other finder named within three frames (a
        ball hitting a slow cluster, a second touch of two rolling balls). ``set_off``:
        (frame, ball) of the members of frozen clusters the rack finder already read,
        counted as starts (their velocities straddle the hit there)."""
        lo = max(0, int(min(m.first for m in moves)) - 2)
        hi = min(self.s.n_frames, int(max(m.last for m in moves)) + 3)
        balls = [i for i in self.s.ids if i not in self.skittles]
        sig = self.settings.sigma_mm
        thr = max(SCAN_MIN_IMPULSE, SCAN_SIGMAS * sig)
        tol = SCAN_GAP_MM + 3.0 * sig
        starts: dict[str, list[float]] = {}
        for f, ball in [(m.start_f, m.ball) for m in moves] + list(set_off):
            starts.setdefault(ball, []).append(f)
        found = impulse_scan(
            self.s,
            self.R,
            lo,
            hi,
            thr,
            tol,
            balls,
            (self.table.L, self.table.W),
            starts,
            self.settings.decel,
            frozenset([moves[0].ball]),  # the cue ball: its spin unknown
        )
        for c in found:
            key = frozenset((c.a, c.b))
            if any(k == key and abs(c.f - g) < 3.0 for g, k in contacts):
                continue
            ia, ib = self.s.index(c.a), self.s.index(c.b)
            if untouched(self.s, ia, ib, c.f, self.R, sig) or untouched(
                self.s, ib, ia, c.f, self.R, sig
            ):
                continue  # the impulse went round a ball that stayed put: not through it
            add_contact(c.f, c.a, c.b, np.asarray(c.at))

    def _pushed_apart(self, ia: int, ib: int, f: float) -> bool:
        """Both balls' velocities (mm/frame, straight fits over two frames each side of
        ``f``, the contact frame left out) changed along the line of their centres, each
        away from the other, by more than the noise and by amounts that agree (equal
        masses exchange one impulse): the evidence of a contact at ``f``."""
        k = int(np.floor(f))
        lo_fr, hi_fr = np.arange(k - 2, k + 1), np.arange(k + 2, k + 4)
        if lo_fr[0] < 0 or hi_fr[-1] >= self.s.n_frames:
            return False
        dv, pos = [], []
        for i in (ia, ib):
            xy = self.s.xy[i]
            if np.isnan(xy[np.r_[lo_fr, hi_fr], 0]).any():
                return False
            a0, v0 = line_fit(lo_fr.astype(float), xy[lo_fr])
            _, v1 = line_fit(hi_fr.astype(float), xy[hi_fr])
            dv.append(v1 - v0)
            pos.append(a0 + v0 * f)
        n = pos[1] - pos[0]
        n = n / max(float(np.linalg.norm(n)), 1e-9)
        ja, jb = -float(dv[0] @ n), float(dv[1] @ n)
        thr = max(1.0, 6.0 * self.settings.sigma_mm)
        return ja > thr and jb > thr and 0.33 < ja / jb < 3.0

    def _causal(self, events: list[Event], cue: str) -> list[Event]:
        """No contact between other balls before the cue ball's first contact: every
        motion of a shot comes from the cue ball, so such a contact's estimated time
        (a start extrapolated a little early) moves to just after it."""
        first = min(
            (e for e in events if e.type == EventType.CONTACT and cue in e.balls),
            key=lambda e: e.t,
            default=None,
        )
        if first is None:
            return events
        out = []
        for e in events:
            if e.type == EventType.CONTACT and cue not in e.balls and e.t <= first.t:
                e = e.model_copy(update={"t": round(first.t + 1e-4, 4), "frame": first.frame})
            out.append(e)
        return out

    def _add_cluster(self, cluster, cue: str, events: list[Event], add_contact) -> None:
        """Contacts inside a frozen cluster: none before the cue ball's first contact
        (all motion comes from it), the ball nearer to where it hit named first."""
        first = next((e for e in events if e.type == EventType.CONTACT and cue in e.balls), None)
        f0 = (first.t * self.s.fps - self.s.first) if first is not None else -1e9
        hit = np.asarray(first.at) if first is not None and first.at else None
        for f, o, m in sorted(cluster, key=lambda c: c[0]):
            a, b = np.asarray(o.start_at), np.asarray(m.start_at)
            if hit is not None and np.linalg.norm(b - hit) < np.linalg.norm(a - hit):
                o, m, a, b = m, o, b, a
            add_contact(max(f, f0 + 1e-3), o.ball, m.ball, (a + b) / 2)


def _explained(events: list[Event]) -> list[Event]:
    """Drop a ``ball_touched`` or ``early_strike`` whose ball is struck in a contact found
    within 2 frames of it (a hard hit can set the ball's measured start a frame before
    the contact's interpolated time): a ball set off by another ball was not touched."""
    struck = [(e.frame, e.balls[1]) for e in events if e.type == EventType.CONTACT and e.balls]
    return [
        e
        for e in events
        if e.type not in (EventType.BALL_TOUCHED, EventType.EARLY_STRIKE)
        or not any(b == e.ball and abs(f - e.frame) <= 2 for f, b in struck)
    ]
