"""A long scripted session goes through two compactions and the task ledger reaches the model
intact each time. Real loopback HTTP, real files, the real session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.conductor import compaction
from actors.conductor.compaction import SUMMARY_INSTRUCTION
from actors.models import cost_usd, default_model
from actors.protocol import Compact, GetContextFill, GetConversation, Notice, RunPrompt
from actors.ui import Renderer
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import assemble
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.cancellation.harness import conversation_problems

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import AskUser, UiEvent
    from frontends.demo.scripted_api import RecordedRequest, Step

GOAL = "Read every chunk file and write notes.md summarising them"
WINDOW = 20_000  # tokens; the scripted server counts about four bytes a token
READS = 24
NONE = "- (none)\n"


class Quiet(Renderer):
    def __init__(self) -> None:
        self.notices: list[str] = []

    async def show(self, event: UiEvent) -> None:
        if isinstance(event, Notice):
            self.notices.append(event.text)

    async def ask(self, question: AskUser) -> str:
        return "y"


def texts(body: dict[str, Any]) -> list[str]:
    return [
        block["text"]
        for message in body["messages"]
        for block in message["content"]
        if block.get("type") == "text"
    ]


def is_summary_request(body: dict[str, Any]) -> bool:
    return any(SUMMARY_INSTRUCTION in t for t in texts(body))


def model(root: Path) -> tuple[list[dict[str, Any]], Any]:
    """Reads the chunks one per turn; answers a summary request with numbered sections."""
    seen: list[dict[str, Any]] = []
    summaries = 0
    work = 0

    def answer(request: RecordedRequest) -> Step:
        nonlocal summaries, work
        seen.append(request.body)
        if is_summary_request(request.body):
            summaries += 1
            return text(
                f"## Summary\nRead the chunks up to now (pass {summaries}).\n"
                f"## Decisions\n- decision {summaries}: notes.md lists one line per chunk\n"
                f"## Open steps\n- read the remaining chunks (after pass {summaries})\n"
            )
        work += 1
        if work == 1:
            return tool_calls(
                [call("Write", {"file_path": str(root / "notes.md"), "content": "x"})]
            )
        if work <= READS + 1:
            path = root / f"chunk{work - 1:02d}.txt"
            return tool_calls([call("Read", {"file_path": str(path)})])
        return text("All chunks read; notes.md is written.")

    return seen, answer


async def test_two_compactions_keep_the_ledger_verbatim(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    await anyio.Path(home).mkdir()
    for number in range(1, READS + 1):
        line = f"chunk {number:02d}: " + "lorem ipsum dolor sit amet " * 3 + "\n"
        await anyio.Path(root / f"chunk{number:02d}.txt").write_text(line * 60)
    seen, answer = model(root)
    renderer = Quiet()
    with ScriptedServer(answer) as server:
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
        options = SessionOptions(
            project_root=str(root), headless=True, env=env, home=str(home),
            permission_mode="auto",
        )  # fmt: skip
        session = assemble(options, renderer=renderer)
        session.conductor.context_window = WINDOW
        async with supervise(session.actors):
            outcome = await session.conductor.address.ask(RunPrompt(text=GOAL))
            fill = await session.conductor.address.ask(GetContextFill())
    assert outcome.subtype == "success", outcome.error
    assert outcome.result == "All chunks read; notes.md is written."
    summary_requests = [i for i, body in enumerate(seen) if is_summary_request(body)]
    assert len(summary_requests) == 2
    assert sum("Compacting the conversation" in n for n in renderer.notices) == 2
    # The summaries are the prompt's requests too: in its usage, and priced in its cost.
    assert outcome.total_cost_usd == pytest.approx(cost_usd(default_model(), outcome.usage))

    def ledger(passes: int) -> str:
        decisions = "".join(
            f"- decision {n}: notes.md lists one line per chunk\n" for n in range(1, passes + 1)
        )
        step = f"read the remaining chunks (after pass {passes})" if passes else "(none)"
        return (
            f"<task-ledger>\nGoal:\n{GOAL}\nDecisions:\n{decisions or NONE}"
            f"Files touched:\n- {root / 'notes.md'}\nOpen steps:\n- {step}\n</task-ledger>"
        )

    # The first summary request carries the ledger as it was; each request after a
    # compaction starts with the summary and the ledger, word for word.
    assert any(t.startswith(ledger(0)) for t in texts(seen[summary_requests[0]]))
    assert texts(seen[summary_requests[0] + 1])[1] == ledger(1)
    assert any(t.startswith(ledger(1)) for t in texts(seen[summary_requests[1]]))
    after_second = seen[summary_requests[1] + 1]
    assert texts(after_second)[1] == ledger(2)
    assert "pass 2" in texts(after_second)[0]
    assert texts(seen[-1])[1] == ledger(2)  # and it stays until the task ends
    # The goal itself went out of the conversation with the first compaction but not out
    # of the ledger; the conversation the API got each time was valid (or it would be 400).
    assert not any(t == GOAL for t in texts(seen[-1]))
    assert 0 < fill.tokens < WINDOW and fill.window == WINDOW


async def test_compact_on_request_and_nothing_to_compact(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    steps: list[Step | dict[str, Any]] = [
        text("one"),
        text("two"),
        text("## Summary\nsaid one and two\n## Decisions\n- none taken\n## Open steps\n"),
    ]
    renderer = Quiet()
    with ScriptedServer(steps) as server:
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
        options = SessionOptions(project_root=str(root), headless=True, env=env, home=str(home))
        session = assemble(options, renderer=renderer)
        async with supervise(session.actors):
            conductor = session.conductor.address
            assert "too short" in await conductor.ask(Compact())
            await conductor.ask(RunPrompt(text="first"))
            await conductor.ask(RunPrompt(text="second"))
            said = await conductor.ask(Compact())
            messages = await conductor.ask(GetConversation())
    assert said.startswith("Compacted 3 earlier messages")
    assert conversation_problems(messages) == []
    assert "said one and two" in messages[0].content[0]["text"]
    assert messages[-1].content == [{"type": "text", "text": "two"}]


async def test_the_context_parts_after_a_compaction_are_the_compacted_conversations(
    tmp_path: Path,
) -> None:
    # Measured by the latest answer before; after the summary replaces the older turns, the
    # messages' share is the compacted conversation's estimate, said to be one, and the fixed
    # parts are those of the request that follows.
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    big = {
        "input_tokens": 50_000,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 1,
    }
    steps: list[Step | dict[str, Any]] = [
        text("one " * 500),
        text("two", usage=big),
        text("## Summary\nsaid one and two\n## Decisions\n- none taken\n## Open steps\n"),
        text("three"),
    ]
    with ScriptedServer(steps) as server:
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
        options = SessionOptions(project_root=str(root), headless=True, env=env, home=str(home))
        session = assemble(options, renderer=Quiet())
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="first"))
            await conductor.ask(RunPrompt(text="second"))
            before = await conductor.ask(GetContextFill())
            await conductor.ask(Compact())
            after = await conductor.ask(GetContextFill())
            messages = await conductor.ask(GetConversation())
            await conductor.ask(RunPrompt(text="third"))
        sent = server.requests[-1].body
    assert before.measured and before.used == 50_001
    assert not after.measured
    assert after.messages == compaction.estimate_tokens(messages) < 1_000
    assert (after.system, after.tools) == (before.system, before.tools)
    system = (
        sent["system"]
        if isinstance(sent["system"], str)
        else "".join(block["text"] for block in sent["system"])
    )
    assert after.system == -(-len(system) // 4)
