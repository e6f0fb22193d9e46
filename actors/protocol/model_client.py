"""The model client's inbox: a request streamed to the API as events, and what the provider and
the API report of themselves.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from actors.protocol.conversation import Block, Message, Usage
from runtime import Ask, Streamed


class ModelRequest(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    model: str
    max_tokens: int
    messages: list[Message]
    system: str | list[Block] | None = None
    tools: list[Block] = msgspec.field(default_factory=list)
    thinking: Block | None = None
    output_config: Block | None = None  # {"effort": level} (actors/reasoning.py)
    speed: Literal["fast"] | None = None


class MessageStarted(msgspec.Struct, frozen=True, tag=True):
    id: str
    model: str


class TextDelta(msgspec.Struct, frozen=True, tag=True):
    index: int
    text: str


class ThinkingDelta(msgspec.Struct, frozen=True, tag=True):
    index: int
    thinking: str


class ToolUseStarted(msgspec.Struct, frozen=True, tag=True):
    index: int
    id: str
    name: str


class ToolInputDelta(msgspec.Struct, frozen=True, tag=True):
    index: int
    partial_json: str


class BlockFinished(msgspec.Struct, frozen=True, tag=True):
    """A content block is complete; ``block`` is exactly what goes back to the API."""

    index: int
    block: Block


class Retrying(msgspec.Struct, frozen=True, tag=True):
    """The request failed in a way worth retrying; the client waits ``delay`` seconds."""

    attempt: int
    delay: float
    reason: str


class MessageFinished(msgspec.Struct, frozen=True, tag=True):
    """The whole answer. Also shown to the UI by the conductor, with ``stop_reason`` None and no
    usage, for an answer cut short after some of its tool calls started: what the conversation
    keeps of it, so that every frontend can show a call's result after the message that asked."""

    message: Message  # role "assistant", every block in order, unknown ones included
    stop_reason: str | None
    usage: Usage


ModelEvent = (
    MessageStarted
    | TextDelta
    | ThinkingDelta
    | ToolUseStarted
    | ToolInputDelta
    | BlockFinished
    | Retrying
    | MessageFinished
)


class StreamMessage(Streamed[ModelEvent], frozen=True, tag=True):
    """Stream one assistant message. Ends after ``MessageFinished``; API failures raise ApiError."""

    request: ModelRequest


class Finding(msgspec.Struct, frozen=True):
    """Something that stands in a session's way, and what to do about it (``legato doctor``)."""

    what: str
    remedy: str


Provider = Literal["anthropic", "bedrock", "openai"]


class ProviderReport(msgspec.Struct, frozen=True, kw_only=True):
    """Where a model's requests would go, and with which credentials: names, never values."""

    provider: Provider
    base_url: str  # no /v1: the paths add it
    credentials: tuple[str, ...]  # in words: "Anthropic API at ... with the key from ..."
    problems: tuple[Finding, ...] = ()  # a missing key, region or optional extra
    # What the provider takes besides text and images: the Messages API's server-side web
    # search (the WebSearch tool is offered only where it is), and document blocks (a PDF
    # Read gives the pages' text where it is not).
    web_search: bool = True
    documents: bool = True


class DescribeProvider(Ask[ProviderReport], frozen=True, tag=True):
    """Which API a request for ``model`` would go to, with which credentials, and what stands
    in the way; nothing is sent (``legato config``, ``legato doctor``)."""

    model: str


class ProbeReport(msgspec.Struct, frozen=True):
    line: str  # "POST <url> -> HTTP 400: reachable, credentials accepted", or why not
    problem: Finding | None = None


class ProbeApi(Ask[ProbeReport], frozen=True, tag=True):
    """Send ``model``'s API a request with no messages and judge the answer (``legato doctor``).

    The API checks the credentials before the body, so HTTP 400 means "reachable, credentials
    accepted" and costs nothing; 401/403 means they were refused.
    """

    model: str
    timeout: float = 10.0  # seconds, for each of connecting, sending and reading


ModelClientMsg = StreamMessage | DescribeProvider | ProbeApi
