"""judge_match (recompute from the shot list), corrections, match.start, and the CLI on the
whole-frame scenarios in fixtures/matches (expected results tallied by hand)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pyramid_helpers import S

from adjudicator.base import MatchSettings
from adjudicator.engine import judge_match
from contract.match import Foul, Match, MatchStart, RefereeInput, Verdict, read_match

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "matches"
EXPECTED = json.loads((FIX / "pyramid_expected.json").read_text())


def _match(game: str, shots, **kw) -> Match:
    shots = [s.model_copy(update={"index": i}) for i, s in enumerate(shots, 1)]
    return Match(game=game, table="pyramid-12ft", shots=tuple(shots), **kw)


BREAK = ("yellow>1", "4|back", "6|left", "8|right")
RUN = [
    S(*BREAK, player="A"),  # legal break: B
    S("yellow>3", "3@back-left", player="B"),  # B 1
    S("yellow>5", "5@back-left", player="B"),  # B 2
    S("yellow>7", "7@back-left", player="B"),  # B 3
    S("yellow>9", "9|left", "9|back", player="B"),  # nothing: A
    S("yellow>10", "10@back-left", player="A"),  # A 1
]


def test_correction_changes_everything_after():
    """A referee foul added to shot 3 re-judges shots 4-6 (contract: recomputed in order)."""
    judged, states = judge_match(_match("pyramid-free", RUN))
    assert judged.score == {"A": 1, "B": 3}
    assert all(s.verdict.legal for s in judged.shots)
    fixed = list(RUN)
    fixed[2] = RUN[2].model_copy(update={"referee": RefereeInput(fouls=(Foul.DOUBLE_HIT,))})
    judged2, states2 = judge_match(_match("pyramid-free", fixed))
    v3, v4 = judged2.shots[2].verdict, judged2.shots[3].verdict
    assert v3.fouls == (Foul.DOUBLE_HIT,) and v3.next == "A" and v3.scored == {"A": 1, "B": 0}
    assert states2[2].options == ("play", "hand_back")
    # B strikes next: the opponent handed the turn back (7.4), no out-of-turn foul
    assert v4.legal and v4.scored == {"A": 0, "B": 1}
    assert judged2.score == {"A": 2, "B": 2}
    x, y = states2[2].on_table["5"]  # 21.3: the foul's ball re-spotted on the spotting line
    assert y == pytest.approx(1775 / 2) and x >= 3 * 3550 / 4


def test_annul_and_replace_verdict_recomputes():
    shots = list(RUN)
    shots[4] = RUN[4].model_copy(
        update={
            "referee": RefereeInput(verdict=Verdict(legal=True, scored={"A": 0, "B": 2}, next="B"))
        }
    )
    judged, _ = judge_match(_match("pyramid-free", shots))
    assert judged.shots[4].verdict.scored == {"A": 0, "B": 2}
    assert judged.shots[5].verdict.fouls == (Foul.OTHER,)  # A is now out of turn
    assert judged.score == {"A": 0, "B": 3 + 2 + 1}


def test_match_start_score_target_breaker():
    start = MatchStart(score={"A": 5, "B": 2}, target=6, breaker="B")
    shots = [S(*BREAK, player="B"), S("yellow>3", "3@back-left", player="A")]
    judged, states = judge_match(_match("pyramid-free", shots, start=start))
    assert judged.score == {"A": 6, "B": 2} and states[-1].frame_over and states[-1].winner == "A"


@pytest.mark.parametrize(
    "next_rest, taken",
    [
        pytest.param(
            {"1": (2700.0, 900.0), "3": (2000.0, 900.0), "yellow": (500.0, 900.0)},
            "2",
            id="combined: taken ball read from the next shot's rest",
        ),
        pytest.param(None, "1", id="combined: no next rest: lowest number by default"),
    ],
)
def test_take_ball_inferred_from_next_rest(next_rest, taken):
    rest1 = {"1": (2700.0, 900.0), "2": (3000.0, 500.0), "3": (2000.0, 900.0), "4": (2500.0, 300.0)}
    shots = [
        S(*BREAK, player="A"),
        S("yellow>3", "yellow@back-left", rest=rest1, player="B"),
        S("yellow>4", "4@back-left", rest=next_rest, player="B"),
    ]
    judged, states = judge_match(_match("pyramid-combined", shots))
    v = judged.shots[1].verdict
    assert v.legal and v.model_extra["taken"] == taken and v.next == "B"
    assert taken in states[1].shelf["B"] and taken not in states[1].on_table
    assert states[1].ball_in_hand == "house" and states[1].premium_pending


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=lambda n: f"scenario {n}")
def test_cli_scenarios(name, tmp_path):
    exp = EXPECTED[name]
    out = tmp_path / "MATCH.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "adjudicate",
            str(FIX / name),
            "--game",
            exp["game"],
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    judged = read_match(out)
    assert judged.score == exp["score"]
    fouls = [s.index for s in judged.shots if not s.verdict.legal]
    assert fouls == exp["fouls"]
    assert judged.shots[-1].verdict.model_extra["winner"] == exp["winner"]
    assert all(s.verdict.reasons for s in judged.shots)


def test_cli_penalty_ball_form(tmp_path):
    out = tmp_path / "m.json"
    from argparse import Namespace

    from adjudicator.cli import run_cli

    args = Namespace(
        shots=str(FIX / "pyramid-free-to-8.json"), game="pyramid-free", out=str(out), penalty="ball"
    )
    assert run_cli(args) == 0
    judged = read_match(out)
    # ball form (rules.md): each offender returns his last shelf ball (shots 5, 7, 9: balls
    # 10, yellow, 2) instead of giving a point; tallied by hand: A 5 (5, 3, 12, 8, 14), B 0
    assert judged.score == {"A": 5, "B": 0}
    back = [[r.id for r in s.verdict.respot] for s in judged.shots if not s.verdict.legal]
    assert back == [["10"], ["2", "4", "yellow"], ["8", "2"]]
    assert [s.verdict.scored[s.player] for s in judged.shots if not s.verdict.legal] == [-1, -1, -1]


@pytest.mark.parametrize(
    "content, needle",
    [
        pytest.param("{not json", "not valid JSON", id="malformed JSON"),
        pytest.param(
            '{"format": "tablemon-match/1", "game": "pyramid-free"}', "table", id="missing field"
        ),
        pytest.param('{"format": "other/1"}', "format", id="wrong format"),
    ],
)
def test_cli_bad_file_one_line(tmp_path, content, needle):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "adjudicate",
            str(bad),
            "--game",
            "pyramid-free",
            "--out",
            str(tmp_path / "o.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "o.json").exists()


def test_cli_game_mismatch_note(tmp_path):
    out = tmp_path / "m.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "adjudicate",
            str(FIX / "pyramid-combined-to-8.json"),
            "--game",
            "pyramid-free",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0
    assert "--game wins" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert read_match(out).game == "pyramid-free"


@pytest.mark.parametrize(
    "game", ["pyramid-free", "pyramid-combined", "pyramid-dynamic", "pyramid-classic"]
)
def test_long_match_invariants(game):
    """A 200-shot synthetic match (the benchmark's): every verdict cites a clause and says
    why; a foul costs exactly one point whatever the number of fouls (27.2); the running
    score is the sum of the verdicts within each frame; frames alternate the break (003 13)."""
    from bench.bench_adjudicator import pyramid_match

    judged, states = judge_match(pyramid_match(game), MatchSettings(game=game, race_to=99))
    score = {"A": 0, "B": 0}
    frame, breakers = 1, [states[0].breaker]
    for shot, st in zip(judged.shots, states, strict=True):
        v = shot.verdict
        assert v.rule_refs and v.reasons and v.next in ("A", "B")
        assert v.legal == (v.fouls == ())
        if st.frame_no != frame:
            frame, score = st.frame_no, {"A": 0, "B": 0}
            breakers.append(st.breaker)
        if not v.legal:
            assert sorted(v.scored.values()) == [0, 1]
        score = {p: score[p] + v.scored[p] for p in score}
        assert dict(st.score) == score
    assert len(breakers) > 3 and all(a != b for a, b in zip(breakers, breakers[1:], strict=False))
