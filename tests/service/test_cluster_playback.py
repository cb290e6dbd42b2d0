"""What a worker plays: ground-truth shots on a clock (a restart skips what it missed) and
play in progress read from the live positions (a restart marks that shot cut)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cluster_helpers import fake_clip

from service.cluster.playback import MOVE_MM, REST_S, MotionWatch, TruthShots, length_s


def test_truth_shots_on_the_clock(tmp_path: Path) -> None:
    clip = fake_clip(tmp_path, n=3, every_s=1.0, dur_s=0.5, first_s=0.2)  # 0.2, 1.2, 2.2
    truth = TruthShots(clip.with_name("clip.truth.json"))
    assert truth(None, 0.6) == [] and truth.in_shot(0.3)["t"] == pytest.approx(0.2)
    assert [s["start"]["t"] for s in truth(None, 0.7)] == [0.2]
    assert truth.in_shot(0.9) is None and truth.in_shot(1.3)["t"] == pytest.approx(1.2)
    assert len(truth(None, 10.0)) == 2 and truth.in_shot(10.0) is None
    # a worker resumed at 1.5 s: the shot begun before is not played, nor invented
    resumed = TruthShots(clip.with_name("clip.truth.json"), after_t=1.5)
    assert [s["start"]["t"] for s in resumed.skipped] == [0.2, 1.2]
    assert [s["start"]["t"] for s in resumed(None, 10.0)] == [2.2]
    assert length_s(str(clip)) == pytest.approx(2.7 + 0.5)  # a placeholder: truth end + 0.5


def test_motion_watch_opens_and_closes() -> None:
    w = MotionWatch()
    w.update(0.0, 0, {"w1": (100.0, 100.0, True)})
    assert w.open is None
    w.update(0.1, 3, {"w1": (100.0 + MOVE_MM / 2, 100.0, True)})  # jitter: not play
    assert w.open is None
    w.update(0.2, 6, {"w1": (120.0, 100.0, True)})
    assert w.open == {"t": 0.2, "frame": 6}
    w.update(0.2 + REST_S / 2, 20, {"w1": (120.0, 100.0, True)})
    assert w.open is not None  # resting, not yet long enough
    w.update(0.3 + REST_S, 40, {"w1": (120.0, 100.0, True)})
    assert w.open is None


@pytest.mark.parametrize("read_numbers", [False, True])
def test_a_worker_reads_numbers_when_told(tmp_path: Path, monkeypatch, read_numbers) -> None:
    """``tablemon worker --read-numbers`` (a classic pyramid table): its vision is made to
    read white balls' numbers; without the flag it is made as for every other game."""
    from service.cluster.worker import TableWorker
    from service.settings import Settings

    made: list[dict] = []

    def factory(spec, calib, **kw):
        made.append(kw)
        return lambda frame, t: []

    monkeypatch.setattr("vision.live.make_processor", factory)
    settings = Settings(broker="nats://127.0.0.1:4222", data=tmp_path)
    w = TableWorker(1, str(tmp_path / "none.mp4"), settings, spec="pyramid-12ft",
                    calibration={}, read_numbers=read_numbers)  # fmt: skip
    process, _, why = w._processor(0.0)
    assert why is None and len(made) == 1
    assert made[0].get("read_numbers", False) is read_numbers and "tap" in made[0]
