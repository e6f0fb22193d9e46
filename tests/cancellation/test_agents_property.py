"""Cancel at any point while subagents and background commands run: a property, sandbox on and off.

Hypothesis draws a session whose first answer starts three subagents and two background
commands (in a drawn order), each agent running a drawn list of answers of calls (commands,
some long, some ignoring SIGTERM, with the sandbox on some leaving their group with
``setsid``; writes of files the session has read) before it answers; and a point to cancel
at: the n-th event the UI is shown (the main answer or an agent's streaming, tools running,
between turns), the n-th tool event (a call started or printed, an agent's included), or the
n-th permission question, left unanswered. One background command has a child that ignores
SIGTERM; the other's child leaves its group with ``setsid`` when the sandbox is on (unconfined,
such a child outlives its command, as docs/security.md says, so only the confined run draws
one). After the cancel, every time:

- no process of a turn's call survives: the only ones left are the background commands',
  which an interrupt does not stop (docs/agents.md); and once the session ends, none at all;
- every file is wholly old or wholly new, and no temporary file is left;
- the conversation is one the API accepts (every Agent call and background start answered;
  the scripted server answers 400 to an unanswered ``tool_use``), and the next prompt works;
- the saved session goes on: a new session resuming it (what ``--continue`` does) answers.

Processes are found from outside by the marker in their environment (a confined command's own
pids are its namespace's); a background command's are told apart by a variable of their own
in their environment, or by their command line (the shell and bubblewrap that run it).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
import trio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from actors.protocol import DescribeSandbox, ListBackground, ToolStarted
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.cancellation.harness import (
    MARKER,
    ControlledRenderer,
    conversation_problems,
    live_session,
    started_by,
)
from tests.cancellation.test_property import KINDS, new, old, tool_results
from tests.frontends.conftest import REPO, Project
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from collections.abc import Callable

    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.cancellation.harness import Live

FILES = 3
AGENTS = 3
NEXT_PROMPT = "and now something else"
RESUMED_PROMPT = "carry on from where we were"
BACKGROUND = "LEGATO_TEST_BACKGROUND"  # in a background command's text and its processes' env

Call = tuple[str, int]
Plan = list[list[Call]]  # an agent's answers of calls, before its final text


def plans_strategy(kinds: list[str]) -> st.SearchStrategy[list[Plan]]:
    calls = st.lists(
        st.tuples(st.sampled_from(kinds), st.integers(0, FILES - 1)), min_size=1, max_size=3
    )
    return st.lists(st.lists(calls, min_size=1, max_size=2), min_size=AGENTS, max_size=AGENTS)


# The first answer's calls: "agent 0..2", "background 0..1".
ORDERS = st.permutations(
    [("agent", n) for n in range(AGENTS)] + [("background", 0), ("background", 1)]
)

# One flat list, so that every point is as likely as another (drawn from three strategies, the
# first of each came far more often).
POINTS = st.sampled_from(
    [("event", n) for n in range(1, 121)]
    + [("ask", n) for n in range(1, 13)]
    + [("tool", n) for n in range(1, 31)]
)


def background_call(n: int, sandbox: bool) -> Any:
    """A long command left running: its child ignores SIGTERM (0), or leaves its group with
    ``setsid`` (1, confined only; unconfined, a plain long one)."""
    tag = f"export {BACKGROUND}=1; "
    if n == 0:
        command = f"{tag}(trap '' TERM; exec sleep 30) & sleep 30 & wait"
    elif sandbox:
        command = f"{tag}setsid sleep 30 & sleep 30 & wait"
    else:
        command = f"{tag}sleep 30 & sleep 31 & wait"
    return call("Bash", {"command": command, "run_in_background": True}, id=f"toolu_bg_{n}")


def tool_call(kind: str, number: int, root: Path) -> Any:
    """One of an agent's calls: as the main conversation's in test_property, a little shorter,
    since three agents run a few answers of them each."""
    if kind == "write":
        return call("Write", {"file_path": str(root / f"f{number}.txt"), "content": new(number)})
    if kind == "quick":
        return call("Bash", {"command": f"echo quick {number}"})
    if kind == "resist":  # a child that ignores SIGTERM, and a background job
        command = "(trap '' TERM; exec sleep 30) & sleep 30 & echo resisting; sleep 0.2"
        return call("Bash", {"command": command})
    if kind == "detach":  # a child in a session of its own, outside the command's group
        return call("Bash", {"command": "setsid sleep 30 & echo detached; sleep 0.2"})
    return call("Bash", {"command": f"echo sleeping; sleep 0.{number + 1}"})


def agent_call(n: int) -> Any:
    return call(
        "Agent",
        {"description": f"job {n}", "prompt": f"task {n}", "subagent_type": "general-purpose"},
        id=f"toolu_agent_{n}",
    )


def serve(
    root: Path, plans: list[Plan], order: list[tuple[str, int]], sandbox: bool
) -> ScriptedServer:
    first = [agent_call(n) if kind == "agent" else background_call(n, sandbox) for kind, n in order]

    def answer(request: RecordedRequest) -> Step:
        messages = request.body["messages"]
        opening = messages[0]["content"]
        opening = opening if isinstance(opening, str) else opening[0].get("text", "")
        turn = len(messages) // 2
        if opening.startswith("task "):
            n = int(opening.split()[1])
            if turn < len(plans[n]):
                calls = [tool_call(kind, number, root) for kind, number in plans[n][turn]]
                return tool_calls(calls, text=f"Agent {n} is working on it.")
            return text(f"Agent {n} has finished its part.", delay=0.005)
        said = str(messages[-1]["content"])
        if RESUMED_PROMPT in said:
            return text("Carrying on from the saved session.")
        if NEXT_PROMPT in said:
            return text("Fine, the session still works.")
        if turn == 0:
            return tool_calls(first, text="Starting three agents and two background commands.")
        return text("All done: the agents finished and the commands run.", delay=0.005)

    return ScriptedServer(answer)


# What an interrupted call's result may say: the executor's report, the conductor's notice for
# a call the batch never reached, or an Agent call's own.
INTERRUPTED = re.compile(
    r"Interrupted (after \d+\.\d s(, before it finished| while waiting for the user's "
    r"permission|, before the agent finished)|before it started|by the user before this call "
    r"finished)"
)


def is_background(pid: int) -> bool:
    """Whether ``pid`` belongs to a background command: its environment (what the command
    started) or its command line (the shell and bubblewrap running it) names the tag."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            environ = file.read().split(b"\0")
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            cmdline = file.read()
    except OSError:
        return True  # it ended meanwhile: not a survivor of anything
    return f"{BACKGROUND}=1".encode() in environ or BACKGROUND.encode() in cmdline


