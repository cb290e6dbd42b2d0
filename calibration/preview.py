"""Draw the fitted table model over a picture (recorded px) so a person can see it fits:
cushion-nose lines, pockets, spots, the house and centre lines, the front end."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.fit import nose_height
from contract.calib import Calibration
from contract.tables import TableSpec


def _polyline(
    img: np.ndarray, cal: Calibration, a, b, colour, th: int = 1, n: int = 60, height: float = 0.0
) -> None:
    t = np.linspace(0, 1, n)[:, None]
    xy = np.asarray(a, float)[None] * (1 - t) + np.asarray(b, float)[None] * t
    uv = cal.table_to_pixel(xy, height)
    cv2.polylines(img, [np.round(uv * 4).astype(np.int32)], False, colour, th, cv2.LINE_AA, 2)


def draw_model(
    img: np.ndarray, cal: Calibration, table: TableSpec, edges: dict[str, np.ndarray] | None = None
) -> np.ndarray:
    """A copy of ``img`` (BGR) with the model drawn: cushion noses yellow (at the nose
    height, where the picture shows them), pocket mouths red,
    spots and lines cyan, markings found green, the front cushion thicker, edge points
    (if given) magenta."""
    out = img.copy()
    th = max(1, round(img.shape[1] / 960))
    L, W = table.L, table.W
    hn = nose_height(table)
    for name, a, b in (
        ("front", (0, 0), (0, W)),
        ("back", (L, 0), (L, W)),
        ("left", (0, 0), (L, 0)),
        ("right", (0, W), (L, W)),
    ):
        _polyline(out, cal, a, b, (0, 255, 255), 3 * th if name == "front" else th, height=hn)
    for p in table.pockets:
        c = cal.table_to_pixel(np.array([p.centre]), hn)[0]
        r = np.linalg.norm(
            cal.table_to_pixel(np.array([(p.centre[0] + p.mouth_mm / 2, p.centre[1])]), hn)[0] - c
        )
        cv2.circle(
            out, tuple(np.round(c).astype(int)), max(2, int(r)), (0, 0, 255), th, cv2.LINE_AA
        )
    for a, b in table.lines.values():
        _polyline(out, cal, a, b, (255, 255, 0), th)
    for xy in list(table.spots.values()) + list(table.skittle_spots.values()):
        c = cal.table_to_pixel(np.array([xy]))[0]
        cv2.circle(out, tuple(np.round(c).astype(int)), 3 * th, (255, 255, 0), th, cv2.LINE_AA)
    for name, uv in cal.data.markings.items():
        if name.startswith(("spot:", "skittle:", "line:")):
            cv2.drawMarker(out, (int(uv[0]), int(uv[1])), (0, 255, 0), cv2.MARKER_CROSS, 8 * th, th)
    for p in (edges or {}).values():
        for u, v in p[::3]:
            cv2.circle(out, (int(round(u)), int(round(v))), 1, (255, 0, 255), -1)
    # the label sits on the cloth just inside the front cushion, wherever that is
    f = cal.table_to_pixel(np.array([(0.06 * L, 0.45 * W)]))[0]
    text = f"front ({cal.data.front})"
    (tw, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * th, th)
    x = int(np.clip(f[0] - tw / 2, 0, max(0, img.shape[1] - tw)))
    cv2.putText(
        out,
        text,
        (x, int(f[1])),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.5 * th,
        (0, 255, 255),
        th,
        cv2.LINE_AA,
    )
    return out
