"""The replay's drift check runs rarely while only balls move under a still camera (the
cushion noses look as at the last check), and at once when the camera is knocked."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scene import draw_scene, topdown_calib, write_video

from calibration.register import Follower
from contract.tables import load_table
from vision.replay import track_video

SIZE = (960, 540)
N = 48
STILL = [(900.0, 600.0, "white"), (2500.0, 1100.0, "yellow")]


def _clip(tmp_path, knock_at: int | None, shift_px: float = 4.0):
    """A ball rolling 12 mm a frame beside two still ones; from frame ``knock_at`` on the
    picture is shifted by ``shift_px`` px to the right (a knocked camera)."""
    table = load_table("pyramid-12ft")
    calib = topdown_calib(table, SIZE, margin_px=40)
    frames = []
    for k in range(N):
        img = draw_scene(calib, table, SIZE, [*STILL, (1000.0 + 12.0 * k, 1300.0, "white")], seed=k)
        if knock_at is not None and k >= knock_at:
            M = np.float32([[1, 0, shift_px], [0, 1, 0]])
            img = cv2.warpAffine(img, M, SIZE, borderMode=cv2.BORDER_REPLICATE)
        frames.append(img)
    return write_video(tmp_path / "clip.avi", frames), calib, table


def _checked_frames(monkeypatch, path, calib, table) -> tuple[list[int], object]:
    """The frames at which the replay checked the camera (``Follower.update``)."""
    seen: list[int] = []
    update = Follower.update

    def counting(self, frame, index):
        seen.append(index)
        return update(self, frame, index)

    monkeypatch.setattr(Follower, "update", counting)
    return seen, track_video(str(path), calib, table)


def test_rolling_ball_under_a_still_camera_is_checked_every_fifteenth_frame(
    tmp_path, monkeypatch
) -> None:
    path, calib, table = _clip(tmp_path, None)
    seen, res = _checked_frames(monkeypatch, path, calib, table)
    # the picture changes every frame (the ball rolls), the rails do not
    assert seen == list(range(0, N, 15))
    assert res.events == ()
    assert len(set(res.tracks.id.astype(str))) == len(STILL) + 1


@pytest.mark.parametrize("knock_at, first_check", [(20, 21), (31, 33), (37, 39)])
def test_knocked_camera_is_checked_at_the_next_due_frame(
    tmp_path, monkeypatch, knock_at, first_check
) -> None:
    path, calib, table = _clip(tmp_path, knock_at)
    seen, res = _checked_frames(monkeypatch, path, calib, table)
    after = [k for k in seen if k >= knock_at]
    assert after and after[0] == first_check  # the next frame of the every-3rd cadence
    # the still balls' positions stay on the truth after the knock (registered)
    last = res.tracks.frame == N - 1
    xy = np.c_[res.tracks.x[last], res.tracks.y[last]]
    for x, y, _ in STILL:
        assert float(np.min(np.hypot(xy[:, 0] - x, xy[:, 1] - y))) < 5.0
