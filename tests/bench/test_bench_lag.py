"""``tablemon bench lag``'s comparison (issue 32): a lag read against the exact truth is right,
asked (right when an option is the truth's), wrong while sure, or missed; an automatic loss
is recognised when the same player lost."""

from __future__ import annotations

import pytest

from bench.bench_lag import compare, judge, summary
from contract.events import Event
from contract.match import FrameTime, Match, Shot


def lag(
    xa: float, xb: float, u: float, extra: tuple[dict, ...] = (), lag_event: bool = True
) -> Match:
    """A 5-pin lag shot (white A from y 410, yellow B from y 1010) at rest ``xa``/``xb`` mm
    from the bottom cushion, one ball's rest uncertainty ``u`` mm."""
    evs = [{"type": "lag", "balls": ("white", "yellow"), "uncertainty_mm": u}] if lag_event else []
    evs += [{"type": "strike", "ball": "white", "at": (710.0, 410.0)},
            {"type": "strike", "ball": "yellow", "at": (710.0, 1010.0)},
            {"type": "cushion", "ball": "white", "cushion": "back"},
            {"type": "cushion", "ball": "yellow", "cushion": "back"}, *extra]  # fmt: skip
    events = tuple(Event(frame=i + 1, t=(i + 1) / 30, **e) for i, e in enumerate(evs))
    s = Shot(index=1, start=FrameTime(frame=1, t=0.0), end=FrameTime(frame=90, t=3.0),
             events=events, rest={"white": (xa, 410.0), "yellow": (xb, 1010.0), "red": (2130.0, 710.0)})  # fmt: skip
    return judge(Match(game="carom-5pin", table="carom-match", shots=(s,)))


LONG = ({"type": "cushion", "ball": "yellow", "cushion": "right"},)


@pytest.mark.parametrize(
    ("truth", "pred", "outcome", "recognised"),
    [
        pytest.param(lag(300, 500, 0.01), lag(301, 499, 1.5), "right", None, id="clean lag read right"),
        pytest.param(lag(300, 301, 0.01), lag(300.4, 300.9, 1.5), "asked_right", None, id="near tie asked"),
        pytest.param(lag(300, 320, 0.01), lag(321, 300, 0.2), "wrong_sure", None, id="a wrong sure call counted"),
        pytest.param(lag(300, 500, 0.01), lag(300, 500, 1.5, lag_event=False), "missed", None, id="no lag read"),
        pytest.param(lag(500, 300, 0.01, LONG), lag(500, 300, 1.5, LONG), "right", True, id="carom:3 long cushion seen"),
        pytest.param(lag(500, 300, 0.01, LONG), lag(500, 300, 1.5), "wrong_sure", False, id="carom:3 long cushion missed"),
    ],
)  # fmt: skip
def test_compare(truth, pred, outcome, recognised):
    row = compare("x", "tracks", truth, pred)
    assert row.outcome == outcome
    s = summary([row])
    assert s["lags"] == 1 and s[outcome] == 1
    if recognised is not None:
        assert s["automatic_losses"] == 1 and s["losses_recognised"] == int(recognised)
