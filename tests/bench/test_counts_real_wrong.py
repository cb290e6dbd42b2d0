"""The real-footage count bench lists every state counted wrong, at its labelled frame
and at its last frame (no footage needed)."""

from __future__ import annotations

from bench.bench_counts_real import wrong_states


def _state(frame, person, found, end, at_end):
    return {
        "frame": frame,
        "person": person,
        "tablemon": found,
        "ok": found == person,
        "span_end": end,
        "tablemon_at_end": at_end,
        "ok_at_end": at_end == person,
    }


def test_wrong_states_lists_the_labelled_frame_and_the_last_frame_apart():
    out = {
        "a.mp4": {"states": [_state(0, 16, 15, 178, 16), _state(308, 16, 16, 347, 6)]},
        "b.mp4": {"states": [_state(0, 10, 10, 32, 10)]},
        "c.mp4": {"error": "no table"},
    }
    assert wrong_states(out) == [["a.mp4", 0, 16, 15, "frame"], ["a.mp4", 308, 16, 6, 347]]


def test_no_wrong_states_when_all_agree():
    assert wrong_states({"b.mp4": {"states": [_state(0, 10, 10, 32, 10)]}}) == []
