"""``tablemon adjudicate SHOTS.json --game GAME --out MATCH.json [--penalty point|ball]``.

Reads a MATCH.json (verdicts absent or to be replaced), judges every shot and writes it
back judged. Bad input: one line on standard error, exit 2. When the file names another
game than ``--game``, the flag wins and a one-line note says so on standard error (the
operator asked for that game explicitly; the written file carries the flag's game).
"""

from __future__ import annotations

import argparse
import sys

from adjudicator.base import MatchSettings
from adjudicator.engine import judge_match
from contract.errors import ContractError
from contract.match import read_match, write_match


def run_cli(args: argparse.Namespace) -> int:
    """Judge ``args.shots`` as ``args.game``, write ``args.out``; print a one-line summary."""
    try:
        match = read_match(args.shots)
        if str(match.game) != args.game:
            print(
                f"tablemon: note: {args.shots} says game {match.game}; judging as "
                f"{args.game} (--game wins)",
                file=sys.stderr,
            )
        settings = MatchSettings(
            game=args.game, table=match.table, penalty=getattr(args, "penalty", None) or "point"
        )
        judged, states = judge_match(match, settings)
        write_match(args.out, judged)
    except (ContractError, ValueError, KeyError) as e:
        print(f"tablemon: error: {e}".splitlines()[0], file=sys.stderr)
        return 2
    final = states[-1] if states else None
    frames = dict(final.frames) if final else {"A": 0, "B": 0}
    who = f", winner {final.winner}" if final is not None and final.winner else ""
    print(
        f"{args.game}: {len(judged.shots)} shots, score A {judged.score.get('A', 0)} : "
        f"B {judged.score.get('B', 0)}, frames A {frames['A']} : B {frames['B']}{who}"
    )
    return 0
