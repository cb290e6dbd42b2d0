"""Real ball crops from ``../shared/footage/snooker-small-ceiling`` (never committed).

The ten stills come from one fixed ceiling camera; ``testcases.json`` gives every ball's
centre in mm (origin at the surface centre; tablemon's frame is ``(x + 940.5, 471.5 - y)``).
Pixel centres: the truth is projected with a rough homography from the four cushion-nose
corners picked by eye, each ball's centre is refined in its image (colour-distance-weighted
centroid within 0.9 r, cloth colour = median of the playing surface), one homography
(table mm at ball-centre height -> px) is fitted to all refined centres by RANSAC and the
truth is projected through it. Colours are set from the ball core's hue and checked by
eye on a contact sheet (``--sheet``); corrections go in ``COLOUR_FIX``. Negatives: points
of the cloth, cushions, rails, pockets and projector drawings at least 1.8 r from any ball.

    python -m models.ballnet.real /tmp/ballnet/real.npz [--sheet /tmp/ballnet/real_sheet.png]

Also cuts the hand-labelled pool frames (``POOL_LABELS``, keys ``pool_*`` in the file;
evaluation only, never trained on).

Skips (exit 0, a message) when the footage is absent.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from models.ballnet.dataset import COLOURS
from vision.detect.classify import extract_patches

FOOTAGE = Path(__file__).resolve().parents[3] / "shared" / "footage" / "snooker-small-ceiling"
L, W, BALL = 1881.0, 943.0, 52.3
# cushion-nose corners by eye: front-left, back-left, back-right, front-right (px)
ROUGH_PX = np.float32([[62, 75], [1205, 75], [1205, 645], [62, 645]])
TABLE_MM = np.float32([[0, 0], [L, 0], [L, W], [0, W]])
# (image stem, ball index in testcases.json) -> colour, where the hue rule is wrong (by eye)
COLOUR_FIX: dict[tuple[str, int], str] = {}


def snooker_colour(bgr: np.ndarray) -> str:
    """Snooker ball colour from a median core BGR (uint8 range), tuned on these stills."""
    px = np.clip(bgr, 0, 255).astype(np.uint8).reshape(1, 1, 3)
    h, s, v = (int(c) for c in cv2.cvtColor(px, cv2.COLOR_BGR2HSV)[0, 0])
    if v < 90:
        return "black"
    if s < 12:
        return "white"
    if s < 90:
        return "pink"
    if 1 <= h <= 6 and s < 240:
        return "brown"
    if h < 10 or h >= 165:
        return "red"
    if h < 40:
        return "yellow"
    if h < 95:
        return "green"
    return "blue"


def _refine(img: np.ndarray, cloth: np.ndarray, uv: np.ndarray, r: float) -> np.ndarray:
    x0, y0 = int(uv[0] - 2 * r), int(uv[1] - 2 * r)
    roi = img[max(0, y0) : y0 + int(4 * r), max(0, x0) : x0 + int(4 * r)].astype(np.float32)
    if roi.size == 0:
        return uv
    gy, gx = np.mgrid[0 : roi.shape[0], 0 : roi.shape[1]]
    gx, gy = gx + max(0, x0), gy + max(0, y0)
    wgt = np.linalg.norm(roi - cloth, axis=2)
    wgt = np.clip(wgt - 40, 0, None)
    c = uv.astype(float)
    for _ in range(4):
        m = (gx - c[0]) ** 2 + (gy - c[1]) ** 2 < (0.9 * r) ** 2
        if wgt[m].sum() < 1:
            return uv
        c = np.array([(wgt * gx)[m].sum(), (wgt * gy)[m].sum()]) / wgt[m].sum()
    return c


def real_crops(sheet: Path | None = None) -> dict[str, np.ndarray] | None:
    """Patches and labels of the stills (kind 0 ball / 2 other, colour, number 0); None
    without the footage."""
    tc = FOOTAGE / "testcases.json"
    if not tc.is_file():
        return None
    cases = json.loads(tc.read_text())["cases"]
    H0 = cv2.getPerspectiveTransform(TABLE_MM, ROUGH_PX)
    R = BALL / 2
    imgs, truths, pairs_mm, pairs_px = [], [], [], []
    for case in cases:
        img = cv2.imread(str(FOOTAGE / Path(case["image"]).name))
        xy = np.array([[b["x"] + L / 2, W / 2 - b["y"]] for b in case["balls"]], np.float32)
        uv0 = cv2.perspectiveTransform(xy[None], H0)[0]
        inner = img[int(ROUGH_PX[0, 1]) + 20 : int(ROUGH_PX[2, 1]) - 20, 80:1180].reshape(-1, 3)
        cloth = np.median(inner, axis=0).astype(np.float32)
        r0 = R * 1143 / L
        for p_mm, p in zip(xy, uv0, strict=True):
            pairs_mm.append(p_mm)
            pairs_px.append(_refine(img, cloth, p, r0))
        imgs.append((Path(case["image"]).stem, img))
        truths.append(xy)
    H, inl = cv2.findHomography(np.float32(pairs_mm), np.float32(pairs_px), cv2.RANSAC, 3.0)
    res = np.linalg.norm(
        cv2.perspectiveTransform(np.float32(pairs_mm)[None], H)[0] - np.float32(pairs_px), axis=1
    )
    print(
        f"homography: {int(inl.sum())}/{len(inl)} inliers, median residual {np.median(res):.2f} px"
    )
    X, K, CO, NU, IM = [], [], [], [], []
    rng = np.random.default_rng(0)
    for k, ((stem, img), xy) in enumerate(zip(imgs, truths, strict=True)):
        uv = cv2.perspectiveTransform(xy[None], H)[0].astype(float)
        # radius from the homography's local scale
        du = cv2.perspectiveTransform((xy + [R, 0])[None], H)[0] - uv
        r = np.linalg.norm(du, axis=1)
        core = extract_patches(img, uv, 0.5 * r, 8, 1.0)
        cols = []
        for i in range(len(uv)):
            c = COLOUR_FIX.get((stem, i)) or snooker_colour(np.median(core[i].reshape(-1, 3), 0))
            cols.append(COLOURS.index(c))
        X.append(extract_patches(img, uv, r))
        K += [0] * len(uv)
        CO += cols
        NU += [0] * len(uv)
        IM += [k] * len(uv)
        neg = []
        while len(neg) < 40:
            p = np.array([rng.uniform(20, 1260), rng.uniform(15, 705)])
            if np.min(np.linalg.norm(uv - p, axis=1)) > 1.8 * r.mean():
                neg.append(p)
        X.append(extract_patches(img, np.array(neg), np.full(len(neg), r.mean())))
        K += [2] * len(neg)
        CO += [-1] * len(neg)
        NU += [-1] * len(neg)
        IM += [k] * len(neg)
    out = {
        "x": np.concatenate(X),
        "kind": np.array(K, np.int8),
        "colour": np.array(CO, np.int8),
        "number": np.array(NU, np.int8),
        "image": np.array(IM, np.int16),
    }
    if sheet is not None:
        _sheet(out, sheet)
    return out


# Pool frames labelled by eye (1920x1080; Hough circles checked on 4x zooms, the balls Hough
# missed placed on the rack's lattice): (u px, v px, colour). Ball radius about 15 px.
POOL_R = 15.0
POOL_LABELS: dict[tuple[str, int], list[tuple[float, float, str]]] = {
    ("pool-9ball-overhead/clip1.mp4", 0): [
        (638.5, 488.5, "pink"),  # 4
        (637.5, 546.5, "orange"),  # 5
        (636.5, 519.5, "yellow"),  # 9, yellow stripe
        (587.5, 518.5, "black"),  # 8
        (691.5, 518.5, "yellow"),  # 1
        (614.5, 504.5, "maroon"),  # 7
        (664.5, 534.5, "red"),  # 3
        (663.5, 504.5, "green"),  # 6 (Hough missed it)
        (611.5, 533.5, "blue"),  # 2 (Hough missed it)
        (1303.5, 791.5, "white"),  # cue ball
    ],
    ("pool-9ball-overhead/clip4.mp4", 0): [
        (692.5, 519.5, "yellow"),  # 1
        (639.5, 488.5, "black"),  # 8
        (637.5, 518.5, "yellow"),  # 9, yellow stripe
        (663.5, 506.5, "orange"),  # 5
        (613.5, 503.5, "pink"),  # 4
        (610.5, 532.5, "maroon"),  # 7
        (635.5, 548.5, "green"),  # 6
        (586.5, 518.5, "red"),  # 3 (Hough missed it)
        (663.5, 534.5, "blue"),  # 2 (Hough missed it)
        (1308.5, 784.5, "white"),  # cue ball
    ],
}
POOL_POCKETS = [(274, 158), (972, 145), (1668, 158), (274, 877), (972, 870), (1668, 877)]


def pool_crops() -> dict[str, np.ndarray] | None:
    """Patches of the hand-labelled pool frames: balls (kind 0, colour; pool numbers are
    not labelled: number -1, the cue ball 0) and 40 negatives per frame (cloth, rails,
    diamonds, pockets, the player's hand and cue, the score logo). Evaluation only."""
    root = FOOTAGE.parent
    X, K, CO, NU = [], [], [], []
    rng = np.random.default_rng(1)
    for (clip, index), balls in POOL_LABELS.items():
        cap = cv2.VideoCapture(str(root / clip))
        img = None
        for _ in range(index + 1):
            ok, img = cap.read()
            if not ok:
                return None
        cap.release()
        uv = np.array([b[:2] for b in balls], float)
        X.append(extract_patches(img, uv, np.full(len(uv), POOL_R)))
        K += [0] * len(uv)
        CO += [COLOURS.index(b[2]) for b in balls]
        NU += [0 if b[2] == "white" else -1 for b in balls]
        neg = [np.array(p, float) for p in POOL_POCKETS]
        while len(neg) < 40:
            p = np.array([rng.uniform(220, 1740), rng.uniform(100, 1000)])
            if np.min(np.linalg.norm(uv - p, axis=1)) > 1.8 * POOL_R:
                neg.append(p)
        X.append(extract_patches(img, np.array(neg), np.full(len(neg), POOL_R)))
        K += [2] * len(neg)
        CO += [-1] * len(neg)
        NU += [-1] * len(neg)
    return {
        "x": np.concatenate(X),
        "kind": np.array(K, np.int8),
        "colour": np.array(CO, np.int8),
        "number": np.array(NU, np.int8),
    }


def _sheet(d: dict[str, np.ndarray], path: Path) -> None:
    """Contact sheet of the ball crops, 22 per row (one row per still), colour initials."""
    balls = np.nonzero(d["kind"] == 0)[0]
    rows = []
    for k in np.unique(d["image"]):
        idx = balls[d["image"][balls] == k]
        tiles = []
        for i in idx:
            t = cv2.resize(d["x"][i], (56, 56), interpolation=cv2.INTER_NEAREST)
            t = cv2.copyMakeBorder(t, 0, 14, 1, 1, cv2.BORDER_CONSTANT, value=(0, 0, 0))
            name = COLOURS[d["colour"][i]][:3]
            cv2.putText(t, name, (2, 75), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1)
            tiles.append(t)
        while len(tiles) < 22:
            tiles.append(np.zeros_like(tiles[0]))
        rows.append(np.hstack(tiles[:22]))
    cv2.imwrite(str(path), np.vstack(rows))


def main() -> None:
    ap = argparse.ArgumentParser(description="real ball crops from the snooker stills")
    ap.add_argument("out")
    ap.add_argument("--sheet", type=Path)
    a = ap.parse_args()
    d = real_crops(a.sheet)
    if d is None:
        print(f"{FOOTAGE}: footage absent, no real crops")
        return
    pool = pool_crops()
    if pool is not None:
        d.update({f"pool_{k}": v for k, v in pool.items()})
    np.savez_compressed(a.out, **d)
    print(f"{a.out}: {int((d['kind'] == 0).sum())} balls, {int((d['kind'] == 2).sum())} other")
    if pool is not None:
        print(
            f"pool: {int((pool['kind'] == 0).sum())} balls, {int((pool['kind'] == 2).sum())} other"
        )


if __name__ == "__main__":
    main()
