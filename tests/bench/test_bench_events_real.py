"""Contacts on real footage against a person's labels (bench.bench_events_real)."""

from __future__ import annotations

import pytest

from bench.bench_events_real import _contact_figures

TRUTH = [(198, ["white", "yellow"]), (200, ["white", "red"])]


@pytest.mark.parametrize(
    ("found", "matched", "first_right"),
    [
        ([(198, ["white", "yellow"]), (199, ["white", "red"])], 2, 1),
        ([(199, ["yellow", "white"]), (204, ["white", "red"])], 1, 0),  # order; 4 frames late
        ([(197, ["white", "red"])], 1, 0),  # the red first: the first contact is wrong
        ([], 0, 0),
    ],
)
def test_contacts_count_by_pair_within_3_frames(found, matched, first_right) -> None:
    r = _contact_figures(found, TRUTH, [44])
    assert (r["contacts_matched"], r["first_contacts"], r["first_contacts_right"]) == (
        matched,
        1,
        first_right,
    )
