"""``run_demo``: a real session against the scripted Messages API, offline, no API key.

Everything but the model is real: the actors, the permission rules, the tools, the files (in a
throwaway project folder that is removed afterwards). The model's side is Legato's own scripted
API on loopback (``scripted_api``), playing the conversation in ``script.py``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

DEMO_SETTINGS = {
    "permissionMode": "custom",
    "allowedPaths": ["**"],
    "allowedCommands": ["ls", "cat", "grep"],
    "blockedCommands": ["rm"],
}


def run_demo(args: argparse.Namespace) -> int:
    from frontends.demo.script import DEMO_PROMPT, demo_files, demo_steps
    from frontends.demo.scripted_api import ScriptedServer
    from frontends.headless import run_headless
    from frontends.session_options import SessionOptions

    with tempfile.TemporaryDirectory(prefix="legato-demo-") as scratch:
        root = os.path.realpath(os.path.join(scratch, "project"))
        home = os.path.join(scratch, "home")
        for relative, content in demo_files().items():
            path = os.path.join(root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write(content)
        os.makedirs(os.path.join(root, ".legato"), exist_ok=True)
        with open(os.path.join(root, ".legato", "settings.json"), "w", encoding="utf-8") as file:
            json.dump(DEMO_SETTINGS, file, indent=2)
        os.makedirs(home)

        print(
            "── Legato demo: offline, against Legato's scripted model server (no API key, "
            "no network). ──\n"
            f"   project: {root} (a throwaway copy; removed afterwards)\n"
            f"   prompt:  {DEMO_PROMPT}\n",
            file=sys.stderr,
            flush=True,
        )
        with ScriptedServer(demo_steps(root)) as server:
            # The scripted server is on loopback: no proxy must stand in between.
            env = {
                key: value
                for key, value in os.environ.items()
                if key.lower() not in {"http_proxy", "https_proxy", "all_proxy"}
            }
            env["ASSISTANT_BASE_URL"] = server.url
            env["ASSISTANT_API_KEY"] = "demo-key"
            options = SessionOptions(
                project_root=root,
                headless=True,
                model=args.model,
                output_format=args.output_format,
                max_turns=args.max_turns,
                env=env,
                home=home,
            )
            code = run_headless(options, prompt=DEMO_PROMPT)
        print(
            "\n── End of demo. With a key, run for real: "
            'ASSISTANT_API_KEY=... legato --headless "<prompt>" ──',
            file=sys.stderr,
        )
        return code
