"""``run_demo``: a real session against the scripted Messages API, offline, no API key.

Everything but the model is real: the actors, the permission rules, the tools, the files (in a
throwaway project folder that is removed afterwards). The model's side is Legato's own scripted
API on loopback (``scripted_api``). At a terminal it is the interactive session a person gets,
playing ``tour.py``; with ``--headless``, or without a terminal (CI, a pipe), it is one headless
prompt playing ``script.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Mapping

    from actors.protocol import Overrides

DEMO_SETTINGS = {
    "permissionMode": "custom",
    "allowedPaths": ["**"],
    "allowedCommands": ["ls", "cat", "grep"],
    "blockedCommands": ["rm"],
}
"""The headless demo's project settings: it cannot ask, so its rules allow what it does."""

_RULE = "─" * 78


def run_demo(args: argparse.Namespace) -> int:
    at_terminal = sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()
    headless = args.headless is not None or args.print_mode
    if not headless and at_terminal:
        return _terminal_demo(args)
    if not headless:
        print(
            "legato --demo: no terminal here (stdin or stdout is not one), so this is the "
            "headless demo (legato --demo --headless); run legato --demo in a terminal for the "
            "interactive one.",
            file=sys.stderr,
        )
    return _headless_demo(args)


def _headless_demo(args: argparse.Namespace) -> int:
    from frontends.demo.script import DEMO_PROMPT, demo_steps
    from frontends.demo.scripted_api import ScriptedServer
    from frontends.headless import run_headless
    from frontends.session_options import SessionOptions

    with _scratch(DEMO_SETTINGS) as (root, home):
        print(
            "── Legato demo: offline, against Legato's scripted model server (no API key, "
            "no network). ──\n"
            f"   project: {root} (a throwaway copy; removed afterwards)\n"
            f"   prompt:  {DEMO_PROMPT}\n",
            file=sys.stderr,
            flush=True,
        )
        with ScriptedServer(demo_steps(root)) as server:
            options = SessionOptions(
                project_root=root,
                headless=True,
                model=args.model,
                output_format=args.output_format,
                max_turns=args.max_turns,
                env=_env(server.url),
                home=home,
            )
            code = run_headless(options, prompt=DEMO_PROMPT)
        print(
            "\n── End of demo. With a key, run for real: "
            'ASSISTANT_API_KEY=... legato --headless "<prompt>" ──',
            file=sys.stderr,
        )
        return code


def _terminal_demo(args: argparse.Namespace) -> int:
    from frontends.demo.script import DEMO_PROMPT
    from frontends.demo.scripted_api import ScriptedServer
    from frontends.demo.tour import tour
    from frontends.interactive import run_interactive
    from frontends.session_options import SessionOptions

    with _scratch(None) as (root, home):
        print(
            f"{_RULE}\n"
            "Legato demo: the real terminal session, offline, against Legato's scripted model\n"
            "(no API key, no network; every reply is scripted).\n"
            f"Project: {root}\n"
            "         (a scratch copy, removed when you leave)\n"
            "1. Press Enter to send the prompt waiting below; answer the question to edit\n"
            "   greet.py (y = yes), after reading its diff.\n"
            "2. Type anything and press Enter: a slow command runs. Press Esc to stop it.\n"
            "3. Type /undo to take back the edit, or /rewind to go back to a prompt.\n"
            "   /quit or Ctrl-D leaves.\n"
            f"{_RULE}",
            flush=True,
        )
        with ScriptedServer(tour(root)) as server:
            options = SessionOptions(
                project_root=root,
                model=args.model,
                permission_mode="ask",
                env=_env(server.url),
                home=home,
                overrides=_terminal_rules(root, args.model),
                draft=DEMO_PROMPT,
            )
            code = run_interactive(options)
    print(f"Demo over; {root} is removed.")
    return code


def _terminal_rules(root: str, model: str | None) -> Overrides:
    """What the terminal demo allows without asking, given as ``--allowedTools`` would be (the
    person started the demo; no project file is trusted for it): reading, and the slow command.
    Editing is left to ask, so the person sees a question and a diff."""
    from actors.protocol import Overrides, PermissionRule
    from frontends.demo.tour import SLOW_COMMAND

    allowed = ("Read", "Glob", "Grep", "Bash(ls)", f"Bash({SLOW_COMMAND})")
    return Overrides(
        model=model,
        # As a flag would: ASSISTANT_PERMISSION_MODE=auto in the person's environment must not
        # take the demo's question away.
        permission_mode="ask",
        permission_rules=tuple(
            PermissionRule(behavior="allow", text=rule, source="legato --demo", anchor=root)
            for rule in allowed
        ),
    )


def _env(url: str) -> dict[str, str]:
    # The scripted server is on loopback: no proxy must stand in between.
    env = {
        key: value
        for key, value in os.environ.items()
        if key.lower() not in {"http_proxy", "https_proxy", "all_proxy"}
    }
    env["ASSISTANT_BASE_URL"] = url
    env["ASSISTANT_API_KEY"] = "demo-key"
    return env


@contextlib.contextmanager
def _scratch(settings: Mapping[str, object] | None) -> Iterator[tuple[str, str]]:
    """A throwaway project (the demo's files, and ``settings`` as its .legato/settings.json) and
    home, removed on the way out whatever happens."""
    from frontends.demo.script import demo_files
    from frontends.demo.tour import SLOW_CHECK_PY, SLOW_SCRIPT

    with tempfile.TemporaryDirectory(prefix="legato-demo-", ignore_cleanup_errors=True) as scratch:
        root = os.path.realpath(os.path.join(scratch, "project"))
        home = os.path.join(scratch, "home")
        files = demo_files()
        if settings is None:
            files[SLOW_SCRIPT] = SLOW_CHECK_PY
        else:
            files[os.path.join(".legato", "settings.json")] = json.dumps(settings, indent=2)
        for relative, content in files.items():
            path = os.path.join(root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write(content)
        os.makedirs(home)
        yield root, home
