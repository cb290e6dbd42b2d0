"""Events of one shot from the movements of its balls (contract §8).

strike: the first ball to start with no contact to explain it; contact: a ball starts
or its path kinks where another ball is one diameter away (the faster ball is the
striking one); cushion: a kink one radius from a cushion nose with the normal velocity
reversed; pocket / off_table: a ball leaves the surface, into a pocket mouth or not;
cross: a ball's centre crosses the centre line. Positions mm, times fractional frames.
"""

from __future__ import annotations

import numpy as np

from contract.events import Event, EventType
from contract.tables import TableSpec
from vision.events.contact_checks import AGAIN_MM, AGAIN_SIGMAS, met_again, motion_noise_mm
from vision.events.contact_finders import (  # noqa: F401 (settings re-exported)
    RACK_GAP_R,
    RACK_MIN_IMPULSE,
    RACK_SETOFF_FRAMES,
    RACK_SIGMAS,
    SCAN_GAP_MM,
    SCAN_HOP_MM,
    SCAN_HOP_SIGMAS,
    SCAN_MIN_IMPULSE,
    SCAN_SIGMAS,
    ContactFinders,
)
from vision.events.edges import EdgeEvents
from vision.events.edges_flown import FlownEvents
from vision.events.impulse_scan import hops
from vision.events.kiss import kiss_doubts
from vision.events.motion import Movement, rolls_away, seen_moving
from vision.events.series import Series, line_fit
from vision.events.settings import ShotSettings, seen_step_mm
from vision.events.skittle_events import SkittleEvents

# frames a cushion bounce must lie from both readings of a pair's touch to part them into
# two touches: a touch's and a bounce's dates each err by up to half a frame (sampling)
BOUNCE_APART = 0.5


