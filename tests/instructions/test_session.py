"""The instruction files as the model receives them, from a real ``legato`` run headless."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project


def system_of(body: dict[str, Any]) -> str:
    system = body["system"]
    return system if isinstance(system, str) else "\n".join(b["text"] for b in system)


def results_of(request: RecordedRequest) -> list[str]:
    """The text of every tool result the request carries, in order."""
    out = []
    for message in request.body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content", "")
                out.append(content if isinstance(content, str) else content[0]["text"])
    return out


def test_the_files_reach_the_system_prompt_legato_md_last(project: Project) -> None:
    project.write("CLAUDE.md", "Use pnpm. @AGENTS.md\n")
    project.write("AGENTS.md", "Run the linter.\n")
    project.write("CLAUDE.local.md", "My sandbox is at :8080.\n")
    project.write("LEGATO.md", "Use npm, not pnpm.\n")
    (project.home / ".claude").mkdir()
    (project.home / ".claude" / "CLAUDE.md").write_text("Answer in French.\n")
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "--headless", "hi")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    system = system_of(requests[0].body)
    root = project.root
    expected = [
        "Instruction files follow, in order of precedence, lowest first: where two disagree, "
        "the later one wins",
        f"Instructions from {project.home}/.claude/CLAUDE.md (the user's, for every project):\n"
        "Answer in French.",
        f"Instructions from {root}/AGENTS.md (the project's):\nRun the linter.",
        f"Instructions from {root}/CLAUDE.md (the project's):\nUse pnpm. @AGENTS.md",
        f"Instructions from {root}/CLAUDE.local.md (the user's, for this project):\n"
        "My sandbox is at :8080.",
        f"Instructions from {root}/LEGATO.md (the project's):\nUse npm, not pnpm.",
    ]
    places = [system.index(part) for part in expected]
    assert places == sorted(places)
    assert system.count("Run the linter.") == 1


def test_a_sub_folders_file_comes_once_with_the_first_call_that_works_there(
    project: Project,
) -> None:
    project.write("src/api/handlers.py", "x = 1\n")
    project.write("src/api/util.py", "y = 2\n")
    project.write("src/api/CLAUDE.md", "Handlers validate input. @rules.md\n")
    project.write("src/api/rules.md", "Return 400 on bad input.\n")
    project.write("src/CLAUDE.md", "src is Python 3.11.\n")
    project.write("docs/CLAUDE.md", "never shown\n")
    read = str(project.root / "src/api/handlers.py")
    steps: list[Step] = [
        tool_calls([call("Read", {"file_path": read}, id="toolu_1")]),
        tool_calls([call("Read", {"file_path": str(project.root / "src/api/util.py")})]),
        text("done"),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--permission-mode", "auto", "--headless", "look")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    first, second = results_of(requests[-1])
    src, api = project.root / "src", project.root / "src/api"
    outer = f"Instructions from {src}/CLAUDE.md, for work in {src}:"
    inner = f"Instructions from {api}/CLAUDE.md, for work in {api}:"
    imported = f"Instructions from {api}/rules.md, for work in {api}:"
    assert first.index(outer) < first.index(imported) < first.index(inner)
    assert "x = 1" in first.split(outer)[0]  # after the file's own content
    assert "Instructions from" not in second  # given once
    assert "never shown" not in system_of(requests[-1].body) + first + second
    assert "src is Python" not in system_of(requests[0].body)


def test_a_subagent_is_given_a_sub_folders_file_in_its_own_conversation(
    project: Project,
) -> None:
    project.write("lib/CLAUDE.md", "lib has no I/O.\n")
    project.write("lib/core.py", "pass\n")
    read = call("Read", {"file_path": str(project.root / "lib/core.py")})
    agent = call(
        "Agent",
        {"description": "look", "prompt": "task 0", "subagent_type": "general-purpose"},
    )

    def answer(request: RecordedRequest) -> Step:
        opening = request.body["messages"][0]["content"][0]["text"]
        turns = len(request.body["messages"]) // 2
        if opening == "task 0":
            return [tool_calls([read]), text("agent done")][turns]
        return [tool_calls([read]), tool_calls([agent]), text("done")][turns]

    with ScriptedServer(answer) as server:
        done = project.legato(server.url, "--permission-mode", "auto", "--headless", "look")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    given = "Instructions from " + str(project.root / "lib/CLAUDE.md")
    main = [r for r in requests if r.body["messages"][0]["content"][0]["text"] == "look"]
    agents = [r for r in requests if r.body["messages"][0]["content"][0]["text"] == "task 0"]
    assert [sum(given in t for t in results_of(r)) for r in main] == [0, 1, 1]
    assert [sum(given in t for t in results_of(r)) for r in agents] == [0, 1]


def test_headless_context_lists_the_files_without_asking_the_model(project: Project) -> None:
    project.write("AGENTS.md", "a" * 80 + "\n")
    project.write("LEGATO.md", "l\n")
    with ScriptedServer([]) as server:
        done = project.legato(server.url, "--headless", "/context")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert requests == []
    rows = [line.split()[:2] for line in done.stdout.splitlines() if line.endswith("project")]
    assert rows == [["AGENTS.md", "21"], ["LEGATO.md", "1"]]
    assert "Memory files" in done.stdout and "Free space" in done.stdout


def test_context_after_a_prompt_continued_with_p_shares_out_the_window(project: Project) -> None:
    # `legato -c -p "/context"`: the saved conversation's messages estimated (no answer of this
    # run has measured them), the fixed parts as the request has them, and no request made.
    project.write("AGENTS.md", "a" * 80 + "\n")
    project.write(".claude/skills/audit/SKILL.md", "---\ndescription: Project audit\n---\nAudit.\n")
    with ScriptedServer([text("x" * 4000)]) as server:
        first = project.legato(server.url, "-p", "hi")
        done = project.legato(server.url, "-c", "-p", "/context")
        requests = server.requests
    assert (first.returncode, done.returncode) == (0, 0), done.stderr
    assert len(requests) == 1
    rows = {
        " ".join(words[: words.index("tokens") - 1]): int(
            words[words.index("tokens") - 1].replace(",", "")
        )
        for line in done.stdout.splitlines()
        if (words := line.split()) and "tokens" in words and not line.startswith("Context")
    }
    assert rows["Memory files"] == 21
    assert rows["Messages"] > 1_000  # the answer's 4,000 characters, estimated
    # The Skill tool's listing, as the request gave it: the skills' own share.
    skill = next(t for t in requests[0].body["tools"] if t["name"] == "Skill")
    plain = {k: v for k, v in skill.items() if k != "cache_control"}
    listing = json.dumps([plain], separators=(",", ":"), ensure_ascii=False)
    assert rows["Skills"] == -(-len(listing) // 4)
    assert "audit" in skill["description"]
    assert rows["Built-in tools"] > 1_000
    assert rows["Free space"] + rows["Auto-compact reserve"] + rows["Messages"] < 1_000_000
    assert "no answer has measured this conversation yet" in done.stdout
