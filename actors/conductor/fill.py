"""How the next request fills the context window, part by part (``GetContextFill``).

The conductor builds every request, so it knows each part's text: the system prompt, the
built-in tools' definitions, the Skill tool's listing, the MCP servers' tools and the
conversation. Each is estimated at about four characters a token; once an answer has
measured the whole, the conversation's share is that count less the other parts, so the
parts add up to what the API said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.conductor import compaction
from actors.instructions import estimate_tokens
from actors.protocol import ContextFill

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import Block, Message


def _tokens(specs: Sequence[Block]) -> int:
    return estimate_tokens(msgspec.json.encode(list(specs)).decode()) if specs else 0


def context_fill(
    *,
    system: str,
    tools: Sequence[Block],
    skill: Block | None,
    mcp: Sequence[Block],
    messages: list[Message],
    window: int,
    tokens: int,
    measured: bool,
) -> ContextFill:
    """The parts of the next request. ``tokens``: the context's size as the status line has
    it; ``measured``: whether the latest answer counted it (not before one, nor after a
    compaction or a resume, which change the conversation unmeasured)."""
    fixed = ContextFill(
        0,
        window,
        system=estimate_tokens(system),
        tools=_tokens(tools),
        skills=_tokens([skill] if skill is not None else []),
        mcp_tools=_tokens(mcp),
    )
    measured_share = max(tokens - fixed.used, 0)
    conversation = measured_share if measured else compaction.estimate_tokens(messages)
    # Auto-compaction starts at COMPACT_AT of the window: what is above it is not free.
    reserve = window - int(compaction.COMPACT_AT * window)
    return msgspec.structs.replace(
        fixed,
        tokens=tokens,
        messages=conversation,
        reserve=reserve,
        measured=measured,
    )
