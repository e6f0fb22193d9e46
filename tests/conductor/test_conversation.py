"""The conversation stays one the API accepts, whatever happened to the turn."""

from __future__ import annotations

from actors.conductor.conversation import Conversation
from actors.conductor.partial import PartialMessage
from actors.protocol import Message, ToolCall, ToolResult


def tool_use(call_id: str) -> dict[str, object]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "ls"}}


def test_results_follow_their_calls_in_one_user_message() -> None:
    conversation = Conversation()
    conversation.add_user_text("list")
    conversation.add_assistant(Message("assistant", [tool_use("a"), tool_use("b")]))
    conversation.add_tool_results(
        [ToolResult(tool_use_id="a", content="x"), ToolResult(tool_use_id="b", content="y")]
    )
    assert [m.role for m in conversation.messages] == ["user", "assistant", "user"]
    assert [b["tool_use_id"] for b in conversation.messages[-1].content] == ["a", "b"]
    assert conversation.pending_tool_uses() == []


def test_an_interrupted_batch_answers_every_call_and_keeps_finished_results() -> None:
    conversation = Conversation()
    conversation.add_user_text("go")
    conversation.add_assistant(Message("assistant", [tool_use("a"), tool_use("b")]))
    done = {"a": ToolResult(tool_use_id="a", content="finished")}
    conversation.close_interrupted([], done)
    last = conversation.messages[-1]
    assert last.role == "user"
    assert last.content[0] == {"type": "tool_result", "tool_use_id": "a", "content": "finished"}
    assert last.content[1]["tool_use_id"] == "b"
    assert last.content[1]["is_error"] is True
    assert "Interrupted" in last.content[1]["content"]
    # The next prompt joins that message instead of breaking the alternation of roles.
    conversation.add_user_text("next")
    assert [m.role for m in conversation.messages] == ["user", "assistant", "user"]
    assert conversation.messages[-1].content[-1] == {"type": "text", "text": "next"}


def test_an_interrupted_stream_keeps_its_text_and_drops_half_a_tool_call() -> None:
    conversation = Conversation()
    conversation.add_user_text("explain")
    partial = PartialMessage()
    partial.add_text(0, "The answer")
    partial.add_text(0, " is")
    # Block 1, a tool call, started but its input never completed: it is not kept.
    conversation.close_interrupted(partial.content(), {})
    assert conversation.messages[-1] == Message(
        "assistant", [{"type": "text", "text": "The answer is"}]
    )


def test_a_stream_cut_after_calls_started_keeps_them_with_their_results() -> None:
    conversation = Conversation()
    conversation.add_user_text("go")
    partial = PartialMessage()
    partial.add_text(0, "Running both.")
    partial.finish(0, {"type": "text", "text": "Running both."})
    assert partial.finish(1, tool_use("a")) == ToolCall("a", "Bash", {"command": "ls"})
    partial.finish(2, tool_use("b"))
    partial.add_text(3, "And then")
    done = {
        "a": ToolResult(tool_use_id="a", content="ran"),
        "b": ToolResult(tool_use_id="b", content="Not run: ...", is_error=True),
    }
    conversation.close_interrupted(partial.content(), done)
    assert conversation.messages[1] == Message(
        "assistant",
        [
            {"type": "text", "text": "Running both."},
            tool_use("a"),
            tool_use("b"),
            {"type": "text", "text": "And then"},
        ],
    )
    assert conversation.messages[2].content == [done["a"].block(), done["b"].block()]


def test_thinking_alone_is_not_kept_of_a_cut_answer() -> None:
    partial = PartialMessage()
    partial.finish(0, {"type": "thinking", "thinking": "hmm", "signature": "sig"})
    partial.add_text(1, "")
    assert partial.content() == []


def test_thinking_closed_without_its_signature_is_not_kept() -> None:
    partial = PartialMessage()
    partial.finish(0, {"type": "thinking", "thinking": "hmm", "signature": ""})
    partial.finish(1, {"type": "text", "text": "So."})
    partial.add_text(2, "And")
    assert partial.content() == [
        {"type": "text", "text": "So."},
        {"type": "text", "text": "And"},
    ]


def test_an_empty_assistant_message_is_never_sent() -> None:
    conversation = Conversation()
    conversation.add_user_text("hi")
    conversation.add_assistant(Message("assistant", [{"type": "text", "text": ""}]))
    assert conversation.messages[-1].content == [{"type": "text", "text": "(no content)"}]
