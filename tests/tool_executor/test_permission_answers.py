"""Structured permission answers through the executor, with the real broker and real tools: each
question carries its call's id and input; an allow with other input (the Agent SDK's
updatedInput) runs the call with it, checked by the rules again and asked nobody twice; a deny's
words reach the model as they are."""

from __future__ import annotations

import json
import shlex
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from actors.protocol import (
    PermissionAnswer,
)
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.tool_executor.harness import Calls, Person, call, with_policy
from tests.trusting import trust_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path


def allow(**new_input: Any) -> PermissionAnswer:
    return PermissionAnswer(choice="y", updated_input=new_input)


async def test_each_question_carries_the_calls_id_and_whole_input(tmp_path: Path) -> None:
    async with with_policy(tmp_path, answers=["y", "y"]) as s:
        write = call("Write", file_path=str(tmp_path / "a.txt"), content="one\n")
        bash = call("Bash", command="echo hi", description="say hi")
        await s.finished(write)
        await s.finished(bash)
        assert s.person is not None
        asked = [question.request for question in s.person.asked]
    assert [(r.tool_use_id, r.tool_input) for r in asked] == [
        (write.id, write.input),
        (bash.id, bash.input),
    ]


async def test_an_allow_with_other_input_runs_the_call_with_it_asking_once(
    tmp_path: Path,
) -> None:
    target = tmp_path / "a.txt"
    answer = allow(file_path=str(target), content="from the answer\n")
    async with with_policy(tmp_path, answers=[answer]) as s:
        done = await s.one("Write", file_path=str(target), content="from the model\n")
        assert s.person is not None
        asked = s.person.asked
    assert not done.result.is_error, done.result.content
    assert target.read_text() == "from the answer\n"
    assert len(asked) == 1


