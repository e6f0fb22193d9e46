"""Text from others (a model, an MCP server) made safe to show in a terminal, and a call of an
MCP tool shown for a person's question: its server, its tool and its arguments, bounded.

Control characters would move the cursor, recolour or clear the screen, or rewrite the line a
person is about to approve; bidirectional overrides would show the text in another order than
it holds. Each becomes a visible escape (``\\x1b``, ``\\u202e``), the rest is left as it is.
A URL that may hold a password (a proxy's) is shown without it (``without_password``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from typing import IO, TYPE_CHECKING, Any, ParamSpec, TextIO, TypeVar, cast

from actors.counts import counted
from actors.tool_names import short_name

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.protocol import PermissionRequest

P = ParamSpec("P")
R = TypeVar("R")

ARGUMENT_LINES = 20  # of the arguments' JSON shown before "… more"
ARGUMENT_CHARS = 2000
ONE_LINE = 100  # arguments whose JSON fits on a line this long are shown on one line

# C0 controls but newline and tab, DEL, C1 controls, the bidirectional marks, embeddings,
# overrides and isolates, plus the line and paragraph separators some terminals break lines at.
# A tab cannot paint, only move the cursor to the next tab stop: in text of many lines it is
# the file's own spacing and stays; in a one-line field it is escaped with the newline, since
# there it could push the rest of a line out of sight.
#
# Also the characters a terminal draws as nothing at all, which can hide text between two that
# are seen: the zero-width space, word joiner and invisible operators, the byte order mark, the
# Mongolian vowel separator, the soft hyphen, the Hangul fillers (drawn blank), the interlinear
# annotation marks and the tag characters (which spell out a whole text no one sees).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u115f\u1160\u180e\u200b\u200e\u200f"
    "\u2028\u2029\u202a-\u202e\u2060-\u2069\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f]"
)
# Joiners and variation selectors change how the character before them is drawn (an emoji's
# colour, a ligature in Persian or Devanagari): in prose they stay. In a one-line field and in
# a command they are escaped too: there they can only make two texts that differ look alike.
_JOINERS = re.compile("[\u200c\u200d\ufe00-\ufe0f\U000e0100-\U000e01ef]")

BLANK_LINES = 2  # blank lines in a row a command shows before they are counted instead
BLANK_COLUMNS = 32  # columns of spaces and tabs in a row a command shows before they are counted
# What a terminal draws as blank: the space and the tab, and the Unicode spaces (no-break, the
# typographic ones, the ideographic space two columns wide, the blank Braille pattern).
_BLANK = " \t\xa0\u1680\u2000-\u200a\u202f\u205f\u2800\u3000"
_BLANK_RUN = re.compile(rf"\n(?:[{_BLANK}]*\n){{{BLANK_LINES + 1},}}")
# The fewest characters that could fill more than BLANK_COLUMNS: all tabs.
_SPACE_RUN = re.compile(rf"[{_BLANK}]{{{BLANK_COLUMNS // 8 + 1},}}")


def project_relative(text: str, root: str) -> str:
    """``text`` with the project's folder left out of the paths inside it (a tool's result
    line, ``Edited /home/me/app/greet.py``, shown as ``Edited greet.py``): the person knows
    which project this is, and the file's name is what tells the lines apart."""
    if not root:
        return text
    # Results name a file by its real path; the project may have been named through a link.
    for folder in dict.fromkeys((root, os.path.realpath(root))):
        text = text.replace(os.path.join(folder, ""), "")
    return text


def escape_controls(text: str, *, newlines: bool = False) -> str:
    """``text`` with every character that could paint the terminal shown as an escape;
    ``newlines``: for text that must stay on one line (a command, a path, an MCP server's
    arguments), a newline, a tab and the joiners are escaped too, and a run of blanks wide
    enough to push the rest of the line out of sight is shown as a count (``shown_for_approval``).

    Without ``newlines`` each character is escaped on its own, so text that arrives in pieces
    (a streamed answer whose escape sequence is split between two deltas) is escaped the same
    as when whole; a one-line field is always escaped whole."""
    escaped = _UNSAFE.sub(_escape, text)
    if not newlines:
        return escaped
    escaped = _SPACE_RUN.sub(_blank_columns, _JOINERS.sub(_escape, escaped))
    return escaped.replace("\n", "\\n").replace("\t", "\\t")


def one_line(text: str) -> str:
    """A value from a file, a server or a model shown on one line: ``escape_controls`` with
    ``newlines``."""
    return escape_controls(text, newlines=True)


