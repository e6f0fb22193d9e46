"""``@path`` in a prompt: the files a prompt names come along with it.

A token is ``@`` and a path, at the start of the prompt or after a space or a bracket, so
``user@example.com`` stays text. A token that names an existing file or folder is attached:
the file's text (up to 256 KB) or the folder's entries follow the prompt in a
``<file path="...">`` block, and the ``@path`` itself stays in the prompt.

Each read is put to the permission broker like a Read, marked as named by the person: inside
the project that counts as their yes where the rules would ask, while ``blockedPaths``, the
rules for Legato's own files and for files outside the project apply as the broker says. A
binary file is refused before anything is asked. A token that names nothing stays text; when it
looks like a path (it has a ``/``) or something close exists, a note says so.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from actors.errors import ToolFailure
from actors.protocol import Attachment, CheckPermission, PermissionRequest
from actors.tool_executor import door
from actors.tool_executor.context import CallContext
from actors.tool_executor.files import SNIFF_BYTES, is_binary

if TYPE_CHECKING:
    from actors.protocol import PermissionBrokerMsg
    from actors.tool_executor.door import Target
    from runtime import Address

MAX_FILE_BYTES = 256 * 1024  # more would crowd the context; the model can Read the rest
MAX_LISTING = 200
_TOKEN = re.compile(r"(?:^|(?<=[\s(\[]))@([^\s\"'`,;()\[\]]+)")
_TRAILING = ".:!?"


def tokens(text: str) -> list[str]:
    """What follows each ``@`` that may name a path, each once, in order."""
    found = (match.group(1).rstrip(_TRAILING) for match in _TOKEN.finditer(text))
    return list(dict.fromkeys(token for token in found if token))


@dataclass(frozen=True, slots=True)
class _Found:
    target: Target
    folder: bool


async def attach(text: str, root: str, permissions: Address[PermissionBrokerMsg]) -> Attachment:
    """``text`` with the files it names attached, each read allowed by the broker first."""
    blocks: list[str] = []
    attached: list[str] = []
    notes: list[str] = []
    for token in tokens(text):
        found = await anyio.to_thread.run_sync(_look, token, root)
        if isinstance(found, str):
            notes.append(found)
        if not isinstance(found, _Found):
            continue
        target = found.target
        request = PermissionRequest(
            tool="Read",
            kind="read",
            paths=CallContext.paths(target.shown, target.real),
            hard_links=target.links,
            named_by_user=True,
        )
        decision = await permissions.ask(CheckPermission(request=request))
        if not decision.allowed:
            notes.append(f"@{token} was not attached: {decision.reason}")
            continue
        try:
            blocks.append(await anyio.to_thread.run_sync(_block, found, root))
        except (OSError, ToolFailure) as error:
            notes.append(f"@{token} was not attached: {_why(error)}")
            continue
        attached.append(token)
    prompt = text if not blocks else text + "\n\nReferenced files:\n" + "\n\n".join(blocks)
    return Attachment(prompt=prompt, attached=tuple(attached), notes=tuple(notes))


def _look(token: str, root: str) -> _Found | str | None:
    """What ``token`` names: a file or folder to ask about, else a note for the person (None:
    it is just text)."""
    try:
        target = door.locate(token, root)
        st = os.stat(target.real)
    except (FileNotFoundError, NotADirectoryError):
        return _near_miss(token, root)
    except (OSError, ToolFailure) as error:
        return f"@{token} was not attached: {_why(error)}"
    if stat.S_ISDIR(st.st_mode):
        return _Found(target, folder=True)
    if not stat.S_ISREG(st.st_mode):
        return f"@{token} was not attached: it is not a regular file (a device, pipe or socket)"
    try:
        with door.open_read(target) as file:
            head = file.read(SNIFF_BYTES)
    except (OSError, ToolFailure) as error:
        return f"@{token} was not attached: {_why(error)}"
    if is_binary(head):
        return f"@{token} was not attached: it is a binary file"
    return _Found(target, folder=False)


def _block(found: _Found, root: str) -> str:
    shown = os.path.relpath(found.target.shown, root)
    shown = found.target.shown if shown.startswith("..") else shown
    return f'<file path="{shown}">\n{_contents(found)}\n</file>'


def _contents(found: _Found) -> str:
    if found.folder:
        names = door.list_folder(found.target)
        more = len(names) - MAX_LISTING
        listing = "\n".join(names[:MAX_LISTING]) + (f"\n... and {more} more" if more > 0 else "")
        return f"(a folder; its entries)\n{listing}"
    with door.open_read(found.target) as file:
        data = file.read(MAX_FILE_BYTES + 1)
    if is_binary(data):  # it was text when it was checked
        raise ToolFailure("it is a binary file")
    text = data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_FILE_BYTES:
        text += f"\n... (cut at {MAX_FILE_BYTES // 1024} KB; Read the file for the rest)"
    return text


def _near_miss(token: str, root: str) -> str | None:
    """A note for a token that names nothing, with the closest name in its folder, if any."""
    folder, name = os.path.split(token.rstrip("/"))
    close: list[str] = []
    try:
        above = door.locate(folder or ".", root)
        if door.within(above.real, os.path.realpath(root)):  # only the project is looked into
            names = [entry.rstrip("/") for entry in door.list_folder(above)]
            close = difflib.get_close_matches(name, names, n=1)
    except (OSError, ToolFailure):
        pass
    if close:
        return f"@{token} names no file or folder; did you mean @{os.path.join(folder, close[0])}?"
    if "/" in token:
        return f"@{token} names no file or folder, so nothing was attached for it"
    return None


def _why(error: OSError | ToolFailure) -> str:
    if isinstance(error, ToolFailure):
        return error.message.rstrip(".")
    return f"it could not be read: {error.strerror or error}"
