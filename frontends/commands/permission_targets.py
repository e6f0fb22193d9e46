"""What a word given to ``permissions explain`` names (a path, a command line, an MCP tool's
name, an http(s) URL, ``WebSearch``) and the permission requests that explain it; shared by
``legato permissions explain`` and the session's ``/permissions explain``."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from actors.protocol import PermissionRequest

_URL = re.compile(r"https?://\S+", re.IGNORECASE)
Force = Literal["path", "command"] | None
_MCP_TOOL = re.compile(r"mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+")


def requests_for(target: str, root: str, force: Force = None) -> tuple[PermissionRequest, ...]:
    """The requests that explain ``target``: a path's read, edit and create, one run, or one
    call of an MCP tool (``mcp__<server>__<tool>``)."""
    from actors.protocol import PermissionRequest

    path = os.path.join(root, os.path.expanduser(target))
    if force is None and _URL.fullmatch(target):
        # Judged by its host, with no DNS lookup: the explanation says what a local address
        # would need instead.
        return (PermissionRequest(tool="WebFetch", kind="fetch", url=target),)
    if force is None and target == "WebSearch" and not os.path.lexists(path):
        return (PermissionRequest(tool="WebSearch", kind="search"),)
    if force is None and _MCP_TOOL.fullmatch(target) and not os.path.lexists(path):
        # The broker finds which configured server the tool belongs to.
        return (PermissionRequest(tool=target, kind="call"),)
    if force == "command" or (force is None and path_reason(target, root) is None):
        return (PermissionRequest(tool="Bash", kind="run", command=target),)
    if os.path.isdir(path):
        return (PermissionRequest(tool="Read", kind="read", paths=(path,)),)
    return (
        PermissionRequest(tool="Read", kind="read", paths=(path,)),
        PermissionRequest(tool="Edit", kind="write", paths=(path,)),
        PermissionRequest(tool="Write", kind="create", paths=(path,)),
    )


# A last word's extension (``.py``, ``.env``, ``.tar``): ``python3.11`` is a command, not a file.
_EXTENSION = re.compile(r"[^/\s]*\.[A-Za-z][A-Za-z0-9_-]*")


def path_reason(target: str, root: str) -> str | None:
    """Why ``target`` is taken for a path (it exists, has a '/', has a file extension), or None
    for a command line: a file that does not exist yet (``src/new.py``) is a path too."""
    if os.path.lexists(os.path.join(root, os.path.expanduser(target))):
        return "it exists"
    if not target or any(char.isspace() for char in target):
        return None
    if "/" in target:
        return "it has a '/'"
    if _EXTENSION.fullmatch(target):
        return "it has a file extension"
    return None


def judged_line(target: str, root: str, force: Force) -> list[str]:
    """What a word naming nothing that exists was taken for (a path or a command) and why, with
    the flag that says otherwise; nothing when a flag said it, the word names something that
    exists, or it is a URL, a tool's name or a line of several words."""
    if force is not None or _URL.fullmatch(target) or target == "WebSearch":
        return []
    if _MCP_TOOL.fullmatch(target) or any(char.isspace() for char in target.strip()):
        return []
    reason = path_reason(target, root)
    if reason == "it exists":
        return []  # what it names is there to see: nothing was guessed
    if reason is None:
        return [f"'{target}' is judged as a command (add --path to judge it as a path)"]
    return [f"'{target}' is judged as a path: {reason} (add --command to judge it as a command)"]


def split_target(argument: str) -> tuple[Force, str]:
    """``--command git push`` -> ("command", "git push"); the session's ``/permissions explain``."""
    word, _, rest = argument.strip().partition(" ")
    if word in ("--path", "--command"):
        return ("path" if word == "--path" else "command"), rest.strip()
    return None, argument.strip()
