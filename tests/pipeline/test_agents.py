"""Subagents (the Agent tool) end to end: real `legato --headless` runs on the scripted server.

The server answers the main conversation and each subagent from one script: a subagent's
requests begin with the prompt the Agent call gave it (``task <n> ...``), the main
conversation's with the user's prompt.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

from actors.conductor.agents import GENERAL_PURPOSE
from actors.models import cost_usd, resolve_model
from actors.places import memory_dir
from actors.protocol import Usage
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO
from tests.frontends.test_signals import alive
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from collections.abc import Callable

    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project

USAGE = {
    "input_tokens": 100, "output_tokens": 10,
    "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
}  # fmt: skip


def agent_call(n: int, kind: str = "general-purpose", **extra: Any) -> Any:
    return call(
        "Agent",
        {"description": f"job {n}", "prompt": f"task {n}", "subagent_type": kind, **extra},
        id=f"toolu_agent_{n}",
    )


def first_text(request: RecordedRequest) -> str:
    return str(request.body["messages"][0]["content"][0]["text"])


def script(
    main: list[Step], agent: Callable[[int, int], Step]
) -> Callable[[RecordedRequest], Step]:
    """``main``: the main conversation's answers in order; ``agent(n, turn)``: agent n's."""

    def answer(request: RecordedRequest) -> Step:
        opening = first_text(request)
        turn = len(request.body["messages"]) // 2  # 0 for an agent's first request
        if opening.startswith("task "):
            return agent(int(opening.split()[1]), turn)
        return main[turn]

    return answer


def agent_requests(requests: list[RecordedRequest], n: int) -> list[RecordedRequest]:
    return [r for r in requests if first_text(r) == f"task {n}"]


def test_three_agents_run_side_by_side_and_their_answers_and_usage_come_back(
    project: Project,
) -> None:
    project.settings(
        permissionMode="custom", allowedPaths=["**"],
        allowedCommands=["touch", "test", "sleep", "echo"],
    )  # fmt: skip
    root = project.root
    # Each agent's command marks that it runs, then waits for the other two to have marked:
    # run one after another, the first would wait for its timeout (10 s) and fail.
    waits = "; ".join(f"while ! test -e {root}/ran{i}; do sleep 0.01; done" for i in range(3))

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            command = f"touch {root}/ran{n}; {waits}; echo agent {n} saw all three"
            return tool_calls([call("Bash", {"command": command, "timeout": 10_000})], usage=USAGE)
        return text(f"Agent {n} reports: all three ran together.", usage=USAGE)

    main = [
        tool_calls([agent_call(0), agent_call(1), agent_call(2)], usage=USAGE),
        text("All three agents are done.", usage=USAGE),
    ]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(
            server.url,
            "--headless",
            "split the work",
            "--output-format",
            "stream-json",
            "--include-partial-messages",
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    result = lines[-1]
    assert result["subtype"] == "success", result
    assert result["result"] == "All three agents are done."
    # 2 answers of the main conversation and 2 of each agent, 100 + 10 tokens each.
    assert len(requests) == 8
    assert result["usage"]["input_tokens"] == 800
    assert result["usage"]["output_tokens"] == 80
    # Each agent's answer is its call's result, in the calls' order; nothing else of it.
    last = requests[-1].body["messages"]
    results = last[-1]["content"]
    assert [r["tool_use_id"] for r in results] == [
        "toolu_agent_0",
        "toolu_agent_1",
        "toolu_agent_2",
    ]
    assert [r["content"] for r in results] == [
        f"Agent {n} reports: all three ran together." for n in range(3)
    ]
    assert len(last) == 3  # the prompt, the Agent calls, their results
    assert "saw all three" not in json.dumps(last)
    for n in range(3):
        (ran,) = agent_requests(requests, n)[1].body["messages"][-1]["content"]
        assert ran["content"] == f"agent {n} saw all three", ran
    # A subagent starts from its own prompt and system prompt, offered every tool but Agent.
    first = agent_requests(requests, 0)[0].body
    assert [m["role"] for m in first["messages"]] == ["user"]
    assert "Agent" not in [t["name"] for t in first["tools"]]
    assert {"Bash", "Read", "Edit"} <= {t["name"] for t in first["tools"]}
    assert "Agent" in [t["name"] for t in requests[0].body["tools"]]
    # stream-json: the agents' lines carry the Agent call's id; the main ones none.
    for n in range(3):
        own = [line for line in lines if line.get("parent_tool_use_id") == f"toolu_agent_{n}"]
        kinds = {line["type"] for line in own}
        assert kinds == {"stream_event", "assistant", "system", "user"}, kinds
        said = [line for line in own if line["type"] == "assistant"]
        assert said[-1]["message"]["content"][0]["text"].startswith(f"Agent {n} reports")
    finals = [line for line in lines if line["type"] == "assistant"]
    assert finals[-1]["parent_tool_use_id"] is None


def test_the_text_output_has_a_line_for_each_agent_start_and_end(project: Project) -> None:
    def agent(n: int, turn: int) -> Step:
        return text(f"Agent {n} done.")

    main = [tool_calls([agent_call(0), agent_call(1)]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done.\n"
    notes = done.stderr.splitlines()
    assert len(notes) == 4, notes
    for n in range(2):
        assert f"⏺ Agent(general-purpose: job {n})" in notes
        (end,) = [
            line for line in notes if line.startswith(f"  ⎿ ✓ Agent(general-purpose: job {n})")
        ]
        assert end.endswith(f"s: Agent {n} done."), end


def test_a_tool_restriction_holds_against_a_model_that_ignores_it(project: Project) -> None:
    project.settings(permissionMode="auto")
    project.write(
        ".legato/agents/reader.md",
        "---\nname: reader\ndescription: Reads files and reports.\ntools: Read, Grep\n---\n"
        "You read files and report what they say.\n",
    )
    notes = project.write("notes.txt", "the notes\n")
    made = project.root / "made-by-the-agent"

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            # Offered Read and Grep only, it asks for Bash and Write all the same.
            return tool_calls(
                [
                    call("Bash", {"command": f"touch {made}"}),
                    call("Write", {"file_path": str(made), "content": "x"}),
                    call("Read", {"file_path": str(notes)}),
                ]
            )
        return text("I could only read.")

    main = [tool_calls([agent_call(0, "reader")]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert not made.exists()
    first, second = (r.body for r in agent_requests(requests, 0))
    assert sorted(t["name"] for t in first["tools"]) == ["Grep", "Read"]
    assert first["system"].startswith("You read files and report what they say.")
    refused, also_refused, read = second["messages"][-1]["content"]
    for result in (refused, also_refused):
        assert result["is_error"] is True
        assert "is not available to the agent 'reader'" in result["content"]
        assert "its tools are: Read, Grep" in result["content"]
    assert "the notes" in read["content"]
    # The main conversation is told of the type, with its description and tools.
    agent_tool = next(t for t in requests[0].body["tools"] if t["name"] == "Agent")
    assert "- reader: Reads files and reports. (Tools: Read, Grep)" in agent_tool["description"]
    assert "- general-purpose:" in agent_tool["description"]


def test_a_subagent_cannot_start_an_agent(project: Project) -> None:
    def agent(n: int, turn: int) -> Step:
        if n == 0 and turn == 0:
            return tool_calls([agent_call(1)])
        return text(f"Agent {n} gave up nesting.")

    main = [tool_calls([agent_call(0)]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert agent_requests(requests, 1) == []  # no agent 1 ever started
    first, second = (r.body for r in agent_requests(requests, 0))
    assert "Agent" not in [t["name"] for t in first["tools"]]
    (refusal,) = second["messages"][-1]["content"]
    assert refusal["is_error"] is True
    assert "may not start agents" in refusal["content"]
    assert "agents.maxDepth" in refusal["content"]


def test_an_unknown_type_is_an_error_listing_the_types(project: Project) -> None:
    main = [tool_calls([agent_call(0, "nonesuch")]), text("Done.")]
    with ScriptedServer(script(main, lambda n, turn: text("never"))) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert len(requests) == 2
    (result,) = requests[1].body["messages"][-1]["content"]
    assert result["is_error"] is True
    assert result["content"] == (
        "Unknown agent type 'nonesuch'. The available types are: general-purpose."
    )


def test_a_bad_agent_file_is_skipped_with_a_warning_naming_it(project: Project) -> None:
    bad = project.write(
        ".legato/agents/broken.md",
        "---\nname: broken\ndescription: Broken.\ntools: 5\n---\nBody.\n",
    )
    main = [text("Fine.")]
    with ScriptedServer(script(main, lambda n, turn: text("never"))) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Fine.\n"
    assert f"{bad}:4: field 'tools': must be a comma-separated list" in done.stderr
    assert "→ Write the tools as" in done.stderr
    agent_tool = next(t for t in requests[0].body["tools"] if t["name"] == "Agent")
    assert "broken" not in agent_tool["description"]


def test_headless_denials_of_a_subagent_name_it(project: Project) -> None:
    # Custom mode with no command allowed: headless denies what would need a person.
    project.settings(permissionMode="custom")
    made = project.root / "made"

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            return tool_calls([call("Bash", {"command": f"touch {made}"}, id="toolu_inner")])
        return text("Denied.")

    main = [tool_calls([agent_call(0)]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert not made.exists()
    result = json.loads(done.stdout)
    assert result["permission_denials"] == [
        {
            "tool_name": "Bash",
            "tool_use_id": "toolu_inner",
            "tool_input": {"command": f"touch {made}"},
            "agent": "general-purpose",
        }
    ]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_agents_run_stops_them_and_every_process(
    project: Project, signum: signal.Signals, code: int
) -> None:
    project.settings(
        permissionMode="custom", allowedPaths=["**"], allowedCommands=["sleep", "echo"]
    )
    pids = project.root / "pids"

    def agent(n: int, turn: int) -> Step:
        command = f"sleep 300 & echo $! >> {pids}; sleep 301"
        return tool_calls([call("Bash", {"command": command})])

    main = [tool_calls([agent_call(0), agent_call(1), agent_call(2)])]
    with ScriptedServer(script(main, agent)) as server:
        process = subprocess.Popen(
            [
                sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
                "--headless", "go", "--output-format", "stream-json",
            ],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env=project.env(server.url),
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not (pids.exists() and pids.read_text().count("\n") >= 3):
            assert time.monotonic() < deadline, "the agents' commands never started"
            time.sleep(0.02)
        children = running_in(project.root)
        assert len(children) >= 6, children  # two sleeps for each agent, at least
        process.send_signal(signum)
        out, err = process.communicate(timeout=10)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert f"stopped by {signum.name} running Agent(general-purpose: job" in err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1]["subtype"] == "interrupted"
    results = {
        block["tool_use_id"]: block
        for line in lines
        if line["type"] == "user" and line["parent_tool_use_id"] is None
        for block in line["message"]["content"]
    }
    assert sorted(results) == ["toolu_agent_0", "toolu_agent_1", "toolu_agent_2"]
    for block in results.values():
        assert block["is_error"] is True
        assert "before the agent finished" in block["content"], block
    # Each agent's own command reported as interrupted, on the agent's lines.
    inner = [
        block
        for line in lines
        if line["type"] == "user" and line["parent_tool_use_id"] is not None
        for block in line["message"]["content"]
    ]
    assert len(inner) == 3
    assert all(block["content"].startswith("Interrupted after ") for block in inner)
    deadline = time.monotonic() + 3
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in children if alive(pid)]
    # The parent's conversation was saved valid: the next run goes on from it.
    with ScriptedServer([text("Carrying on.")]) as server:
        again = project.legato(server.url, "--continue", "--headless", "go on")
        sent = server.requests[0].body["messages"]
    assert again.returncode == 0, again.stderr
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert {b["tool_use_id"] for b in sent[2]["content"] if b["type"] == "tool_result"} == {
        "toolu_agent_0", "toolu_agent_1", "toolu_agent_2",
    }  # fmt: skip


def test_agents_beyond_the_limit_wait_for_a_place(project: Project) -> None:
    project.settings(
        permissionMode="custom", allowedPaths=["**"], allowedCommands=["touch", "sleep", "ls"],
        agents={"maxConcurrent": 1},
    )  # fmt: skip
    root = project.root

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            # How many agents had begun by the time this one's command ends: one at a time,
            # each sees those before it and itself; side by side, all would see three.
            command = f"touch {root}/ran{n}; sleep 0.1; ls {root}"
            return tool_calls([call("Bash", {"command": command})])
        return text(f"Agent {n} done.")

    main = [tool_calls([agent_call(0), agent_call(1), agent_call(2)]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    seen = []
    for n in range(3):
        (ran,) = agent_requests(requests, n)[1].body["messages"][-1]["content"]
        seen.append(sum(line.startswith("ran") for line in ran["content"].splitlines()))
    assert sorted(seen) == [1, 2, 3]


def test_an_agent_stops_at_its_turn_limit_and_its_models_price_counts(project: Project) -> None:
    project.settings(agents={"maxTurns": 2})
    project.write(
        ".legato/agents/looper.md",
        "---\nname: looper\ndescription: Never done.\ntools: Glob\nmodel: haiku\n---\nLoop.\n",
    )

    def agent(n: int, turn: int) -> Step:
        # It would go on for ever: Glob again, and again.
        return tool_calls([call("Glob", {"pattern": "*.md"})], text=f"Turn {turn}.", usage=USAGE)

    main = [tool_calls([agent_call(0, "looper")], usage=USAGE), text("Done.", usage=USAGE)]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    mine = agent_requests(requests, 0)
    assert len(mine) == 2
    assert {r.body["model"] for r in mine} == {resolve_model("haiku").id}
    (result,) = requests[-1].body["messages"][-1]["content"]
    assert result["is_error"] is True
    assert result["content"] == (
        "The agent 'looper' was stopped after 2 turns (agents.maxTurns) before it finished. "
        "Its last words: Turn 1."
    )
    outcome = json.loads(done.stdout)
    each = Usage(input_tokens=100, output_tokens=10)  # USAGE
    main_cost = cost_usd(resolve_model("sonnet"), each + each)
    agent_cost = cost_usd(resolve_model("haiku"), each + each)
    assert main_cost is not None and agent_cost is not None
    assert outcome["total_cost_usd"] == pytest.approx(main_cost + agent_cost)
    assert outcome["usage"]["input_tokens"] == 400


def test_an_agent_gets_the_projects_guide_and_memory_but_not_the_conversation(
    project: Project,
) -> None:
    project.write("LEGATO.md", "# Shop\n- make test runs the tests\n")
    folder = memory_dir(str(project.root), str(project.home))
    os.makedirs(folder)
    with open(os.path.join(folder, "MEMORY.md"), "w") as file:
        file.write("- the user prefers tabs\n")

    def agent(n: int, turn: int) -> Step:
        return text(f"Agent {n} done.")

    main = [tool_calls([agent_call(0)]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "the secret word is plover")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    (first,) = agent_requests(requests, 0)
    system = first.body["system"]
    system = system if isinstance(system, str) else "\n".join(b["text"] for b in system)
    assert system.startswith(GENERAL_PURPOSE.prompt)
    assert f"Project root: {project.root}" in system
    legato_md = f"Instructions from {project.root / 'LEGATO.md'} (the project's):"
    assert f"{legato_md}\n# Shop\n- make test runs the tests" in system
    assert f"Memory folder (kept across sessions): {folder}" in system
    assert "Your memory for this project (MEMORY.md):\n- the user prefers tabs" in system
    assert "plover" not in json.dumps(first.body)
