"""Reading the numbers of white pyramid balls: a patch reader and a per-track vote.

:class:`NumberReader` runs the number net (``models/ballnet/numbers.onnx``, onnxruntime
only) on *tight* patches (``NUM_PATCH`` px over ``2 * NUM_SPAN`` ball radii around the
ball's sub-pixel centre in video pixels) and returns per patch the log-probabilities of
"no number readable" (0) and of 1..15, averaged over the four quarter turns of the patch
(the number turns with the ball, so every turn is a valid look).

:class:`NumberVote` gathers one track's evidence. A ball at rest shows the same face in
every frame, so frames are not independent looks: evidence is pooled per *view* (a view
ends when the ball has moved ``VIEW_RADII`` ball radii in the picture, which turns a
rolling ball by about 30 degrees), each view adds the mean of its frames' log-likelihoods
(``log p(n | patch, readable)``, floored, tempered by ``TEMPER``), and a view counts only
frames where the net thinks a number is readable. Views are not independent looks either:
the net confuses some figures systematically from some angles (14 read as 11 on a rolling
ball), so a number also needs the most likely number of at least ``AGREE`` of the track's
readable views and at least ``MIN_VIEWS`` of them. :func:`assign_numbers` decides: a
Hungarian assignment over undecided tracks x free numbers on the posterior, a number given
only when its posterior is at least ``P_SURE``, the views agree, and no other track holds
it (contract §3: white balls are ``1`` … ``15`` where the number is known); one view can
decide alone (``P_VIEW``, lower at rest: ``P_VIEW_REST``), and so can many looks of a
slowly rolling ball on average (``P_POOL``), a rolling ball's looks by their geometric mean
(``P_GEO``) and a view at rest by its frames' geometric mean (``P_REST_GEO``). 6 and 9 are told
apart by their underline (pyramid balls print one; so does the renderer). The last
undecided track takes the last free number by elimination when the other 14 are held. A
wrong number costs more than none (classic pyramid scores the numbers), so the rule is
conservative. A ball that comes to rest opens a view of its own (the face it rests on is
new); only views sure enough (``SURE_VIEW_P``) count toward the agreement.

The camera sees a ball as an orthographic sphere, so a figure printed off the line of
sight can be turned to face it (``vision.numbers.unwarp``, re-exported here):
:func:`ink_centre` finds the figure, :func:`unwarp` re-views the sphere from it; the reader
gives slow balls a second look so turned and keeps the surer look
(``NumberReader.read(..., second=...)``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.base.assign import linear_sum_assignment
from vision.detect.classify import MODEL_DIR, extract_patches, file_sha256, to_input
from vision.numbers.unwarp import (  # noqa: F401  the sphere unwarp, re-exported here
    FRONTAL_OFF,
    INK_DARK,
    INK_DISC,
    INK_MIN,
    LIMB,
    NUM_PATCH,
    NUM_SPAN,
    frontal,
    ink_centre,
    ink_size,
    patch_grid,
    turned_figure,
    turned_view,
    unwarp,
)

READABLE_P = 0.5
"""A frame counts toward a view when the net's "no number" probability is under this."""
FLOOR = np.log(0.02)
"""Lowest per-frame log-likelihood of a number (one bad look cannot veto a number)."""
VIEW_RADII = 0.5
"""A new view starts after the ball has moved this many radii in the picture."""
P_SURE = 0.9
"""Posterior a number needs before a track takes it."""
MIN_VIEWS = 2
"""Readable views a track needs before it can take a number."""
TEMPER = 0.5
"""Weight of one view's log-likelihood (views of one ball are not independent)."""
AGREE = 0.6
"""Share of a track's readable views whose own best number must be the number taken."""
STILL_RADII = 0.015
"""A ball that moved less than this many radii since the last frame is at rest."""
READ_STEP_RADII = 0.5
"""The reader's ``max_step_radii``: the tracker does not read a ball that moved this many
radii or more since the last frame: at 30 fps with a 1/60 s shutter its smear reaches a
quarter radius, past the reader's training (readable labels stop at a quarter radius of
smear), where it read 4 as 6 and 8 as 6 on the bench."""
SURE_VIEW_P = 0.5
"""A view counts toward the agreement only when its best number's mean ``p(n | readable)``
reaches this (a rolling ball's many unsure views must not veto a sure one at rest); a
track with no such view counts all its views."""
SECOND_LOOK = True
"""The reader also reads each slow ball (``SECOND_LOOK_RADII``) whose ink lies off the
disc's centre with the figure turned to face it (:func:`turned_figure`) and keeps the
surer look (:func:`surer`)."""
SECOND_LOOK_RADII = 0.35
"""Balls that moved less than this many radii since the last frame (at rest, creeping or
rolling slowly: smear under 0.18 r at 30 fps and a 1/60 s shutter) get the second look; a
faster ball's smear misplaces the ink's centre, and given the second look at any speed it
read 4 as 6 on the bench (smear 0.2-0.24 r). Up from 0.1: on the bench 2 more ball-shots
right of 47 (a rolling 8), on held-out sequences (``models.ballnet.numseq``) 1 and 0.7
points more, none wrong added."""
P_VIEW = 0.9
"""One view whose mean ``p(n | readable)`` reaches this is sure by itself (a view of a
rolling ball; at rest ``P_VIEW_REST``). Chosen for the reader v10 (trained on many makers'
prints) on held-out sequences printed by random makers (``numseq --varied``, set A): 0.9
reads 2 more balls of 47 than 0.95, none wrong; confirmed on set B (1 more of 43, none
wrong) and on ``tablemon bench numbers`` (own kept 1080p 4 of 4 visible, was 3; none wrong
on any set). The reader v9 had been 2.7 % wrong at 0.9 on rolling held-out patches, hence
its 0.95."""
P_VIEW_REST = 0.9
"""One view read at rest (``NumberVote.add(..., still=True)``) whose mean ``p(n |
readable)`` reaches this is sure by itself: a ball at rest shows one face; on held-out
1080p patches of balls at rest, four turns pooled, second look, reads this sure are right
99.8 % of the time (4 wrong of 1,749; hard views 0 of 704), 71 % of readable patches."""
P_POOL = 0.7
"""A track whose looks, pooled over ``MIN_VIEWS`` or more views and at least
``POOL_LOOKS`` looks, average ``p(n | readable)`` of this for one number takes it (views
agreeing, ``AGREE``): the frames of a slowly rolling ball are several looks at its figure,
each turned a little (held-out sequences: 0 wrong, ``models/ballnet/README.md``)."""
POOL_LOOKS = 4
"""Looks a track needs before its pooled mean counts (``P_POOL``)."""
P_GEO = 0.5
"""A track whose looks' *geometric* mean, the softmax of the mean of their floored
``log p(n | readable)`` (:meth:`NumberVote.geo`), reaches this for one number over at least
``GEO_LOOKS`` looks takes it (views agreeing, ``AGREE``). The floor (``FLOOR``) caps it
under 0.78: one look far off cannot veto, and no number reaches the cap unless every look
names it."""
GEO_LOOKS = 4
"""Looks a track needs before its geometric mean counts (``P_GEO``)."""
P_REST_GEO = 0.85
"""A view at rest read in at least ``REST_LOOKS`` frames whose geometric mean (softmax of
the mean of its frames' unfloored ``log p(n | readable)``) reaches this for one number is
sure by itself: frames that disagree (a figure read 1 and 2 by turns) pull it down."""
GEO_MIN_RADIUS_PX = 11.5
"""Only looks at balls of at least this radius (video px) enter the geometric means
(``P_GEO``, ``P_REST_GEO``): they were measured at 1080p (13-16 px); at 720p (10-10.6 px,
read only below the tracker's default floor) they read 2 of the bench's 31 ball-shots
wrong."""
VIEW_LOOKS = 3
"""Frames of one view the tracker reads (a view at rest: ``REST_LOOKS``); only these count
toward the view's evidence, the pooled and the geometric means."""
REST_LOOKS = 6
"""Frames of one view at rest the tracker reads (each with its own sensor noise and
compression; the same pose) and that ``P_REST_GEO`` needs."""
INK_SHARE_MIN = 0.03
"""A look counts as readable only when at least this share of the disc (inside
``INK_DISC`` radii) is ink (:func:`ink_size`): the reader learnt figures 0.45 r tall (own
1080p renders: sure right reads 0.043-0.062 of the disc); a smaller or fainter figure (the
foreign renders' sure wrong reads: 0.005-0.043) is outside what it learnt, and it read
such figures confidently wrong (1 as 7, 14 and 11 as 1). Chosen on the fit part of
``tablemon bench numbers`` (``models/ballnet/README.md``, "Knowing when it cannot read")."""
INK_SPREAD_MIN = 0.08
"""A look counts as readable only when its ink spreads at least this far about its
centre (root mean square, ball radii; :func:`ink_size`): own sure right reads 0.107-0.182,
a figure 0.45 r tall about 0.15; the foreign renders' small figures mostly under 0.08.
Chosen with ``INK_SHARE_MIN``."""


