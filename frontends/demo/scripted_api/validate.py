"""Request checks like the real Messages API's, so a client bug fails here and not in production.

Messages follow the API's style: the dotted path of the field, then what is wrong with it
(``messages.1.content.0.tool_use_id: Field required``). Block types the API may add later are let
through with only their ``type`` checked, since clients must send unknown blocks back unchanged.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api.web_search import Invalid as SearchInvalid
from frontends.demo.scripted_api.web_search import check_search_blocks, check_search_tool

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

MAX_CACHE_BREAKPOINTS = 4
MESSAGE_FIELDS = frozenset({"role", "content"})
# Top-level fields the API accepts; anything else is "Extra inputs are not permitted".
COUNT_TOKENS_FIELDS = frozenset(
    {
        "model",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "thinking",
        "mcp_servers",
        "context_management",
        "output_config",
        "output_format",
        "cache_control",
        "speed",
    }
)
MESSAGES_FIELDS = COUNT_TOKENS_FIELDS | {
    "max_tokens",
    "stream",
    "stop_sequences",
    "metadata",
    "temperature",
    "top_p",
    "top_k",
    "service_tier",
    "container",
    "inference_geo",
}
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


class Invalid(Exception):
    """A request the API would answer with 400 invalid_request_error; str() is the message."""


def check_body(
    body: Any, *, count_tokens: bool = False, signed: Callable[[str, str], bool] | None = None
) -> None:
    """Raise Invalid naming the first field that the real API would reject. ``signed``: whether
    a thinking block's signature is one the server gave for that thinking (None: not checked)."""
    body = _object(body, "body")
    allowed = COUNT_TOKENS_FIELDS if count_tokens else MESSAGES_FIELDS
    for key in body:
        if key not in allowed:
            raise Invalid(f"{key}: Extra inputs are not permitted")
    model = _required(body, "model", "model")
    if not isinstance(model, str) or not model:
        raise Invalid("model: Input should be a valid non-empty string")
    if not count_tokens:
        max_tokens = _required(body, "max_tokens", "max_tokens")
        if not _is_int(max_tokens) or max_tokens < 1:
            raise Invalid("max_tokens: Input should be an integer greater than or equal to 1")
        if "stream" in body and not isinstance(body["stream"], bool):
            raise Invalid("stream: Input should be a valid boolean")
        _check_options(body)
    if "system" in body:
        _check_system(body["system"])
    if "tools" in body:
        _check_tools(body["tools"])
    if "tool_choice" in body:
        _check_tool_choice(body["tool_choice"])
    if "thinking" in body:
        _check_thinking(body["thinking"], None if count_tokens else body["max_tokens"])
        _check_with_thinking(body)
    _check_messages(_required(body, "messages", "messages"))
    if isinstance(body.get("thinking"), dict) and signed is not None:
        _check_thinking_turn(body["messages"], body["thinking"].get("type"), signed)
    breakpoints = sum(
        _count_cache_control(body.get(key)) for key in ("tools", "system", "messages")
    )
    if breakpoints > MAX_CACHE_BREAKPOINTS:
        raise Invalid(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {breakpoints}."
        )


def _check_options(body: Mapping[str, Any]) -> None:
    if "stop_sequences" in body:
        stops = body["stop_sequences"]
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise Invalid("stop_sequences: Input should be a valid list of strings")
    if "metadata" in body:
        metadata = _object(body["metadata"], "metadata")
        for key, value in metadata.items():
            if key != "user_id":
                raise Invalid(f"metadata.{key}: Extra inputs are not permitted")
            if value is not None and not isinstance(value, str):
                raise Invalid("metadata.user_id: Input should be a valid string")
    for name, low, high in (("temperature", 0, 1), ("top_p", 0, 1)):
        if name in body:
            value = body[name]
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not low <= value <= high
            ):
                raise Invalid(f"{name}: Input should be a number between {low} and {high}")


def _check_system(system: Any) -> None:
    if isinstance(system, str):
        return
    if not isinstance(system, list):
        raise Invalid("system: Input should be a valid string or a list of text blocks")
    for index, block in enumerate(system):
        block = _object(block, f"system.{index}")
        if block.get("type") != "text":
            raise Invalid(f"system.{index}.type: Input should be 'text'")
        _check_block(block, f"system.{index}")


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, list):
        raise Invalid("tools: Input should be a valid list")
    names: set[str] = set()
    for index, tool in enumerate(tools):
        tool = _object(tool, f"tools.{index}")
        name = _required(tool, "name", f"tools.{index}.name")
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise Invalid(
                f"tools.{index}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
            )
        if name in names:
            raise Invalid("tools: Tool names must be unique.")
        names.add(name)
        if str(tool.get("type", "")).startswith("web_search_"):
            _search_checked(check_search_tool, tool, f"tools.{index}")
        if tool.get("type", "custom") != "custom":
            continue  # a server tool (web_search_..., bash_...): its own fields, checked by the API
        schema = _object(
            _required(tool, "input_schema", f"tools.{index}.input_schema"),
            f"tools.{index}.input_schema",
        )
        if schema.get("type") != "object":
            raise Invalid(f"tools.{index}.input_schema.type: Input should be 'object'")
        if "description" in tool and not isinstance(tool["description"], str):
            raise Invalid(f"tools.{index}.description: Input should be a valid string")


