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
    tables = {t: (given or {}).get(t) or secrets.token_urlsafe(18) for t in table_ids}
    api = api_password or secrets.token_urlsafe(18)
    path.write_text(config_text(tables, api, store_dir, port, host), encoding="utf-8")
    lines = [f"API_USER=api\nAPI_TOKEN={api}"] + [
        f"TABLE_{t}_TOKEN={pw}" for t, pw in tables.items()
    ]
    (path.parent / "secrets.env").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"api": api, **{f"table-{t}": pw for t, pw in tables.items()}}