class EventFinder(ContactFinders, SkittleEvents, EdgeEvents, FlownEvents):
    """Finds the events of shots within one series (read-only after construction)."""

    def __init__(self, series: Series, table: TableSpec, settings: ShotSettings) -> None:
        self.s = series
        self.table = table
        self.settings = settings
        self.R = table.ball_radius
        self.doubts: list[tuple[float, str, str, np.ndarray, str]] = []
        self.speed_tol = 0.3  # share of a frame's travel allowed as timing error
        self.sigma_move = max(motion_noise_mm(series), settings.sigma_mm)
        # a pair closer by this (mm) at a touch than since the one before met again
        self.again_mm = max(AGAIN_MM, AGAIN_SIGMAS * self.sigma_move)
        names = set(table.skittle_spots) if table.kind == "carom" else set()
        self.skittles = tuple(i for i in series.ids if i in names)
        # samples of moving balls that hop off their path and back (no change of motion)
        self.hop = hops(series.xy, max(SCAN_HOP_MM, SCAN_HOP_SIGMAS * self.sigma_move))

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
            ia, ib = self.s.index(striker), self.s.index(struck)
            if any(
                k == key and abs(f - g) < 2.0 and not self._new_touch(ia, ib, g, f, events)
                for g, k in contacts
            ):
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

        runs: dict[str, list[float]] = {}  # every start of each ball in the shot
        for m in moves:
            starts.setdefault(m.ball, m.start_f)
            runs.setdefault(m.ball, []).append(m.start_f)
        cluster: list[tuple[float, Movement, Movement]] = []
        handled: dict[str, float] = {}  # members of clusters read -> when they were hit
        set_off: list[tuple[float, str]] = []  # members of frozen clusters, when hit
        for m in moves[1:]:
            if m.appeared:
                continue  # a ball seen again after it was lost moving: no start to explain
            if m.ball == cue or m.start_f - handled.get(m.ball, -1e18) <= RACK_SETOFF_FRAMES:
                continue  # the cue ball, or a member of a cluster set off by a hit read
            rest = np.asarray(m.start_at)
            racked = self._rack(m, _latest(runs, m.start_f + 2.0), cue)
            if racked is not None:
                for c in racked[1]:
                    add_contact(c.f, c.striker, c.struck, np.asarray(c.at))
                hit = racked[1][0].f if racked[1] else m.start_f
                handled.update({b: hit for b in racked[0]})
                set_off += [(racked[1][0].f, b) for b in racked[0]] if racked[1] else []
                continue
            # a start read from samples a frame apart is dated up to a frame early (the
            # hit fell between them): the partner is looked for up to a frame later too
            for f_hit in (m.start_f, m.start_f + 0.5, m.start_f + 1.0):
                p = self.partner(m.ball, rest, f_hit, started=starts)
                if p is not None:
                    break
            if p is not None and self.closing(self.s.index(p[0]), self.s.index(m.ball), f_hit):
                add_contact(f_hit, p[0], m.ball, rest)
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
                and not self._back_home(m)
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
                if self.hop[b, int(np.floor(k.f)) : int(np.ceil(k.f)) + 1].any():
                    continue  # the detection hopped off the path and back: no kink
                if abs(k.f - handled.get(m.ball, -1e18)) <= RACK_SETOFF_FRAMES:
                    continue  # a frozen cluster's member set off: the rack finder read it
                p = self.partner(m.ball, np.asarray(k.at), k.f)
                if p is None or not self.closing(b, self.s.index(p[0]), k.f):
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
        vanished = self.rest_vanished(moves, frozenset(self.skittles))
        events += self.flown_from_rest(vanished)
        self.doubts = []
        self._touches(moves, contacts, add_contact)
        self._scan(moves, contacts, add_contact, set_off)
        for f, striker, struck, at, why in self.doubts:  # passes in doubt no finder read
            hit = handled.get(striker)
            if hit is not None and hit == handled.get(struck) and f - hit <= RACK_SETOFF_FRAMES:
                continue  # two members of one frozen cluster set off: the rack finder read it
            key = frozenset((striker, struck))
            if not any(k == key and abs(f - g) < 2.5 for g, k in contacts):
                at_mm = (round(float(at[0]), 1), round(float(at[1]), 1))
                ev = self._ev(f, EventType.CONTACT, balls=(striker, struck), at=at_mm)
                events.append(ev.model_copy(update={"uncertain": why}))
        events += kiss_doubts(events, self.s, self.table)
        events += self.knocked_off(moves, events, vanished)
        if self.skittles:
            hi = max(m.stop_f for m in moves) + 2
            events += self.skittle_events(first.start_f, hi, starts)
        events = _explained(self._causal(events, cue))
        events.sort(key=lambda e: (e.frame, e.t))
        return events, cue

    def _new_touch(self, ia: int, ib: int, f0: float, f1: float, events: list[Event]) -> bool:
        """Balls ``ia`` and ``ib``, read touching at fractional frames ``f0`` and ``f1`` (series
        index) under two frames apart, touched twice: they closed in again in between
        (:func:`vision.events.contact_checks.met_again`), or one of them bounced off a cushion in
        between (a cushion event of ``events`` more than ``BOUNCE_APART`` frames from both):
        only a cushion turns a ball back into the one it has just left, and the second
        touch, read with velocity fits that straddle the bounce, is dated early, before the
        pair's gap closes again. A cushion within that of a reading is the same moment (a
        ball struck while it lay against the cushion), not a way back."""
        if met_again(self.s, ia, ib, f0, f1, self.again_mm):
            return True
        lo, hi = sorted((f0, f1))
        pair = (self.s.ids[ia], self.s.ids[ib])
        return any(
            e.type == EventType.CUSHION
            and e.ball in pair
            and lo + BOUNCE_APART < e.t * self.s.fps - self.s.first < hi - BOUNCE_APART
            for e in events
        )

    def _seen_rolling(self, m: Movement) -> float | None:
        """The frame from which the ball of ``m`` is seen rolling
        (:func:`vision.events.motion.seen_moving`), None when it never is: a detection that
        jumped a few mm and stays (an arm's edge, a ball beside it pulling its centre)
        touched nothing. A start dated early by such a jump moves to that frame."""
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

    def _back_home(self, m: Movement, look_back: int = 300, stay: int = 8) -> bool:
        """Movement ``m`` ended where its ball stood still earlier (``stay`` samples in a
        row within max(2 mm, 4 sigma) of ``m.stop_at``, within ``look_back`` frames
        before it) and the ball never got a radius from there in between: the ball did
        not move; its detections were pulled aside meanwhile (a cue or an arm over part
        of it) and came back as the cover left (no ``ball_touched``)."""
        xy = self.s.xy[self.s.index(m.ball), max(0, m.first - look_back) : m.first]
        d = np.linalg.norm(xy - np.asarray(m.stop_at), axis=1)
        seen = ~np.isnan(d)
        tol = max(2.0, 4.0 * self.settings.sigma_mm)
        run = 0
        for k in range(len(d) - 1, -1, -1):  # from the latest sample back
            if seen[k] and d[k] > self.R:
                return False  # it was elsewhere since: a real move, or another ball
            run = run + 1 if seen[k] and d[k] <= tol else 0
            if run >= stay:
                return True
        return False

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


def _latest(runs: dict[str, list[float]], f: float) -> dict[str, float]:
    """Each ball's latest start (fractional frame) up to ``f``, or its first: the starts
    that can belong to a hit at about ``f`` (a rack member hit a second time in a shot
    starts again)."""
    return {b: max((x for x in v if x <= f), default=min(v)) for b, v in runs.items()}


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
