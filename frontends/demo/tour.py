"""The interactive demo's model: answers picked from the conversation, whatever the person types.

The terminal demo (``legato --demo`` at a terminal) cannot count on the person typing what a
fixed list of steps expects: they may send anything, say no to a question, stop a command with
Esc, or rewind. So each answer is chosen from what the conversation the server is sent already
holds: a tool result gets the step that follows that tool; a new prompt gets the next stage the
conversation has not reached yet (the fix, then the slow command, then the closing hints), and a
rewound conversation simply plays the stages it lost again. Once every stage is done the answer
says, politely, that the script is over.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api.steps import call, text, tool_calls

if TYPE_CHECKING:
    from collections.abc import Callable

    from frontends.demo.scripted_api.steps import RecordedRequest, Step

SLOW_SCRIPT = "slow_check.py"
SLOW_COMMAND = f"python3 {SLOW_SCRIPT}"
"""The command the demo runs for the person to stop with Esc: allowed by the demo's own flags."""

SLOW_CHECK_PY = '''"""legato --demo's slow check: a line a second, to stop with Esc."""

import time

from greet import greet

for step in range(1, 31):
    print(f"check {step}/30: greet('Ada') == {greet('Ada')!r}", flush=True)
    time.sleep(1)
print("all 30 checks ran", flush=True)
'''

_CLOSING = "[demo] Last stop"  # said once; a new prompt after it hears the script is over
_OVER = "[demo] That is the end of the demo's script"


def tour(project_root: str) -> Callable[[RecordedRequest], Step]:
    """The scripted server's answer for each request of the terminal demo."""
    greet_py = os.path.join(project_root, "greet.py")
    readme = os.path.join(project_root, "README.md")
    from frontends.demo.script import FIXED, TYPO

    def answer(request: RecordedRequest) -> Step:
        messages: list[dict[str, Any]] = request.body["messages"]
        uses = _tool_uses(messages)
        results = _tool_results(messages)
        answered = _blocks(messages[-1], "tool_result")
        # A call stopped with Esc is closed in the message of the prompt that follows it: that
        # message is a new prompt, not the call's answer.
        if (
            answered
            and not _blocks(messages[-1], "text")
            and isinstance(messages[-1]["content"], list)
        ):
            name = uses.get(answered[0].get("tool_use_id", ""), {}).get("name")
            if name == "Read":
                return tool_calls(
                    [
                        call(
                            "Edit", {"file_path": greet_py, "old_string": TYPO, "new_string": FIXED}
                        )
                    ],
                    text='greet.py says "Helo" where test_greet.py expects "Hello". Fixing it: '
                    "Legato asks you first and shows the diff.",
                )
            if name == "Edit":
                if answered[0].get("is_error"):
                    return text(
                        "[demo] You said no, so greet.py is unchanged. Press Up and Enter to "
                        "send the prompt again and be asked again."
                    )
                return text(
                    '[demo] Fixed: greet.py now greets with "Hello". Next, type anything (for '
                    'example "run the checks") and press Enter: I will run a slow command '
                    "that prints a line a second. Press Esc while it runs to stop it."
                )
            if answered[0].get("is_error"):
                # Refused, or no python3 where the demo runs: said as it is, and the tour goes on.
                return text(
                    f"{_CLOSING}: the slow command did not run to the end. {_closing_hint()}"
                )
            return text(
                f"{_CLOSING}: the checks ran to the end (Esc stops such a command at once). "
                + _closing_hint()
            )
        edited = any(
            use["name"] == "Edit" and not results.get(use_id, False) for use_id, use in uses.items()
        )
        ran = any(
            use["name"] == "Bash" and use["input"].get("command") == SLOW_COMMAND
            for use in uses.values()
        )
        if not edited:
            return tool_calls(
                [call("Read", {"file_path": greet_py}), call("Read", {"file_path": readme})],
                text="[demo] This is Legato's offline demo: the replies are scripted, no model "
                "is involved. Let me read the project first.",
            )
        if not ran:
            return tool_calls(
                [call("Bash", {"command": SLOW_COMMAND, "description": "Run the slow checks"})],
                text="Running the slow checks: press Esc to stop them.",
            )
        if not any(_CLOSING in said for said in _texts(messages)):
            stopped = "you stopped the slow command. " if results.get(_slow_id(uses), False) else ""
            return text(f"{_CLOSING}: {stopped}{_closing_hint()}")
        return text(
            f"{_OVER}: every reply was scripted. /quit (or Ctrl-D) leaves and removes the scratch "
            "project. To work with a real model, set ASSISTANT_API_KEY and run legato in your own "
            "project."
        )

    return answer


def _slow_id(uses: dict[str, dict[str, Any]]) -> str:
    """The id of the latest call of the slow command ("" when there is none)."""
    ids = [i for i, use in uses.items() if use["input"].get("command") == SLOW_COMMAND]
    return ids[-1] if ids else ""


def _closing_hint() -> str:
    return (
        "Type /undo to take back the last prompt's file changes, or /rewind (or Esc twice on an "
        "empty prompt) to go back to an earlier prompt: files, conversation, or both. /quit "
        "leaves."
    )


def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict) and block.get("type") == kind]


def _tool_uses(messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every tool call the conversation holds, by id."""
    return {
        block.get("id", ""): {"name": block.get("name"), "input": block.get("input") or {}}
        for message in messages
        if message.get("role") == "assistant"
        for block in _blocks(message, "tool_use")
    }


def _tool_results(messages: list[dict[str, Any]]) -> dict[str, bool]:
    """Whether each answered tool call failed (denied, stopped), by the call's id."""
    return {
        block.get("tool_use_id", ""): bool(block.get("is_error"))
        for message in messages
        if message.get("role") == "user"
        for block in _blocks(message, "tool_result")
    }


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    return [
        str(block.get("text", ""))
        for message in messages
        if message.get("role") == "assistant"
        for block in _blocks(message, "text")
    ]
