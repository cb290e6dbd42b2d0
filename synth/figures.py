"""How a ball maker prints numbers: varied figure styles for the number reader's training.

The house style (``synth.render_balls.pyramid_glyph``) is one font at one size. Real ball
sets differ by maker: the font, the figures' height on the ball, the stroke, whether 6 and 9
are underlined, the ink. A :class:`FigureStyle` names one such print; :func:`figure_glyph`
draws a number in it on the renderer's glyph square (``GLYPH`` px spanning ``box_r`` ball
radii either side of the pole, body frame), and :func:`random_style` draws a maker at random.

Sizes are in ball radii (``height_r``: the ink's height over the ball's radius, 0.45 in the
house style); on a ball of ``r`` px the figure is ``height_r * r`` px tall.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

GLYPH = 64
"""Glyph square (px) the renderer samples; the figure is drawn centred in it."""

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
"""The Hershey faces OpenCV draws (any may be italic)."""


@dataclass(frozen=True)
class FigureStyle:
    """One maker's print. ``font``: a Hershey face (``FONTS``), ``italic``; ``height_r``:
    ink height / ball radius; ``stroke``: line width on a 120 px canvas (2-8); ``width``:
    digit width factor (1 = the font's own); ``underline``: 6 and 9 underlined; ``ink_bgr``:
    the ink's colour (0..255)."""

    font: int = cv2.FONT_HERSHEY_DUPLEX
    italic: bool = False
    height_r: float = 0.45
    stroke: int = 5
    width: float = 1.0
    underline: bool = True
    ink_bgr: tuple[float, float, float] = (25.0, 25.0, 30.0)

    @property
    def box_r(self) -> float:
        """Half the glyph square's side in ball radii: the figure's height is 42/64 of the
        square, as in the house style (0.34 r for 0.45 r tall ink)."""
        return self.height_r * GLYPH / 42 / 2


def _digit(d: str, style: FigureStyle, tall: int) -> np.ndarray:
    """One digit's ink (uint8, cropped to its ink), ``tall`` px high."""
    font = style.font | (cv2.FONT_ITALIC if style.italic else 0)
    big = np.zeros((120, 120), np.uint8)
    cv2.putText(big, d, (24, 92), font, 2.0, 255, style.stroke, cv2.LINE_AA)
    ys, xs = np.nonzero(big > 127)
    ink = big[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    w = max(1, round(ink.shape[1] * tall / ink.shape[0] * style.width))
    return cv2.resize(ink, (w, tall), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=4096)
def figure_glyph(number: int, style: FigureStyle) -> np.ndarray:
    """Ink (0..1, ``GLYPH`` x ``GLYPH`` float32) of ``number`` printed in ``style``,
    centred and upright; two digits as tall as one, narrowed to fit the square."""
    tall, room, gap = 42, 60, 3
    s = str(number)
    digits = [_digit(d, style, tall) for d in s]
    widths = [g.shape[1] for g in digits]
    squeeze = min(1.0, (room - gap * (len(s) - 1)) / sum(widths))
    if squeeze < 1.0:
        widths = [max(1, int(w * squeeze)) for w in widths]
        digits = [
            cv2.resize(g, (w, tall), interpolation=cv2.INTER_AREA)
            for g, w in zip(digits, widths, strict=True)
        ]
    row = np.zeros((tall, sum(widths) + gap * (len(s) - 1)), np.uint8)
    x = 0
    for g in digits:
        row[:, x : x + g.shape[1]] = g
        x += g.shape[1] + gap
    if style.underline and s in ("6", "9"):
        bar = max(2, round(style.stroke * 0.8))
        row = np.vstack(
            [
                row,
                np.zeros((3, row.shape[1]), np.uint8),
                np.full((bar, row.shape[1]), 255, np.uint8),
            ]
        )
    h, w = min(row.shape[0], GLYPH), min(row.shape[1], GLYPH)
    img = np.zeros((GLYPH, GLYPH), np.uint8)
    y0, x0 = (GLYPH - h) // 2, (GLYPH - w) // 2
    img[y0 : y0 + h, x0 : x0 + w] = row[:h, :w]
    return img.astype(np.float32) / 255.0


HEIGHT_R = (0.15, 0.6)
"""Range of figure heights (ball radii) :func:`random_style` draws: from figures too small
to read at any usual camera to figures larger than the house style's 0.45 r."""


def random_style(rng: np.random.Generator) -> FigureStyle:
    """A random maker's print: any Hershey face, 30 % italic, height ``HEIGHT_R`` (drawn
    uniformly in log), stroke 2-8, digit width 0.75-1.2, 6 and 9 underlined 70 % of the time,
    ink dark grey to black, 15 % dark red or dark blue."""
    lo, hi = np.log(HEIGHT_R)
    ink = float(rng.uniform(10, 70))
    ink_bgr = (ink, ink, ink + 5)
    if rng.random() < 0.15:
        ink_bgr = (30.0, 30.0, 120.0) if rng.random() < 0.5 else (110.0, 40.0, 30.0)
    return FigureStyle(
        font=FONTS[int(rng.integers(len(FONTS)))],
        italic=bool(rng.random() < 0.3),
        height_r=float(np.exp(rng.uniform(lo, hi))),
        stroke=int(rng.integers(2, 9)),
        width=float(rng.uniform(0.75, 1.2)),
        underline=bool(rng.random() < 0.7),
        ink_bgr=ink_bgr,
    )
