"""The tracker's number reading (pyramid white balls): each white track votes over its
views (``vision.numbers.reader``), takes a number once the vote is sure and no other track
holds it, and keeps it; rows are renamed to the numbers afterwards."""

from __future__ import annotations

import numpy as np

from contract.tracks import Tracks
from vision.detect.detector import Detections
from vision.numbers.reader import SECOND_LOOK_RADII, STILL_RADII, assign_numbers_how
from vision.track.state import TrackerConfig, _Track


def renamed_rows(rows: Tracks, names: dict[str, str]) -> Tracks:
    """``rows`` with tracker names replaced by ``names`` (a read ball's number), sorted
    by (frame, id) again; the skittle ``state`` column kept where there is one."""
    if not names or not len(rows):
        return rows
    ids = np.array([names.get(str(i), i) for i in rows.id], object)
    order = np.lexsort((ids.astype(str), rows.frame))
    cols = (rows.frame, rows.t, ids, rows.x, rows.y, rows.visible, rows.u, rows.v)
    state = None if rows.state is None else rows.state[order]
    return Tracks(*(c[order] for c in cols), state)


class NumberReading:
    """Mixin of :class:`vision.track.tracker.Tracker`: its ``tracks``, ``cfg`` and ``_reader``."""

    tracks: list[_Track]
    cfg: TrackerConfig
    _reader: object

    def _read_numbers(self, image: np.ndarray, det: Detections, matched: dict) -> None:
        """Read the numbers of white active tracks seen sharp this frame (new views
        only), then give sure numbers out (``vision.numbers.reader.assign_numbers``)."""
        ask: list[tuple[_Track, int, bool, bool]] = []  # track, detection, at rest, slow
        limit = None  # the reader's motion limit (radii a frame), once a ball is to be read
        for tr in self.tracks:
            j = matched.get(id(tr))
            if tr.state != "active" or tr.number is not None or j is None:
                continue
            if tr.cls != "white" or det.blurred[j] or not np.all(np.isfinite(det.uv[j])):
                continue
            r = float(det.radius[j])
            step = tr.numvote.step(det.uv[j])  # px since the last sharp frame
            if not r >= self.cfg.min_read_radius_px:
                continue
            if limit is None:
                limit = float(getattr(self._number_reader(), "max_step_radii", np.inf))
            if step >= limit * r:
                continue  # smeared past what the reader reads
            still = step < STILL_RADII * r
            if not tr.numvote.wants_look(det.uv[j], r, still=still):
                continue
            ask.append((tr, j, still, step < SECOND_LOOK_RADII * r))
            if len(ask) >= self.cfg.reads_per_frame:
                break
        if ask:
            js = np.array([a[1] for a in ask])
            slow = np.array([a[3] for a in ask])
            # the second look at slow balls, where the reader offers one
            more = {"second": slow} if getattr(self._reader, "second_look", False) else {}
            logp = self._reader.read(image, det.uv[js], det.radius[js], **more)
            for (tr, j, at_rest, _), lp in zip(ask, logp, strict=True):
                tr.numvote.add(lp, det.uv[j], float(det.radius[j]), at_rest)
        undecided = {
            id(t): t
            for t in self.tracks
            if t.state == "active" and t.number is None and t.numvote.views + t.numvote.looks
        }
        if not undecided:
            return
        # a number stays taken once read, also when its ball is lost or pocketed: no
        # second track may take it later (classic pyramid scores by the numbers)
        taken = {t.number for t in self.tracks if t.number is not None}
        got = assign_numbers_how({k: t.numvote for k, t in undecided.items()}, taken)
        for k, (n, how) in got.items():
            undecided[k].number, undecided[k].number_how = n, how

    def _number_reader(self):
        """The number reader, loaded on first use (``vision.numbers.reader.NumberReader``)."""
        if self._reader is None:
            from vision.numbers.reader import NumberReader

            self._reader = NumberReader.load()
        return self._reader

    def renames(self) -> dict[str, str]:
        """Tracker name -> number id of every ball whose number was read."""
        return {t.name: str(t.number) for t in self.tracks if t.name and t.number is not None}

    def number_sources(self) -> dict[str, tuple[int, str]]:
        """Tracker name -> (number, how it is known: "read" off the ball, or by
        "elimination", the only number of the rack no other ball holds)."""
        return {
            t.name: (t.number, t.number_how or "read")
            for t in self.tracks
            if t.name and t.number is not None
        }

    def renamed(self, rows: Tracks) -> Tracks:
        """A whole video's ``rows`` with every numbered ball under its number from its
        first row (contract §3: a ball keeps one name for the whole video)."""
        return renamed_rows(rows, self.renames())
