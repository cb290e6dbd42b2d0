"""Tracks the shots' cutting joined again (``vision.events.series.relink``: a ball lost
behind a ghost and born afresh) are one ball in TRACKS.csv too: the younger track's rows
take the older id, the older's own predicted rows from there on go, and the bridged frames
before it (a ghost) are kept as predictions. Frames are video frames; positions mm."""

from __future__ import annotations

import numpy as np
import pytest

from contract.tracks import Tracks
from vision.stream import join_names, joined_rows


def _rows(spec: list[tuple[int, str, float, bool]]) -> Tracks:
    return Tracks.from_rows(
        [
            (
                f,
                f / 30,
                i,
                x,
                500.0,
                int(v),
                x + 1 if v else float("nan"),
                9.0 if v else float("nan"),
            )
            for f, i, x, v in spec
        ]
    )


ROWS = _rows(
    [
        (10, "yellow", 300.0, True),
        (11, "yellow", 600.0, True),
        (12, "yellow", 330.0, True),  # the cue tip read as the ball: a ghost
        (13, "yellow", 330.0, False),  # the tracker predicting the ball it lost
        (14, "yellow", 330.0, False),
        (14, "w16", 1450.0, True),  # the ball born afresh (read white at speed)
        (15, "w16", 1700.0, True),
        (15, "w3", 2000.0, True),
    ]
)


def test_the_younger_track_is_the_older_ball_from_its_first_frame():
    out = joined_rows(ROWS, [("w16", "yellow", 12, 14)])
    got = [
        (int(f), i, float(x), bool(v))
        for f, i, x, v in zip(out.frame, out.id, out.x, out.visible, strict=True)
    ]
    assert got == [
        (10, "yellow", 300.0, True),
        (11, "yellow", 600.0, True),
        (12, "yellow", 330.0, False),  # the ghost kept as a prediction, no pixels
        (13, "yellow", 330.0, False),
        (14, "yellow", 1450.0, True),  # the older's prediction at 14 gone, the younger's kept
        (15, "w3", 2000.0, True),
        (15, "yellow", 1700.0, True),
    ]
    assert np.isnan(out.u[2]) and out.u[0] == 301.0


@pytest.mark.parametrize(
    ("joined", "names"),
    [
        ([], {}),
        ([("w16", "yellow", 12, 14)], {"w16": "yellow"}),
        ([("w17", "w16", 40, 44), ("w16", "yellow", 12, 14)], {"w16": "yellow", "w17": "yellow"}),
    ],
)
def test_a_chain_of_joins_names_the_oldest(joined, names):
    assert join_names(joined) == names


def test_no_join_leaves_the_rows_as_they_are():
    assert joined_rows(ROWS, []) is ROWS
