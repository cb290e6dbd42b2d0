"""The lag judged through the engine, both games (pyramid rules 8; 5-pin rules 3): automatic
losses with their clause, the winner only beyond 3 combined sigmas of the distances, and the
referee asked (``about: "lag"``) when too close, "equal" being the referee's answer.

Pyramid on pyramid-12ft (3550 x 1775): A lags on the left half (y = 450), B on the right
(y = 1325). 5-pin on carom-match (2840 x 1420): A white, B yellow. Positions table mm."""

from __future__ import annotations

import math

import pytest

from adjudicator.engine import judge_match
from adjudicator.lag_call import DEFAULT_UNCERTAINTY_MM, SURE_SIGMAS
from contract.events import Event
from contract.match import FrameTime, Match, MatchStart, RefereeInput, Shot

P = pytest.param
COMB = math.sqrt(2) * DEFAULT_UNCERTAINTY_MM
PY = {"A": "yellow", "B": "w1"}
CA = {"A": "white", "B": "yellow"}


def _events(balls: dict[str, str], extra: list[dict], game: str, u: float | None) -> list[Event]:
    ya, yb = (450.0, 1325.0) if game == "pyr" else (410.0, 1010.0)
    x0 = 600.0 if game == "pyr" else 710.0
    a, b = balls["A"], balls["B"]
    lag = {"type": "lag", "balls": (a, b)} | ({"uncertainty_mm": u} if u else {})
    base = [lag, {"type": "strike", "ball": a, "at": (x0, ya)},
            {"type": "strike", "ball": b, "at": (x0, yb)},
            {"type": "cushion", "ball": a, "cushion": "back"},
            {"type": "cushion", "ball": b, "cushion": "back"}]  # fmt: skip
    return [Event(frame=i + 1, t=(i + 1) / 30, **e) for i, e in enumerate(base + extra)]


def lag_match(
    game: str,
    xa: float | None,
    xb: float | None,
    extra: list[dict] = (),  # type: ignore[assignment]
    *,
    u: float | None = None,
    answer: str | None = None,
    choice: str | None = None,
    rest_y: tuple[float, float] | None = None,
) -> Match:
    balls = PY if game == "pyr" else CA
    ya, yb = rest_y or ((450.0, 1325.0) if game == "pyr" else (410.0, 1010.0))
    rest = {}
    if xa is not None:
        rest[balls["A"]] = (xa, ya)
    if xb is not None:
        rest[balls["B"]] = (xb, yb)
    ref = None
    if answer or choice:
        ref = RefereeInput(answers={"lag": answer} if answer else {}, choice=choice)
    shot = Shot(index=1, start=FrameTime(frame=1, t=0.03), end=FrameTime(frame=60, t=2.0),
                events=tuple(_events(balls, list(extra), game, u)), rest=rest, referee=ref)  # fmt: skip
    name, table = (
        ("pyramid-free", "pyramid-12ft") if game == "pyr" else ("carom-5pin", "carom-match")
    )
    return Match(game=name, table=table, shots=(shot,), start=MatchStart(breaker="A"))


def judged(m: Match):
    j, states = judge_match(m)
    return j.shots[0].verdict, states[-1], j.questions


def cush(p: str, name: str, game: str = "pyr") -> dict:
    return {"type": "cushion", "ball": (PY if game == "pyr" else CA)[p], "cushion": name}


@pytest.mark.parametrize(
    ("game", "xa", "xb", "extra", "winner", "loser_says"),
    [
        P("pyr", 300.0, 500.0, [], "A", None, id="pyramid:8.1 A nearer the front cushion by 200 mm"),
        P("pyr", 308.0, 300.0, [], "B", None, id="pyramid:8.1 B nearer by 8 mm (beyond 3 sigma)"),
        P("pyr", 100.0, 500.0, [cush("A", "left-front")], "B", "touched a long cushion",
          id="pyramid:8.1 A touched a long cushion"),
        P("pyr", 100.0, 500.0, [cush("A", "back")], "B", "touched the back cushion twice",
          id="pyramid:8.1 A touched the back cushion twice"),
        P("pyr", 500.0, 100.0, [{"type": "cross", "ball": "w1", "line": "half"}], "A",
          "crossed into the opponent's half", id="pyramid:8.1 B crossed the half line"),
        P("pyr", 500.0, None, [{"type": "pocket", "ball": "w1", "pocket": "front-right"}], "A",
          "pocketed", id="pyramid:8.1 B pocketed"),
        P("pyr", None, 500.0, [{"type": "off_table", "ball": "yellow"}], "B", "left the table",
          id="pyramid:8.1 A off the table"),
        P("pyr", 100.0, 500.0, [cush("A", "left"), cush("B", "right")], None, None,
          id="pyramid:8.2 both lost: repeated"),
        P("pyr", 100.0, 500.0, [{"type": "contact", "balls": ("yellow", "w1")}], None, None,
          id="pyramid:8.2 collision, no culprit: repeated"),
        P("pyr", 100.0, 500.0, [{"type": "contact", "balls": ("w1", "yellow"), "at": (2000.0, 887.6)}],
          None, None, id="pyramid:8.2 collision touching on the half line: neither crossed, repeated"),
        P("car", 300.0, 500.0, [], "A", None, id="carom:3 white nearer the bottom cushion"),
        P("car", 300.0, 200.0, [{"type": "contact", "balls": ("yellow", "red")}], "A",
          "touched the red or a skittle", id="carom:3 yellow touched the red"),
        P("car", 300.0, 200.0, [{"type": "skittle_down", "skittle": "left", "by": "yellow"}],
          "A", "touched the red or a skittle", id="carom:3 yellow knocked a skittle"),
        P("car", 100.0, 500.0, [cush("A", "right", "car")], "B", "touched a long cushion",
          id="carom:3 white touched a long cushion"),
    ],
)  # fmt: skip
def test_sure_calls_and_automatic_losses(game, xa, xb, extra, winner, loser_says):
    v, after, questions = judged(lag_match(game, xa, xb, extra))
    assert v.uncertain is None and questions == ()
    assert v.lag_winner == winner and v.scored == {"A": 0, "B": 0}
    lag = v.lag
    assert lag["winner"] == winner and lag["repeat"] == (winner is None)
    if loser_says:
        loser = "B" if winner == "A" else "A"
        assert lag["losers"] == [loser]
        assert loser_says in v.reasons[0]["en"]
        assert ("8.1" if game == "pyr" else "3") in v.reasons[0]["en"]
    if winner is not None:
        assert (
            after.breaker == winner and after.turn == winner and v.options == ("break", "concede")
        )
    else:
        assert after.breaker == "A"


