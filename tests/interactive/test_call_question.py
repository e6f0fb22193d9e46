"""The question for a call of an MCP tool: it names the server and the tool and shows the
arguments as JSON, escaped so that a hostile server or model cannot paint the terminal, and
bounded so that it fits on a screen. Rendered by rich to a string and compared exactly."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from actors.protocol import PermissionRequest
from actors.visible import ARGUMENT_CHARS, ARGUMENT_LINES, argument_lines, call_target
from frontends.interactive.theme import DARK
from frontends.interactive.view import TurnView


def make_view(width: int = 80) -> TurnView:
    console = Console(file=io.StringIO(), width=width, theme=DARK.rich_theme())
    return TurnView(console, DARK)


def call(server: str, tool: str, arguments: dict[str, Any]) -> PermissionRequest:
    return PermissionRequest(
        tool=f"mcp__{server}__{tool}", kind="call", server=server, arguments=arguments
    )


def test_the_question_names_the_server_and_the_tool_and_shows_the_arguments() -> None:
    view = make_view()
    request = call("git", "commit", {"message": "fix", "all": True})
    view.question(request)
    assert view.take_printed() == (
        "? Call MCP tool  commit  (MCP server 'git')\n"
        "    requested by mcp__git__commit\n"
        '    {"message": "fix", "all": true}\n'
    )
    assert view.summary(request) == "Call MCP tool  commit  (MCP server 'git')"


def test_long_arguments_are_indented_json() -> None:
    view = make_view(width=120)
    view.question(call("db", "query", {"sql": "select * from users " * 5, "limit": 10}))
    assert view.take_printed().split("\n")[2:6] == [
        "    {",
        '      "sql": "' + "select * from users " * 5 + '",',
        '      "limit": 10',
        "    }",
    ]


def test_control_characters_are_shown_escaped_not_sent_to_the_terminal() -> None:
    view = make_view(width=200)
    hostile = {
        "text": "ok\x1b[2J\x1b]0;pwned\x07\r\x9b31m\u202egnp.exe",
        "\x1b[31mkey": "\x7f",
    }
    request = call("evil", "x\x1b[8mhidden", hostile)
    view.question(request)
    printed = view.take_printed()
    for raw in ("\x1b", "\x07", "\r", "\x9b", "\u202e", "\x7f"):
        assert raw not in printed
        assert raw not in view.summary(request)
    assert printed == (
        "? Call MCP tool  x\\x1b[8mhidden  (MCP server 'evil')\n"
        "    requested by mcp__evil__x\\x1b[8mhidden\n"
        '    {"text": "ok\\u001b[2J\\u001b]0;pwned\\u0007\\r\\x9b31m\\u202egnp.exe", '
        '"\\u001b[31mkey": "\\x7f"}\n'
    )


def test_arguments_are_cut_after_twenty_lines_saying_how_much_was_left_out() -> None:
    arguments = {f"k{i:02}": i for i in range(40)}
    lines = argument_lines(arguments)
    assert len(lines) == ARGUMENT_LINES + 1
    assert lines[:2] == ["{", '  "k00": 0,']
    assert lines[-1] == "… 252 more characters on 22 more lines not shown"


def test_arguments_are_cut_after_two_thousand_characters() -> None:
    lines = argument_lines({"blob": "x" * 5000})
    assert lines[:2] == ["{", '  "blob": "' + "x" * (ARGUMENT_CHARS - 12)]
    assert lines[2:] == ["… 3,014 more characters on 1 more line not shown"]
    # The terminal shows what the function gives, and no more.
    view = make_view(width=3000)
    view.question(call("fs", "write", {"blob": "x" * 5000}))
    printed = view.take_printed()
    assert printed.count("x") == ARGUMENT_CHARS - 12
    assert printed.endswith("    … 3,014 more characters on 1 more line not shown\n")


def test_a_server_whose_name_has_double_underscores_is_named_whole() -> None:
    assert call_target(call("a__b", "c", {})) == "c  (MCP server 'a__b')"
    assert argument_lines({}) == ["{}"]


def test_a_hostile_file_name_command_or_diff_is_shown_escaped() -> None:
    view = make_view(width=200)
    view.question(PermissionRequest(tool="Write", kind="create", paths=("/p/a\x1b[2Jb\nc.txt",)))
    view.question(PermissionRequest(tool="Bash", kind="run", command="echo \x1b]0;pwned\x07 ok"))
    diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+\x1b[31mred\tand tabbed\n"
    view.question(PermissionRequest(tool="Edit", kind="write", paths=("/p/x",), preview=diff))
    printed = view.take_printed()
    assert "\x1b" not in printed and "\x07" not in printed
    assert "/p/a\\x1b[2Jb\\nc.txt" in printed
    assert "echo \\x1b]0;pwned\\x07 ok" in printed
    assert "\\x1b[31mred    and tabbed" in printed
