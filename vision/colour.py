"""Ball colour classes from a ball's core pixels (BGR), mapped to each game's vocabulary."""

from __future__ import annotations

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
    px = np.clip(np.asarray(bgr, float), 0, 255).astype(np.uint8).reshape(1, 1, 3)
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
