"""``/hooks``: the hooks this session was configured with, by event.

Read from the memory store's context (``GetContext``), which holds what the files say: the
listing is the configuration, whether or not anything has run yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import GetContext
from frontends.commands.listings import hook_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import HookGroup, MemoryStoreMsg
    from runtime import Address

NONE = (
    'No hooks configured. Add them under "hooks" in .legato/settings.json or '
    "~/.config/legato/config.json (docs/hooks.md)."
)


async def hooks_text(memory: Address[MemoryStoreMsg]) -> str:
    return listing((await memory.ask(GetContext())).hooks)


def listing(groups: Sequence[HookGroup]) -> str:
    if not groups:
        return NONE
    return "\n".join(["Hooks by event (matcher, source; command, timeout):", *hook_lines(groups)])