def shown_for_approval(text: str) -> str:
    """Text of many lines a person approves (a command, the diff of a write) as they see it:
    each of its lines, every control and joiner escaped, and a run of blank lines, or of
    blanks, long enough to push the rest out of sight (below the screen's last row, past its
    right edge) shown as a count, ``[… 1,998 blank lines]``: what is approved is all in view.
    """
    escaped = _JOINERS.sub(_escape, escape_controls(text))
    escaped = _BLANK_RUN.sub(_blank_lines, escaped)
    return _SPACE_RUN.sub(_blank_columns, escaped)


def _blank_lines(match: re.Match[str]) -> str:
    blank = match.group().count("\n") - 1
    return f"\n[… {counted(blank, 'blank line')}]\n"


def _blank_columns(match: re.Match[str]) -> str:
    run = match.group()
    tabs = run.count("\t")
    # A tab is up to eight columns, an ideographic space two.
    if len(run) + 7 * tabs + run.count("\u3000") <= BLANK_COLUMNS:
        return run
    spaces = run.count(" ")
    kinds = ((spaces, "space"), (tabs, "tab"), (len(run) - spaces - tabs, "Unicode blank"))
    what = [counted(n, noun) for n, noun in kinds if n]
    return f"[… {' and '.join(what)}]"


class VisibleStream:
    """A text stream whose writes have their control characters escaped: for output that
    Legato writes with no escape sequences of its own (the reports of ``legato config``,
    ``legato mcp``, ``legato permissions``, ``legato doctor``), so that nothing quoted in it,
    a value, a file name, an error, reaches the terminal as a control."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(escape_controls(text))

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        # fileno, isatty, encoding...: what the stream underneath says.
        return getattr(self.stream, name)


def printed_visibly(command: Callable[P, R]) -> Callable[P, R]:
    """A command whose printed report, errors and warnings included, go out through
    ``VisibleStream``: ``sys.stdout`` and ``sys.stderr`` are wrapped while it runs."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = cast("TextIO", VisibleStream(stdout))
        sys.stderr = cast("TextIO", VisibleStream(stderr))
        try:
            return command(*args, **kwargs)
        finally:
            sys.stdout, sys.stderr = stdout, stderr

    return run


def setting_line(key: str, value: Any) -> str:
    """``key: value`` on one line, the value as JSON with every control character shown as an
    escape: a person approving a setting approves what the file holds, not what a terminal
    would draw of it."""
    return escape_controls(f"{key}: {json.dumps(value, ensure_ascii=False)}", newlines=True)


def without_password(url: str) -> str:
    """``url`` fit for a message: its password, if it has one, shown as ``***``."""
    # Only for a proxy's URL, which most runs never show: not on every start's way.
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r":  # the one a person knows by name, in the spelling they know
        return "\\r"
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def call_target(request: PermissionRequest) -> str:
    """``status  (MCP server 'git')``: the tool as its server names it, and the server."""
    tool = request.tool
    server = request.server
    if server is None:
        return escape_controls(tool, newlines=True)
    short = short_name(tool, server)
    shown_server = escape_controls(server, newlines=True)
    return f"{escape_controls(short, newlines=True)}  (MCP server '{shown_server}')"


def argument_lines(arguments: dict[str, Any] | None) -> list[str]:
    """The arguments as JSON: on one line when short, else indented; at most
    ``ARGUMENT_LINES`` lines and ``ARGUMENT_CHARS`` characters, with a last line saying what
    was left out."""
    if not arguments:
        return ["{}"]
    text = json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "), default=repr)
    if len(text) > ONE_LINE:
        text = json.dumps(arguments, ensure_ascii=False, indent=2, default=repr)
    # json escapes C0 controls inside strings; not DEL, C1 controls or bidirectional overrides.
    lines = escape_controls(text).split("\n")
    shown: list[str] = []
    used = 0
    for line in lines[:ARGUMENT_LINES]:
        room = ARGUMENT_CHARS - used
        if room <= 0:
            break
        shown.append(line[:room])
        used += len(line[:room])
    left_lines = len(lines) - len(shown)
    left_chars = sum(len(line) for line in lines) - used
    if left_chars > 0:
        what = f"{left_chars:,} more character{'s' if left_chars != 1 else ''}"
        if left_lines > 0:
            what += f" on {left_lines:,} more line{'s' if left_lines != 1 else ''}"
        shown.append(f"… {what} not shown")
    return shown
