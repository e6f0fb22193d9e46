"""The reference's flags in the terminal (tmux, a real ``legato``, the scripted server): the same
flags as headless, with the same meaning."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env
from tests.interactive.terminal import Terminal

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.tmux


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "\n\n".join(str(block.get("text", "")) for block in system)
    return str(system or "")


def test_a_first_prompt_and_the_flags_shape_the_terminals_session(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    made = root / "made.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(made), "content": "x\n"})]),
        text("Wrote made.txt."),
    ]
    with ScriptedServer(steps) as server:
        env = {**session_env(home, server.url), "IS_SANDBOX": "1"}
        terminal.start(
            root, env, "write the file",
            "--dangerously-skip-permissions", "--append-system-prompt", "Be brief.",
            "--tools", "Write,Read",
        )  # fmt: skip
        screen = terminal.wait_for("Wrote made.txt.")
        body = server.requests[0].body
        # Above the prompt, before anything ran: what the mode lets through unasked.
        assert screen.index("bypass permissions mode") < screen.index("› write the file")
        assert "bypass permissions on" in terminal.status_line()
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    assert made.read_text() == "x\n"  # written without a question
    assert body["messages"][0]["content"][0]["text"] == "write the file"
    assert system_text(body).rstrip().endswith("Be brief.")
    assert {tool["name"] for tool in body["tools"]} == {"Write", "Read"}


def test_continue_goes_on_with_the_latest_session_in_the_terminal(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    with ScriptedServer([text("Noted: blue."), text("Blue.")]) as server:
        env = session_env(home, server.url)
        terminal.start(root, env, "remember blue")
        terminal.wait_for("Noted: blue.")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
        again = Terminal()  # a terminal of its own, as a person's next `legato -c` gets
        try:
            again.start(root, env, "-c", "which colour?")
            again.wait_for("Blue.")
            second = server.requests[1].body
            again.submit("/quit")
            assert again.exit_code() == 0
        finally:
            again.close()
    assert second["messages"][0]["content"][0]["text"] == "remember blue"
    assert second["messages"][-1]["content"][-1]["text"] == "which colour?"


def test_thinking_is_one_dim_line_and_a_switch_of_model_drops_what_it_does_not_take(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / "notes.txt").write_text("blue\n")
    steps = [
        tool_calls(
            [call("Read", {"file_path": str(root / "notes.txt")})], thinking="SECRET reasoning"
        ),
        text("The note says blue.", thinking="It is blue."),
        text("Still blue."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(
            root, session_env(home, server.url), "read the note",
            "--model", "opus", "--effort", "high", "--max-thinking-tokens", "2048",
            "--allowedTools", "Read",
        )  # fmt: skip
        screen = terminal.wait_for("The note says blue.")
        assert screen.count("∴ Thought") == 2
        assert "SECRET" not in screen  # collapsed: the reasoning is not printed
        terminal.submit("/effort loud")
        terminal.wait_for("/effort 'loud' is not an effort level")
        terminal.submit("/effort xhigh")
        terminal.wait_for("Effort set to xhigh (runs as high on opus)")
        terminal.submit("/model haiku")
        terminal.wait_for("haiku")
        terminal.submit("and now?")
        screen = terminal.wait_for("Still blue.")
        assert "haiku does not take an effort level (/effort xhigh): sent without it" in screen
        requests = server.requests
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    assert requests[0].body["output_config"] == {"effort": "high"}
    assert requests[1].body["messages"][-2]["content"][0]["thinking"] == "SECRET reasoning"
    assert "output_config" not in requests[2].body
    assert requests[2].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_the_fallback_and_the_budget_hold_in_the_terminal(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    from actors.models import resolve_model
    from frontends.demo.scripted_api.steps import error

    root, home = folders
    big = {"input_tokens": 20_000, "output_tokens": 10}  # $0.06 at sonnet's rates
    steps = [
        error(529, should_retry=False),
        tool_calls([call("Glob", {"pattern": "*"})], usage=big),  # haiku: $0.02
        text("never sent"),
    ]
    haiku = resolve_model("haiku").id
    with ScriptedServer(steps) as server:
        env = session_env(home, server.url)
        terminal.start(
            root, env, "look", "--fallback-model", "haiku", "--max-budget-usd", "0.021"
        )  # fmt: skip
        terminal.wait_for("for the rest of this run")
        terminal.wait_for("Allow?")
        terminal.submit("y")
        screen = terminal.wait_for("(--max-budget-usd)")
        models = [r.body["model"] for r in server.requests]
        # The status line names the model that answered, and prices its answer at its rates.
        status = terminal.status_line()
        assert "haiku" in status and "$0.02" in status
        assert "Error: stopped before the next request" in screen
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    assert models == [resolve_model("sonnet").id, haiku]
