"""The clean plate: the empty-table picture, as a temporal median over a video's frames
(players, cues and balls move or differ between frames and drop out), or a single image.

Pixels are as recorded (distorted), BGR uint8.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from contract.errors import ContractError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


def median_images(images: list[np.ndarray], upper: bool = False) -> np.ndarray:
    """The per-pixel median of equally shaped uint8 images, exactly ``np.median`` over
    the stack: uint8 for an odd count; for an even one float32 (the mean of the two middle
    values) or, with ``upper``, the upper middle value (uint8, as :func:`median_plate`). Sorted pixel by pixel with an odd-even
    transposition network of ``cv2.min`` and ``cv2.max``: a few milliseconds a frame, no
    gathering of pixels."""
    if not len(images):
        raise ValueError("median_images needs at least one image")
    x = list(images)
    n = len(x)
    for r in range(n):
        for i in range(r % 2, n - 1, 2):
            x[i], x[i + 1] = cv2.min(x[i], x[i + 1]), cv2.max(x[i], x[i + 1])
    if n % 2 or upper:
        return x[n // 2]
    return (x[n // 2 - 1].astype(np.float32) + x[n // 2]) / 2


def median_plate(frames: list[np.ndarray]) -> np.ndarray:
    """Per-pixel median of equally sized BGR frames (uint8; the upper middle value for an
    even count)."""
    if not frames:
        raise ValueError("no frames for a clean plate")
    return median_images(frames, upper=True)


def batch_plate(frames: list[np.ndarray], moving: str = "sharpest") -> np.ndarray:
    """The picture to calibrate a batch of frames on (BGR uint8, recorded px): their
    median plate (:func:`median_plate`), or, when that is blurred (its sharpness under
    half the frames' median, :func:`_sharpness`: the camera moved across them), one frame
    as it is: ``moving`` ``"sharpest"`` (a swinging camera's frames are motion-smeared in
    turn, and a smeared one fits cushion lines that match nothing later) or ``"middle"``."""
    plate = median_plate(frames)
    sharp = [_sharpness(f) for f in frames]
    if _sharpness(plate) >= 0.5 * float(np.median(sharp)):
        return plate
    return frames[int(np.argmax(sharp)) if moving == "sharpest" else len(frames) // 2]


def read_frames(
    path: str | Path, count: int = 31, start: int = 0, stop: int | None = None
) -> tuple[list[np.ndarray], list[int], float]:
    """Read ``count`` frames spread evenly over ``[start, stop)`` of a video.

    Returns (frames, their indices, fps). Sequential decoding (grab) is used because
    seeking is unreliable in some containers."""
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise ContractError(str(path), "", "cannot open video")
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) or 0
    fps = float(cap.get(cv2.CAP_PROP_FPS)) or 25.0
    stop = n if stop is None or stop > n else stop
    if stop <= start:
        cap.release()
        raise ContractError(str(path), "", "video has no frames")
    want = sorted(set(np.linspace(start, stop - 1, min(count, stop - start)).round().astype(int)))
    frames, idx = [], []
    cap.set(cv2.CAP_PROP_POS_FRAMES, start)
    i = start
    for w in want:
        while i < w:
            if not cap.grab():
                break
            i += 1
        ok, f = cap.read()
        i += 1
        if not ok:
            break
        frames.append(f)
        idx.append(w)
    cap.release()
    if not frames:
        raise ContractError(str(path), "", "no frame could be decoded")
    return frames, idx, fps


def load_plate(path: str | Path, count: int = 31) -> np.ndarray:
    """Clean plate of a video (median of ``count`` frames spread over the clip) or the
    image itself (BGR uint8)."""
    p = Path(path)
    if not p.exists():
        raise ContractError(str(path), "", "no such file")
    if p.suffix.lower() in IMAGE_SUFFIXES:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise ContractError(str(path), "", "cannot read image")
        return img
    frames, _, _ = read_frames(p, count)
    return batch_plate(frames, moving="middle")  # a camera moved in the clip: its middle frame


def load_source(path: str | Path, count: int = 31) -> tuple[np.ndarray, np.ndarray]:
    """(clean plate, first frame) of a video, as :func:`load_plate`; an image is both."""
    p = Path(path)
    if p.suffix.lower() in IMAGE_SUFFIXES or not p.exists():
        img = load_plate(p, count)
        return img, img
    frames, _, _ = read_frames(p, count)
    return batch_plate(frames, moving="middle"), frames[0]


def load_sources(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """(clean plate, first frame) of one video or image (:func:`load_source`), or of
    several stills of one fixed camera: their per-pixel median (balls and players that
    differ between them drop out) and the first still. One-line ContractError when
    several sources are not all images of one size."""
    if len(paths) == 1:
        return load_source(paths[0])
    images = []
    for p in paths:
        if p.suffix.lower() not in IMAGE_SUFFIXES:
            raise ContractError(str(p), "", "several sources must all be stills of one camera")
        images.append(load_plate(p))
        if images[-1].shape != images[0].shape:
            raise ContractError(str(p), "", "stills of one camera must share one size")
    return median_plate(images), images[0]


def _sharpness(f: np.ndarray) -> float:
    """Variance of the Laplacian of a 320-px-wide grey thumbnail (blur measure)."""
    s = 320 / f.shape[1]
    g = cv2.cvtColor(
        cv2.resize(f, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY
    )
    return float(cv2.Laplacian(g, cv2.CV_32F).var())
