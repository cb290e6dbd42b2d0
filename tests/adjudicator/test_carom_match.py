"""5-pin over shots and frames: the target with capped overshoot (seed 002 rule 2), the
turn after every shot (2), the break position and alternation (4), and the whole frame
to 60 of ``fixtures/matches/carom-5pin-to-60.json`` judged by the engine and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from carom_helpers import down, hit, play, rules, shot, state, strike

from adjudicator.base import MatchSettings
from adjudicator.engine import judge_match
from contract.match import Foul, RefereeInput, read_match

P = pytest.param
W, Y, R = "white", "yellow", "red"
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "matches" / "carom-5pin-to-60.json"


@pytest.mark.parametrize(
    ("before", "events", "scored", "after", "capped"),
    [
        P({"A": 56, "B": 0}, [hit(W, Y), down("centre", Y)], {"A": 4, "B": 0}, {"A": 60, "B": 0}, True,
          id="carom:2 overshoot capped: 56 + 8 -> 60"),
        P({"A": 52, "B": 0}, [hit(W, Y), down("centre", Y)], {"A": 8, "B": 0}, {"A": 60, "B": 0}, False,
          id="carom:2 exactly the target: 52 + 8 = 60, nothing capped"),
        P({"A": 10, "B": 58}, [hit(W, R)], {"A": 0, "B": 2}, {"A": 10, "B": 60}, True,
          id="carom:2 a foul's points capped too: 58 + 4 -> 60 for the opponent"),
        P({"A": 50, "B": 0}, [hit(W, Y), down("centre", Y)], {"A": 8, "B": 0}, {"A": 58, "B": 0}, False,
          id="carom:2 below the target: the frame goes on"),
    ],
)  # fmt: skip
def test_target_capped(before, events, scored, after, capped):
    r = rules()
    s = state(score=before)
    v = r.judge(s, shot(*events))
    assert v.scored == scored
    assert ("carom:2" in v.rule_refs) is capped
    s2 = r.apply(s, shot(*events), v)
    assert dict(s2.score) == after
    won = max(after.values()) >= 60
    assert s2.frame_over is won and s2.match_over is won
    if won:
        assert s2.frame_winner == s2.winner == max(after, key=after.get)
        assert s2.frames[s2.winner] == 1


def test_turn_passes_after_every_shot():
    """carom:2 strokes alternate: after a score, a no-score and a foul alike."""
    s = state()
    turns = []
    for sh in (shot(hit(W, Y), down("left", Y)), shot(hit(Y, W), cue=Y), shot(hit(W, R))):
        s = play(s, sh)
        turns.append(s.turn)
    assert turns == ["B", "A", "B"]


def test_break_position():
    """carom:4.1 yellow on the top spot, red on the red spot, white in hand in the bottom half."""
    s = rules().initial_state(MatchSettings(game="carom-5pin"))
    assert dict(s.on_table) == {Y: (2740.0, 710.0), R: (2130.0, 710.0)}
    assert s.ball_in_hand == "carom_hand" and s.extra["hand_half"] == "bottom"
    assert s.is_break and s.turn == "A" and s.cue_ball == W


@pytest.mark.parametrize(
    ("at", "foul"),
    [
        P((600.0, 700.0), False, id="carom:4.2 break ball placed in the bottom half"),
        P((1400.0, 700.0), True, id="carom:4.2 break ball over the centre line: foul"),
    ],
)
def test_break_placement(at, foul):
    s = rules().initial_state(MatchSettings(game="carom-5pin"))
    v = rules().judge(s, shot(strike(W, at), hit(W, Y)))
    assert (Foul.OTHER in v.fouls) is foul


def test_frames_alternate_break_and_match_ends():
    """carom:4.5 the break alternates by frame; the match ends at race_to frames."""
    r = rules()
    s = r.initial_state(MatchSettings(game="carom-5pin", target=8, race_to=2))
    s = play(s, shot(strike(W, (600.0, 700.0)), hit(W, Y), down("centre", Y)))
    assert s.frame_over and s.frame_winner == "A" and not s.match_over
    assert dict(s.frames) == {"A": 1, "B": 0} and dict(s.score) == {"A": 8, "B": 0}
    s = play(s, shot(strike(Y, (600.0, 700.0)), hit(Y, W), down("centre", W), cue=Y))
    assert s.frame_no == 2 and s.breaker == "B"
    assert dict(s.frames) == {"A": 1, "B": 1} and not s.match_over
    s = play(s, shot(strike(W, (600.0, 700.0)), hit(W, Y), down("centre", Y)))
    assert s.frame_no == 3 and s.breaker == "A" and s.match_over and s.winner == "A"
    with pytest.raises(ValueError, match="match is already over"):
        r.judge(s, shot(hit(Y, W), cue=Y))


def test_wrong_table_one_line():
    with pytest.raises(ValueError, match="not a 5-pin carom table"):
        rules().initial_state(MatchSettings(game="carom-5pin", table="pyramid-10ft"))


# The fixture's shots as judged by hand from the rule text (its comments in the order):
# (scorer, points, fouls)
EXPECTED = [
    (None, 0, ()),  # 1 lag: white nearer the bottom cushion, A breaks (3)
    ("A", 6, ()),  # 2 yellow knocks back + centre: 2 + 4 (5.1, 8.1)
    ("B", 3, ()),  # 3 kiss carom (5.6)
    ("B", 4, ("red_first",)),  # 4 red first 2 + 2 (15.3b)
    ("B", 6, ()),  # 5 from hand: white knocks left, left knocks centre 2 + 4 (12.3)
    ("A", 6, ()),  # 6 carom on the red 4, red knocks front 2 (5.2)
    ("A", 2, ("own_ball_skittles",)),  # 7 own ball knocks right (15.2)
    ("A", 11, ()),  # 8 kiss 3 + red knocks centre alone 8 (5.3)
    ("A", 2, ("ball_off_table",)),  # 9 white off the table (15.3d)
    ("A", 8, ()),  # 10 four side skittles (8.1)
    ("A", 2, ("no_contact",)),  # 11 touches nothing (15.3g)
    ("A", 4, ()),  # 12 both caroms, one counted (5.7)
    ("B", 10, ()),  # 13 carom 4 + white knocks centre and left 4 + 2
    (None, 0, ()),  # 14 valid, no points (6)
    ("A", 6, ("red_first", "ball_off_table")),  # 15 red first + red off: 4 + 2 (15.1)
    ("A", 8, ()),  # 16 centre alone
    ("A", 2, ("double_hit",)),  # 17 the referee's double hit (15.3z)
    ("A", 3, ()),  # 18 kiss 3 + centre and front 6 = 9, capped at 60 (2)
]


def test_fixture_frame_to_60_through_the_engine():
    match = read_match(FIXTURE)
    judged, states = judge_match(match)
    assert len(judged.shots) == len(EXPECTED)
    for sh, (who, pts, fouls) in zip(judged.shots, EXPECTED, strict=True):
        v = sh.verdict
        want = {"A": 0, "B": 0} | ({who: pts} if who else {})
        assert v.scored == want, f"shot {sh.index}"
        assert tuple(v.fouls) == fouls, f"shot {sh.index}"
    assert judged.score == {"A": 60, "B": 23}
    last = states[-1]
    assert last.frame_over and last.winner == "A" and dict(last.frames) == {"A": 1, "B": 0}
    assert judged.shots[-1].verdict.uncapped == 9


def test_fixture_correction_changes_what_follows():
    """A referee annulling shot 4's foul: B loses those 4 points and the ball in hand."""
    match = read_match(FIXTURE)
    shots = list(match.shots)
    shots[3] = shots[3].model_copy(update={"referee": RefereeInput(annul=True)})
    judged, states = judge_match(match.model_copy(update={"shots": tuple(shots)}))
    assert judged.shots[3].verdict.legal
    assert states[3].ball_in_hand is None
    assert judged.score == {"A": 60, "B": 19}


