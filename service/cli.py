"""The ``tablemon`` command line (contract §5 plus synth, score, schema, bench).

Each sub-command's work lives in its stage; this module parses arguments and
turns bad input into one clear line on standard error and a non-zero exit.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from contract.errors import ContractError

GAMES = ["pyramid-free", "pyramid-combined", "pyramid-dynamic", "pyramid-classic", "carom-5pin"]

# sub-command -> "module:function" taking the parsed namespace and returning an exit status
HANDLERS: dict[str, str] = {
    "replay": "vision.replay:run_cli",
    "calibrate": "calibration.cli:run_cli",
    "adjudicate": "adjudicator.cli:run_cli",
    "serve": "service.serve:run_cli",
    "synth": "synth.cli:run_cli",
    "score": "bench.score_cli:run_cli",
    "schema": "service.schema_cli:run_cli",
    "bench": "bench.cli:run_cli",
    "worker": "service.cluster.worker:run_cli",
}


class NotImplementedYet(Exception):
    """Raised by a stage that is not built yet; the CLI exits 2 with one line."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tablemon", description="Automatic billiards marker.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser("replay", help="track a recorded video and write MATCH.json")
    r.add_argument("video")
    r.add_argument("--game", required=True, choices=GAMES)
    r.add_argument("--table", help="table spec name or JSON file")
    r.add_argument("--calibration", help="CALIB.json (default: calibrate from the video)")
    r.add_argument("--out", required=True, help="MATCH.json to write")
    r.add_argument("--tracks", help="TRACKS.csv to write")
    r.add_argument("--annotated", help="annotated MP4 to write")
    r.add_argument("--no-progress", action="store_true")
    r.add_argument(
        "--front",
        choices=["left", "right", "top", "bottom"],
        help="the picture side the table's front cushion is on (where the markings cannot "
        "tell the front end from the back)",
    )
    r.add_argument(
        "--read-numbers",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="read white pyramid balls' numbers into their ids (default: on for "
        "pyramid-classic, whose points are the ball numbers; off otherwise)",
    )

    c = sub.add_parser("calibrate", help="find the table in a video or image, write CALIB.json")
    c.add_argument(
        "source",
        metavar="VIDEO_OR_IMAGE",
        nargs="+",
        help="a video or image; several stills of one fixed camera are calibrated together",
    )
    c.add_argument("--table", help="table spec name or JSON file")
    c.add_argument("--out", required=True)
    c.add_argument("--preview", help="PNG with the fitted table model drawn over the frame")
    c.add_argument(
        "--corners",
        help="manual: x1,y1,...,x4,y4 pixels of the playing-surface corners in the order "
        "front-left, front-right, back-right, back-left",
    )
    c.add_argument(
        "--front",
        choices=["left", "right", "top", "bottom"],
        help="the picture side the table's front cushion is on (where the markings cannot "
        "tell the front end from the back)",
    )
    c.add_argument(
        "--rough",
        action="store_true",
        help="where the table cannot be fitted, write a rough frame from the cloth's outline "
        "(flagged uncertain: balls found in px, every verdict asked; not on pyramid tables)",
    )

    a = sub.add_parser("adjudicate", help="judge every shot of a MATCH.json")
    a.add_argument("shots", metavar="SHOTS.json")
    a.add_argument("--game", required=True, choices=GAMES)
    a.add_argument("--out", required=True)
    a.add_argument("--penalty", choices=["point", "ball"], default=None)

    s = sub.add_parser("serve", help="run the REST service")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--demo", metavar="VIDEO", help="register a table replaying VIDEO as live")

    y = sub.add_parser("synth", help="simulate and render synthetic clips with exact truth")
    y.add_argument("scenario", help="scenario name, 'fixtures' or 'list'")
    y.add_argument("--out", default="fixtures/videos", help="output folder")
    y.add_argument("--seed", type=int, default=0)
    y.add_argument("--size", choices=["2160", "1080", "720"], default=None)
    y.add_argument("--name", help="clip name (default: scenario-seed)")
    y.add_argument("--count", type=int, default=1, help="clips to generate (benchmark sets)")

    k = sub.add_parser("score", help="compare an output with ground truth")
    k.add_argument("pred", metavar="PRED.json")
    k.add_argument("truth", metavar="TRUTH.json")
    k.add_argument("--tracks", nargs=2, metavar=("P.csv", "T.csv"))
    k.add_argument("--calibration", nargs=2, metavar=("P.json", "T.json"))
    k.add_argument("--json", dest="json_out", help="write the scores as JSON here")

    m = sub.add_parser("schema", help="write the JSON Schemas of MATCH.json and CALIB.json")
    m.add_argument("--out", default="schemas")

    w = sub.add_parser("worker", help="watch one table and publish to NATS (broker mode)")
    w.add_argument("--table", type=int, required=True, help="the table's id in the service")
    w.add_argument("--camera", required=True, help="camera index, rtsp:// or http:// URL, or file")
    w.add_argument("--broker", help="nats://HOST:4222 (default TABLEMON_BROKER)")
    w.add_argument("--spec", help="table spec (default: a file's NAME.truth.json table)")
    w.add_argument("--calibration", help="CALIB.json (default: a file's NAME.calib.json)")
    w.add_argument("--outbox", help="outbox folder (default TABLEMON_DATA/worker-ID)")
    w.add_argument("--positions-hz", type=float, default=5.0, help="live positions rate")
    w.add_argument(
        "--simulate", action="store_true", help="publish a file's ground-truth shots, no decoding"
    )
    w.add_argument(
        "--truth", action="store_true", help="decode the file, publish its ground-truth shots"
    )
    w.add_argument("--start-at", type=float, help="a file's first frame at this Unix time")
    w.add_argument("--loops", type=int, default=1, help="play a file this many times")
    w.add_argument(
        "--read-numbers",
        action="store_true",
        help="read white balls' numbers (a table for classic pyramid, whose points they are)",
    )

    b = sub.add_parser("bench", help="run a benchmark, print a table, write JSON")
    b.add_argument("name")
    b.add_argument("--out", default="bench/out")
    b.add_argument("--quick", action="store_true")
    return p


def _handler(command: str) -> Callable[[argparse.Namespace], int]:
    mod_name, func = HANDLERS[command].split(":")
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name and (e.name == mod_name or mod_name.startswith(e.name + ".")):
            raise NotImplementedYet(f"'tablemon {command}' is not implemented yet") from None
        raise
    return getattr(mod, func)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(_handler(args.command)(args) or 0)
    except NotImplementedYet as e:
        print(f"tablemon: {e}", file=sys.stderr)
        return 2
    except ContractError as e:
        print(f"tablemon: error: {e}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print(f"tablemon: error: {e}".splitlines()[0], file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("tablemon: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