def _check_tool_choice(choice: Any) -> None:
    choice = _object(choice, "tool_choice")
    kind = choice.get("type")
    if kind not in ("auto", "any", "tool", "none"):
        raise Invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
    if kind == "tool" and not isinstance(choice.get("name"), str):
        raise Invalid("tool_choice.tool.name: Field required")


def _check_thinking(thinking: Any, max_tokens: int | None) -> None:
    thinking = _object(thinking, "thinking")
    kind = thinking.get("type")
    if kind not in ("enabled", "disabled", "adaptive"):
        raise Invalid("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'")
    if kind != "enabled":
        return
    budget = _required(thinking, "budget_tokens", "thinking.enabled.budget_tokens")
    if not _is_int(budget) or budget < 1024:
        raise Invalid(
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        )
    if max_tokens is not None and max_tokens <= budget:
        raise Invalid("max_tokens must be greater than thinking.budget_tokens")


def _check_thinking_turn(
    messages: list[Any], kind: Any, signed: Callable[[str, str], bool]
) -> None:
    """With thinking on, the assistant turn whose tool calls the last message answers must
    come back as it was given: its thinking blocks with their signatures unchanged and, with a
    fixed budget, first (the API continues the model's reasoning from them)."""
    if kind not in ("enabled", "adaptive") or len(messages) < 2:
        return
    index = len(messages) - 2
    turn, last = messages[index], messages[-1]
    if turn["role"] != "assistant" or not _result_ids(last):
        return
    content = turn["content"]
    if not isinstance(content, list):
        return
    for number, block in enumerate(content):
        if block.get("type") == "thinking" and not signed(block["thinking"], block["signature"]):
            raise Invalid(
                f"messages.{index}.content.{number}: Invalid `signature` in `thinking` block"
            )
    first = content[0].get("type") if content else None
    if kind == "enabled" and first not in ("thinking", "redacted_thinking"):
        raise Invalid(
            f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but "
            f"found `{first}`. When `thinking` is enabled, a final `assistant` message must "
            "start with a thinking block (preceeding the lastmost set of `tool_use` and "
            "`tool_result` blocks)."
        )


def _check_with_thinking(body: Mapping[str, Any]) -> None:
    """What the API refuses beside thinking that is on: a sampling setting other than the
    default, and a tool_choice that forces a call (the model must be free to think first)."""
    if body["thinking"].get("type") not in ("enabled", "adaptive"):
        return
    if "temperature" in body and body["temperature"] != 1:
        raise Invalid("`temperature` may only be set to 1 when thinking is enabled")
    if "top_k" in body:
        raise Invalid("`top_k` is not supported when thinking is enabled")
    if isinstance(body.get("tool_choice"), dict) and body["tool_choice"].get("type") in (
        "any",
        "tool",
    ):
        raise Invalid("Thinking may not be enabled when tool_choice forces tool use.")


def _check_messages(messages: Any) -> None:
    if not isinstance(messages, list):
        raise Invalid("messages: Input should be a valid list")
    if not messages:
        raise Invalid("messages: at least one message is required")
    for index, message in enumerate(messages):
        _check_message(message, index, last=index == len(messages) - 1)
    for index, message in enumerate(messages):
        _check_tool_pairing(messages, index, message)


def _check_message(message: Any, index: int, *, last: bool) -> None:
    path = f"messages.{index}"
    message = _object(message, path)
    for key in message:
        if key not in MESSAGE_FIELDS:
            raise Invalid(f"{path}.{key}: Extra inputs are not permitted")
    role = _required(message, "role", f"{path}.role")
    if role not in ("user", "assistant"):
        raise Invalid(f"{path}.role: Input should be 'user' or 'assistant'")
    content = _required(message, "content", f"{path}.content")
    empty = content == "" or content == []
    if empty and not (last and role == "assistant"):
        raise Invalid(
            f"{path}: all messages must have non-empty content "
            "except for the optional final assistant message"
        )
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise Invalid(f"{path}.content: Input should be a valid string or list of blocks")
    for number, block in enumerate(content):
        block_path = f"{path}.content.{number}"
        block = _object(block, block_path)
        kind = block.get("type")
        if kind == "tool_use" and role != "assistant":
            raise Invalid(f"{block_path}: tool_use blocks can only be in assistant messages")
        if kind == "tool_result" and role != "user":
            raise Invalid(f"{block_path}: tool_result blocks can only be in user messages")
        _check_block(block, block_path)
    if role == "assistant":
        _search_checked(check_search_blocks, content, path)


