"""``@path`` in a prompt: the file's content goes to the model with the prompt (spec 4.2).

Finding and attaching are shared with headless (``actors/memory_store/references.py``); what
is the terminal's own is the permission: each read is put to the broker like any other, so the
user may be asked, and the rules and the session's answers apply.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import anyio

from actors.memory_store.references import expand_references, find_references
from actors.protocol import CheckPermission, PermissionRequest

if TYPE_CHECKING:
    from actors.memory_store.references import Reference
    from actors.protocol import PermissionBrokerMsg
    from runtime import Address


async def expand(
    text: str, root: str, permissions: Address[PermissionBrokerMsg]
) -> tuple[str, list[str]]:
    """The prompt with each readable referenced file attached; and notes on those left out."""
    if "@" not in text:
        return text, []
    # Both look at the file system: worker threads keep the event loop free.
    found = await anyio.to_thread.run_sync(find_references, text, root)
    if not found:
        return text, []
    refusals: dict[str, str | None] = {}
    for reference in found:
        request = PermissionRequest(tool="Read", kind="read", paths=(reference.path,))
        decision = await permissions.ask(CheckPermission(request=request))
        refusals[reference.token] = None if decision.allowed else decision.reason

    def refusal(reference: Reference) -> str | None:
        return refusals.get(reference.token, "it was not checked")

    expansion = await anyio.to_thread.run_sync(
        functools.partial(expand_references, text, root, refusal=refusal)
    )
    notes = [f"@{token} not attached: {why}" for token, why in expansion.refused]
    return expansion.prompt, notes
