"""The 5-pin skittles through the detector, on rendered pictures (synth renderer: the
cloth's markings, the centre line through three marks, shading, noise).

Standing pins must be found on their marks, lying ones about half their length from the
mark toward where they fell (the events read a fall from that shift), and a pin half
hidden by a ball must not be measured off its place."""

from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np
import pytest

from contract.calib import Calibration
from contract.tables import load_table
from synth.camera import random_camera
from synth.planner import carom_balls
from synth.render import Renderer
from synth.world import BallPose, SkittlePose, WorldFrame
from vision.capture.source import Frame
from vision.detect.detector import Detector
from vision.detect.skittles import GATE_MM, line_elements, residuals, skittle_residual

TABLE = load_table("carom-match")
SIZES = {"1080": (1920, 1080), "720": (1280, 720)}
SPOTS = TABLE.skittle_spots
R = TABLE.ball_radius


@cache
def _scene(size: str):
    cam = random_camera(TABLE, SIZES[size], np.random.default_rng(3))
    renderer = Renderer(TABLE, [cam], {b.id: b for b in carom_balls()}, 3)
    calib = Calibration(cam.to_calibration(TABLE))
    standing = {k: SkittlePose(x, y) for k, (x, y) in SPOTS.items()}
    far = {"white": BallPose(500.0, 300.0, R), "yellow": BallPose(2300.0, 1100.0, R)}
    plate, _ = renderer.render(WorldFrame(0, 0.0, far, standing))
    return renderer, calib, plate


def _skittles(size: str, fallen: dict[str, float], balls: dict[str, tuple[float, float]]):
    """Skittles the detector reports, by nearest mark: {mark: (x, y) mm}."""
    renderer, calib, plate = _scene(size)
    sk = {k: SkittlePose(x, y, k in fallen, fallen.get(k, 0.0)) for k, (x, y) in SPOTS.items()}
    poses = {"white": BallPose(500.0, 300.0, R), "yellow": BallPose(2300.0, 1100.0, R)}
    poses.update({b: BallPose(x, y, R) for b, (x, y) in balls.items()})
    img, _ = renderer.render(WorldFrame(1, 1 / 30, poses, sk))
    img = cv2.GaussianBlur(img, (0, 0), 0.6)  # as the clips are written (synth.render)
    det = Detector(calib, TABLE, SIZES[size])
    det.fit_background([plate])
    d = det.detect(Frame(1, 1 / 30, img))
    xy = d.xy[d.cls == "skittle"]
    out: dict[str, tuple[float, float]] = {}
    for p in xy:
        mark = min(SPOTS, key=lambda k: math.dist(SPOTS[k], p))
        assert mark not in out, f"two skittles reported at mark {mark}"
        out[mark] = (float(p[0]), float(p[1]))
    return out, d


@pytest.mark.parametrize("size", ["1080", "720"])
def test_five_standing_pins_on_their_marks_the_centre_line_through_three(size):
    found, d = _skittles(size, {}, {})
    assert sorted(found) == sorted(SPOTS)
    for k, p in found.items():
        assert math.dist(p, SPOTS[k]) < 2.5, (k, p)
    assert list(d.cls).count("skittle") == 5 and len(d) == 7  # and the two balls


@pytest.mark.parametrize(
    "size, pin, angle",
    [
        ("1080", "centre", 0.4),
        ("1080", "centre", math.pi / 2),  # lying along the centre line
        ("1080", "left", -math.pi / 2),  # along the line, away from the centre
        ("1080", "front", math.pi),
        ("720", "centre", 2.6),
        ("720", "right", math.pi / 2),
        ("720", "back", 4.0),
    ],
)
def test_a_lying_pin_shows_half_its_length_toward_its_fall(size, pin, angle):
    found, _ = _skittles(size, {pin: angle}, {})
    assert pin in found
    shift = np.subtract(found[pin], SPOTS[pin])
    length = float(np.linalg.norm(shift))
    # the pin's middle lies half its 25 mm from the mark; the events need > base (7 mm)
    assert 8.0 < length < 17.0, length
    assert shift @ [math.cos(angle), math.sin(angle)] > 0.8 * length
    for k, p in found.items():
        if k != pin:
            assert math.dist(p, SPOTS[k]) < 2.5, (k, p)


