"""Contact finders of one shot, for :class:`vision.events.finder.EventFinder`: a frozen
cluster set off by a moving ball (:mod:`vision.events.impulse`), close approaches of two balls,
and the impulse scan of the balls' velocity changes (:mod:`vision.events.impulse_scan`); and
the order of contacts (none inside a cluster before the cue ball's first). Positions
table mm, times fractional frames relative to the series' first frame.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from contract.events import Event, EventType
from vision.events.contact_checks import (
    APPROACH_SIGMAS,
    approach_speed,
    bent,
    met_again,
    stayed_short,
    untouched,
)
from vision.events.contact_nudge import nudged
from vision.events.impulse import (
    NEAR,
    RackContact,
    closest_approaches,
    component,
    impulse_scan,
    rack_contacts,
    rest_positions,
    slide_decel,
    slide_travel,
)
from vision.events.impulse_scan import scan_copies
from vision.events.motion import Movement
from vision.events.rack_sim import model_pairs
from vision.events.rack_solve import angle_sigma, rigid
from vision.events.series import line_fit

if TYPE_CHECKING:
    from contract.tables import TableSpec
    from vision.events.series import Series
    from vision.events.settings import ShotSettings


RACK_GAP_R = 0.1  # a gap (radii) still touching in a rack: measured centres err by mm
# a member of a frozen cluster set off by a hit shows its start within this many frames
# of it (the slowest members of the synthetic breaks 2.4 frames late); a later start of
# the same ball is a new hit (a ball still lying against others, hit again)
RACK_SETOFF_FRAMES = 3.0
RACK_MIN_IMPULSE = 0.3  # mm/frame a pair inside a rack must carry
# and this many position noise sigmas: a member's start velocity through its rest position
# and two samples (about 1 and 2 frames on) carries 0.45 sigma, so 2 sigma is 4.4 of its own
RACK_SIGMAS = 2.0
# and its own reading (not only its low quantile) this many velocity-change noises: a
# change read from straight fits of three samples a side carries about the motion noise
# sigma (mm/frame; bench.score_impulse calls an impulse under three of those unseen)
RACK_NOISE_SIGMAS = 3.0
# impulse scan: the least velocity change (mm/frame, and in noise sigmas) a contact
# must carry, and how far apart (mm, plus 3 sigma) two balls may be to be touching
SCAN_MIN_IMPULSE = 0.4
SCAN_SIGMAS = 6.0
SCAN_GAP_MM = 4.0  # a detector places balls that touch a mm or two apart
# frames the scan's velocity fits span (three each side of an interval): one touch bends
# the fits of every interval within them, and may be read in two runs that far apart
SCAN_SPAN_FRAMES = 6.0
# a moving ball's detection off its path and back for a frame or two by more than this
# (mm, and motion-noise sigmas; as series.despike for balls at rest) is read nowhere
SCAN_HOP_MM = 3.0
SCAN_HOP_SIGMAS = 6.0


NEAR_DOUBT_SIGMAS = 4.0
"""A pass within this many noise sigmas beyond the touching tolerance, with no push seen
and no resting ball that stayed put, is an ``uncertain`` contact (none on exact tracks)."""


class ContactFinders:
    """Mixin: needs ``s`` (Series), ``table``, ``R``, ``settings``, ``skittles``,
    ``sigma_move``, ``again_mm`` and the helpers ``partner``, ``speed_before``,
    ``pos_interp``, ``pos_before`` of the event finder."""

    s: Series
    table: TableSpec
    R: float
    settings: ShotSettings
    skittles: tuple[str, ...]
    sigma_move: float  # mm, one axis: the motion noise (or the rest noise, if larger)
    doubts: list[tuple[float, str, str, np.ndarray, str]]  # passes in doubt: f, a, b, at, why
    again_mm: float  # mm a pair closes in by between two touches (contact_checks.met_again)

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

        # balls at rest near enough to meet a member in the frames its velocity is read
        # over join the solve (their pairs with members are near pairs)
        ring = [
            b
            for b in rest
            if b not in out
            and any(np.linalg.norm(rest[b] - rest[c]) - 2 * self.R < NEAR * tol for c in comp)
        ]

        def solve(striker: str, c: str, f: float) -> list[RackContact]:
            """The rack's contacts when ``striker`` hit member ``c`` at about ``f``."""
            members = comp + [b for b in ring if b != striker]
            args = (f, members, rest, self.R, tol, thr, starts.get(striker))
            floor = RACK_NOISE_SIGMAS * self.sigma_move
            found = rack_contacts(self.s, striker, c, *args, self._motion(), floor)
            added, never = self._rack_model(striker, comp, rest, found, tol, args[-1])
            kept = [k for k in found if frozenset((k.striker, k.struck)) not in never]
            return [self._reached(k, rest, tol) for k in kept + added]

        for c in early:
            p = self.partner(c, rest[c], starts[c], started=starts, exclude=out)
            if p is not None:
                return set(comp), solve(p[0], c, starts[c])
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
        if best is not None:
            return set(comp), solve(best[1], best[2], starts[best[2]])
        if not early:
            return None
        # the ball struck may take the hit and pass it on too slowly to show a start of its
        # own (a rack's apex creeps under a mm a frame): the moving ball that reached any
        # member, about when the members that did start set off
        hit = self._reached_member(comp, rest, out, tol, m.start_f - 1.0)
        return None if hit is None else (set(comp), solve(*hit))

    def _reached_member(
        self,
        comp: list[str],
        rest: dict[str, np.ndarray],
        out: frozenset[str],
        tol: float,
        lo: float,
    ) -> tuple[str, str, float] | None:
        """(striker, member, fractional frame) of the first moving ball from outside the
        cluster ``comp`` (``out``) whose centre's straight motion (:meth:`pos_before`)
        comes within one diameter and ``tol`` mm of a member's rest position (table mm),
        searched from frame ``lo`` over ``RACK_SETOFF_FRAMES + 2`` frames, and whose path
        bends there (:func:`vision.events.contact_checks.bent`: it stopped or turned at the rack;
        a ball grazing past on its way keeps its line). None when no ball did."""
        friction = slide_decel(self.s.fps)
        for g in np.arange(lo, lo + RACK_SETOFF_FRAMES + 2.0 + 1e-9, 0.1):
            for b, other in enumerate(self.s.ids):
                if other in out or other in self.skittles:
                    continue
                if self.speed_before(b, float(g)) < 2.0 * self.settings.move_mm:
                    continue
                p = self.pos_before(b, float(g))
                if p is None:
                    continue
                k = int(np.floor(g))
                for c in comp:
                    near = np.linalg.norm(p - rest[c]) < 2 * self.R + tol
                    if near and bent(self.s, b, k - 1, k + 3, self.sigma_move, friction):
                        return other, c, float(g)
        return None

    def _reached(self, c: RackContact, rest: dict[str, np.ndarray], tol: float) -> RackContact:
        """Contact ``c`` of a frozen cluster, dated when its striking ball's centre (its
        straight motion before, :meth:`pos_before`, not bent by the touch) first comes
        within one diameter and ``tol`` mm of the struck ball's rest position (table mm),
        from the cluster's start ``c.f`` up to ``RACK_SETOFF_FRAMES`` later (fractional
        frames). A slow ball meets the members of a loose cluster one after another, and
        a member that drifted or jittered is read starting before anything reached it;
        a touching pair, or one that never comes that near, keeps ``c.f``."""
        if c.struck not in rest:
            return c
        b = self.s.index(c.striker)
        for g in np.arange(c.f, c.f + RACK_SETOFF_FRAMES + 1e-9, 0.1):
            p = self.pos_before(b, float(g))
            if p is not None and np.linalg.norm(p - rest[c.struck]) < 2 * self.R + tol:
                return replace(c, f=float(g))
        return c

    def _rack_model(
        self,
        striker: str,
        comp: list[str],
        rest: dict[str, np.ndarray],
        found: list[RackContact],
        tol: float,
        since: float | None = None,
    ) -> tuple[list[RackContact], set[frozenset]]:
        """What the forward model (:func:`vision.events.rack_sim.model_pairs`) says of the rack
        ``comp`` set off by ``striker``, from the members' rest positions and the
        striker's samples before the hit (from ``since``, when it started): the contacts
        it names that the measured solve ``found`` did not (pairs whose impulse is too
        faint for the members' velocities to show), and the members' pairs ``found``
        names that collide in none of its runs (no impulse reaches them through the
        rack: the solve credited them with a misreading of their members' velocities).
        Only for a rack of three or more whose touches fix its shape
        (:func:`vision.events.rack_solve.rigid`; two balls' one pair takes the whole push,
        which their velocities show): there the members' positions, misread by a mm or
        two, are put back on the lattice the touches make (a synthetic break's 15 balls
        to within 0.03 mm of the truth, turned 0.1-0.2 degree), while a looser cluster's
        lines of centres, and the order of its impacts, are as misread as its positions.
        On the synthetic breaks' rigid racks (94 clips and 8 held out) every pair of
        members the solve named truly (323) collided in at least 10 of the 21 runs, 321
        in all; the two it named falsely (an impulse under 1.2 mm/frame) in none."""
        pairs = [
            (a, b)
            for i, a in enumerate(comp)
            for b in comp[i + 1 :]
            if np.linalg.norm(rest[a] - rest[b]) - 2 * self.R < tol
        ]
        if not found or len(comp) < 3 or not rigid(pairs):
            return [], set()
        f0 = found[0].f
        members = {b: rest[b] for b in comp}
        named = {frozenset((c.striker, c.struck)) for c in found}
        xy = self.s.xy[self.s.index(striker)]
        # a member's misplacement (mm, an axis): the touching pairs' RMS gap shows it (a
        # gap is the difference of two members' errors along their line: sqrt(2) of one)
        gap_rms = angle_sigma(members, pairs, self.R) * 2 * self.R
        noise = (max(self.settings.sigma_mm, gap_rms / np.sqrt(2.0)), self.sigma_move)
        model = model_pairs(members, pairs, striker, xy, f0, since, self.R, noise)
        if model is None:
            return [], set()
        out = []
        for key, (a, b) in model.robust.items():
            if key in named:
                continue
            at = np.mean([members[m] for m in key - {striker}], axis=0)
            out.append(RackContact(f0, a, b, (float(at[0]), float(at[1])), 0.0))
        never = {k for k in named if k <= members.keys() and k not in model.seen}
        return out, never

    def _motion(self) -> tuple[float, float, float]:
        """(position noise of a ball in motion, mm; rolling deceleration, mm/frame^2;
        position noise of a ball at rest, mm)."""
        return self.sigma_move, self.settings.decel or 0.0, self.settings.sigma_mm

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
                rise, flat = 0.5 + 4 * sig, 2.0 * sig  # flat: a difference of two distances
                for t, d in closest_approaches(xa, xb, self.R, tight + 4.0, rise, flat):
                    f = lo + t
                    if not any(p <= f <= q for c in (a, b) for p, q in spans.get(c, ())):
                        continue  # neither ball was moving: noise on two balls at rest
                    k0 = int(np.floor(f))
                    if any(k == key and abs(f - g) < 2.5 for g, k in contacts):
                        continue
                    sa, sb = self.speed_before(ia, f), self.speed_before(ib, f)
                    striker, struck = (a, b) if sa >= sb else (b, a)
                    pa, pb = self.pos_interp(ia, f), self.pos_interp(ib, f)
                    at = (pa + pb) / 2 if pa is not None and pb is not None else xa[int(t)]
                    gap = d - 2 * self.R
                    if not self.s.visible[[ia, ib], max(0, k0 - 1) : k0 + 3].all():
                        # a path bridged where unseen: its nearness is not measured
                        why = (
                            f"{striker} and {struck} not seen where they passed {gap:.0f} mm apart"
                        )
                        self.doubts.append((f, striker, struck, at, why))
                        continue
                    if not self._kissed(ia, ib, f, gap, tight):
                        band = NEAR_DOUBT_SIGMAS * sig
                        if gap <= tight + band and not self._stayed(ia, ib, f):
                            why = f"{striker} passed {gap:.1f} mm from {struck}: no push seen"
                            self.doubts.append((f, striker, struck, at, why))
                        continue
                    add_contact(f, striker, struck, at)

    def _stayed(self, ia: int, ib: int, f: float) -> bool:
        """Either ball of the pair was at rest and stayed put through the pass (no touch)."""
        sig, R = self.settings.sigma_mm, self.R
        return untouched(self.s, ia, ib, f, R, sig) or untouched(self.s, ib, ia, f, R, sig)

    def _kissed(self, ia: int, ib: int, f: float, gap: float, tight: float) -> bool:
        """The closest approach of balls ``ia`` and ``ib`` at fractional frame ``f`` (their
        gap, mm) was a touch: a ball at rest shifted away from the other along their line
        of centres (:func:`vision.events.contact_nudge.nudged`: the push itself, read from its
        rest positions); or the pair came within ``tight`` mm, or both paths show the push
        (:meth:`_pushed_apart`), neither ball at rest stayed put, and they closed in."""
        sig = self.settings.sigma_mm
        if nudged(self.s, ia, ib, f, self.R, sig) or nudged(self.s, ib, ia, f, self.R, sig):
            return True
        if gap > tight and not self._pushed_apart(ia, ib, f):
            return False  # near, but neither path shows the push of a contact
        if untouched(self.s, ia, ib, f, self.R, sig) or untouched(self.s, ib, ia, f, self.R, sig):
            return False  # a ball at rest that stayed put took no push
        return self.closing(ia, ib, f)

    def _scan(self, moves: list[Movement], contacts, add_contact, set_off) -> None:
        """Contacts from the balls' velocity changes (:func:`vision.events.impulse.impulse_scan`)
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
            max(SCAN_HOP_MM, SCAN_HOP_SIGMAS * self.sigma_move),
        )
        copies = scan_copies(found, contacts)  # the scan's readings of the others' contacts
        named = len(contacts)
        for n, c in enumerate(found):
            key = frozenset((c.a, c.b))
            # a repeat the scan split off a run is its own evidence (read clear of the
            # touch before it, against a raised threshold), as is a touch of a pair 2-3
            # frames from another finder's whose own reading the scan found as well (two
            # balls pushed along together, a spinning cue ball knocking the ball ahead
            # again); a run of its own near a touch the scan kept is that touch, unless
            # the pair closed in again between them
            mine = contacts[named:]
            ia, ib = self.s.index(c.a), self.s.index(c.b)
            if n in copies or (not c.repeat and self._read_again(ia, ib, c.f, key, mine)):
                continue
            if untouched(self.s, ia, ib, c.f, self.R, sig) or untouched(
                self.s, ib, ia, c.f, self.R, sig
            ):
                continue  # the impulse went round a ball that stayed put: not through it
            # the least impulse the contact carries: the threshold, or the one read less
            # three noises of a velocity change (about the motion noise, mm/frame)
            least = max(thr, c.impulse - 3.0 * self.sigma_move)
            if stayed_short(self.s, ib, ia, c.f, self.R, sig, self._travel(least, c.f)):
                continue  # the struck ball at rest never went where that impulse sends it
            add_contact(c.f, c.a, c.b, np.asarray(c.at))

    def _read_again(
        self, ia: int, ib: int, f: float, key: frozenset, kept: list[tuple[float, frozenset]]
    ) -> bool:
        """A scan contact of balls ``ia``, ``ib`` at fractional frame ``f`` is the touch of
        the pair it already kept (``kept``: (frame, pair)) within ``SCAN_SPAN_FRAMES``,
        the span of the velocity fits that read an impulse (a touch bends the fits of
        every interval within it), read again: unless the pair closed in on each other
        again in between (:func:`vision.events.contact_checks.met_again`)."""
        return any(
            k == key
            and abs(f - g) < SCAN_SPAN_FRAMES
            and not met_again(self.s, ia, ib, g, f, self.again_mm)
            for g, k in kept
        )

    def closing(self, ia: int, ib: int, f: float) -> bool:
        """Balls ``ia`` and ``ib`` closed in on each other before ``f`` faster than the
        noise of that speed (:func:`vision.events.contact_checks.approach_speed`, at least
        ``APPROACH_SIGMAS`` motion-noise sigmas): a pair that never closed in (a rack's
        members spreading side by side, their read centres jittering) exchanged no
        impulse. True where the speed cannot be read (a sample missing)."""
        k = int(np.floor(f))
        friction = slide_decel(self.s.fps)
        for i in (ia, ib):
            if bent(self.s, i, k - 2, k + 1, self.sigma_move, friction) or self._bounced(i, f):
                return True  # a cushion turned it inside the fit or after it: unread
        ap = approach_speed(self.s, ia, ib, f)
        return ap is None or ap > APPROACH_SIGMAS * self.sigma_move

    def _bounced(self, i: int, f: float) -> bool:
        """Ball ``i``'s straight motion from its last sample before ``f`` (its velocity
        over the frame before) puts its centre past a cushion nose line less one radius
        by ``f``: it hit the cushion in between, its approach after that unseen."""
        k = int(np.floor(f))
        if k < 1 or k >= self.s.n_frames:
            return False
        p, q = self.s.xy[i, k], self.s.xy[i, k - 1]
        if np.isnan(p[0]) or np.isnan(q[0]):
            return False
        x, y = p + (p - q) * (f - k)
        R = self.R
        return bool(x < R or y < R or x > self.table.L - R or y > self.table.W - R)

    def _travel(self, v0: float, f: float) -> float:
        """Distance (mm) a ball at rest given ``v0`` mm/frame at ``f`` covers by the middle
        of the window :func:`vision.events.contact_checks.stayed_short` reads (``floor(f) + 4.5``):
        it slides until it rolls at 5/7 of ``v0`` (:func:`vision.events.impulse.slide_travel`),
        then rolls, slowing by the video's rolling deceleration."""
        tau = int(np.floor(f)) + 4.5 - f
        d = slide_decel(self.s.fps)
        ts = min(tau, 2.0 * v0 / (7.0 * d))
        slid = float(slide_travel(v0, np.array([ts]), d)[0])
        vr, roll = 5.0 / 7.0 * v0, self.settings.decel or 0.0
        t = tau - ts
        rolled = vr * t - 0.5 * roll * t * t if roll * t < vr else vr * vr / (2.0 * roll)
        return slid + rolled

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