# httpcore sends a request's body from an async generator it never closes: an interrupt that
# lands while a request is being written (four answers stream at once here) leaves one for the
# garbage collector, and trio warns. The body is bytes in memory; nothing else is left open.
@pytest.mark.filterwarnings(
    "ignore:Async generator 'httpx._content.ByteStream.__aiter__' was garbage collected"
    ":ResourceWarning"
)
@pytest.mark.usefixtures("short_grace")
@pytest.mark.parametrize("sandbox", [pytest.param("sandbox on", marks=needs_bwrap), "sandbox off"])
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_cancelling_agents_and_background_commands_at_any_point_keeps_every_invariant(
    tmp_path_factory: Any, sandbox: str, data: st.DataObject
) -> None:
    confined = sandbox == "sandbox on"
    kind, n = data.draw(POINTS, label="point")
    plans = data.draw(plans_strategy(KINDS[sandbox]), label="plans")
    order = data.draw(ORDERS, label="order")
    base: Path = tmp_path_factory.mktemp("session")
    root, home = base / "project", base / "home"
    root.mkdir()
    home.mkdir()
    for i in range(FILES):
        (root / f"f{i}.txt").write_text(old(i))
    renderer = ControlledRenderer(
        cancel_at_event=n if kind == "event" else None,
        cancel_at_ask=n if kind == "ask" else None,
        cancel_at_tool=n if kind == "tool" else None,
    )
    with serve(root, plans, order, confined) as server:
        trio.run(_session, root, home, server.url, renderer, confined)


