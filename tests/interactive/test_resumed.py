"""What a resumed session opens on: its last exchanges, as plain lines compared exactly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.conductor.compaction import compacted
from actors.protocol import Message, SavedSession, TaskLedger, Usage, UsageCounted
from frontends.interactive.resumed import resumed_header, resumed_lines

if TYPE_CHECKING:
    from rich.text import Text

    from actors.protocol import Block


def user(*texts: str) -> Message:
    return Message("user", [{"type": "text", "text": t} for t in texts])


def answer(text: str, *calls: tuple[str, dict[str, str]]) -> Message:
    blocks: list[Block] = [{"type": "text", "text": text}] if text else []
    blocks += [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": arguments}
        for i, (name, arguments) in enumerate(calls)
    ]
    return Message("assistant", blocks)


def result() -> Message:
    return Message("user", [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "ok"}])


def plain(lines: list[Text]) -> list[str]:
    return [line.plain for line in lines]


def test_the_last_three_prompts_are_shown_with_their_answers_and_calls_on_one_line() -> None:
    messages = [
        user("first task"),
        answer("Done first."),
        user("second task"),
        answer("Looking.", ("Read", {"file_path": "/p/src/app.py"})),
        result(),
        answer("", ("Bash", {"command": "npm test\nnpm run lint", "description": "tests"})),
        result(),
        # /undo's note goes out with the next prompt: it is the session's, not typed.
        user("(Note: the user ran /undo, which put back the files)", "third task"),
        answer("\n".join(f"line {n}" for n in range(1, 9))),
        user("fourth task\nwith a second line", "(UserPromptSubmit hook context:\nbranch main)"),
        answer("Fine."),
    ]
    assert plain(resumed_lines(messages, root="/p")) == [
        "… 2 earlier messages",
        "› second task",
        "Looking.",
        "● Read(src/app.py)",
        "● Bash(npm test)",
        "› third task",
        *[f"line {n}" for n in range(1, 7)],
        "  … 2 more lines",
        "› fourth task",
        "Fine.",
    ]


def test_a_compacted_conversation_says_so_and_the_header_gives_date_size_and_tokens() -> None:
    kept = [user("go on"), answer("Going.")]
    messages = compacted("Earlier work.", TaskLedger(goal="ship it"), kept)
    assert plain(resumed_lines(messages, root="/p")) == [
        "(earlier turns compacted into a summary)",
        "› go on",
        "Going.",
    ]
    saved = SavedSession(
        session_id="1a2b3c4d-0000-4000-8000-000000000000",
        messages=messages,
        started="2026-11-24T18:05:00+00:00",
        added=7,
        spent=(
            UsageCounted(Usage(1000, 20, cache_read_input_tokens=3000), "claude-sonnet-4-6"),
            UsageCounted(Usage(5, 4), "claude-haiku-4-5-20251001"),
        ),
    )
    header = resumed_header(saved).plain
    assert header.startswith("Resumed session 1a2b3c4d · started 2026-11-24 ")
    assert header.endswith(" · 7 messages · 4,029 tokens")


def test_a_prompts_images_and_pdfs_show_as_their_names_never_their_data() -> None:
    image: Block = {"type": "image", "source": {"type": "base64", "data": "iVBORw0KGgoAAAA"}}
    document: Block = {"type": "document", "source": {"type": "base64", "data": "JVBERi0x"}}
    messages = [
        Message("user", [{"type": "text", "text": "what is this?"}, image, document]),
        answer("a chart"),
        Message("user", [image]),  # an image alone is a prompt
        answer("another chart"),
    ]
    lines = plain(resumed_lines(messages, root="/p"))
    assert lines == [
        "› what is this? [Image #1] [PDF #1]",
        "a chart",
        "› [Image #2]",
        "another chart",
    ]
    assert not any("iVBOR" in line or "JVBER" in line for line in lines)


def test_a_command_the_person_ran_is_shown_as_they_typed_it() -> None:
    from frontends.export import command_note

    messages = [
        user(command_note("git status", "clean\nExit code 0")),
        user(command_note("ls", "a\nExit code 0"), "what changed?"),
        answer("Nothing."),
    ]
    assert plain(resumed_lines(messages, root="/p")) == [
        "› ! git status",
        "› what changed?",
        "Nothing.",
    ]


def test_a_denied_call_replays_as_denied_and_task_and_mcp_calls_name_their_target() -> None:
    denial = "Permission denied: the user denied it"
    messages = [
        user("clean up"),
        answer("", ("Bash", {"command": "rm -rf build"}), ("Bash", {"command": "ls"})),
        Message(
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_0",
                    "content": denial,
                    "is_error": True,
                },
                # A command whose own output says so ran all the same: only the broker denies.
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "Permission denied: ./x"}],
                },
            ],
        ),
        Message(
            "assistant",
            [
                {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": arguments}
                for name, arguments in (
                    ("TaskOutput", {"task_id": "bash_1"}),
                    ("TaskStop", {"task_id": "bash_1"}),
                    ("mcp__toy__shout", {"text": "ab" * 40, "times": 2}),
                )
            ],
        ),
    ]
    assert plain(resumed_lines(messages, root="/p")) == [
        "› clean up",
        "✗ Bash(rm -rf build)  denied",
        "● Bash(ls)",
        "● TaskOutput(bash_1)",
        "● TaskStop(bash_1)",
        '● toy: shout {"text": "ababababababababababababababababababababababababa…',
    ]
