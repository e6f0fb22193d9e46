"""Request bodies: the encoder that re-uses the history's JSON sends the same bytes as a full
encoding, and its work per request does not grow with the conversation."""

from __future__ import annotations

import tracemalloc

from actors.conductor.caching import with_breakpoints
from actors.conductor.conversation import Conversation
from actors.model_client.http import BodyEncoder, encode_body
from actors.protocol import Message, ModelRequest, ToolResult


def request(conversation: Conversation) -> ModelRequest:
    plain = ModelRequest(
        model="m",
        max_tokens=100,
        messages=list(conversation.messages),
        system="You help.",
        tools=[{"name": "Read", "input_schema": {"type": "object"}}],
    )
    return with_breakpoints(plain)


def test_a_long_session_encodes_a_few_messages_per_request_and_the_same_bytes() -> None:
    conversation = Conversation()
    conversation.add_user_text('go, and say \u00e9 "quoted"')
    encoder = BodyEncoder()
    per_request = []
    for turn in range(300):
        body = request(conversation)
        before = encoder.messages_encoded
        assert encoder.encode(body) == encode_body(body)
        per_request.append(encoder.messages_encoded - before)
        call = {"type": "tool_use", "id": f"t{turn}", "name": "Read", "input": {"n": turn}}
        conversation.add_assistant(Message("assistant", [call]))
        conversation.add_tool_results([ToolResult(tool_use_id=f"t{turn}", content="x" * turn)])
    # The newest messages and the two the caching marks copy, however long the history.
    assert max(per_request[3:]) <= 5
    assert encoder.messages_encoded < 5 * 300


def test_a_history_changed_at_its_start_is_encoded_again() -> None:
    conversation = Conversation()
    conversation.add_user_text("first")
    encoder = BodyEncoder()
    encoder.encode(request(conversation))
    conversation.messages = [Message("user", [{"type": "text", "text": "compacted"}])]
    body = request(conversation)
    assert encoder.encode(body) == encode_body(body)
    empty = ModelRequest(model="m", max_tokens=1, messages=[])
    assert encoder.encode(empty) == encode_body(empty)


def test_the_history_is_copied_once_per_request() -> None:
    conversation = Conversation()
    conversation.add_user_text("go")
    encoder = BodyEncoder()
    for turn in range(300):
        encoder.encode(request(conversation))
        call = {"type": "tool_use", "id": f"t{turn}", "name": "Read", "input": {"n": turn}}
        conversation.add_assistant(Message("assistant", [call]))
        conversation.add_tool_results([ToolResult(tool_use_id=f"t{turn}", content="x" * 100)])
    body = request(conversation)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        sent = encoder.encode(body)
        allocated = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert sent == encode_body(body)
    # The body itself, and the join's bookkeeping (smaller than the body): no second copy of
    # the history's JSON on the way.
    assert allocated < 2 * len(sent)


def test_nul_characters_anywhere_leave_the_same_bytes() -> None:
    # The body is joined around a NUL byte in the request's JSON, which a string can never
    # put there: JSON escapes it.
    text = [{"type": "text", "text": "a\0b"}]
    body = ModelRequest(
        model="m\0", max_tokens=1, messages=[Message("user", text)], system="s\0", tools=[]
    )
    assert BodyEncoder().encode(body) == encode_body(body)
