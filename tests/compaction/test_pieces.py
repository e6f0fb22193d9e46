"""The parts of compaction that need no model: the cut, the parsing, the new conversation."""

from __future__ import annotations

from actors.conductor import ledger
from actors.conductor.compaction import (
    compacted,
    needs_compaction,
    parse_summary,
    split_point,
    summary_request,
)
from actors.protocol import Message, ModelRequest, TaskLedger


def user(text: str) -> Message:
    return Message("user", [{"type": "text", "text": text}])


def calls(call_id: str) -> Message:
    return Message("assistant", [{"type": "tool_use", "id": call_id, "name": "Read", "input": {}}])


def result(call_id: str) -> Message:
    return Message("user", [{"type": "tool_result", "tool_use_id": call_id, "content": "x"}])


def test_the_cut_is_before_an_assistant_message_so_results_keep_their_calls() -> None:
    messages = [user("go"), calls("a"), result("a"), calls("b"), result("b"), calls("c")]
    cut = split_point(messages, keep=3)
    assert cut == 3
    new = compacted("did a", TaskLedger(goal="go"), messages[cut:])
    assert [m.role for m in new] == ["user", "assistant", "user", "assistant"]


def test_a_conversation_too_short_is_not_compacted() -> None:
    assert split_point([user("hi")]) is None
    assert split_point([user("hi"), Message("assistant", [{"type": "text", "text": "yo"}])]) == 1


def test_the_threshold_leaves_room_for_the_next_answer() -> None:
    assert not needs_compaction(79_999, 100_000)
    assert needs_compaction(80_000, 100_000)


def test_the_summary_sections_are_read_into_the_ledger_fields() -> None:
    answer = (
        "## Summary\nRenamed parse to load.\n## Decisions\n- keep the old name as an alias\n"
        "## Open steps\n- update the docs\n- run the tests\n"
    )
    summary = parse_summary(answer)
    assert summary.text == "Renamed parse to load."
    assert summary.decisions == ["keep the old name as an alias"]
    assert summary.open_steps == ["update the docs", "run the tests"]
    assert parse_summary("just prose").text == "just prose"


def test_the_summary_request_ends_with_the_ledger_and_the_instruction() -> None:
    base = ModelRequest(model="m", max_tokens=16_384, messages=[], system="sys", speed="fast")
    request = summary_request(base, [user("go"), calls("a"), result("a")], TaskLedger(goal="go"))
    last = request.messages[-1]
    assert last.role == "user" and last.content[0]["type"] == "tool_result"
    assert "<task-ledger>" in last.content[-1]["text"]
    assert "## Open steps" in last.content[-1]["text"]
    assert request.max_tokens == 4096 and request.speed is None and request.system == "sys"


def test_the_ledger_keeps_decisions_adds_files_once_and_renders_the_same() -> None:
    kept = ledger.start("Port the parser to msgspec")
    kept = ledger.touch(kept, ["/p/a.py", "/p/b.py"])
    kept = ledger.touch(kept, ["/p/a.py", "/p/c.py"])
    kept = ledger.merge(kept, ["use Struct"], ["tests"])
    kept = ledger.merge(kept, ["use Struct", "drop py3.9"], ["docs"])
    assert kept.files_touched == ("/p/a.py", "/p/b.py", "/p/c.py")
    assert kept.decisions == ("use Struct", "drop py3.9")
    assert kept.open_steps == ("docs",)
    assert ledger.render(kept) == (
        "<task-ledger>\nGoal:\nPort the parser to msgspec\nDecisions:\n- use Struct\n"
        "- drop py3.9\nFiles touched:\n- /p/a.py\n- /p/b.py\n- /p/c.py\nOpen steps:\n- docs\n"
        "</task-ledger>"
    )


def thought(call_id: str) -> Message:
    signed = {"type": "thinking", "thinking": "hm", "signature": "s"}
    return Message("assistant", [signed, *calls(call_id).content])


def test_the_summary_request_keeps_room_for_a_thinking_budget() -> None:
    thinking = {"type": "enabled", "budget_tokens": 8000}
    base = ModelRequest(model="m", max_tokens=24_000, messages=[], thinking=thinking)
    request = summary_request(base, [user("go"), thought("a"), result("a")], TaskLedger(goal="go"))
    assert request.thinking == thinking
    assert request.max_tokens == 8000 + 4096  # the budget below it, the summary's room above


def test_a_summary_after_results_of_a_turn_that_did_not_think_asks_without_thinking() -> None:
    # Thinking came on later in the session (a resume with a budget): the API refuses thinking
    # with results whose turn did not begin with it.
    thinking = {"type": "enabled", "budget_tokens": 8000}
    base = ModelRequest(model="m", max_tokens=24_000, messages=[], thinking=thinking)
    request = summary_request(base, [user("go"), calls("a"), result("a")], TaskLedger(goal="go"))
    assert request.thinking == {"type": "disabled"}
    assert request.max_tokens == 4096