async def _session(
    root: Path, home: Path, url: str, renderer: ControlledRenderer, sandbox: bool
) -> None:
    with anyio.fail_after(30):
        async with live_session(
            root, home, url, renderer, sandbox=sandbox, permission_mode="ask"
        ) as live:
            report = await live.session.tools.address.ask(DescribeSandbox())
            assert report.active is sandbox, report.why_not
            await live.interrupted_prompt("split the work")
            event(f"cancelled {renderer.point}")
            # 1. Nothing a turn's call started survives: only the background commands run on.
            left = live.processes()
            assert [pid for pid in left if not is_background(pid)] == []
            if left:
                event("background commands ran on after the cancel")
            await _check_files(root)
            await _check_conversation(live, renderer)
            # The session is usable afterwards.
            renderer.cancel_at_ask = renderer.cancel_at_event = renderer.cancel_at_tool = None
            outcome = await live.prompt(NEXT_PROMPT)
            assert outcome.subtype == "success", outcome.error
            assert outcome.result == "Fine, the session still works."
            messages = await live.conversation()
            assert conversation_problems(messages) == []
            session_id = live.session.id
        # 2. The session's end stops the background commands and all they started.
        assert live.processes() == []
        # 3. The saved session goes on, as --continue does.
        async with live_session(
            root, home, url, renderer, sandbox=sandbox, permission_mode="ask",
            session_id=session_id, resume=True,
        ) as resumed:  # fmt: skip
            saved = await resumed.conversation()
            assert saved == messages, (saved, messages)
            outcome = await resumed.prompt(RESUMED_PROMPT)
            assert outcome.subtype == "success", outcome.error
            assert outcome.result == "Carrying on from the saved session."


async def _check_files(root: Path) -> None:
    """Every file is wholly old or wholly new, and no temporary file is left."""
    for i in range(FILES):
        content = await anyio.Path(root / f"f{i}.txt").read_text()
        assert content in (old(i), new(i)), f"f{i}.txt is neither old nor new"
    assert [n for n in os.listdir(root) if n.endswith(".legato-tmp")] == []


async def _check_conversation(live: Live, renderer: ControlledRenderer) -> None:
    """The conversation is one the API accepts, every call that started in it is answered,
    and what was interrupted says so."""
    messages = await live.conversation()
    assert conversation_problems(messages) == []
    for result in tool_results(messages):
        if result.startswith("Interrupted"):
            assert INTERRUPTED.match(result), result
    answered = {
        block["tool_use_id"]
        for message in messages
        for block in message.content
        if block.get("type") == "tool_result"
    }
    # The main conversation's calls that started (the agents' own are in their conversations,
    # which end with them).
    started = {e.id for e in renderer.events if isinstance(e, ToolStarted)}
    assert started <= answered, started - answered
    # An interrupt leaves the background commands running (only the turn's calls stop), and
    # the model was told the id of each: none runs that the conversation does not name.
    told = {
        match.group(1)
        for result in tool_results(messages)
        if (match := re.match(r"Command running in the background with ID: (\w+)", result))
    }
    jobs = await live.session.tools.address.ask(ListBackground())
    assert {job.id: job.state for job in jobs} == dict.fromkeys(told, "running")
    if told:
        event("a background command started before the cancel")


# ── a signal to a headless run ──────────────────────────────────────────────────────────────

ALLOWED = ["echo", "sleep", "trap", "exec", "wait", "setsid"]
SIGNALS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]


