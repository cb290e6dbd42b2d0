"""What the workers of ``tablemon bench cluster`` kept (their logs) and what PostgreSQL stored."""

from __future__ import annotations

import json
import re
from pathlib import Path

KEPT = re.compile(r"^kept (\S+) shots at ([0-9.]+)$")


def kept_shots(tmp: Path) -> dict[str, float]:
    """Every shot the workers kept (outbox log): key -> when (Unix s)."""
    out: dict[str, float] = {}
    for log in tmp.glob("worker-*.log"):
        for line in log.read_text().splitlines():
            m = KEPT.match(line)
            if m:
                out.setdefault(m[1], float(m[2]))
    return out


def stored_shots(url: str) -> tuple[int, dict[str, int], dict[str, float], set[str], list[str]]:
    """Shot rows of the tables' matches; the message ids stored with a shot (how many times
    each) and when; the ids kept as a table event instead (refused by the adjudicator, or no
    match to go to), and the first reasons."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        n = c.execute(  # the tables' matches (not the one the referee's writes go to)
            "SELECT count(*) FROM shots s JOIN matches m ON m.id = s.match_id "
            "WHERE m.table_id IS NOT NULL"
        ).fetchone()[0]
        rows = c.execute(
            "SELECT msg_id, count(*), min(at) FROM ingested WHERE shot_idx IS NOT NULL "
            "GROUP BY msg_id"
        ).fetchall()
        other = c.execute("SELECT msg_id FROM ingested WHERE shot_idx IS NULL").fetchall()
        why = c.execute(
            "SELECT data FROM events WHERE kind='table' AND "
            "(data LIKE '%refused_shot%' OR data LIKE '%unplaced_shot%') ORDER BY id LIMIT 3"
        ).fetchall()
    reasons = [str(json.loads(d).get("reason", "no match on the table"))[:160] for (d,) in why]
    return (
        int(n),
        {k: int(v) for k, v, _ in rows},
        {k: float(a) for k, _, a in rows},
        {k for (k,) in other},
        reasons,
    )
