"""The referee's questions (contract §11) as the service shows and answers them.

The adjudicator asks (``Match.questions``); the ids ``q1``, ``q2`` ... are renumbered on every
judging, so a question is also named stably by ``ref`` = ``"{shot}-{about}"`` (``7-verdict``):
the routes accept either. An answer is a correction of the shot's referee input
(``RefereeInput.answers[about] = option``), audited like any other; who answered and when come
from that audit row. Decisive stills are JPEG frames read from the video file a match's table
plays (frame numbers of that file), a few kept in memory.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

from adjudicator.doubt import doubtful_events
from contract.match import Match, Option, Question
from service.db import AuditRow, MatchRow
from service.errors import NotFound
from service.judging import Judged
from service.paths import is_camera_url
from service.texts import verdict_text


class Current(Protocol):
    """What the questions read of a match's :class:`service.core.Current` (core imports this
    module, so the type is named by what is read, not imported)."""

    @property
    def match(self) -> MatchRow: ...

    @property
    def judged(self) -> Judged: ...


REF = re.compile(r"([1-9][0-9]{0,17})-([a-z]{1,20})")
QID = re.compile(r"q[1-9][0-9]{0,5}")
STILLS_KEPT = 32  # JPEG stills kept in memory (a question has one to a few)
STILL_MAX_W = 1280  # px: wider frames are scaled down
JPEG_QUALITY = 85


def ref(q: Question) -> str:
    """The question's stable name: its shot and what it is about."""
    return f"{q.shot}-{q.about}"


def is_open(q: Question) -> bool:
    return q.answer is None


def find(match: Match, match_id: int, qid: str) -> Question:
    """The question ``qid`` names (``q3`` as listed by the latest judging, or ``7-verdict``);
    NotFound (404) otherwise."""
    qs = match.questions
    if QID.fullmatch(qid):
        q = next((q for q in qs if q.id == qid), None)
    elif m := REF.fullmatch(qid):
        q = next((q for q in qs if q.shot == int(m[1]) and q.about == m[2]), None)
    else:
        q = None
    if q is None:
        raise NotFound(f"match {match_id} has no question {qid[:40]!r}")
    return q


def gains(o: Option) -> dict[str, int] | None:
    """What each player gains from the shot under this option (None: no verdict)."""
    if o.verdict is None:
        return None
    return {p: int(o.verdict.scored.get(p, 0)) for p in ("A", "B")}


def option_view(o: Option, names: dict[str, str]) -> dict:
    """An option as the scoreboards show it: key, label, gains and the verdict in words."""
    text = {lang: verdict_text(o.verdict, lang, names) for lang in ("ru", "en")}
    return {"key": o.key, "label": o.label, "gains": gains(o), "text": text}


def doubts(match: Match, q: Question) -> list[dict]:
    """What the vision was unsure of in the question's shot, in frame order: each event in
    doubt (``frame``, ``event`` type and ids, ``why``) and each ball it lost."""
    shot = next((s for s in match.shots if s.index == q.shot), None)
    if shot is None:
        return []
    out = [
        {"frame": e.frame, "event": " ".join((e.type.value, *e.ids)), "why": why}
        for e, why in doubtful_events(shot)
    ]
    for lost in shot.lost:
        near = f", near {lost.near}" if lost.near else ""
        why = f"not seen from frame {lost.start} to {lost.stop}{near}"
        out.append({"frame": lost.start, "event": f"lost {lost.ball}", "why": why})
    return sorted(out, key=lambda d: d["frame"])


def question_view(
    q: Question, match: Match, names: dict[str, str], stills: bool, match_id: int
) -> dict:
    """A question without the options' full verdicts (the state, the scoreboards, the
    stream's ``question`` event); ``stills``: URLs of its decisive frames, where the match's
    table plays a video file."""
    base = f"/matches/{match_id}/questions/{ref(q)}/stills"
    return {
        "id": q.id,
        "ref": ref(q),
        "shot": q.shot,
        "about": q.about,
        "why": q.why,
        "doubts": doubts(match, q),
        "frames": list(q.frames),
        "stills": [f"{base}/{f}.jpg" for f in q.frames] if stills else [],
        "options": [option_view(o, names) for o in q.options],
        "answer": q.answer,
    }


def video_source(c: Current, table_source: str | None) -> tuple[Path | None, str]:
    """The video file the match's stills come from, or None and why not (one line)."""
    mid = c.match.id
    if c.match.table_id is None:
        return None, f"match {mid} is not played on a table: no video to take stills from"
    if table_source is None:
        return None, f"table {c.match.table_id} not found"
    if is_camera_url(table_source):
        return None, (
            f"table {c.match.table_id} plays a camera ({table_source[:60]}), not a video file: "
            "stills are served only from a video file"
        )
    p = Path(table_source)
    if not p.is_file():
        return None, f"table {c.match.table_id}'s video is gone: {p.name}"
    return p, ""


def summary(c: Current, stills: bool) -> dict:
    """For the state JSON: the settled score, what is pending, the open questions."""
    names = c.match.settings["players"]
    m = c.judged.match
    open_qs = [q for q in m.questions if is_open(q)]
    return {
        "pending": m.pending,
        "questions_open": len(open_qs),
        "questions": [question_view(q, m, names, stills, c.match.id) for q in open_qs],
    }


def signature(m: Match) -> tuple:
    """What a ``question`` event reports changing: each question, its options and answer."""
    return tuple((q.shot, q.about, q.why, q.answer, tuple(o.key for o in q.options))
                 for q in m.questions)  # fmt: skip


def answered_by(q: Question, audit: list[AuditRow]) -> tuple[str | None, str | None]:
    """Who gave the question's answer and when (ISO 8601 UTC), from the latest audit row
    of an answer to it."""
    if q.answer is None:
        return None, None
    for a in reversed(audit):
        if a.action != "answer" or a.shot_idx != q.shot or not isinstance(a.after, dict):
            continue
        given = ((a.after.get("referee") or {}).get("answers") or {}).get(q.about)
        if given == q.answer:
            return a.who, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(a.at))
        break
    return None, None


class Stills:
    """JPEG stills of video frames: read with OpenCV on demand, the last ``STILLS_KEPT``
    kept. Frame numbers are the file's (0 the first)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, float, int], bytes] = OrderedDict()

    def jpeg(self, video: Path, frame: int) -> bytes | None:
        """The frame as JPEG, or None when the video has no such frame."""
        key = (str(video), video.stat().st_mtime, frame)
        with self._lock:
            hit = self._kept.get(key)
            if hit is not None:
                self._kept.move_to_end(key)
                return hit
        data = _read_jpeg(video, frame)
        if data is not None:
            with self._lock:
                self._kept[key] = data
                while len(self._kept) > STILLS_KEPT:
                    self._kept.popitem(last=False)
        return data


def _read_jpeg(video: Path, frame: int) -> bytes | None:
    import cv2

    cap = cv2.VideoCapture(str(video))
    try:
        if not cap.isOpened():
            return None
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if count and frame >= count:
            return None
        cap.set(cv2.CAP_PROP_POS_FRAMES, frame)
        ok, img = cap.read()
        if not ok or img is None:
            return None
        h, w = img.shape[:2]
        if w > STILL_MAX_W:
            img = cv2.resize(img, (STILL_MAX_W, round(h * STILL_MAX_W / w)))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        return buf.tobytes() if ok else None
    finally:
        cap.release()


STILLS = Stills()  # one per process: the stills of matches and replays
