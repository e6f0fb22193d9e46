"""``/mcp`` in a whole interactive session: a project's unapproved servers are named once at the
start and not started; ``/mcp`` lists each server's state; ``/mcp approve`` records the
approval and starts the server at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.memory_store import load_context
from actors.protocol import McpServer, McpServerStatus
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.interactive.mcp import listing
from tests.interactive.conftest import session_env
from tests.interactive.terminal import processes_with
from tests.interactive.test_session import run

if TYPE_CHECKING:
    from tests.interactive.terminal import Terminal
    from tests.interactive.test_session import Live

pytestmark = pytest.mark.anyio

TOY = Path(__file__).resolve().parents[1] / "mcp_client" / "toy_server.py"
# Leaves the marker its first argument names, then serves the toy server's tools.
MARKING = (
    "import pathlib, runpy, sys; pathlib.Path(sys.argv[1]).write_text('ran'); "
    f"sys.argv = sys.argv[:1]; runpy.run_path({str(TOY)!r}, run_name='__main__')"
)
FAILING = "import sys; print('no token given', file=sys.stderr); sys.exit(3)"


def _mcp_json(root: Path, marker: Path) -> Path:
    servers = {
        "toy": {"command": sys.executable, "args": ["-c", MARKING, str(marker)]},
        "bad": {
            "command": sys.executable,
            "args": ["-c", FAILING],
            "env": {"TOKEN": "s3cret", "GH": "Bearer ${GH_TOKEN:-none}"},
        },
    }
    path = root / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


async def _listed(live: Live, *wanted: str) -> None:
    """Each of ``wanted`` shown, in order; the terminal wraps long lines (a path in the middle
    of a word), so they are compared without their white space."""
    bare = "".join("".join(line.split()) for line in wanted)
    await live.until(lambda: bare in "".join(live.text().split()))


async def _ready(live: Live, wanted: str) -> None:
    """``/mcp`` until it shows ``wanted``: a server reports its state once it has settled."""
    bare = "".join(wanted.split())
    for _ in range(100):
        await live.submit("/mcp")
        await live.idle()
        await live.shown("MCP servers (state, source):")
        if bare in "".join(live.text().split()):
            return
        await anyio.sleep(0.1)
    raise AssertionError(f"/mcp never showed {wanted!r}")


async def test_servers_are_named_at_start_and_start_once_approved(
    folders: tuple[Path, Path],
) -> None:
    root, home = folders
    marker = root / "started"
    path = _mcp_json(root, marker)
    async for live, _ in run(folders, [text("unused")]):
        await _listed(
            live,
            "MCP servers of .mcp.json not approved, so not started: toy, bad. "
            "/mcp shows what they run; /mcp approve <name> starts one.",
        )
        await live.submit("/mcp")
        await _listed(
            live,
            f"  toy  not approved, not started  ({path})",
            f"      runs: {sys.executable} -c {MARKING} {marker}",
            "      → /mcp approve toy (after reading what it runs)",
            f"  bad  not approved, not started  ({path})",
            f"      runs: {sys.executable} -c {FAILING}",
            "      env TOKEN=(value hidden)",
            "      env GH=Bearer ${GH_TOKEN:-none}",
        )
        await live.idle()
        assert "s3cret" not in live.text()
        assert not marker.exists()

        await live.submit("/mcp approve nope")
        await _listed(live, "no MCP server named 'nope' (the known ones: toy, bad)")
        await live.submit("/mcp approve toy")
        await live.shown("Approved; the next sessions here start them too:")
        await live.until(marker.exists)
        await _ready(live, f"  toy  ready, 6 tools  ({path})")

        await live.submit("/mcp approve")
        await live.shown("Approve and start these servers?")
        live.pipe.send_text("n\r")
        await live.shown("Nothing approved.")
        await live.submit("/mcp approve")
        await live.shown_times("Approve and start these servers?", 2)
        live.pipe.send_text("y\r")
        await live.shown_times("Approved; the next sessions here start them too:", 2)
        await _ready(live, f"  bad  failed  ({path})")
        failure = live.text().rsplit("  bad  failed", 1)[1]
        assert "      no token given" in failure.splitlines()
        assert "s3cret" not in live.text()
    # Recorded in the user's folder: the next session starts both.
    context = load_context(str(root), home=str(home))
    assert [(s.name, s.approved) for s in context.mcp_servers] == [("toy", True), ("bad", True)]


@pytest.mark.tmux
def test_in_a_real_terminal_the_notice_leaves_the_prompt_free_and_approve_starts_it(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    marker = root / "started"
    _mcp_json(root, marker)
    with ScriptedServer([text("unused")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("not approved, so not started: toy, bad")
        terminal.wait_for("tokens", visible=True)  # the prompt is there, not held
        terminal.submit("/mcp")
        terminal.wait_for("→ /mcp approve toy (after reading what it runs)")
        assert not marker.exists()
        terminal.submit("/mcp approve toy")
        terminal.wait_for("Approved; the next sessions here start them too:")
        terminal.wait_for(lambda _: marker.exists())
        assert processes_with(str(marker))
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    assert processes_with(str(marker)) == []  # the server ended with the session


def test_the_listing_bounds_a_long_failure() -> None:
    error = "it exited while starting; its stderr ended with:\n" + "\n".join(
        f"line {n}" for n in range(40)
    )
    shown = listing(
        [McpServerStatus(name="s", state="failed", source="/p/.mcp.json", error=error)],
        [McpServer(name="s", transport="stdio", source="/p/.mcp.json", command="x")],
    )
    assert shown.splitlines() == [
        "MCP servers (state, source):",
        "  s  failed  (/p/.mcp.json)",
        "      it exited while starting; its stderr ended with:",
        "      ... (34 lines left out)",
        *(f"      line {n}" for n in range(34, 40)),
    ]