@pytest.mark.parametrize(
    "size, pin, gap, bearing",
    [
        ("1080", "front", 2.0, math.pi),  # a ball resting just short of the pin
        ("1080", "right", 6.0, math.pi / 2),
        ("720", "back", 3.0, 0.0),
        ("720", "left", 10.0, -2.0),
    ],
)
def test_a_pin_beside_a_ball_is_not_measured_off_its_mark(size, pin, gap, bearing):
    sx, sy = SPOTS[pin]
    reach = R + TABLE.skittle_base_mm / 2 + gap  # the ball does not touch the pin
    ball = (sx + reach * math.cos(bearing), sy + reach * math.sin(bearing))
    found, d = _skittles(size, {}, {"red": ball})
    for k, p in found.items():
        assert math.dist(p, SPOTS[k]) < 3.0, (k, p)
    assert set(SPOTS) - set(found) <= {pin}  # the others stay found
    assert "red" in list(d.cls)


@pytest.mark.parametrize("angle_deg", [0.0, 27.0, 45.0, 88.0, 93.0, 135.0, 171.0])
@pytest.mark.parametrize("length_px", [25, 51])
def test_residual_removes_a_straight_marking_and_keeps_a_small_blob(angle_deg, length_px):
    """A soft 2 px wide line of colour distance 40 in any direction goes; a skittle-sized
    blob of 220 standing on it stays."""
    n = 2 * length_px + 21
    d = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(angle_deg)
    p0 = (int(round(c - n * math.cos(a))), int(round(c - n * math.sin(a))))
    p1 = (int(round(c + n * math.cos(a))), int(round(c + n * math.sin(a))))
    cv2.line(d, p0, p1, 40.0, 2, cv2.LINE_AA)
    d = cv2.GaussianBlur(d, (0, 0), 0.7)  # a soft marking, as a camera sees it
    line = d > 20
    cv2.circle(d, (c + 3, c - 2), 2, 220.0, -1)
    res, removed = skittle_residual(d, length_px)
    assert res[c - 2, c + 3] > 170  # the blob
    far = np.zeros_like(line)
    e = length_px // 2 + 2  # away from the picture's edge (half an element) ...
    far[e:-e, e:-e] = line[e:-e, e:-e]
    far[c - 10 : c + 11, c - 10 : c + 11] = False  # ... and from the blob
    assert res[far].max() < 16  # the line (under the detector's lowest threshold, 22)
    assert removed[c - 2, c + 3] < 45  # under the blob only the line's level is removed


def test_line_elements_cover_every_direction_finely_enough():
    for length in (11, 25, 51, 101):
        ses = line_elements(length)
        for se in ses:  # one thin segment spanning the element's length
            ys, xs = np.nonzero(se)
            assert se.shape == (length, length) and se.sum() <= length
            assert math.hypot(np.ptp(xs), np.ptp(ys)) >= length - 2.5
        # neighbouring directions differ so little that a line between them fits one
        step = math.pi / len(ses)
        assert length / 2 * math.sin(step / 2) <= 1.5 + 1e-9
    assert (
        min(math.dist(a, b) for a in SPOTS.values() for b in SPOTS.values() if a != b) / 2 > GATE_MM
    )


@pytest.mark.parametrize("shapes", [[(31, 31)], [(31, 31), (29, 33), (31, 31)], [(45, 40)] * 5])
def test_windows_opened_together_as_each_alone(shapes):
    """Side by side with a gap of one element, each window keeps its own values a whole
    element inside its edge, and in its gate (half an element inside) a soft line through
    it still goes while a blob on the line stays."""
    rng = np.random.default_rng(len(shapes))
    length = 11
    wins = []
    for h, w in shapes:
        d = np.zeros((h, w), np.float32)
        a = rng.uniform(0, math.pi)
        cx, cy = w // 2, h // 2
        p0 = (int(cx - 60 * math.cos(a)), int(cy - 60 * math.sin(a)))
        p1 = (int(cx + 60 * math.cos(a)), int(cy + 60 * math.sin(a)))
        cv2.line(d, p0, p1, 45.0, 2, cv2.LINE_AA)
        d = cv2.GaussianBlur(d, (0, 0), 0.7) + rng.normal(5.0, 1.0, (h, w)).astype(np.float32)
        cv2.circle(d, (cx, cy), 2, 200.0, -1)
        wins.append(d)
    for d, (res, removed) in zip(wins, residuals(wins, length), strict=True):
        alone_res, alone_removed = skittle_residual(d, length)
        e = length
        assert np.array_equal(res[e:-e, e:-e], alone_res[e:-e, e:-e])
        assert np.array_equal(removed[e:-e, e:-e], alone_removed[e:-e, e:-e])
        cy, cx = d.shape[0] // 2, d.shape[1] // 2
        line = d > 30
        line[cy - 4 : cy + 5, cx - 4 : cx + 5] = False  # the blob
        g = length // 2 + 1
        inner = np.zeros_like(line)
        inner[g:-g, g:-g] = True
        assert res[line & inner].max() < 20  # under the detector's lowest threshold, 22
        assert res[cy, cx] > 140
    assert residuals([], length) == []
