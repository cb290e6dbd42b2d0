"""Ball patch verifier and classifier: a small ONNX net run through onnxruntime.

The classical detector (``vision.detect.detector``) proposes candidate centres and radii in video
pixels; :class:`BallClassifier` cuts a patch around each one, scaled to the ball's pixel
radius (``PATCH`` x ``PATCH`` px covering ``2 * SPAN`` radii), and answers three questions
per patch: what is it (``ball``, ``skittle`` or ``other``), which colour is the ball, and
which number (1..15) is printed on a white pyramid ball when a pole faces the camera
(0 = no number readable). The model and its manifest ship in ``models/ballnet/``.

This module never imports torch; :func:`extract_patches` is also the training
pipeline's crop so that training and runtime see identical pixels.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "ballnet"
PATCH = 32
"""Patch side in patch pixels."""
SPAN = 1.2
"""Half the patch side in ball radii: the patch covers 2.4 radii around the centre."""


def extract_patches(
    image_bgr: np.ndarray,
    centres_px: np.ndarray,
    radii_px: np.ndarray,
    size: int = PATCH,
    span: float = SPAN,
) -> np.ndarray:
    """BGR uint8 patches (N, size, size, 3) centred on ``centres_px`` (N, 2) video px
    (sub-pixel, recorded), each covering ``2 * span * radius`` px. Pixels beyond the image
    edge repeat the edge (``BORDER_REPLICATE``). A downscale by more than 1.5x is
    pre-smoothed so that large balls do not alias."""
    img = np.asarray(image_bgr)
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError(f"image must be BGR uint8 (H, W, 3), got {img.dtype} {img.shape}")
    c = np.asarray(centres_px, float).reshape(-1, 2)
    r = np.asarray(radii_px, float).reshape(-1)
    if len(c) != len(r):
        raise ValueError(f"{len(c)} centres but {len(r)} radii")
    if len(r) and not (np.all(np.isfinite(c)) and np.all(np.isfinite(r)) and np.all(r > 0)):
        raise ValueError("centres and radii must be finite and radii positive")
    out = np.zeros((len(c), size, size, 3), np.uint8)
    H, W = img.shape[:2]
    for i in range(len(c)):
        half = span * r[i]
        s = size / (2 * half)  # patch px per video px
        pad = int(np.ceil(half)) + 3
        x0, y0 = int(np.floor(c[i, 0])) - pad, int(np.floor(c[i, 1])) - pad
        x1, y1 = x0 + 2 * pad + 1, y0 + 2 * pad + 1
        if x1 <= 0 or y1 <= 0 or x0 >= W or y0 >= H:
            roi = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
        else:
            roi = img[max(0, y0) : min(H, y1), max(0, x0) : min(W, x1)]
            if roi.shape[:2] != (y1 - y0, x1 - x0):
                roi = cv2.copyMakeBorder(
                    roi,
                    max(0, -y0),
                    max(0, y1 - H),
                    max(0, -x0),
                    max(0, x1 - W),
                    cv2.BORDER_REPLICATE,
                )
        if s < 1 / 1.5:
            roi = cv2.GaussianBlur(roi, (0, 0), 0.45 / s)
        # pixel centres at integer coordinates: the patch centre (size - 1) / 2 is the ball's
        cx, cy = c[i, 0] - x0, c[i, 1] - y0
        q = (size - 1) / 2
        m = np.array([[s, 0.0, q - s * cx], [0.0, s, q - s * cy]])
        out[i] = cv2.warpAffine(
            roi, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    return out


def to_input(patches: np.ndarray) -> np.ndarray:
    """Network input (N, 3, H, W) float32 in -0.5..0.5 from BGR uint8 patches (N, H, W, 3)."""
    return np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32) / 255.0 - 0.5


@dataclass(frozen=True)
class Classified:
    """The classifier's answers for N patches, as a struct of arrays.

    ``kind`` class name per patch (``ball``/``skittle``/``other``), ``is_ball`` its
    probability of being a ball (0..1); ``colour`` the most likely ball colour
    (meaningful where ``is_ball`` is high) with ``colour_p``; ``number`` 1..15 when a
    number is read, 0 when none is readable, with ``number_p``."""

    kind: np.ndarray = field(repr=False)
    is_ball: np.ndarray = field(repr=False)
    colour: np.ndarray = field(repr=False)
    colour_p: np.ndarray = field(repr=False)
    number: np.ndarray = field(repr=False)
    number_p: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.is_ball)

    @classmethod
    def empty(cls) -> Classified:
        z = np.zeros(0)
        return cls(np.zeros(0, object), z, np.zeros(0, object), z, np.zeros(0, int), z)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class BallClassifier:
    """The ball patch net behind onnxruntime (one CPU thread by default).

    Load with :meth:`load`; call :meth:`classify` with a frame and candidate centres/radii
    in video pixels."""

    def __init__(self, session, manifest: dict) -> None:
        self.session = session
        self.manifest = manifest
        self.kinds = tuple(manifest["kinds"])
        self.colours = tuple(manifest["colours"])
        self.patch = int(manifest["input_shape"][-1])
        self.span = float(manifest["span_radii"])
        self.batch = 256

    @classmethod
    def load(
        cls, path: str | Path | None = None, threads: int = 1, verify: bool = True
    ) -> BallClassifier:
        """Load ``path`` (an ``.onnx`` file or a folder with ``manifest.json``; default the
        shipped ``models/ballnet``). ``verify`` checks the file's sha256 against the
        manifest. Raises ValueError (one line) when the model or manifest is missing or
        does not match."""
        import onnxruntime as ort

        p = Path(path) if path is not None else MODEL_DIR
        folder = p if p.is_dir() else p.parent
        mpath = folder / "manifest.json"
        if not mpath.is_file():
            raise ValueError(f"{mpath}: model manifest not found")
        try:
            manifest = json.loads(mpath.read_text())
            onnx_path = p if p.suffix == ".onnx" else folder / manifest["file"]
        except (json.JSONDecodeError, KeyError) as e:
            raise ValueError(f"{mpath}: unreadable manifest ({e})") from None
        if not onnx_path.is_file():
            raise ValueError(f"{onnx_path}: model file not found")
        if verify and file_sha256(onnx_path) != manifest.get("sha256"):
            raise ValueError(f"{onnx_path}: sha256 does not match {mpath.name}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            sess = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own types
            raise ValueError(f"{onnx_path}: cannot load model ({str(e).splitlines()[0]})") from None
        return cls(sess, manifest)

    def logits(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Raw (kind, colour, number) logits for network input ``x`` (N, 3, P, P)."""
        outs = [[], [], []]
        for k in range(0, len(x), self.batch):
            res = self.session.run(None, {"patch": x[k : k + self.batch]})
            for o, r in zip(outs, res, strict=True):
                o.append(r)
        return tuple(np.concatenate(o) for o in outs)  # type: ignore[return-value]

    def classify_patches(self, patches: np.ndarray) -> Classified:
        """Classify BGR uint8 patches (N, P, P, 3) cut by :func:`extract_patches`."""
        if len(patches) == 0:
            return Classified.empty()
        if patches.shape[1:] != (self.patch, self.patch, 3):
            raise ValueError(f"patches must be (N, {self.patch}, {self.patch}, 3)")
        kl, cl, nl = self.logits(to_input(patches))
        kp, cp, npb = _softmax(kl), _softmax(cl), _softmax(nl)
        ki, ci, ni = kp.argmax(1), cp.argmax(1), npb.argmax(1)
        rows = np.arange(len(ki))
        return Classified(
            kind=np.asarray(self.kinds, object)[ki],
            is_ball=kp[:, self.kinds.index("ball")],
            colour=np.asarray(self.colours, object)[ci],
            colour_p=cp[rows, ci],
            number=ni.astype(int),
            number_p=npb[rows, ni],
        )

    def classify(
        self, image_bgr: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray
    ) -> Classified:
        """Classify the candidates at ``centres_px`` (N, 2) video px with ball radii
        ``radii_px`` (N,) px in the BGR uint8 frame ``image_bgr``. Candidates off the
        picture are classified from edge-replicated pixels (expect ``other``)."""
        patches = extract_patches(image_bgr, centres_px, radii_px, self.patch, self.span)
        return self.classify_patches(patches)
