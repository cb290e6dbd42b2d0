"""Frames from a video file, a still image, a USB camera index or an RTSP/HTTP URL.

Two ways to read:

* :class:`VideoSource` iterated directly (replay): every frame in order, never skipped.
* :class:`LiveReader` (live): a reader thread keeps only the newest frame so a slow
  pipeline never blocks the camera; frames it overwrote are counted in ``dropped``.

:class:`Detections` (what the detector found in one frame) lives here beside
:class:`Frame`, the value types the stages pass on (``vision.detect.detector`` re-exports it).

``Frame.t`` is seconds from the first frame: the stream's own timestamps where the
backend gives them (monotonic), otherwise ``index / fps``. Images are BGR ``uint8``
in the recorded (distorted) pixels of the video.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from contract.errors import ContractError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


@dataclass(frozen=True)
class Frame:
    """One video frame: ``index`` from 0, ``t`` seconds from the first frame, BGR image."""

    index: int
    t: float
    image: np.ndarray = field(repr=False, compare=False)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


@dataclass(frozen=True)
class Detections:
    """Balls (and skittles) found in one frame, as a struct of arrays.

    ``uv`` video px (recorded), ``xy`` table mm of the centre's vertical projection,
    ``radius`` video px, ``cls`` class name, ``score`` 0..1 (disk coverage),
    ``blurred`` True for a motion smear; ``actors`` (K,4) boxes in table mm
    ``[xmin, ymin, xmax, ymax]`` of things that are not balls (arms, cues, bodies).
    ``unsure``: the frame's pixels could not be placed on the table well (a drifting
    camera's registration failed or misfits the cushion noses, :mod:`vision.register`):
    its positions are not measurements a tracker may decide on.

    ``axis`` (optional, (N,2)): a smear's long axis in table mm (unit vector; NaN for a
    sharp ball), the line its centre ran along; None when the detector does not say.
    """

    frame: int
    t: float
    uv: np.ndarray = field(repr=False)
    xy: np.ndarray = field(repr=False)
    radius: np.ndarray = field(repr=False)
    cls: np.ndarray = field(repr=False)
    score: np.ndarray = field(repr=False)
    blurred: np.ndarray = field(repr=False)
    actors: np.ndarray = field(repr=False)
    unsure: bool = False
    axis: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.uv)

    @classmethod
    def empty(cls, frame: int = 0, t: float = 0.0) -> Detections:
        z = np.zeros((0, 2))
        return cls(
            frame,
            t,
            z,
            z,
            np.zeros(0),
            np.zeros(0, object),
            np.zeros(0),
            np.zeros(0, bool),
            np.zeros((0, 4)),
        )

    @classmethod
    def from_xy(cls, frame: int, t: float, xy, classes, actors=None) -> Detections:
        """Detections given directly in table mm (tests, other detectors)."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        n = len(xy)
        return cls(
            frame,
            t,
            np.full((n, 2), np.nan),
            xy,
            np.zeros(n),
            np.asarray(list(classes), object),
            np.ones(n),
            np.zeros(n, bool),
            np.zeros((0, 4)) if actors is None else np.asarray(actors, float).reshape(-1, 4),
        )


def _parse_source(source: str | int | Path) -> str | int:
    if isinstance(source, int):
        return source
    s = str(source)
    return int(s) if s.isdigit() else s


def _is_stream(src: str | int) -> bool:
    return isinstance(src, int) or "://" in src


def open_capture(src: str | int) -> cv2.VideoCapture:
    """Open with OpenCV; decoder threads follow ``OMP_NUM_THREADS`` when it is set (one
    core means one decoding thread too)."""
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit() and int(threads) > 0 and not isinstance(src, int):
        cap = cv2.VideoCapture(src, cv2.CAP_FFMPEG, [cv2.CAP_PROP_N_THREADS, int(threads)])
        if cap.isOpened():
            return cap
        cap.release()
    return cv2.VideoCapture(src)


