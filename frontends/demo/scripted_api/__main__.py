"""The scripted server as a process, for benchmarks and demos driven from outside Python.

    python -m frontends.demo.scripted_api --script FILE.json [--port 0] [--api-key K]

The first stdout line is ``listening on http://127.0.0.1:PORT`` (flushed, so a parent can read
it before anything else happens); it then serves until SIGTERM or SIGINT and exits 0 quietly.
A script is a JSON list of steps in their dict form, or an object with a ``steps`` list.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

import msgspec

from frontends.demo.scripted_api.server import ScriptedServer
from frontends.demo.scripted_api.steps import ScriptError, to_steps

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType

    from frontends.demo.scripted_api.steps import Step

SCRIPT_REMEDY = 'Fix the script: a JSON list of steps such as [{"text": "Hello!"}]'


class _Stop(Exception):
    """Raised in the main thread by SIGTERM/SIGINT to leave the wait and shut down."""


def load_script(path: str) -> list[Step]:
    """The steps in a JSON script file; ScriptError names the file, the step and the field."""
    try:
        with open(path, "rb") as file:
            data: Any = msgspec.json.decode(file.read())
    except OSError as exc:
        raise ScriptError(f"{path}: cannot read the script: {exc.strerror}") from None
    except msgspec.DecodeError as exc:
        raise ScriptError(f"{path}: not valid JSON: {exc}") from None
    if isinstance(data, dict) and "steps" in data:
        data = data["steps"]
    if not isinstance(data, list):
        raise ScriptError(f'{path}: expected a list of steps (or {{"steps": [...]}})')
    try:
        return to_steps(data)
    except ScriptError as exc:
        raise ScriptError(f"{path}: {exc}") from None


def _stop(signum: int, frame: FrameType | None) -> None:
    # Further signals during shutdown are ignored so cleanup is not interrupted twice.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise _Stop


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m frontends.demo.scripted_api",
        description="Serve a scripted Anthropic Messages API on loopback.",
    )
    parser.add_argument("--script", required=True, help="JSON file with the steps to play")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--api-key", default=None, help="answer 401 unless this key is sent")
    args = parser.parse_args(argv)
    try:
        steps = load_script(args.script)
    except ScriptError as exc:
        print(f"error: {exc}\n  → {SCRIPT_REMEDY}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        with ScriptedServer(steps, api_key=args.api_key, host=args.host, port=args.port) as server:
            print(f"listening on {server.url}", flush=True)
            threading.Event().wait()  # a signal handler raises _Stop out of this wait
    except _Stop:
        pass
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