def headless_script(root: Path, resist: list[bool]) -> Callable[[RecordedRequest], Step]:
    """Three agents, each reading a file, running a long command (one whose child ignores
    SIGTERM where ``resist``) and writing the file, and two background commands (a child
    that ignores SIGTERM; a child that leaves the group with ``setsid``). Each command notes
    its start in ``started``."""
    note = f"echo started >> {root}/started"
    resisting = "(trap '' TERM; exec sleep 30) & sleep 30 & wait"

    def agent(n: int, turn: int) -> Step:
        if turn > 0:
            return text(f"Agent {n} is done.")
        path = str(root / f"f{n}.txt")
        command = f"{note}; {resisting}" if resist[n] else f"{note}; sleep 30"
        calls = [
            call("Read", {"file_path": path, "limit": 1}),
            call("Bash", {"command": command}),
            call("Write", {"file_path": path, "content": new(n)}),
        ]
        return tool_calls(calls, text=f"Agent {n} works.")

    backgrounds = [
        call(
            "Bash", {"command": f"{note}; {command}", "run_in_background": True}, id=f"toolu_bg_{n}"
        )
        for n, command in enumerate([resisting, "setsid sleep 30 & sleep 30 & wait"])
    ]
    first = [*(agent_call(n) for n in range(AGENTS)), *backgrounds]

    def answer(request: RecordedRequest) -> Step:
        messages = request.body["messages"]
        opening = messages[0]["content"][0]["text"]
        if opening.startswith("task "):
            return agent(int(opening.split()[1]), len(messages) // 2)
        return tool_calls(first, text="Starting the agents and the commands.")

    return answer


@needs_bwrap
@settings(
    max_examples=4,  # a whole process and a --continue run each: about 0.7 s
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    stop=st.sampled_from(SIGNALS),
    started=st.integers(1, AGENTS + 2),
    resist=st.lists(st.booleans(), min_size=AGENTS, max_size=AGENTS),
)
def test_a_signal_to_a_headless_run_with_agents_and_background_commands_leaves_nothing(
    tmp_path_factory: Any, stop: tuple[signal.Signals, int], started: int, resist: list[bool]
) -> None:
    """SIGINT or SIGTERM once ``started`` of the five commands have begun: the run ends with
    the signal's code, no process is left (the background commands' neither: the run is the
    session), every file is whole, and ``--continue`` goes on from the saved conversation (the
    scripted server refuses one with a ``tool_use`` unanswered)."""
    signum, code = stop
    base: Path = tmp_path_factory.mktemp("headless")
    project = Project(Path(os.path.realpath(base / "project")), base / "home")
    project.root.mkdir()
    project.home.mkdir()
    for i in range(FILES):
        (project.root / f"f{i}.txt").write_text(old(i))
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=ALLOWED)
    marker = uuid.uuid4().hex
    notes = project.root / "started"
    with ScriptedServer(headless_script(project.root, resist)) as server:
        process = subprocess.Popen(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
             "--headless", "split the work", "--output-format", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env=project.env(server.url) | {MARKER: marker},
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not (notes.exists() and notes.read_text().count("\n") >= started):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the commands never started"
            time.sleep(0.01)  # another process: polled, nothing to wait on
        process.send_signal(signum)
        out, err = process.communicate(timeout=20)
    assert process.returncode == code, err
    assert json.loads(out)["subtype"] == "interrupted"
    assert started_by(f"{MARKER}={marker}") == []
    for i in range(FILES):
        content = (project.root / f"f{i}.txt").read_text()
        assert content in (old(i), new(i)), f"f{i}.txt is neither old nor new"
    assert [n for n in os.listdir(project.root) if n.endswith(".legato-tmp")] == []
    with ScriptedServer([text("Carrying on.")]) as server:
        again = project.legato(server.url, "--continue", "--headless", RESUMED_PROMPT)
        sent = server.requests[0].body["messages"]
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Carrying on.\n"
    answered = {b["tool_use_id"] for b in sent[2]["content"] if b["type"] == "tool_result"}
    assert answered == {f"toolu_agent_{n}" for n in range(AGENTS)} | {"toolu_bg_0", "toolu_bg_1"}