def _check_block(block: Mapping[str, Any], path: str) -> None:
    kind = block.get("type")
    if not isinstance(kind, str):
        raise Invalid(f"{path}.type: Field required")
    match kind:
        case "text":
            text = _required(block, "text", f"{path}.text")
            if not isinstance(text, str):
                raise Invalid(f"{path}.text: Input should be a valid string")
            if not text:
                raise Invalid(f"{path}.text: text content blocks must be non-empty")
        case "tool_use":
            for key in ("id", "name"):
                if not isinstance(_required(block, key, f"{path}.{key}"), str):
                    raise Invalid(f"{path}.{key}: Input should be a valid string")
            _object(_required(block, "input", f"{path}.input"), f"{path}.input")
        case "tool_result":
            if not isinstance(_required(block, "tool_use_id", f"{path}.tool_use_id"), str):
                raise Invalid(f"{path}.tool_use_id: Input should be a valid string")
            if "is_error" in block and not isinstance(block["is_error"], bool):
                raise Invalid(f"{path}.is_error: Input should be a valid boolean")
            content = block.get("content", "")
            if isinstance(content, list):
                for number, inner in enumerate(content):
                    _check_block(
                        _object(inner, f"{path}.content.{number}"), f"{path}.content.{number}"
                    )
            elif not isinstance(content, str):
                raise Invalid(f"{path}.content: Input should be a valid string or list of blocks")
        case "thinking":
            for key in ("thinking", "signature"):
                if not isinstance(_required(block, key, f"{path}.{key}"), str):
                    raise Invalid(f"{path}.{key}: Input should be a valid string")
        case "redacted_thinking":
            if not isinstance(_required(block, "data", f"{path}.data"), str):
                raise Invalid(f"{path}.data: Input should be a valid string")
        case "image" | "document":
            _object(_required(block, "source", f"{path}.source"), f"{path}.source")
        case _:
            pass  # a block type this server does not know: the client must keep it as it came
    if "cache_control" in block:
        _check_cache_control(block["cache_control"], f"{path}.cache_control")


def _search_checked(check: Callable[[Any, str], None], value: Any, path: str) -> None:
    try:
        check(value, path)
    except SearchInvalid as exc:
        raise Invalid(str(exc)) from None


def _check_cache_control(value: Any, path: str) -> None:
    value = _object(value, path)
    if value.get("type") != "ephemeral":
        raise Invalid(f"{path}.type: Input should be 'ephemeral'")
    if "ttl" in value and value["ttl"] not in ("5m", "1h"):
        raise Invalid(f"{path}.ttl: Input should be '5m' or '1h'")


def _check_tool_pairing(messages: list[Any], index: int, message: Mapping[str, Any]) -> None:
    """Every tool_use must be answered in the very next user message, and nothing else."""
    content = message["content"]
    if not isinstance(content, list):
        return
    if message["role"] == "assistant":
        use_ids = [b["id"] for b in content if b.get("type") == "tool_use"]
        if not use_ids:
            return
        following = messages[index + 1] if index + 1 < len(messages) else None
        answered = set()
        if following is not None and following["role"] == "user":
            answered = _result_ids(following)
        if missing := [tool_id for tool_id in use_ids if tool_id not in answered]:
            raise Invalid(
                f"messages.{index}: tool_use ids were found without tool_result blocks "
                f"immediately after: {', '.join(missing)}. Each tool_use block must have a "
                "corresponding tool_result block in the next message."
            )
        return
    previous = messages[index - 1] if index > 0 else None
    used: set[str] = set()
    if (
        previous is not None
        and previous["role"] == "assistant"
        and isinstance(previous["content"], list)
    ):
        used = {b["id"] for b in previous["content"] if b.get("type") == "tool_use"}
    for number, block in enumerate(content):
        if block.get("type") == "tool_result" and block["tool_use_id"] not in used:
            raise Invalid(
                f"messages.{index}.content.{number}: unexpected tool_use_id found in tool_result "
                f"blocks: {block['tool_use_id']}. Each tool_result block must have a "
                "corresponding tool_use block in the previous message."
            )


def _result_ids(message: Mapping[str, Any]) -> set[str]:
    content = message["content"]
    if not isinstance(content, list):
        return set()
    return {b["tool_use_id"] for b in content if b.get("type") == "tool_result"}


def _count_cache_control(value: Any) -> int:
    """Blocks carrying cache_control anywhere in tools, system or messages."""
    if isinstance(value, list):
        return sum(_count_cache_control(item) for item in value)
    if isinstance(value, dict):
        own = 1 if "cache_control" in value else 0
        return own + sum(_count_cache_control(v) for k, v in value.items() if k in ("content",))
    return 0


def _object(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"{path}: Input should be a valid dictionary")
    return value


def _required(mapping: Mapping[str, Any], key: str, path: str) -> Any:
    if key not in mapping:
        raise Invalid(f"{path}: Field required")
    return mapping[key]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
