"""Request checks: what the real API accepts passes, each mistake is named like the API names it."""

from __future__ import annotations

from typing import Any

import pytest

from frontends.demo.scripted_api.validate import Invalid, check_body
from tests.demo.scripted_api.helpers import body

USE = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "text"}
EPHEMERAL = {"type": "ephemeral"}
MISSING_RESULT = (
    "messages.1: tool_use ids were found without tool_result blocks immediately after: toolu_1. "
    "Each tool_use block must have a corresponding tool_result block in the next message."
)


def test_a_full_realistic_body_passes() -> None:
    check_body(
        body(
            {
                "role": "user",
                "content": [{"type": "text", "text": "fix it", "cache_control": EPHEMERAL}],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "text", "text": "Looking."},
                    USE,
                    {
                        "type": "server_tool_use",
                        "id": "srvtoolu_1",
                        "name": "web_search",
                        "input": {},
                    },
                    {"type": "some_future_block", "payload": 1},
                ],
            },
            {
                "role": "user",
                "content": [
                    {**RESULT, "is_error": True, "content": [{"type": "text", "text": "boom"}]},
                    {"type": "text", "text": "go on"},
                ],
            },
            {"role": "assistant", "content": ""},  # a prefill may be empty
            system=[
                {
                    "type": "text",
                    "text": "You are Legato.",
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                }
            ],
            tools=[
                {"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}},
                {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
            ],
            tool_choice={"type": "auto", "disable_parallel_tool_use": False},
            thinking={"type": "enabled", "budget_tokens": 1024},
            max_tokens=4096,
            metadata={"user_id": "opaque"},
            stop_sequences=["END"],
            temperature=1,  # with thinking on, the API takes no other
        )
    )


def _with_tool_use(*after: dict[str, Any]) -> dict[str, Any]:
    return body({"role": "user", "content": "hi"}, {"role": "assistant", "content": [USE]}, *after)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([], "body: Input should be a valid dictionary"),
        ({**body(), "max_token": 5}, "max_token: Extra inputs are not permitted"),
        ({k: v for k, v in body().items() if k != "model"}, "model: Field required"),
        (
            {**body(), "max_tokens": 0},
            "max_tokens: Input should be an integer greater than or equal to 1",
        ),
        (
            {**body(), "max_tokens": True},
            "max_tokens: Input should be an integer greater than or equal to 1",
        ),
        ({**body(), "stream": "yes"}, "stream: Input should be a valid boolean"),
        ({**body(), "messages": []}, "messages: at least one message is required"),
        (
            body({"role": "system", "content": "x"}),
            "messages.0.role: Input should be 'user' or 'assistant'",
        ),
        (
            body({"role": "user", "content": "x", "name": "n"}),
            "messages.0.name: Extra inputs are not permitted",
        ),
        (
            body({"role": "user", "content": ""}),
            "messages.0: all messages must have non-empty content "
            "except for the optional final assistant message",
        ),
        (
            body({"role": "user", "content": [{"type": "text", "text": ""}]}),
            "messages.0.content.0.text: text content blocks must be non-empty",
        ),
        (
            body({"role": "user", "content": [{"text": "x"}]}),
            "messages.0.content.0.type: Field required",
        ),
        (
            body({"role": "user", "content": [USE]}),
            "messages.0.content.0: tool_use blocks can only be in assistant messages",
        ),
        (
            _with_tool_use(),
            MISSING_RESULT,
        ),
        (
            _with_tool_use({"role": "user", "content": "no results"}),
            MISSING_RESULT,
        ),
        (
            body({"role": "user", "content": [RESULT]}),
            "messages.0.content.0: unexpected tool_use_id found in tool_result blocks: toolu_1. "
            "Each tool_result block must have a corresponding tool_use block in the previous "
            "message.",
        ),
        (
            _with_tool_use({"role": "user", "content": [{"type": "tool_result", "content": "x"}]}),
            "messages.2.content.0.tool_use_id: Field required",
        ),
        (
            {**body(), "system": 5},
            "system: Input should be a valid string or a list of text blocks",
        ),
        (
            {**body(), "tools": [{"name": "has space", "input_schema": {"type": "object"}}]},
            "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        ),
        ({**body(), "tools": [{"name": "Read"}]}, "tools.0.input_schema: Field required"),
        (
            {**body(), "tools": [{"name": "A", "input_schema": {"type": "object"}}] * 2},
            "tools: Tool names must be unique.",
        ),
        ({**body(), "tool_choice": {"type": "tool"}}, "tool_choice.tool.name: Field required"),
        (
            {**body(), "thinking": {"type": "enabled", "budget_tokens": 1000}},
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            {**body(), "max_tokens": 2000, "thinking": {"type": "enabled", "budget_tokens": 2000}},
            "max_tokens must be greater than thinking.budget_tokens",
        ),
        (
            body(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "x",
                            "cache_control": {"type": "ephemeral", "ttl": "2h"},
                        }
                    ],
                }
            ),
            "messages.0.content.0.cache_control.ttl: Input should be '5m' or '1h'",
        ),
        (
            body(
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "x", "cache_control": EPHEMERAL}] * 5,
                }
            ),
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        ),
        ({**body(), "metadata": {"user": "x"}}, "metadata.user: Extra inputs are not permitted"),
        ({**body(), "temperature": 1.5}, "temperature: Input should be a number between 0 and 1"),
    ],
)
def test_rejections_name_the_field(payload: Any, message: str) -> None:
    with pytest.raises(Invalid) as info:
        check_body(payload)
    assert str(info.value) == message


def test_count_tokens_takes_no_max_tokens() -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    check_body(payload, count_tokens=True)
    with pytest.raises(Invalid, match="max_tokens: Extra inputs are not permitted"):
        check_body({**payload, "max_tokens": 5}, count_tokens=True)


def test_a_thinking_tool_turn_is_checked_only_with_thinking_on_and_a_signer() -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}
    signed = {"type": "thinking", "thinking": "t", "signature": "x"}
    messages = (
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [signed, use]},
        {"role": "user", "content": [RESULT]},
    )
    never = lambda thinking, signature: False  # noqa: E731
    check_body(body(*messages), signed=never)  # thinking off: older turns are not checked
    check_body(body(*messages, thinking={"type": "adaptive"}))  # no signer: not checked
    with pytest.raises(Invalid, match=r"messages\.1\.content\.0: Invalid `signature`"):
        check_body(body(*messages, thinking={"type": "adaptive"}), signed=never)
    check_body(
        body(*messages, thinking={"type": "adaptive"}), signed=lambda t, s: (t, s) == ("t", "x")
    )


def test_thinking_refuses_a_forced_tool_and_a_changed_temperature() -> None:
    on = {"type": "adaptive"}
    forced = {"type": "tool", "name": "Read"}
    with pytest.raises(Invalid, match="tool_choice forces tool use"):
        check_body(body(thinking=on, tool_choice=forced))
    with pytest.raises(Invalid, match="temperature"):
        check_body(body(thinking=on, temperature=0.2))
    check_body(body(thinking=on, tool_choice={"type": "auto"}, temperature=1))
    check_body(body(thinking={"type": "disabled"}, tool_choice=forced, temperature=0.2))
