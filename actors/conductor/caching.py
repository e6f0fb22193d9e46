"""Prompt caching: ``cache_control`` breakpoints on the parts of a request that repeat.

Every request re-sends the tools, the system prompt and the conversation so far. Marking the
end of the tools, the end of the system prompt, the end of the previous request's
conversation and the end of this one (4 breakpoints, the API's maximum) lets the API read all
of it but the newest turn from its cache: a cache read is billed at a tenth of the input
price, a write at 1.25 times.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.protocol import Message

if TYPE_CHECKING:
    from actors.protocol import Block, ModelRequest

EPHEMERAL: Block = {"type": "ephemeral"}  # the 5-minute TTL, which cost_usd prices


def with_breakpoints(request: ModelRequest) -> ModelRequest:
    """``request`` with its breakpoints; the conversation's own messages are not changed."""
    tools = list(request.tools)
    if tools:
        tools[-1] = {**tools[-1], "cache_control": EPHEMERAL}
    system = request.system
    if isinstance(system, str) and system:
        system = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    elif isinstance(system, list) and system:
        system = [*system[:-1], {**system[-1], "cache_control": EPHEMERAL}]
    messages = list(request.messages)
    # The last user message ends this request's prefix; the one before it ended the previous
    # request's, which is what this request finds in the cache. Found from the end: roles
    # alternate, so this looks at a few messages however long the conversation is.
    for index in _last_users(messages, 2):
        messages[index] = _marked(messages[index])
    return msgspec.structs.replace(request, tools=tools, system=system, messages=messages)


def _last_users(messages: list[Message], count: int) -> list[int]:
    found: list[int] = []
    for index in range(len(messages) - 1, -1, -1):
        if len(found) == count:
            break
        if messages[index].role == "user":
            found.append(index)
    return found


def _marked(message: Message) -> Message:
    content = list(message.content)
    for index in range(len(content) - 1, -1, -1):
        # Thinking blocks cannot carry cache_control; the last block that can, does.
        if content[index].get("type") not in ("thinking", "redacted_thinking"):
            content[index] = {**content[index], "cache_control": EPHEMERAL}
            return Message(message.role, content)
    return message