def test_fixture_through_the_cli(tmp_path):
    out = tmp_path / "judged.json"
    r = subprocess.run(
        [sys.executable, "-m", "service.cli", "adjudicate", str(FIXTURE), "--game", "carom-5pin",
         "--out", str(out)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "A 60 : B 23" in r.stdout
    data = json.loads(out.read_text())
    assert data["score"] == {"A": 60, "B": 23}
    assert data["shots"][3]["verdict"]["reasons"][0]["ru"].startswith(
        "Фол: первым задет красный шар"
    )


def test_cli_bad_event_one_line(tmp_path):
    data = json.loads(FIXTURE.read_text())
    data["shots"][1]["events"][1]["balls"] = ["white", "w9"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    r = subprocess.run(
        [sys.executable, "-m", "service.cli", "adjudicate", str(bad), "--game", "carom-5pin",
         "--out", str(tmp_path / "o.json")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1 and "unknown id 'w9'" in r.stderr


def test_state_is_not_changed_in_place():
    s = state()
    before = (dict(s.score), dict(s.on_table), s.turn)
    play(s, shot(hit(W, Y), down("centre", Y)))
    assert (dict(s.score), dict(s.on_table), s.turn) == before
    with pytest.raises(TypeError):
        s.score["A"] = 5  # type: ignore[index]
    assert replace(s).score == s.score


def test_referee_replaces_a_verdict():
    """Referee input: a full replacement verdict is taken as given and applied."""
    from contract.match import Verdict

    r = rules()
    s = state()
    given = Verdict(legal=True, scored={"A": 10, "B": 0}, next="B", rule_refs=("carom:5.1",))
    sh = shot(hit(W, R)).model_copy(update={"referee": RefereeInput(verdict=given)})
    v = r.judge(s, sh)
    assert v is given
    s2 = r.apply(s, sh, v)
    assert dict(s2.score) == {"A": 10, "B": 0} and s2.ball_in_hand is None