class VideoSource:
    """An opened video, image or camera. Iterate for :class:`Frame` values in order.

    Raises :class:`ContractError` (one line) when the source cannot be opened or holds
    no decodable frame. A file that ends before its declared frame count sets
    ``truncated`` (the frames read so far are still yielded; nothing is lost).
    """

    def __init__(self, source: str | int | Path) -> None:
        self.source = _parse_source(source)
        self.name = str(source)
        self.truncated = False
        self.frames_read = 0
        self._still: np.ndarray | None = None
        self._cap: cv2.VideoCapture | None = None
        self._peek: Frame | None = None
        self._ahead: list[tuple[Frame, float]] = []  # frames after the peek read ahead, ms
        src = self.source
        if not _is_stream(src):
            p = Path(src)
            if not p.is_file():
                raise ContractError(self.name, "", "no such video file")
            if p.suffix.lower() in IMAGE_SUFFIXES:
                img = cv2.imread(str(p), cv2.IMREAD_COLOR)
                if img is None:
                    raise ContractError(self.name, "", "not a readable image")
                self._still = img
                return
        cap = open_capture(src)
        if not cap.isOpened():
            cap.release()
            raise ContractError(self.name, "", "cannot open video (unreadable or unsupported)")
        self._cap = cap
        first = self._read()
        if first is None:
            cap.release()
            raise ContractError(self.name, "", "video holds no decodable frame")
        self._peek = first

    # ------------------------------------------------------------ properties
    @property
    def fps(self) -> float:
        """Frames per second declared by the stream (30 when unknown; 1 for a still)."""
        if self._still is not None:
            return 1.0
        f = float(self._cap.get(cv2.CAP_PROP_FPS)) if self._cap else 0.0
        return f if np.isfinite(f) and 1.0 <= f <= 1000.0 else 30.0

    @property
    def frame_count(self) -> int:
        """Declared frame count (0 for live streams, 1 for a still)."""
        if self._still is not None:
            return 1
        n = self._cap.get(cv2.CAP_PROP_FRAME_COUNT) if self._cap else 0
        return int(n) if np.isfinite(n) and n > 0 else 0

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        if self._still is not None:
            return int(self._still.shape[1]), int(self._still.shape[0])
        return (
            self._peek.size
            if self._peek is not None
            else (
                int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
                int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
            )
        )

    @property
    def live(self) -> bool:
        return _is_stream(self.source)

    # ------------------------------------------------------------ reading
    def first_images(self, count: int) -> list[np.ndarray]:
        """The pictures (BGR, recorded px) of the first ``count`` frames of a file not yet
        iterated (fewer if it is shorter), each decoded once: they are kept and yielded
        again, in order, when the source is iterated (the drift watch's reference frames
        cost no second decoder). Memory: ``count`` frames until iterated."""
        if self._still is not None:
            return [self._still]
        if self._peek is None:
            raise ValueError("first_images: the source is already being read")
        ms = self._ms  # the first frame's timestamp, for the iteration
        while 1 + len(self._ahead) < count:
            frame = self._decode()
            if frame is None:
                break
            self._ahead.append((frame, self._ms))
        self._ms = ms
        return ([self._peek.image] + [f.image for f, _ in self._ahead])[: max(0, count)]

    def _read(self) -> Frame | None:
        if self._ahead:  # frames read ahead by first_images, with their timestamps
            frame, self._ms = self._ahead.pop(0)
            return frame
        return self._decode()

    def _decode(self) -> Frame | None:
        ok, img = self._cap.read()
        if not ok or img is None:
            return None
        ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
        self._ms = ms if np.isfinite(ms) else float("nan")
        return Frame(0, 0.0, img)

    def __iter__(self) -> Iterator[Frame]:
        if self._still is not None:
            self.frames_read = 1
            yield Frame(0, 0.0, self._still)
            return
        fps = self.fps
        clock0 = time.monotonic()
        ms0 = getattr(self, "_ms", float("nan"))
        last_t = -1.0
        frame = self._peek
        self._peek = None
        index = 0
        while frame is not None:
            ms = getattr(self, "_ms", float("nan"))
            if self.live and isinstance(self.source, int):
                t = time.monotonic() - clock0
            elif np.isfinite(ms) and np.isfinite(ms0) and (ms - ms0) / 1000.0 > last_t:
                t = (ms - ms0) / 1000.0
            else:
                t = index / fps
            if index > 0 and t <= last_t:
                t = last_t + 1.0 / fps
            last_t = t
            self.frames_read = index + 1
            yield Frame(index, t, frame.image)
            index += 1
            frame = self._read()
        declared = self.frame_count
        if not self.live and declared and self.frames_read < declared - 1:
            self.truncated = True

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def __enter__(self) -> VideoSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LoopedSource(VideoSource):
    """A video file played from the start again and again until ``frames`` frames were
    delivered (benchmarks: a long replay, e.g. 30 minutes, from a short clip). Indices run
    on and ``t`` is ``index / fps`` across the seams; ``frame_count`` is ``frames``."""

    def __init__(self, source: str | Path, frames: int) -> None:
        super().__init__(source)
        if self._still is not None or self.live:
            raise ContractError(self.name, "", "only a video file can be looped")
        if frames < 1:
            raise ValueError(f"a looped replay needs at least one frame, got {frames}")
        self.total = int(frames)

    @property
    def frame_count(self) -> int:
        return self.total

    def __iter__(self) -> Iterator[Frame]:
        fps = self.fps
        frame, self._peek = self._peek, None
        index = 0
        while index < self.total:
            if frame is None:  # end of the file: open it again
                self._cap.release()
                self._cap = open_capture(self.source)
                frame = self._read()
                if frame is None:
                    self.truncated = True
                    return
            yield Frame(index, index / fps, frame.image)
            index += 1
            self.frames_read = index
            frame = self._read() if index < self.total else None


def read_frames(source: str | int | Path) -> Iterator[Frame]:
    """Every frame of a file in order (replay mode)."""
    with VideoSource(source) as src:
        yield from src


class LiveReader:
    """A reader thread that keeps only the newest frame (live mode).

    ``latest(timeout)`` returns the newest frame not yet handed out (or ``None`` after
    ``timeout`` seconds / at the end of the stream); frames overwritten before the
    pipeline asked for them are counted in ``dropped``. Never blocks the reader.
    """

    def __init__(self, source: str | int | Path | VideoSource) -> None:
        self.src = source if isinstance(source, VideoSource) else VideoSource(source)
        self.dropped = 0
        self.delivered = 0
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._fresh = False
        self._done = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tablemon-capture", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for f in self.src:
                if self._stop.is_set():
                    break
                with self._cond:
                    if self._fresh:
                        self.dropped += 1
                    self._frame, self._fresh = f, True
                    self._cond.notify_all()
        finally:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    @property
    def finished(self) -> bool:
        """True once the stream ended and the last frame was handed out."""
        with self._cond:
            return self._done and not self._fresh

    def latest(self, timeout: float = 1.0) -> Frame | None:
        with self._cond:
            if not self._fresh and not self._done:
                self._cond.wait_for(lambda: self._fresh or self._done, timeout=timeout)
            if not self._fresh:
                return None
            self._fresh = False
            self.delivered += 1
            return self._frame

    def __iter__(self) -> Iterator[Frame]:
        while not self.finished:
            f = self.latest(timeout=1.0)
            if f is not None:
                yield f

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self.src.close()

    def __enter__(self) -> LiveReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
