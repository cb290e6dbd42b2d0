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
it (contract §3: white balls are ``1`` … ``15`` where the number is known). 6 and 9 are told
apart by their underline (pyramid balls print one; so does the renderer). The last
undecided track takes the last free number by elimination when the other 14 are held. A
wrong number costs more than none (classic pyramid scores the numbers), so the rule is
conservative.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.classify import MODEL_DIR, extract_patches, file_sha256, to_input

NUM_PATCH = 32
"""Number patch side in patch pixels."""
NUM_SPAN = 1.0
"""Half the number patch side in ball radii (the patch covers the ball's disc)."""
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
P_VIEW = 0.9
"""One view whose mean ``p(n | readable)`` reaches this is sure by itself (a ball at rest
shows one face; on held-out synthetic 1080p patches, four turns pooled, reads this sure are
right 99.8 % of the time, 68 % of readable patches, ``models/ballnet/README.md``)."""


class NumberReader:
    """The number net behind onnxruntime (one thread by default)."""

    def __init__(self, session, meta: dict) -> None:
        self.session = session
        self.meta = meta
        self.patch = int(meta["input_shape"][-1])
        self.span = float(meta["span_radii"])
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
        self, image_bgr: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray, turns: int = 4
    ) -> np.ndarray:
        """Log-probabilities (N, 16) of the balls at ``centres_px`` (N, 2) video px with
        radii ``radii_px`` (N,) px in the BGR uint8 frame ``image_bgr``."""
        patches = extract_patches(image_bgr, centres_px, radii_px, self.patch, self.span)
        self.balls_read += len(patches)
        return self.read_patches(patches, turns)


def evidence(logp: np.ndarray) -> np.ndarray | None:
    """Per-number log-likelihood (15,) of one look, ``log p(n | readable)`` floored at
    ``FLOOR``; None when the net thinks no number is readable."""
    logp = np.asarray(logp, float)
    if np.exp(logp[0]) >= READABLE_P:
        return None
    cond = logp[1:] - np.log(max(1e-12, 1.0 - np.exp(logp[0])))
    return np.maximum(cond, FLOOR)


@dataclass
class NumberVote:
    """One track's number evidence, pooled per view (see the module docstring)."""

    total: np.ndarray = field(default_factory=lambda: np.zeros(15))
    views: int = 0
    looks: int = 0
    _view_sum: np.ndarray = field(default_factory=lambda: np.zeros(15))
    best: np.ndarray = field(default_factory=lambda: np.zeros(15, int))  # views' best numbers
    peak: np.ndarray = field(default_factory=lambda: np.zeros(15))  # best view mean p(n)
    _view_p: np.ndarray = field(default_factory=lambda: np.zeros(15))
    _view_n: int = 0
    _frames_in_view: int = 0
    _anchor: np.ndarray | None = None

    def add(self, logp: np.ndarray, uv: np.ndarray, radius_px: float) -> None:
        """One frame's reading ``logp`` (16,) of the ball at ``uv`` (video px, radius px)."""
        uv = np.asarray(uv, float)
        if self._anchor is None or np.hypot(*(uv - self._anchor)) > VIEW_RADII * radius_px:
            self._close()
            self._anchor = uv
        self._frames_in_view += 1
        e = evidence(logp)
        if e is not None:
            self._view_sum += e
            self._view_p += np.exp(e)
            self._view_n += 1
            self.looks += 1

    def wants_look(self, uv: np.ndarray, radius_px: float, per_view: int = 3) -> bool:
        """True when a look at ``uv`` (video px) could add something: a new view, or
        fewer than ``per_view`` frames looked at in this one."""
        if self._anchor is None:
            return True
        moved = np.hypot(*(np.asarray(uv, float) - self._anchor)) > VIEW_RADII * radius_px
        return bool(moved) or self._frames_in_view < per_view

    def _close(self) -> None:
        if self._view_n:
            view = self._view_sum / self._view_n
            self.total = self.total + TEMPER * view
            self.best = self.best + (np.arange(15) == int(np.argmax(view)))
            self.peak = np.maximum(self.peak, self._view_p / self._view_n)
            self.views += 1
        self._view_sum, self._view_n, self._frames_in_view = np.zeros(15), 0, 0
        self._view_p = np.zeros(15)

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

    def agreement(self) -> np.ndarray:
        """Share (15,) of the readable views (the open one included) whose best number
        is each number."""
        best = self.best.copy()
        if self._view_n:
            best[int(np.argmax(self._view_sum))] += 1
        return best / max(1, int(best.sum()))

    def posterior(self) -> np.ndarray:
        """Posterior (15,) over numbers 1..15 from a flat prior."""
        tot, _ = self.scores()
        e = np.exp(tot - tot.max())
        return e / e.sum()


def assign_numbers(
    votes: dict[int, NumberVote], taken: set[int], p_sure: float = P_SURE
) -> dict[int, int]:
    """New numbers for undecided tracks: ``votes`` track key -> its vote, ``taken`` the
    numbers other tracks already hold.

    A Hungarian assignment over tracks x free numbers on ``-log posterior`` (so two tracks
    never take one number); a track keeps only a number whose posterior is at least
    ``p_sure`` after ``MIN_VIEWS`` readable views, or that one view read with ``P_VIEW``,
    and that most views agree on (``AGREE``). By elimination, the last undecided track that
    was looked at takes the last free number when every other number is held (a pyramid
    has 15 numbered balls). Returns track key -> number 1..15."""
    free = [n for n in range(1, 16) if n not in taken]
    if not votes or not free:
        return {}
    if len(free) == 1 and len(votes) == 1:
        return {next(iter(votes)): free[0]}
    keys = [
        k
        for k, v in votes.items()
        if v.scores()[1] >= MIN_VIEWS or float(v.peaks().max()) >= P_VIEW
    ]
    if not keys:
        return {}
    cols = np.array(free) - 1
    post = np.array([votes[k].posterior() for k in keys])[:, cols]
    agree = np.array([votes[k].agreement() for k in keys])[:, cols]
    peak = np.array([votes[k].peaks() for k in keys])[:, cols]
    many = np.array([votes[k].scores()[1] >= MIN_VIEWS for k in keys])
    cost = -np.log(np.maximum(post, 1e-12))
    rows, cs = linear_sum_assignment(cost)
    out = {}
    for r, c in zip(rows, cs, strict=True):
        sure = (many[r] and post[r, c] >= p_sure) or peak[r, c] >= P_VIEW
        n = free[c]
        if sure and agree[r, c] >= AGREE:  # sure, and the views agree
            out[keys[r]] = n
    return out
