"""The files inside the project that run outside the sandbox: what hooks and MCP servers run.

A hook runs with the user's full rights, and so does an MCP server: when the program it runs is
a file of the project (``./scripts/fmt.sh``, ``python tools/server.py``), whoever edits that file
runs code unconfined at the next tool call or session. So these files are protected like
Legato's own: an edit always asks (the broker), and a confined command cannot write them (the
sandbox). ``.mcp.json`` itself too: with ``enableAllProjectMcpServers`` a server written there
starts unasked.

Each hook command and each server's command and args are split like a shell line (``shlex``);
every word, and the value of every ``--option=value``, that names an existing file inside the
project counts: relative to the project root (where both run), absolute, ``~/...``, or through
``$CLAUDE_PROJECT_DIR`` or ``$LEGATO_PROJECT_DIR``. For ``python -m pkg.mod`` the module's own
file (``pkg/mod.py``, ``pkg/mod/__main__.py``) counts. What those programs import or read in
turn cannot be known from the command, and is not covered. There is no status line command.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from actors.protocol import HookGroup, McpServer

MCP_FILE = ".mcp.json"
_PROJECT_VARIABLE = re.compile(
    r"\$(?:\{(?:CLAUDE|LEGATO)_PROJECT_DIR\}|(?:CLAUDE|LEGATO)_PROJECT_DIR\b)"
)


def files_that_run(
    root: str, home: str, hooks: Iterable[HookGroup], servers: Iterable[McpServer]
) -> dict[str, str]:
    """Each file inside ``root`` (a real absolute path) that a hook or a server runs, real and
    absolute, with who runs it in words ("the PostToolUse hook 'fmt.sh x'")."""
    found: dict[str, str] = {}
    for group in hooks:
        for hook in group.hooks:
            if hook.callback is not None:
                continue  # the embedding program's own function, not a file
            for path in _named_files(hook.command, root, home):
                found.setdefault(path, f"the {group.event} hook '{hook.command}'")
    for server in servers:
        if server.transport != "stdio":
            continue
        line = shlex.join((server.command, *server.args))
        for path in _named_files(line, root, home):
            found.setdefault(path, f"the MCP server '{server.name}'")
    return found


def _named_files(line: str, root: str, home: str) -> Iterator[str]:
    line = _PROJECT_VARIABLE.sub(lambda _: root, line)
    try:
        words = shlex.split(line)
    except ValueError:  # an unclosed quote: the words as they stand
        words = line.split()
    for index, word in enumerate(words):
        candidates = [word]
        _, equals, value = word.partition("=")
        if equals and value:
            candidates.append(value)
        if index > 0 and words[index - 1] == "-m":
            candidates += _module_files(word)
        for candidate in candidates:
            path = _inside(candidate, root, home)
            if path is not None:
                yield path


def _module_files(module: str) -> list[str]:
    base = module.replace(".", "/")
    return [f"{base}.py", f"{base}/__main__.py", f"{base}/__init__.py"]


def _inside(word: str, root: str, home: str) -> str | None:
    if not word or word.startswith("-"):
        return None
    if word == "~" or word.startswith("~/"):
        word = os.path.join(home, word[2:])
    path = os.path.realpath(os.path.join(root, word))
    if not path.startswith(root.rstrip("/") + "/") or not os.path.isfile(path):
        return None
    return path
