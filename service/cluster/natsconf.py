"""A nats-server configuration for a hall: JetStream on, one user for the API processes,
one user per table whose worker may publish only on its own table's subjects.

    tablemon worker ... with TABLEMON_BROKER_TOKEN=<that table's secret>
    (user table-ID by default), the API with TABLEMON_BROKER_USER=api.

``write_config`` also writes ``secrets.env`` lines (``TABLE_<ID>_TOKEN=...``) for the
technician; secrets are random unless given.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path


def permissions_for_table(table_id: int) -> dict:
    """A worker publishes its table's subjects and reads only its own replies (the
    JetStream acknowledgements come to its inbox)."""
    return {
        "publish": {"allow": [f"tablemon.table.{int(table_id)}.>"]},
        "subscribe": {"allow": ["_INBOX.>"]},
    }


def config_text(
    tables: dict[int, str],
    api_password: str,
    store_dir: Path,
    port: int = 4222,
    host: str = "0.0.0.0",
    max_file: str = "10G",
) -> str:
    """The server's configuration: ``tables`` maps table id -> its worker's secret."""
    users = [{"user": "api", "password": api_password}]  # the API: everything
    users += [
        {"user": f"table-{t}", "password": pw, "permissions": permissions_for_table(t)}
        for t, pw in sorted(tables.items())
    ]
    js = {"store_dir": str(store_dir), "max_file_store": max_file}
    body = {"host": host, "port": port, "jetstream": js, "authorization": {"users": users}}
    return json.dumps(body, indent=2) + "\n"  # NATS reads JSON as its configuration format


def write_config(
    path: Path,
    table_ids: list[int],
    store_dir: Path,
    port: int = 4222,
    host: str = "0.0.0.0",
    given: dict[int, str] | None = None,
    api_password: str | None = None,
) -> dict[str, str]:
    """Write the server's configuration and ``secrets.env`` beside it; the secrets."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tables = {t: (given or {}).get(t) or secrets.token_urlsafe(18) for t in table_ids}
    api = api_password or secrets.token_urlsafe(18)
    path.write_text(config_text(tables, api, store_dir, port, host), encoding="utf-8")
    lines = [f"API_USER=api\nAPI_TOKEN={api}"] + [
        f"TABLE_{t}_TOKEN={pw}" for t, pw in tables.items()
    ]
    lines += [
        f"REFEREE_TOKEN={secrets.token_urlsafe(18)}",
        f"PG_PASSWORD={secrets.token_urlsafe(18)}",
    ]
    (path.parent / "secrets.env").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"api": api, **{f"table-{t}": pw for t, pw in tables.items()}}


def _ids(text: str) -> list[int]:
    """``1-12`` or ``1,2,5`` or ``1-4,9`` -> table ids."""
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            raise ValueError(f"--tables: {part!r} is not an id or a range like 1-12")
        out += list(range(int(a), int(b or a) + 1))
    return sorted(set(out))


def main(argv: list[str] | None = None) -> int:
    """``python -m service.cluster.natsconf --tables 1-12 --out deploy/hall/nats.json``"""
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m service.cluster.natsconf", description=__doc__)
    p.add_argument("--tables", required=True, help="table ids: 1-12 or 1,2,5")
    p.add_argument("--out", required=True, help="the server's configuration file to write")
    p.add_argument("--store-dir", default="/data/jetstream", help="JetStream's folder")
    p.add_argument("--port", type=int, default=4222)
    p.add_argument("--host", default="0.0.0.0")
    a = p.parse_args(argv)
    try:
        out = Path(a.out)
        write_config(out, _ids(a.tables), Path(a.store_dir), a.port, a.host)
    except (ValueError, OSError) as e:
        print(f"natsconf: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} and {out.parent / 'secrets.env'} (keep it secret)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
