"""An OpenAI-compatible chat-completions provider, for local models (Ollama, llama.cpp, vLLM).

Selected by the model prefix ``openai:`` (``--model openai:qwen2.5-coder``); requests go to
``{OPENAI_BASE_URL}/chat/completions`` (default ``http://localhost:11434/v1``, Ollama's), with
``Authorization: Bearer $OPENAI_API_KEY`` when that is set (local servers usually need none).

The conversation stays in the Messages API's shape; it is converted here, per request:
``tool_use`` blocks become the assistant's ``tool_calls``, each ``tool_result`` a ``tool``
message, and the tool definitions OpenAI's ``function`` tools; images and PDFs as
``openai_media.py`` says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.errors import ApiError, ConnectionFailed, RequestRejected
from actors.model_client import http
from actors.model_client.client import MessagesClient
from actors.model_client.endpoint import Endpoint, normalise_base_url
from actors.model_client.providers import openai_media
from actors.model_client.sse import SSEDecoder

if TYPE_CHECKING:
    from collections.abc import Mapping

    import httpx

    from actors.model_client.client import Assembler, Decoder
    from actors.protocol import Block, Message, ModelRequest

PREFIX = "openai:"
DEFAULT_BASE_URL = "http://localhost:11434/v1"  # Ollama's OpenAI-compatible API


def openai_endpoint(env: Mapping[str, str]) -> Endpoint:
    configured = (env.get("OPENAI_BASE_URL") or "").strip()
    key = (env.get("OPENAI_API_KEY") or "").strip() or None
    # The OpenAI convention puts /v1 in the base URL; it is kept (normalise_base_url strips it
    # for the Messages API, so it is put back).
    base = normalise_base_url(configured or DEFAULT_BASE_URL) + "/v1"
    return Endpoint(
        base_url=base,
        api_key=key,
        key_source="OPENAI_API_KEY" if key else None,
        base_url_source="OPENAI_BASE_URL" if configured else None,
    )


class OpenAIClient(MessagesClient):
    def prepare(self, request: ModelRequest) -> tuple[str, bytes, dict[str, str]]:
        if not self.endpoint.base_url.startswith(("http://", "https://")):
            raise ConnectionFailed(
                f"OPENAI_BASE_URL is {self.endpoint.base_url!r}, which is not an http(s) address",
                remedy="Set OPENAI_BASE_URL to your server's address, e.g. http://localhost:11434/v1",
            )
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if self.endpoint.api_key:
            headers["authorization"] = f"Bearer {self.endpoint.api_key}"
        url = f"{self.endpoint.base_url}/chat/completions"
        return url, msgspec.json.encode(chat_body(request)), headers

    def status_failure(self, status: int, headers: httpx.Headers, body: bytes) -> ApiError:
        error = http.status_error(self.endpoint, status, headers, body)
        if status in (401, 403) and self.endpoint.key_source is None:
            # None was sent: the remedy is to set one, not to check ASSISTANT_API_KEY.
            error.remedy = (
                "Set OPENAI_API_KEY to the server's key: export OPENAI_API_KEY=<your key>"
            )
        if isinstance(error, RequestRejected) and status == 404:
            return RequestRejected(
                error.message,
                status=status,
                remedy="Check the model name after 'openai:' (for Ollama: ollama list) "
                "and OPENAI_BASE_URL",
            )
        return error

    def decoders(self, request_id: str | None) -> tuple[Decoder, Assembler]:
        # Loaded with the first request to such a server, not with every session's providers.
        from actors.model_client.providers.openai_stream import ChatAssembler

        return SSEDecoder(), ChatAssembler(request_id=request_id)


def chat_body(request: ModelRequest) -> dict[str, Any]:
    """A ``ModelRequest`` as a streaming chat-completions body."""
    messages: list[dict[str, Any]] = []
    system = _text(request.system) if request.system is not None else ""
    if system:
        messages.append({"role": "system", "content": system})
    for message in request.messages:
        messages += convert_message(message)
    body: dict[str, Any] = {
        "model": request.model.removeprefix(PREFIX),
        "messages": messages,
        "max_tokens": request.max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool.get("description", ""),
                    "parameters": tool.get("input_schema", {"type": "object"}),
                },
            }
            for tool in request.tools
        ]
    return body


def convert_message(message: Message) -> list[dict[str, Any]]:
    """One Messages API message -> the chat messages it becomes (tool results each their own)."""
    if message.role == "assistant":
        text = _text(message.content)
        calls = [
            {
                "id": block["id"],
                "type": "function",
                "function": {
                    "name": block["name"],
                    "arguments": msgspec.json.encode(block.get("input") or {}).decode(),
                },
            }
            for block in message.content
            if block.get("type") == "tool_use"
        ]
        out: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    # Tool results answer the previous assistant message, so they come first, as OpenAI wants.
    results: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []  # the tools' images, for the user message after them
    for block in message.content:
        if block.get("type") != "tool_result":
            continue
        content = openai_media.parts(block.get("content", ""))
        text = openai_media.joined_text(content)
        results.append(
            {
                "role": "tool",
                "tool_call_id": block["tool_use_id"],
                "content": f"Error: {text}" if block.get("is_error") else text,
            }
        )
        images = [part for part in content if part["type"] == "image_url"]
        if images:
            said = f"The image(s) from tool call {block['tool_use_id']}:"
            shown += [{"type": "text", "text": said}, *images]
    own = openai_media.parts(
        [block for block in message.content if block.get("type") != "tool_result"]
    )
    if not shown and all(part["type"] == "text" for part in own):
        text = openai_media.joined_text(own)
        return [*results, {"role": "user", "content": text}] if text else results
    return [*results, {"role": "user", "content": [*shown, *own]}]


def _text(content: str | list[Block]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text" and b.get("text"))
