"""``tablemon serve``: run the REST service; ``--demo VIDEO`` registers a table replaying the
video as if live, opens a match on it and prints the scoreboard URL."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from service.settings import Settings, get_settings


def server_command(port: int, *extra: str) -> list[str]:
    """The command that runs the service in its own process on 127.0.0.1:``port`` (for the
    kill -9 tests and the load benchmark); settings come from the environment."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "service.app:create_app",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        *extra,
    ]


def demo_setup(app_state: object, settings: Settings, video: Path, base_url: str) -> str:
    """Register the demo table and match; start its live worker. Returns the scoreboard URL."""
    from service.deps import open_runtime

    rt = open_runtime(app_state, settings)
    spec = "carom-match" if "carom" in video.name else "pyramid-12ft"
    game = "carom-5pin" if spec == "carom-match" else "pyramid-free"
    stem = video.name.rsplit(".", 1)[0]
    truth = video.with_name(stem + ".truth.json")  # a fixture (contract §9): its game and table
    if truth.is_file():
        data = json.loads(truth.read_text(encoding="utf-8"))
        game, spec = data.get("game", game), data.get("table", spec)
    calib_file = video.with_name(stem + ".calib.json")
    calib = json.loads(calib_file.read_text(encoding="utf-8")) if calib_file.is_file() else None
    t = rt.db.add_table(f"demo: {video.name}", str(video), spec, calib)
    m = rt.service.create_match(
        {
            "game": game,
            "players": {"A": "A", "B": "B"},
            "table_id": t.id,
            "table": spec,
            "race_to": 1,
            "penalty": "point",
            "target": None,
            "breaker": "A",
            "start_score": None,
        },
        "demo",
    )
    rt.extras["live"].start(rt.db.table(t.id), m.id)
    return f"{base_url}/scoreboard/{m.id}"


def run_cli(args: argparse.Namespace) -> int:
    import uvicorn

    from service.app import create_app

    settings = get_settings()
    settings.db_target  # noqa: B018  (an unsupported TABLEMON_DB fails here, in one line)
    demo = getattr(args, "demo", None)
    if demo:
        video = Path(demo).resolve()
        if not video.is_file():
            raise ValueError(f"{demo}: no such video")
        if settings.video_dir is None or not video.is_relative_to(settings.video_dir.resolve()):
            settings = settings.model_copy(update={"video_dir": video.parent})
        get_settings.cache_clear()
    app = create_app(settings)
    app.dependency_overrides[get_settings] = lambda: settings
    base = f"http://{args.host}:{args.port}"
    from service.deps import open_runtime

    open_runtime(app.state, settings)  # a database that cannot open fails here, in one line
    if demo:
        url = demo_setup(app.state, settings, video, base)
        print(f"scoreboard: {url}  (ru: {url}?lang=ru)", flush=True)
    if not settings.token:
        print("tablemon: TABLEMON_TOKEN is not set: the service is read-only", file=sys.stderr)
    print(f"API docs: {base}/docs", flush=True)
    # open SSE streams never end by themselves: give them 3 s on shutdown, then close
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=3,
    )
    return 0
