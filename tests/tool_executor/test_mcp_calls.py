"""MCP calls through the executor: the broker is asked first (kind "call", with the server and
the arguments), a refusal calls nothing, an interrupt stops the server's call too, and a
subagent held to its tools cannot reach an MCP tool it was not given."""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from actors.mcp_client import McpClient
from actors.protocol import (
    AgentScope,
    CheckPermission,
    Decision,
    InterruptTools,
    ListMcpTools,
    McpServer,
    RunTools,
    ToolFinished,
)
from actors.tool_executor import ToolExecutor
from runtime import supervise
from tests.mcp_client.harness import TOY, alive, wait_for
from tests.tool_executor.harness import Broker, call

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from pathlib import Path

    from actors.protocol import PermissionBrokerMsg, PermissionRequest, ToolCall
    from runtime import Reply


@asynccontextmanager
async def executor_with_toy(
    root: Path,
    deny: Callable[[PermissionRequest], str | None] | None = None,
    servers: tuple[McpServer, ...] = (TOY,),
) -> AsyncIterator[tuple[ToolExecutor, Broker]]:
    broker = Broker(deny)
    client = McpClient(servers, cwd=str(root))
    executor = ToolExecutor(broker.address, project_root=str(root), mcp=client.address)
    async with supervise([broker, client, executor]):
        yield executor, broker


async def settled(executor: ToolExecutor) -> None:
    """Until every server is ready or has failed (the executor's MCP client is the test's)."""
    mcp = executor._scheduler.mcp
    assert mcp is not None
    await mcp.ask(ListMcpTools(wait=True))


async def finish(executor: ToolExecutor, *calls: ToolCall, **run: Any) -> list[ToolFinished]:
    async with executor.address.stream(RunTools(calls=calls, **run)) as stream:
        return [event async for event in stream if isinstance(event, ToolFinished)]


async def test_a_call_is_put_to_the_broker_with_its_server_and_arguments(tmp_path: Path) -> None:
    async with executor_with_toy(tmp_path) as (executor, broker):
        [done] = await finish(executor, call("mcp__toy__shout", text="hi", times=2))
    assert done.result.content == "hihi"
    [request] = broker.requests
    assert request.kind == "call"
    assert request.tool == "mcp__toy__shout"
    assert request.server == "toy"
    assert request.arguments == {"text": "hi", "times": 2}


async def test_a_refused_call_reaches_no_server(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    async with executor_with_toy(tmp_path, deny=lambda r: "the test says no") as (executor, _):
        [done] = await finish(executor, call("mcp__toy__hang", started=str(marker)))
    assert done.result.is_error and done.result.denied
    assert "the test says no" in done.result.content
    assert not marker.exists()


async def test_an_interrupted_call_is_cancelled_on_the_server(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    hang = call("mcp__toy__hang", started=str(marker))
    async with executor_with_toy(tmp_path) as (executor, _):
        async with anyio.create_task_group() as tasks:
            results: list[ToolFinished] = []

            async def run() -> None:
                results.extend(await finish(executor, hang))

            tasks.start_soon(run)
            await wait_for(marker)
            await executor.address.tell(InterruptTools(ids=(hang.id,)))
        cancelled = marker.with_name("started.cancelled")
        await wait_for(cancelled)  # the server heard MCP's cancellation
        # The server still answers after the cancelled call.
        [after] = await finish(executor, call("mcp__toy__shout", text="k", times=1))
    [done] = results
    assert done.result.is_error
    assert done.result.content.startswith("Interrupted after ")
    assert after.result.content == "k"


async def test_an_agent_cannot_call_an_mcp_tool_it_was_not_given(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    agent = AgentScope(name="reader", parent_tool_use_id="toolu_0", tools=frozenset({"Read"}))
    async with executor_with_toy(tmp_path) as (executor, broker):
        [done] = await finish(executor, call("mcp__toy__hang", started=str(marker)), agent=agent)
    assert done.result.is_error
    assert "not available to the agent 'reader'" in done.result.content
    assert broker.requests == []
    assert not marker.exists()


async def test_the_servers_process_is_gone_when_the_session_ends(tmp_path: Path) -> None:
    async with executor_with_toy(tmp_path) as (executor, _):
        [done] = await finish(executor, call("mcp__toy__pid"))
        pid = int(done.result.content)
        assert alive(pid)
    assert not alive(pid)
    assert os.getpid() != pid


async def test_a_server_that_crashed_is_started_again_by_the_next_call(tmp_path: Path) -> None:
    async with executor_with_toy(tmp_path) as (executor, broker):
        [first] = await finish(executor, call("mcp__toy__pid"))
        [crashed] = await finish(executor, call("mcp__toy__crash"))
        [again] = await finish(executor, call("mcp__toy__pid"))
    assert crashed.result.is_error
    assert "went away during the call" in crashed.result.content
    assert not again.result.is_error, again.result.content
    assert again.result.content != first.result.content  # another process
    assert [r.tool for r in broker.requests] == [
        "mcp__toy__pid",
        "mcp__toy__crash",
        "mcp__toy__pid",
    ]


async def test_a_failed_server_says_why_and_nobody_is_asked(tmp_path: Path) -> None:
    missing = McpServer(name="gone", transport="stdio", source="x", command="/nonexistent/srv")
    async with executor_with_toy(tmp_path, servers=(missing,)) as (executor, broker):
        await settled(executor)
        [done] = await finish(executor, call("mcp__gone__anything"))
    assert done.result.is_error
    assert done.result.content.startswith("mcp__gone__anything was not called: MCP server 'gone'")
    assert "its command was not found: /nonexistent/srv" in done.result.content
    assert broker.requests == []


async def test_an_unapproved_servers_tool_names_the_remedy(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    unapproved = McpServer(
        name="toy", transport="stdio", source="/p/.mcp.json", command=TOY.command,
        args=TOY.args, approved=False,
    )  # fmt: skip
    async with executor_with_toy(tmp_path, servers=(unapproved,)) as (executor, broker):
        [done] = await finish(executor, call("mcp__toy__hang", started=str(marker)))
    assert done.result.is_error
    assert "has not been approved" in done.result.content
    assert "/mcp approve toy" in done.result.content
    assert broker.requests == []
    assert not marker.exists()


class Answering(Broker):
    """Allows the first check with other arguments, as an SDK's updatedInput does; allows the
    checks after it as they are."""

    async def handle(self, msg: PermissionBrokerMsg, reply: Reply) -> None:
        if isinstance(msg, CheckPermission) and not self.requests:
            self.requests.append(msg.request)
            new = {"text": "yo", "times": 1}
            await reply.answer(msg, Decision(True, "the test allows it", updated_input=new))
            return
        await super().handle(msg, reply)


async def test_a_call_carries_its_id_and_runs_with_the_input_an_answer_gave(
    tmp_path: Path,
) -> None:
    broker = Answering()
    client = McpClient((TOY,), cwd=str(tmp_path))
    executor = ToolExecutor(broker.address, project_root=str(tmp_path), mcp=client.address)
    shout = call("mcp__toy__shout", text="hi", times=2)
    async with supervise([broker, client, executor]):
        [done] = await finish(executor, shout)
    assert done.result.content == "yo"
    first, again = broker.requests
    assert (first.tool_use_id, first.tool_input, first.preapproved) == (shout.id, shout.input, None)
    assert again.tool_input == again.arguments == {"text": "yo", "times": 1}
    assert (again.tool_use_id, again.preapproved) == (shout.id, "target")
