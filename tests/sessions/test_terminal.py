"""Sessions in a real terminal (tmux): --continue, the --resume picker, /undo, /compact and
the context fill in /cost; a resumed session opens on its last exchanges, and /cost goes on
from its usage."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from actors.models import DEFAULT_ALIAS, cost_usd, resolve_model
from actors.protocol import Usage
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import folders, session_env, terminal
from tests.interactive.terminal import REPO, Terminal

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.tmux
# The status line's tokens and cost: the session is ready for a prompt. (A resumed session's
# first lines and the picker name tokens too, but not followed by a cost.)
READY = "tokens · $"
__all__ = ["folders", "terminal"]


def test_continue_undo_compact_and_the_picker(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    target = root / "app.py"
    target.write_text("print('original')\n")
    first = [
        tool_calls([call("Read", {"file_path": str(target)})]),
        tool_calls([call("Write", {"file_path": str(target), "content": "print('new')\n"})]),
        text("Rewrote app.py."),
    ]
    with ScriptedServer(first) as server:
        terminal.start(root, session_env(home, server.url), "--permission-mode", "auto")
        terminal.wait_for("tokens", visible=True)
        terminal.submit("rewrite app.py")
        terminal.wait_for("Rewrote app.py.")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    assert target.read_text() == "print('new')\n"

    second = [
        text("Noted."),
        text(
            "## Summary\nRewrote app.py, then undid it.\n## Decisions\n- keep it\n## Open steps\n"
        ),
    ]
    again = Terminal()
    try:
        with ScriptedServer(second) as server:
            again.start(root, session_env(home, server.url), "--continue")
            again.wait_for(READY, visible=True)
            again.submit("/undo")
            again.wait_for(f"Restored {target}")
            assert target.read_text() == "print('original')\n"
            again.submit("what now?")
            again.wait_for("Noted.")
            body = server.requests[0].body
            said = [b.get("text") for m in body["messages"] for b in m["content"]]
            assert said[0] == "rewrite app.py" and said[-1] == "what now?"
            again.submit("/compact")
            again.wait_for("Compacted")
            again.submit("/cost")
            screen = again.wait_for("Context:")
            assert "of 1,000,000 tokens" in screen
            assert screen.count("Compacted ") == 1  # its result line, said once
            again.submit("/quit")
            assert again.exit_code() == 0
    finally:
        again.close()

    picker = Terminal()
    try:
        with ScriptedServer([text("Still here.")]) as server:
            picker.start(root, session_env(home, server.url), "--resume")
            picker.wait_for("Resume which session?")
            assert "rewrite app.py" in picker.screen()
            picker.submit("1")
            picker.wait_for(READY, visible=True)
            picker.submit("and?")
            picker.wait_for("Still here.")
            said = [
                b.get("text") for m in server.requests[0].body["messages"] for b in m["content"]
            ]
            assert said[0].startswith("Earlier turns of this conversation were compacted")
            picker.submit("/quit")
            assert picker.exit_code() == 0
    finally:
        picker.close()


UNCACHED = {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def headless(root: Path, home: Path, url: str, prompt: str) -> str:
    """A session run to its end without a terminal; its id."""
    done = subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", str(root),
         "--headless", prompt, "--output-format", "json"],
        cwd=REPO, env=session_env(home, url), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    session_id: str = json.loads(done.stdout)["session_id"]
    return session_id


def read_app(root: Path, home: Path) -> str:
    """A session of four messages and 2,150 tokens: a prompt, a Read, its result, an answer."""
    target = root / "app.py"
    target.write_text("print('hi')\n")
    steps = [
        tool_calls(
            [call("Read", {"file_path": str(target)})],
            usage={"input_tokens": 1000, "output_tokens": 20, **UNCACHED},
        ),
        text(
            "It prints hi.\nNothing else.",
            usage={"input_tokens": 1100, "output_tokens": 30, **UNCACHED},
        ),
    ]
    with ScriptedServer(steps) as server:
        return headless(root, home, server.url, "what does app.py do?")


def test_continue_shows_the_conversation_and_cost_goes_on_from_its_usage(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    session_id = read_app(root, home)
    with ScriptedServer(
        [text("Still hi.", usage={"input_tokens": 7, "output_tokens": 3, **UNCACHED})]
    ) as server:
        terminal.start(root, session_env(home, server.url), "--continue")
        terminal.wait_for("2,150 tokens · $", visible=True)  # the status line counts it too
        # The lines before the prompt are written into the scrollback as the prompt comes up.
        lines = terminal.wait_for("Nothing else.").splitlines()
        header = next(line for line in lines if line.startswith("Resumed session"))
        assert re.fullmatch(
            rf"Resumed session {session_id[:8]} · started \d{{4}}-\d\d-\d\d \d\d:\d\d · "
            r"4 messages · 2,150 tokens",
            header.rstrip(),
        )
        shown = [line.rstrip() for line in lines[lines.index(header) + 1 :]]
        assert shown[:4] == [
            "› what does app.py do?",
            # The path as the project names it; headless in ask mode, the read was denied, and
            # the replay says so rather than showing it as run.
            "✗ Read(app.py)  denied",
            "It prints hi.",
            "Nothing else.",
        ]
        terminal.submit("/cost")
        screen = terminal.wait_for("Total cost:")
        assert "Input tokens:  2,100\n" in screen and "Output tokens: 50\n" in screen
        before = cost_usd(resolve_model(DEFAULT_ALIAS), Usage(2100, 50))
        assert before is not None and f"Total cost:    ${before:.4f} USD" in screen
        # A new answer adds to it.
        terminal.submit("and now?")
        terminal.wait_for("Still hi.")
        terminal.wait_for("2,160 tokens · $", visible=True)
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


def test_the_picker_shows_each_sessions_prompt_date_and_size_aligned(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    with ScriptedServer(
        [text("Hello.", usage={"input_tokens": 5, "output_tokens": 4, **UNCACHED})]
    ) as server:
        small = headless(root, home, server.url, "say hello")
    large = read_app(root, home)
    with ScriptedServer([]) as server:
        terminal.start(root, session_env(home, server.url), "--resume")
        screen = terminal.wait_for("Resume which session?")
        rows = [line.rstrip() for line in screen.splitlines() if re.match(r"  \d\. ", line)]
        when = r"\d{4}-\d\d-\d\d \d\d:\d\d"
        assert re.fullmatch(
            rf"  1\. {large[:8]}  {when}  4 messages  2,150 tokens  what does app\.py do\?",
            rows[0],
        )
        assert re.fullmatch(
            rf"  2\. {small[:8]}  {when}  2 messages      9 tokens  say hello", rows[1]
        )
        terminal.submit(small[:5])  # the start of an id picks too
        terminal.wait_for("9 tokens · $", visible=True)
        screen = terminal.wait_for("Hello.")
        assert f"Resumed session {small[:8]} · started" in screen
        assert "› say hello\nHello." in screen
        assert "what does app.py do?" not in screen.split("Resume which session?")[1]
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
