"""The held-out break clips of bench.bench_racksim: seeds the issue's set never uses."""

from __future__ import annotations

import pytest

from bench.bench_events import VIDEO_SET
from bench.bench_racksim import held_out, main, set_breaks


@pytest.mark.parametrize("n", [0, 1, 8])
def test_held_out_seeds_are_new_and_alternate_sizes(n: int) -> None:
    held = held_out(n)
    assert len(held) == n
    used = {seed for _, scen, seed, *_ in VIDEO_SET if scen == "pyramid-break"}
    names = {name for name, *_ in VIDEO_SET}
    for k, (name, scen, seed, size, strokes) in enumerate(held):
        assert scen == "pyramid-break" and seed not in used and seed > max(used)
        assert name not in names and name == f"pyr-break-h-{seed}-{size}"
        assert size == ("1080", "720")[k % 2] and strokes == 0


def test_set_breaks_are_the_sets_break_clips() -> None:
    got = set_breaks()
    assert len(got) == 12
    assert all(scen == "pyramid-break" for _, scen, *_ in got)


def test_negative_held_out_count_is_one_line(tmp_path, capsys) -> None:
    assert main([str(tmp_path), "--held", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "--held must be >= 0"