async def test_a_command_swapped_for_a_blocked_one_is_denied_by_the_rule(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("kept\n")
    answer = allow(command="rm keep.txt")
    async with with_policy(tmp_path, answers=[answer], blockedCommands=["rm"]) as s:
        done = await s.one("Bash", command="echo harmless")
        assert s.person is not None
        asked = s.person.asked
    assert done.result.denied
    assert "blocked by blockedCommands entry 'rm'" in done.result.content
    assert (tmp_path / "keep.txt").exists()
    assert len(asked) == 1


async def test_a_path_swapped_for_a_blocked_file_is_denied_by_the_rule(tmp_path: Path) -> None:
    secret = tmp_path / ".env"
    secret.write_text("TOKEN=1\n")
    answer = allow(file_path=str(secret))
    async with with_policy(tmp_path, answers=[answer], blockedPaths=[".env"]) as s:
        done = await s.one("Read", file_path=str(tmp_path / "missing.txt"))
        assert s.person is not None
        asked = s.person.asked
    assert done.result.denied
    assert "blocked by blockedPaths entry '.env'" in done.result.content
    assert "TOKEN" not in done.result.content
    assert len(asked) == 1


async def test_a_write_moved_outside_the_project_is_denied_and_not_asked_again(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "elsewhere.txt"
    answer = allow(file_path=str(outside), content="escaped\n")
    async with with_policy(root, answers=[answer]) as s:
        done = await s.one("Write", file_path=str(root / "a.txt"), content="x\n")
        assert s.person is not None
        asked = s.person.asked
    assert done.result.denied
    assert "outside the project always needs a person's approval" in done.result.content
    assert "updatedInput" in done.result.content
    assert not outside.exists() and not (root / "a.txt").exists()
    assert len(asked) == 1


async def test_a_write_to_legatos_own_files_by_new_input_is_denied(tmp_path: Path) -> None:
    skill = tmp_path / ".legato" / "skills" / "deploy.md"
    answer = allow(file_path=str(skill), content="run anything\n")
    async with with_policy(tmp_path, answers=[answer]) as s:
        done = await s.one("Write", file_path=str(tmp_path / "a.txt"), content="x\n")
    assert done.result.denied
    assert "Legato's own settings, skills and agents" in done.result.content
    assert not skill.exists()


async def test_new_input_for_the_answered_place_outside_needs_no_second_answer(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "notes.txt"
    answer = allow(file_path=str(outside), content="the answer's\n")
    async with with_policy(root, answers=[answer]) as s:
        done = await s.one("Write", file_path=str(outside), content="the model's\n")
        assert s.person is not None
        asked = s.person.asked
    assert not done.result.is_error, done.result.content
    assert outside.read_text() == "the answer's\n"
    assert len(asked) == 1


async def test_new_input_that_does_not_fit_the_tool_is_a_clear_error(tmp_path: Path) -> None:
    answer = allow(file_path=3)
    async with with_policy(tmp_path, answers=[answer]) as s:
        done = await s.one("Write", file_path=str(tmp_path / "a.txt"), content="x\n")
    assert done.result.is_error and not done.result.denied
    assert done.result.content.startswith(
        "The input the permission answer (updatedInput) gave is unusable, so nothing was done: "
        "Invalid input for Write: Expected `str`, got `int` - at `$.file_path`."
    )
    assert "Traceback" not in done.result.content
    assert not (tmp_path / "a.txt").exists()


async def test_a_denys_words_reach_the_model_as_they_are(tmp_path: Path) -> None:
    words = "Not now. Write the plan to PLAN.md first."
    answer = PermissionAnswer(choice="n", message=words, interrupt=True)
    async with with_policy(tmp_path, answers=[answer]) as s:
        done = await s.one("Write", file_path=str(tmp_path / "a.txt"), content="x\n")
    assert done.result.denied and done.result.is_error
    assert done.result.content == f"Permission denied: {words}"


async def test_plain_answers_work_as_before(tmp_path: Path) -> None:
    async with with_policy(tmp_path, answers=["n"]) as s:
        done = await s.one("Write", file_path=str(tmp_path / "a.txt"), content="x\n")
    # The user's own no has no remedy to offer.
    assert done.result.content == "Permission denied: the user denied it"


# ── the modes, through real tools ───────────────────────────────────────────────────────────


async def test_dont_ask_runs_nothing_it_would_ask_about(tmp_path: Path) -> None:
    async with with_policy(tmp_path, mode="dont_ask", answers=[]) as s:
        done = await s.one("Bash", command=f"touch {tmp_path / 'made'}")
        assert s.person is not None
        asked = s.person.asked
    assert asked == [] and done.result.denied
    assert "dontAsk" in done.result.content
    assert not (tmp_path / "made").exists()


async def test_bypass_runs_what_the_rules_do_not_block_and_no_more(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("kept\n")
    async with with_policy(tmp_path, mode="bypass", answers=[], blockedCommands=["rm"]) as s:
        made = await s.one("Bash", command="echo made > made.txt")
        removed = await s.one("Bash", command="rm keep.txt")
        assert s.person is not None
        asked = s.person.asked
    assert asked == []
    assert not made.result.is_error and (tmp_path / "made.txt").read_text() == "made\n"
    assert removed.result.denied and "blockedCommands entry 'rm'" in removed.result.content
    assert (tmp_path / "keep.txt").exists()


# ── with a PreToolUse hook ──────────────────────────────────────────────────────────────────


@asynccontextmanager
async def with_hook(root: Path, person: Person) -> AsyncIterator[tuple[Calls, Path]]:
    """The executor as a session wires it, with a PreToolUse hook (the project's, trusted) that
    allows everything and appends what each run was given to the file yielded, a line each."""
    given = root.parent / "given.jsonl"
    command = f"{{ cat; echo; }} >> {shlex.quote(str(given))}"
    hook = {"hooks": [{"type": "command", "command": command}]}
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    home = root.parent / "home"
    home.mkdir()
    trust_project(root, home)  # as the user would: the project's hooks then run
    options = SessionOptions(
        project_root=str(root), headless=True, permission_mode="ask", home=str(home), asker=person
    )
    parts = tool_parts(options)
    async with supervise(parts.actors):
        yield Calls(parts.tools, root), given


async def test_the_pre_tool_hook_sees_the_input_the_answer_gave(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    target = str(root / "a.txt")
    person = Person([allow(file_path=target, content="the answer's\n")])
    async with with_hook(root, person) as (calls, given):
        done = await calls.one("Write", file_path=target, content="the model's\n")
    assert not done.result.is_error, done.result.content
    payloads = [json.loads(line) for line in given.read_text().splitlines()]
    [payload] = [p for p in payloads if p.get("tool_name") == "Write"]
    assert payload["tool_input"] == {"file_path": target, "content": "the answer's\n"}
    assert len(person.asked) == 1
