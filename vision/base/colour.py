"""Ball colour classes from a ball's core pixels (BGR), mapped to each game's vocabulary."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

BASIC = ("white", "black", "red", "orange", "yellow", "green", "blue", "pink", "brown", "skin")
# basic colours a ball can have, by table kind (skin: a hand, never a ball)
BALL_COLOURS = {
    "pyramid": {"white", "yellow", "orange"},
    "carom": {"white", "yellow", "orange", "red", "pink"},
}


def is_ball_colour(basic: str, kind: str) -> bool:
    """False for colours no ball of this table kind has (hands, clothes, cue tips)."""
    if kind in BALL_COLOURS:
        return basic in BALL_COLOURS[kind]
    return True  # pool, snooker: every colour (a pale pink ball looks like skin)


def basic_colour(bgr: np.ndarray) -> str:
    """The basic colour name of a median BGR triple (uint8 range)."""
    px = np.clip(np.asarray(bgr, float), 0, 255).astype(np.uint8).reshape(3)
    return _basic_colour(int(px[0]), int(px[1]), int(px[2]))


def basic_colours(bgr: np.ndarray) -> list[str]:
    """:func:`basic_colour` of each row of ``bgr`` (N,3, uint8 range)."""
    px = np.clip(np.asarray(bgr, float).reshape(-1, 3), 0, 255).astype(np.uint8)
    return [_basic_colour(b, g, r) for b, g, r in px.tolist()]


@lru_cache(maxsize=4096)
def _basic_colour(b: int, g: int, r: int) -> str:
    px = np.array([[[b, g, r]]], np.uint8)
    h, s, v = (int(c) for c in cv2.cvtColor(px, cv2.COLOR_BGR2HSV)[0, 0])
    if v < 60:
        return "black"
    if 4 <= h < 26 and 55 <= s < 130 and v > 90:
        return "skin"
    if s < 75 and v > 140:
        return "white"
    if s < 60:
        return "black" if v < 100 else "white"
    if h < 8 or h >= 165:
        return "pink" if s < 140 and v > 200 else "red"
    if h < 19:
        return "brown" if v < 130 else "orange"
    if h < 36:
        return "yellow"
    if h < 85:
        return "green"
    if h < 132:
        return "blue"
    return "pink"


def game_class(basic: str, kind: str) -> str:
    """Map a basic colour to the classes the table's game names balls by.

    pyramid: ``yellow`` / ``white``; carom: ``white`` / ``yellow`` / ``red``;
    pool and snooker: ``white`` (the cue ball) or the basic colour.
    """
    if kind == "pyramid":
        return "yellow" if basic in ("yellow", "orange") else "white"
    if kind == "carom":
        if basic in ("yellow", "orange"):
            return "yellow"
        if basic in ("red", "pink", "brown"):
            return "red"
        return "white"
    return basic


DARK_WEIGHT = 0.35  # a pure darkening (shadow) counts this much
BRIGHT_WEIGHT = 0.6  # a pure brightening (glare, projected light) counts this much
SHADOW_DEPTH = 0.5  # shadows darken the cloth by at most this share of its brightness


_SUM3 = np.ones((1, 3), np.float32)  # cv2.transform's row that sums three channels


def plate_distance(img: np.ndarray, plate: np.ndarray, pn: np.ndarray) -> np.ndarray:
    """Colour distance (float32) of ``img`` from the cloth ``plate`` (both float32 BGR).

    The change of colour counts in full; a change of brightness along the cloth's colour
    direction ``pn`` (unit 3-vector) counts by :data:`BRIGHT_WEIGHT` when brighter (glare,
    projected light) and by :data:`DARK_WEIGHT` when darker down to
    :data:`SHADOW_DEPTH` of the cloth's brightness (shadows), in full beyond (dark balls).
    """
    diff = cv2.subtract(img, plate)
    row = pn.reshape(1, 3).astype(np.float32)
    b = cv2.transform(diff, row)
    level = cv2.transform(plate, row)
    sq = cv2.transform(cv2.multiply(diff, diff), _SUM3)
    bp, dark = cv2.max(b, 0.0), cv2.max(-b, 0.0)
    knee = SHADOW_DEPTH * level
    eff = DARK_WEIGHT * cv2.min(dark, knee) + cv2.max(dark - knee, 0.0)
    d2 = sq - (1 - BRIGHT_WEIGHT**2) * bp * bp - dark * dark + eff * eff
    return cv2.sqrt(cv2.max(d2, 0.0))