class NumberReader:
    """The number net behind onnxruntime (one thread by default)."""

    def __init__(self, session, meta: dict) -> None:
        self.session = session
        self.meta = meta
        self.patch = int(meta["input_shape"][-1])
        self.span = float(meta["span_radii"])
        self.frontal = bool(meta.get("frontal", False))  # reads figures turned to face it
        self.second_look = SECOND_LOOK
        self.max_step_radii = READ_STEP_RADII  # balls moving faster are not read
        self.balls_read = 0  # patches read so far (each in four turns)

    @classmethod
    def load(cls, folder: str | Path | None = None, threads: int = 1) -> NumberReader:
        """Load the reader named by ``manifest.json`` key ``number_reader`` in ``folder``
        (default ``models/ballnet``), its sha256 checked. ValueError (one line) when the
        manifest has no reader or the file is missing or does not match."""
        import onnxruntime as ort

        folder = Path(folder) if folder is not None else MODEL_DIR
        mpath = folder / "manifest.json"
        try:
            meta = json.loads(mpath.read_text())["number_reader"]
            path = folder / meta["file"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
            raise ValueError(f"{mpath}: no number reader in the manifest ({e})") from None
        if not path.is_file():
            raise ValueError(f"{path}: number reader model not found")
        if file_sha256(path) != meta.get("sha256"):
            raise ValueError(f"{path}: sha256 does not match {mpath.name}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        return cls(sess, meta)

    def read_patches(self, patches: np.ndarray, turns: int = 4) -> np.ndarray:
        """(N, 16) log-probabilities (column 0: none readable, 1..15) of BGR uint8 tight
        patches (N, P, P, 3), averaged in probability over ``turns`` quarter turns."""
        if len(patches) == 0:
            return np.zeros((0, 16))
        if patches.shape[1:] != (self.patch, self.patch, 3):
            raise ValueError(f"number patches must be (N, {self.patch}, {self.patch}, 3)")
        looks = np.concatenate([np.rot90(patches, k, axes=(1, 2)) for k in range(turns)])
        lg = self.session.run(None, {"patch": to_input(looks)})[0].astype(np.float64)
        lg -= lg.max(axis=1, keepdims=True)
        p = np.exp(lg)
        p /= p.sum(axis=1, keepdims=True)
        p = p.reshape(turns, len(patches), -1).mean(axis=0)
        return np.log(np.maximum(p, 1e-12))

    def read(
        self,
        image_bgr: np.ndarray,
        centres_px: np.ndarray,
        radii_px: np.ndarray,
        turns: int = 4,
        second: np.ndarray | None = None,
    ) -> np.ndarray:
        """Log-probabilities (N, 16) of the balls at ``centres_px`` (N, 2) video px with
        radii ``radii_px`` (N,) px in the BGR uint8 frame ``image_bgr``. A reader whose
        manifest says ``frontal`` reads each patch with its figure turned to face the
        camera (:func:`frontal`), as it was trained. Otherwise, with ``second_look``, the
        balls flagged in ``second`` (N,) bool (default: none) whose ink lies off the
        disc's centre are read a second time with the figure turned to face the camera
        and keep the surer look (:func:`surer`); the tracker flags slow balls
        (``SECOND_LOOK_RADII``: a rolling ball's smear misplaces the ink's centre)."""
        patches = extract_patches(image_bgr, centres_px, radii_px, self.patch, self.span)
        return self.read_cut(patches, turns, second)

    def read_cut(
        self,
        patches: np.ndarray,
        turns: int = 4,
        second: np.ndarray | None = None,
        gate: bool = True,
    ) -> np.ndarray:
        """:meth:`read` of tight patches already cut (BGR uint8 (N, P, P, 3)): the frontal
        reader's turn, or the second look of the balls flagged in ``second``; ``gate``: a
        patch whose ink is smaller than the reader learnt reads "none" (:func:`legible_size`;
        off for the bench, which replays the gate itself)."""
        self.balls_read += len(patches)
        small = np.array([gate and not legible_size(p, self.span) for p in patches], bool)
        if self.frontal:
            turned = np.stack([frontal(p, self.span) for p in patches]) if len(patches) else patches
            return unreadable_where(self.read_patches(turned, turns), small)
        logp = self.read_patches(patches, turns)
        if not self.second_look or second is None:
            return unreadable_where(logp, small)
        flag = np.asarray(second, bool).reshape(-1)
        turned = [
            (i, t)
            for i, p in enumerate(patches)
            if flag[i] and (t := turned_figure(p, self.span)) is not None
        ]
        if turned:
            idx = np.array([i for i, _ in turned])
            again = self.read_patches(np.stack([t for _, t in turned]), turns)
            logp[idx] = surer(logp[idx], again)
        return unreadable_where(logp, small)


def legible_size(patch: np.ndarray, span: float = NUM_SPAN) -> bool:
    """True when the ink on a white ball's tight patch is as large as the figures the
    reader learnt (``INK_SHARE_MIN``, ``INK_SPREAD_MIN``); a reader cannot know what a
    figure too small or too faint for it says, however sure its net is."""
    return legible(*ink_size(patch, span))


def legible(share: float, spread: float) -> bool:
    """True when ink covering ``share`` of the disc and spreading ``spread`` radii
    (:func:`ink_size`) is a figure as large as those the reader learnt."""
    return share >= INK_SHARE_MIN and spread >= INK_SPREAD_MIN


def unreadable_where(logp: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``logp`` (N, 16) with the rows in ``mask`` (N,) set to "no number readable"."""
    if not np.any(mask):
        return logp
    out = np.array(logp, float, copy=True)
    out[mask] = np.r_[0.0, np.full(out.shape[1] - 1, np.log(1e-12))]
    return out


def evidence(logp: np.ndarray, floor: float = FLOOR) -> np.ndarray | None:
    """Per-number log-likelihood (15,) of one look, ``log p(n | readable)`` floored at
    ``floor``; None when the net thinks no number is readable."""
    logp = np.asarray(logp, float)
    if np.exp(logp[0]) >= READABLE_P:
        return None
    cond = logp[1:] - np.log(max(1e-12, 1.0 - np.exp(logp[0])))
    return np.maximum(cond, floor)


@dataclass
class NumberVote:
    """One track's number evidence, pooled per view (see the module docstring)."""

    total: np.ndarray = field(default_factory=lambda: np.zeros(15))
    views: int = 0
    looks: int = 0
    _view_sum: np.ndarray = field(default_factory=lambda: np.zeros(15))
    best: np.ndarray = field(default_factory=lambda: np.zeros(15, int))  # views' best numbers
    peak: np.ndarray = field(default_factory=lambda: np.zeros(15))  # best view mean p(n)
    peak_rest: np.ndarray = field(default_factory=lambda: np.zeros(15))  # the same, at rest
    pooled: np.ndarray = field(default_factory=lambda: np.zeros(15))  # sum of looks' p(n)
    logsum: np.ndarray = field(default_factory=lambda: np.zeros(15))  # looks' log p(n), floored
    geo_looks: int = 0  # looks in ``logsum``
    rest_geo: np.ndarray = field(default_factory=lambda: np.zeros(15))  # best rest view's
    _view_lg: np.ndarray = field(default_factory=lambda: np.zeros(15))  # unfloored log p(n)
    _view_lg_n: int = 0  # looks in ``_view_lg``
    _view_p: np.ndarray = field(default_factory=lambda: np.zeros(15))
    _view_n: int = 0
    best_sure: np.ndarray = field(default_factory=lambda: np.zeros(15, int))  # sure views'
    _frames_in_view: int = 0
    _anchor: np.ndarray | None = None
    _prev_uv: np.ndarray | None = None
    _view_still: bool = False  # the open view has a frame read at rest

    def step(self, uv: np.ndarray) -> float:
        """Pixels the ball moved since the last frame this was called (infinite the first
        time: unknown); called every frame the track is seen sharp."""
        uv = np.asarray(uv, float)
        d = np.inf if self._prev_uv is None else float(np.hypot(*(uv - self._prev_uv)))
        self._prev_uv = uv
        return d

    def add(self, logp: np.ndarray, uv: np.ndarray, radius_px: float, still: bool = False) -> None:
        """One frame's reading ``logp`` (16,) of the ball at ``uv`` (video px, radius px);
        ``still``: the ball is at rest. A ball that comes to rest inside its last view
        opens a new view (rolling to a stop turned it: its face at rest is new)."""
        uv = np.asarray(uv, float)
        moved = self._anchor is None or np.hypot(*(uv - self._anchor)) > VIEW_RADII * radius_px
        if moved or (still and not self._view_still):
            self._close()
            self._anchor = uv
        self._view_still = self._view_still or still
        self._frames_in_view += 1
        e = evidence(logp)
        geo = e is not None and radius_px >= GEO_MIN_RADIUS_PX
        if geo:
            self._view_lg = self._view_lg + evidence(logp, np.log(1e-12))
            self._view_lg_n += 1
        if e is not None and self._frames_in_view <= VIEW_LOOKS:  # later looks: rest only
            self._view_sum += e
            self._view_p += np.exp(e)
            self._view_n += 1
            self.looks += 1
            self.pooled = self.pooled + np.exp(e)
            if geo:
                self.logsum, self.geo_looks = self.logsum + e, self.geo_looks + 1

    def wants_look(
        self, uv: np.ndarray, radius_px: float, per_view: int = VIEW_LOOKS, still: bool = False
    ) -> bool:
        """True when a look at ``uv`` (video px) could add something: a new view (moved
        on, or come to rest), or fewer than ``per_view`` frames looked at in this one."""
        if self._anchor is None or (still and not self._view_still):
            return True
        moved = np.hypot(*(np.asarray(uv, float) - self._anchor)) > VIEW_RADII * radius_px
        per_view = max(per_view, REST_LOOKS) if self._view_still else per_view
        return bool(moved) or self._frames_in_view < per_view

    def _close(self) -> None:
        if self._view_n:
            view = self._view_sum / self._view_n
            self.total = self.total + TEMPER * view
            one = np.arange(15) == int(np.argmax(view))
            self.best = self.best + one
            vp = self._view_p / self._view_n
            if float(vp.max()) >= SURE_VIEW_P:
                self.best_sure = self.best_sure + (np.arange(15) == int(np.argmax(vp)))
            self.peak = np.maximum(self.peak, vp)
            if self._view_still:
                self.peak_rest = np.maximum(self.peak_rest, vp)
            self.rest_geo = np.maximum(self.rest_geo, self._open_rest_geo())
            self.views += 1
        self._view_sum, self._view_n, self._frames_in_view = np.zeros(15), 0, 0
        self._view_lg, self._view_lg_n = np.zeros(15), 0
        self._view_p, self._view_still = np.zeros(15), False

    def scores(self) -> tuple[np.ndarray, int]:
        """(tempered log-likelihood sum (15,) including the open view, readable views)."""
        tot, views = self.total, self.views
        if self._view_n:
            tot, views = tot + TEMPER * self._view_sum / self._view_n, views + 1
        return tot, views

    def peaks(self) -> np.ndarray:
        """Per number (15,) the highest mean ``p(n | readable)`` of one view."""
        if self._view_n:
            return np.maximum(self.peak, self._view_p / self._view_n)
        return self.peak

    def peaks_rest(self) -> np.ndarray:
        """Per number (15,) the highest mean ``p(n | readable)`` of one view at rest."""
        if self._view_n and self._view_still:
            return np.maximum(self.peak_rest, self._view_p / self._view_n)
        return self.peak_rest

    def _open_rest_geo(self) -> np.ndarray:
        """The open view's geometric mean (15,) when it is at rest with ``REST_LOOKS``
        readable looks, else zeros."""
        if not self._view_still or self._view_lg_n < REST_LOOKS:
            return np.zeros(15)
        m = self._view_lg / self._view_lg_n
        e = np.exp(m - m.max())
        return e / e.sum()

    def rest_geos(self) -> np.ndarray:
        """Per number (15,) the highest geometric mean of one view at rest (``P_REST_GEO``)."""
        return np.maximum(self.rest_geo, self._open_rest_geo())

    def agreement(self) -> np.ndarray:
        """Share (15,) of the sure readable views (``SURE_VIEW_P``; all readable views
        when none is sure), the open one included, whose best number is each number."""
        best, sure = self.best.copy(), self.best_sure.copy()
        if self._view_n:
            best[int(np.argmax(self._view_sum))] += 1
            vp = self._view_p / self._view_n
            if float(vp.max()) >= SURE_VIEW_P:
                sure[int(np.argmax(vp))] += 1
        if sure.sum():
            best = sure
        return best / max(1, int(best.sum()))

    def geo(self) -> np.ndarray:
        """Per number (15,) the geometric mean of the looks: softmax of the mean of their
        floored ``log p(n | readable)`` (zeros before the first readable look)."""
        if not self.geo_looks:
            return np.zeros(15)
        m = self.logsum / self.geo_looks
        e = np.exp(m - m.max())
        return e / e.sum()

    def posterior(self) -> np.ndarray:
        """Posterior (15,) over numbers 1..15 from a flat prior."""
        tot, _ = self.scores()
        e = np.exp(tot - tot.max())
        return e / e.sum()


def assign_numbers(
    votes: dict[int, NumberVote], taken: set[int], p_sure: float = P_SURE
) -> dict[int, int]:
    """Track key -> number of :func:`assign_numbers_how` (how it was known left out)."""
    return {k: n for k, (n, _) in assign_numbers_how(votes, taken, p_sure).items()}


def assign_numbers_how(
    votes: dict[int, NumberVote], taken: set[int], p_sure: float = P_SURE
) -> dict[int, tuple[int, str]]:
    """New numbers for undecided tracks: ``votes`` track key -> its vote, ``taken`` the
    numbers other tracks already hold.

    A Hungarian assignment over tracks x free numbers on ``-log posterior`` (so two tracks
    never take one number); a track keeps only a number whose posterior is at least
    ``p_sure`` after ``MIN_VIEWS`` readable views, or that one view read with ``P_VIEW``
    (``P_VIEW_REST`` at rest), or whose looks' mean ``p(n | readable)`` over ``MIN_VIEWS``
    or more views and ``POOL_LOOKS`` or more looks reaches ``P_POOL``, and that most views
    agree on (``AGREE``). By elimination, the last undecided track that
    was looked at takes the last free number when every other number is held (a pyramid
    has 15 numbered balls). Returns track key -> (number 1..15, "read" or "elimination")."""
    free = [n for n in range(1, 16) if n not in taken]
    if not votes or not free:
        return {}
    if len(free) == 1 and len(votes) == 1:
        return {next(iter(votes)): (free[0], "elimination")}
    keys = [
        k
        for k, v in votes.items()
        if v.scores()[1] >= MIN_VIEWS
        or float(v.peaks().max()) >= P_VIEW
        or float(v.peaks_rest().max()) >= P_VIEW_REST
        or float(v.rest_geos().max()) >= P_REST_GEO
    ]
    if not keys:
        return {}
    cols = np.array(free) - 1
    post = np.array([votes[k].posterior() for k in keys])[:, cols]
    agree = np.array([votes[k].agreement() for k in keys])[:, cols]
    peak = np.array([votes[k].peaks() for k in keys])[:, cols]
    rest = np.array([votes[k].peaks_rest() for k in keys])[:, cols]
    rgeo = np.array([votes[k].rest_geos() for k in keys])[:, cols]
    many = np.array([votes[k].scores()[1] >= MIN_VIEWS for k in keys])
    pool = np.array([votes[k].pooled / max(1, votes[k].looks) for k in keys])[:, cols]
    pool_ok = np.array([votes[k].looks >= POOL_LOOKS for k in keys]) & many
    geo = np.array([votes[k].geo() for k in keys])[:, cols]
    geo_ok = np.array([votes[k].geo_looks >= GEO_LOOKS for k in keys]) & many
    cost = -np.log(np.maximum(post, 1e-12))
    rows, cs = linear_sum_assignment(cost)
    out = {}
    for r, c in zip(rows, cs, strict=True):
        one = peak[r, c] >= P_VIEW or rest[r, c] >= P_VIEW_REST  # one view sure enough
        one = one or rgeo[r, c] >= P_REST_GEO  # one view at rest, its frames combined
        pooled = pool_ok[r] and pool[r, c] >= P_POOL  # many looks, on average sure enough
        geom = geo_ok[r] and geo[r, c] >= P_GEO  # the looks' geometric mean sure enough
        sure = (many[r] and post[r, c] >= p_sure) or one or pooled or geom
        n = free[c]
        if sure and agree[r, c] >= AGREE:  # sure, and the views agree
            out[keys[r]] = (n, "read")
    return out


def surer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row, the look of ``a`` or ``b`` (log-probabilities (N, 16)) whose best
    number is surer (``p(n | readable)``); ``b`` only where it also thinks a number is
    readable (``READABLE_P``)."""

    def sure(lp: np.ndarray) -> np.ndarray:
        p = np.exp(lp)
        return p[:, 1:].max(axis=1) / np.maximum(1e-9, 1.0 - p[:, 0])

    take = (sure(b) > sure(a)) & (np.exp(b[:, 0]) < READABLE_P)
    return np.where(take[:, None], b, a)
