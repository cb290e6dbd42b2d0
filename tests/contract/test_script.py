"""The hand-written event script notation (contract/script.py)."""

import pytest

from contract.events import Event
from contract.script import script_events


def test_script_reads_every_token_kind_into_valid_events() -> None:
    evs = script_events(
        ["yellow>3", "3|back", "3/", "3@back-left", "w9!", "5~middle-left", "7^", "*8"]
    )
    kinds = [e["type"] for e in evs]
    assert kinds == [
        "strike",
        "contact",
        "cushion",
        "cross",
        "pocket",
        "off_table",
        "hanging_drop",
        "ball_touched",
        "early_strike",
    ]
    assert evs[1]["balls"] == ["yellow", "3"]
    assert [e["frame"] for e in evs] == list(range(1, 10))
    assert all(Event.model_validate(e) for e in evs)


def test_script_steps_frames_and_rejects_bad_tokens() -> None:
    evs = script_events(["strike:yellow"], first_frame=10, step=7)
    assert evs == [{"frame": 17, "t": round(17 / 30, 3), "type": "strike", "ball": "yellow"}]
    with pytest.raises(ValueError, match="bad event token"):
        script_events(["yellow?3"])
