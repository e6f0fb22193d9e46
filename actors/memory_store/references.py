"""``@path`` references in a prompt (spec 4.2): the named file's text comes along.

One function for every frontend: headless prompts and skill arguments here, the interactive
terminal's prompt line there. Permission is the caller's: ``find_references`` says which files
a prompt names, the caller asks its permission rules about each (the broker in a session, the
same policy synchronously in headless), and ``expand_references`` attaches the allowed ones.

A token is a reference only when it names an existing file or folder, so ``@pytest.fixture``
or ``user@example.com`` stay text. The ``@path`` stays in the prompt; the contents follow it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_FILE_BYTES = 256 * 1024  # more would crowd the context; the model can Read the rest
MAX_LISTING = 200
_TOKEN = re.compile(r"(?:^|(?<=[\s(\[]))@([^\s\"'`,;()\[\]]+)")
_TRAILING = ".:!?"


@dataclass(frozen=True)
class Reference:
    token: str  # as written after the @
    path: str  # absolute, resolved against the project root


@dataclass(frozen=True)
class Expansion:
    prompt: str
    attached: tuple[str, ...]  # tokens whose contents were attached
    refused: tuple[tuple[str, str], ...]  # (token, why) for the ones that were not


def find_references(text: str, project_root: str) -> list[Reference]:
    """The existing files and folders ``text`` names with ``@``, each once, in order."""
    found: dict[str, Reference] = {}
    for match in _TOKEN.finditer(text):
        token = match.group(1).rstrip(_TRAILING)
        if not token:
            continue
        path = os.path.abspath(os.path.join(project_root, os.path.expanduser(token)))
        if token not in found and os.path.exists(path):
            found[token] = Reference(token, path)
    return list(found.values())


def expand_references(
    text: str, project_root: str, *, refusal: Callable[[Reference], str | None]
) -> Expansion:
    """Attach each referenced file's text after the prompt.

    ``refusal(reference)`` returns None to allow reading it, or the reason it may not be read.
    """
    blocks: list[str] = []
    attached: list[str] = []
    refused: list[tuple[str, str]] = []
    for reference in find_references(text, project_root):
        reason = refusal(reference)
        if reason is None:
            content, reason = _contents(reference.path)
            if content is not None:
                shown = os.path.relpath(reference.path, project_root)
                if shown.startswith(".."):
                    shown = reference.path
                blocks.append(f'<file path="{shown}">\n{content}\n</file>')
                attached.append(reference.token)
                continue
        refused.append((reference.token, reason or "it could not be read"))
    prompt = text if not blocks else text + "\n\nReferenced files:\n" + "\n\n".join(blocks)
    return Expansion(prompt, tuple(attached), tuple(refused))


def _contents(path: str) -> tuple[str | None, str | None]:
    if os.path.isdir(path):
        names = sorted(os.listdir(path))
        shown = [name + ("/" if os.path.isdir(os.path.join(path, name)) else "") for name in names]
        more = len(shown) - MAX_LISTING
        listing = "\n".join(shown[:MAX_LISTING]) + (f"\n... and {more} more" if more > 0 else "")
        return f"(a folder; its entries)\n{listing}", None
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        return None, f"it could not be read: {error.strerror}"
    if b"\0" in data[:8192]:
        return None, "it is a binary file"
    text = data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_FILE_BYTES:
        text += f"\n... (cut at {MAX_FILE_BYTES // 1024} KB; Read the file for the rest)"
    return text, None