@pytest.mark.parametrize(
    ("game", "xa", "xb", "u", "asked"),
    [
        P("pyr", 300.0, 303.0, None, True, id="pyramid 3 mm apart, default sigma: asked"),
        P("pyr", 300.0, 300.0, None, True, id="pyramid the same x: asked, not called equal"),
        P("pyr", 300.0, 300.0 + SURE_SIGMAS * COMB + 0.2, None, False, id="pyramid just past 3 sigma: sure"),
        P("pyr", 300.0, 315.0, 6.0, True, id="pyramid 15 mm apart, calibration sigma 6 mm: asked"),
        P("pyr", 300.0, 318.0, 6.0, True, id="pyramid 18 mm apart, sigma 6 mm: asked"),
        P("pyr", 300.0, 27.0 + 300.0, 6.0, False, id="pyramid 27 mm apart, sigma 6 mm: sure"),
        P("car", 450.0, 450.2, None, True, id="carom 0.2 mm apart: asked"),
        P("car", 450.0, 440.0, None, False, id="carom 10 mm apart: sure"),
    ],
)  # fmt: skip
def test_too_close_is_asked(game, xa, xb, u, asked):
    v, after, questions = judged(lag_match(game, xa, xb, u=u))
    sigma = u or DEFAULT_UNCERTAINTY_MM
    assert v.lag["balls"]["A"]["uncertainty_mm"] == pytest.approx(sigma, abs=0.05)
    assert v.lag["uncertainty_mm"] == pytest.approx(math.sqrt(2) * sigma, abs=0.05)
    assert v.lag["difference_mm"] == pytest.approx(abs(xb - xa), abs=0.05)
    if not asked:
        assert v.uncertain is None and questions == ()
        return
    nearer = "A" if xa <= xb else "B"
    (q,) = questions
    assert q.about == "lag" and q.answer is None and q.frames == (60,)
    assert [o.key for o in q.options] == [nearer, "B" if nearer == "A" else "A", "replay"]
    assert [o.verdict.lag_winner for o in q.options] == [nearer, q.options[1].key, None]
    assert v.uncertain and v.lag_winner == nearer
    assert [r.lag_winner for r in v.readings] == [q.options[1].key, None]


@pytest.mark.parametrize(
    ("game", "answer", "choice", "winner", "breaker"),
    [
        P("pyr", "B", None, "B", "B", id="pyramid:8.1 the referee says B's ball is nearer"),
        P("pyr", "replay", None, None, "A", id="pyramid:8.2 the referee says equal: repeated"),
        P("pyr", "A", "concede", "A", "B", id="pyramid:8.3 A wins and gives the break away"),
        P("car", "replay", None, None, "A", id="carom:3 same distance (the referee's call): repeated"),
        P("car", "B", None, "B", "B", id="carom:3 the referee says yellow is nearer"),
    ],
)  # fmt: skip
def test_the_referees_answer(game, answer, choice, winner, breaker):
    v, after, questions = judged(lag_match(game, 300.0, 301.0, answer=answer, choice=choice))
    (q,) = questions
    assert q.about == "lag" and q.answer == answer
    assert v.uncertain is None and v.lag_winner == winner
    assert after.breaker == breaker


def test_carom_late_start_is_repeated_not_measured():
    """carom:3 both balls must be moving before either reaches the top cushion."""
    m = lag_match("car", 300.0, 500.0)
    evs = list(m.shots[0].events)
    late = [evs[0], evs[1], evs[3], evs[2].model_copy(update={"frame": 4}), evs[4]]
    late = [e.model_copy(update={"frame": i + 1}) for i, e in enumerate(late)]
    shot = m.shots[0].model_copy(update={"events": tuple(late)})
    v, after, questions = judged(m.model_copy(update={"shots": (shot,)}))
    assert v.lag_winner is None and questions == ()
    assert "not moving together" in v.reasons[-1]["en"]


def test_pyramid_lag_only_before_the_break():
    """pyramid:8 a lag shot after the break is not a lag: the match cannot be judged."""
    m = lag_match("pyr", 300.0, 500.0)
    first = m.shots[0]
    plain = Shot(index=1, start=FrameTime(frame=1, t=0.0), end=FrameTime(frame=2, t=0.1),
                 events=(Event(frame=1, t=0.0, type="strike", ball="yellow"),))  # fmt: skip
    with pytest.raises(ValueError, match="before a frame's break"):
        judge_match(m.model_copy(update={"shots": (plain, first.model_copy(update={"index": 2}))}))
