"""The instruction files' imports from outside the project: shown, then approved once.

A project's ``CLAUDE.md`` (or LEGATO.md, AGENTS.md...) comes with the repository; an ``@path``
in it that leads out of the project (``@~/notes.md``, ``@/etc/...``, a link) would put a file
of the user's into every request. So it is loaded only once the user has seen it and said yes:
``legato trust`` approves them with the settings, and the terminal asks at start. Headless and
Agent SDK runs do not load it, and warn with that remedy. The approval holds for that file as
it is now (``actors/memory_store/import_approvals.py``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.protocol import ProjectContext
    from frontends.session import MemoryStore


def import_lines(context: ProjectContext) -> list[str]:
    """The imports waiting, one a line: which file and line imports which file."""
    from actors.places import imports_approval_path

    record = imports_approval_path(context.project_root, context.home or os.path.expanduser("~"))
    lines = ["The project's instruction files import files from outside the project:"]
    for request in context.import_requests:
        importer = os.path.relpath(request.importer, context.project_root)
        if importer.startswith(".."):
            importer = request.importer
        size = _size(request.path)
        lines.append(
            f"  {escape_controls(importer, newlines=True)}:{request.line} imports "
            f"{escape_controls(request.path, newlines=True)}{size}"
        )
    lines.append(f"(approval is recorded in {record}, outside the project)")
    return lines


def _size(path: str) -> str:
    try:
        return f" ({os.stat(path).st_size:,} bytes)"
    except OSError:
        return ""


async def approve_imports(memory: MemoryStore, context: ProjectContext) -> ProjectContext:
    """Record the approval of the imports ``context`` lists; answers the new context."""
    from actors.protocol import ApproveImports

    fingerprints = tuple(request.fingerprint for request in context.import_requests)
    return await memory.address.ask(ApproveImports(fingerprints=fingerprints))


async def ask_about_imports(
    memory: MemoryStore, context: ProjectContext, ask: Callable[[str], str]
) -> None:
    """The terminal's question at start; no (or Ctrl-C, Ctrl-D) asks again next time."""
    print(*import_lines(context), sep="\n")
    try:
        answer = ask("Load them into the model's context? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        await approve_imports(memory, context)
        print("Approved: loaded now and in later sessions until they change.")
    else:
        print("Not approved: they are not loaded. You will be asked again next time.")
