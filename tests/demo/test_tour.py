"""The terminal demo's model (frontends/demo/tour.py): each answer picked from the conversation,
so that whatever the person types, refuses, stops or rewinds, the next reply fits it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api.steps import RecordedRequest
from frontends.demo.tour import SLOW_COMMAND, tour

if TYPE_CHECKING:
    from pathlib import Path

    from frontends.demo.scripted_api.steps import Step


def ask(root: Path, messages: list[dict[str, Any]]) -> Step:
    request = RecordedRequest("POST", "/v1/messages", {}, {"messages": messages})
    return tour(str(root))(request)


def prompt(words: str, *results: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": [*results, {"type": "text", "text": words}]}


def said(step: Step, number: int) -> dict[str, Any]:
    """The assistant message the step plays, its calls numbered ``number``."""
    content: list[dict[str, Any]] = [{"type": "text", "text": step.text or ""}]
    content += [
        {"type": "tool_use", "id": f"t{number}{i}", "name": c.name, "input": c.input}
        for i, c in enumerate(step.tool_calls)
    ]
    return {"role": "assistant", "content": content}


def results(step: Step, number: int, *, error: bool = False) -> list[dict[str, Any]]:
    return [
        {"type": "tool_result", "tool_use_id": f"t{number}{i}", "content": "x", "is_error": error}
        for i in range(len(step.tool_calls))
    ]


def test_the_tour_follows_what_the_person_did(tmp_path: Path) -> None:
    talk: list[dict[str, Any]] = [prompt("anything at all")]
    reads = ask(tmp_path, talk)
    assert [c.name for c in reads.tool_calls] == ["Read", "Read"]
    talk += [said(reads, 1), {"role": "user", "content": results(reads, 1)}]
    edit = ask(tmp_path, talk)
    assert [c.name for c in edit.tool_calls] == ["Edit"]

    # A refused edit is answered as such, and the next prompt starts the fix again.
    refused = [*talk, said(edit, 2), {"role": "user", "content": results(edit, 2, error=True)}]
    assert "You said no" in (ask(tmp_path, refused).text or "")
    again = ask(tmp_path, [*refused, said(ask(tmp_path, refused), 3), prompt("again")])
    assert [c.name for c in again.tool_calls] == ["Read", "Read"]

    talk += [said(edit, 2), {"role": "user", "content": results(edit, 2)}]
    fixed = ask(tmp_path, talk)
    assert "Fixed" in (fixed.text or "") and "Esc" in (fixed.text or "")
    talk += [said(fixed, 3), prompt("run the checks")]
    slow = ask(tmp_path, talk)
    assert [c.input for c in slow.tool_calls] == [
        {"command": SLOW_COMMAND, "description": "Run the slow checks"}
    ]

    ran = [*talk, said(slow, 4), {"role": "user", "content": results(slow, 4)}]
    assert "ran to the end" in (ask(tmp_path, ran).text or "")
    failed = [*talk, said(slow, 4), {"role": "user", "content": results(slow, 4, error=True)}]
    assert "did not run to the end" in (ask(tmp_path, failed).text or "")

    # Esc: the stopped call is closed in the next prompt's own message.
    talk += [said(slow, 4), prompt("what now?", *results(slow, 4, error=True))]
    closing = ask(tmp_path, talk)
    assert "you stopped the slow command" in (closing.text or "")
    assert "/undo" in (closing.text or "") and "/rewind" in (closing.text or "")
    talk += [said(closing, 5), prompt("more?")]
    assert "end of the demo's script" in (ask(tmp_path, talk).text or "")

    # A rewind to before the slow command: the tour picks up from there.
    assert ask(tmp_path, [*talk[:6], prompt("once more")]).tool_calls == slow.tool_calls
