"""Scoring of real stills against their labels (bench.generalize_real)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.generalize_real import _boxes, _match_errors, box_summary


def test_boxes_are_read_as_centres_and_half_sizes(tmp_path: Path) -> None:
    f = tmp_path / "frame_first_bbox.txt"
    f.write_text("268 317 17 17 1\n469 154 15 16 2\n")
    assert _boxes(f).tolist() == [[276.5, 325.5, 8.5], [476.5, 162.0, 8.0]]


@pytest.mark.parametrize(
    ("found", "matched"),
    [
        ([(276.0, 326.0), (476.0, 162.0)], 2),  # both inside their boxes
        ([(276.0, 336.0), (476.0, 162.0)], 1),  # 10.5 px off: outside an 8.5 px half size
        ([], 0),
    ],
)
def test_a_ball_counts_found_only_inside_its_box(found, matched) -> None:
    boxes = np.array([[276.5, 325.5, 8.5], [476.5, 162.0, 8.0]])
    tp, nf, errs = _match_errors(boxes[:, :2], np.array(found).reshape(-1, 2), boxes[:, 2])
    assert (tp, nf, len(errs)) == (matched, len(found), matched)
    row = {"balls": 2, "found": nf, "matched": tp, "errors_px": errs}
    s = box_summary([row, {"balls": 3, "found": 0, "matched": 0, "errors_px": []}])
    assert s["recall"] == tp / 5 and s["balls"] == 5
