"""What MCP servers cost a session, for docs/performance.md ("MCP servers").

    .venv/bin/python -m benchmarks.mcp [--runs 7] [--calls 200]

- start to first request: whole headless `legato` processes against the scripted server with
  0, 1 (time) and 3 (time, git, toy) stdio servers in the global config, each run by the venv's
  Python; the runs interleaved, medians. The target: no slower than with none, the floor. The
  model then answers with a `Read` every 20 ms until a request offers every server's tools:
  the first request that offers a server's tools says when it became ready (to within a poll).
  Peak RSS is the `legato` process's own (GNU time); the servers are processes of their own.
- bytes per request per server: the `tools` array of the request that offers every server's
  tools, encoded as the model client encodes it (compact JSON), against the array with no
  server; and in tokens at four bytes a token.
- one call's round trip, in one process: `mcp__time__get_current_time` through the tool
  executor (the real broker in custom mode with the tool in allowedTools, the MCP client)
  against the floor, the SDK's own ``ClientSession`` on the SDK's stdio transport calling the
  same server, both already initialized; the calls interleaved, medians and 90th percentiles.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from benchmarks.harness import LEGATO, REPO, Project, run_process, trust
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step

SERVERS: dict[str, list[str]] = {
    "time": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
    "git": ["-m", "mcp_server_git"],
    "toy": [str(REPO / "tests" / "mcp_client" / "toy_server.py")],
}
CONFIGS: dict[int, tuple[str, ...]] = {0: (), 1: ("time",), 3: ("time", "git", "toy")}
POLL = 0.02  # seconds the model takes before each `Read` that waits for the servers
MAX_POLLS = 500


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def size(value: Any) -> int:
    return len(msgspec.json.encode(value))


@dataclass
class Sample:
    first: float  # spawn to the first request, seconds
    rss_mb: float
    ready: dict[str, float] = field(default_factory=dict)  # first request to the server's tools
    tools_first: list[dict[str, Any]] = field(default_factory=list)
    tools_ready: list[dict[str, Any]] = field(default_factory=list)


def offers(tools: list[dict[str, Any]], server: str) -> bool:
    return any(tool["name"].startswith(f"mcp__{server}__") for tool in tools)


def one_run(project: Project, servers: tuple[str, ...]) -> Sample:
    """One headless run with ``servers`` configured, until a request offers all their tools."""
    arrivals: list[float] = []
    ready: dict[str, float] = {}
    bodies: list[list[dict[str, Any]]] = []
    readme = project.path("README.md")

    def answer(request: RecordedRequest) -> Step:
        arrivals.append(time.perf_counter())
        tools = request.body.get("tools", [])
        bodies.append(tools)
        for server in servers:
            if server not in ready and offers(tools, server):
                ready[server] = arrivals[-1] - arrivals[0]
        if len(ready) == len(servers) or len(arrivals) > MAX_POLLS:
            return text("done")
        time.sleep(POLL)
        return tool_calls([call("Read", {"file_path": readme})])

    project.reset()
    config = Path(project.home, ".config", "legato", "config.json")
    config.parent.mkdir(parents=True, exist_ok=True)
    chosen = {name: {"command": sys.executable, "args": SERVERS[name]} for name in servers}
    config.write_text(json.dumps({"mcpServers": chosen}))
    with ScriptedServer(answer) as server:
        started = time.perf_counter()
        argv = [LEGATO, project.root, "--headless", "go", "--max-turns", str(MAX_POLLS + 1)]
        done = run_process(argv, env=project.env(server.url))
    if done.exit_code != 0 or len(ready) != len(servers):
        raise SystemExit(f"a run with {servers} failed (exit {done.exit_code}, ready {ready})")
    return Sample(arrivals[0] - started, done.peak_rss_mb, ready, bodies[0], bodies[-1])


def bench_start(runs: int) -> dict[int, list[Sample]]:
    project = Project({"README.md": "bench\n"})
    samples: dict[int, list[Sample]] = {count: [] for count in CONFIGS}
    try:
        one_run(project, CONFIGS[3])  # a warm-up: the servers' bytecode and the page cache
        for _ in range(runs):
            for count, servers in CONFIGS.items():
                samples[count].append(one_run(project, servers))
    finally:
        project.close()
    floor = statistics.median(s.first for s in samples[0])
    print(
        "| servers configured | start to first request (median) | worst | against none "
        "| each server ready, after the first request (median) | all ready, from spawn "
        "| peak RSS (median) |\n|---|---|---|---|---|---|---|"
    )
    for count, servers in CONFIGS.items():
        firsts = [s.first for s in samples[count]]
        ready = ", ".join(
            f"{name} {ms(statistics.median(s.ready[name] for s in samples[count]))}"
            for name in servers
        )
        whole = statistics.median(
            s.first + max(s.ready.values(), default=0) for s in samples[count]
        )
        rss = statistics.median(s.rss_mb for s in samples[count])
        print(
            f"| {count} ({', '.join(servers) or 'none'}) | {ms(statistics.median(firsts))} "
            f"| {ms(max(firsts))} | {statistics.median(firsts) - floor:+.3f} s "
            f"| {ready or '-'} | {ms(whole) if servers else '-'} | {rss:.1f} MB |"
        )
    sys.stdout.flush()
    return samples


def bytes_per_server(samples: dict[int, list[Sample]]) -> None:
    base = samples[0][0].tools_first
    ready = samples[3][0].tools_ready
    first = samples[3][0].tools_first
    print(
        f"\n`tools` with no server: {size(base):,} bytes ({len(base)} tools); "
        f"with three ready: {size(ready):,} bytes; in the first request, while they start "
        f"(ToolSearch instead): {size(first):,} bytes\n"
    )
    print(
        "| server | tools | bytes added to each request | tokens (bytes / 4) |\n|---|---|---|---|"
    )
    for server in CONFIGS[3]:
        mine = [tool for tool in ready if tool["name"].startswith(f"mcp__{server}__")]
        added = sum(size(tool) + 1 for tool in mine)  # each definition and its comma
        print(f"| {server} | {len(mine)} | {added:,} | {added // 4:,} |")
    sys.stdout.flush()


async def round_trips(calls: int) -> tuple[list[float], list[float]]:
    """(through the executor, straight through the SDK), one call each in turn."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from actors.protocol import McpServer, RunTools, ToolCall, ToolFinished
    from frontends.session import tool_parts
    from frontends.session_options import SessionOptions
    from runtime import supervise

    args = SERVERS["time"]
    launch = McpServer(
        name="time", transport="stdio", source="bench", command=sys.executable, args=tuple(args)
    )
    # The real broker, its rules read from a project's settings: custom mode, the tool allowed.
    project = Path(tempfile.mkdtemp(prefix="legato-bench-mcp-"))
    (project / ".legato").mkdir()
    settings = {"permissionMode": "custom", "allowedTools": ["mcp__time"]}
    (project / ".legato" / "settings.json").write_text(json.dumps(settings))
    (project / "home").mkdir()
    # allowedTools widens: applied once trusted. In a thread: `legato trust` runs its own loop.
    await anyio.to_thread.run_sync(trust, str(project), str(project / "home"))
    options = SessionOptions(
        project_root=str(project), home=str(project / "home"), permission_mode="custom"
    )
    # The one server measured, in place of the configured ones.
    parts = tool_parts(options, mcp_servers=(launch,))
    executor = parts.tools
    arguments = {"timezone": "UTC"}

    async def through_executor(n: int) -> float:
        one = ToolCall(id=f"toolu_{n}", name="mcp__time__get_current_time", input=arguments)
        started = time.perf_counter()
        async with executor.address.stream(RunTools(calls=(one,))) as events:
            async for event in events:
                if isinstance(event, ToolFinished):
                    assert not event.result.is_error, event.result.content
        return time.perf_counter() - started

    params = StdioServerParameters(command=sys.executable, args=args)
    ours: list[float] = []
    floor: list[float] = []
    with open("/dev/null", "w") as quiet:  # noqa: ASYNC230 - opened once, before any call
        async with (
            supervise(parts.actors),
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for n in range(20):  # both warm: the server ready, the first calls' imports done
                await through_executor(n)
                await session.call_tool("get_current_time", arguments)
            for n in range(calls):
                ours.append(await through_executor(calls + n))
                started = time.perf_counter()
                result = await session.call_tool("get_current_time", arguments)
                floor.append(time.perf_counter() - started)
                assert not getattr(result, "is_error", False)
    return ours, floor


def bench_round_trip(calls: int) -> None:
    ours, floor = anyio.run(round_trips, calls, backend="trio")

    def p90(values: list[float]) -> float:
        return statistics.quantiles(values, n=10)[-1]

    print(f"\n| one call of mcp__time__get_current_time ({calls} calls) | median | p90 |")
    print("|---|---|---|")
    for name, values in (
        ("through the tool executor (broker asked, MCP client)", ours),
        ("floor: the SDK's ClientSession, straight to the server", floor),
    ):
        print(
            f"| {name} | {statistics.median(values) * 1000:.2f} ms | {p90(values) * 1000:.2f} ms |"
        )
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    precompile()
    samples = bench_start(args.runs)
    bytes_per_server(samples)
    bench_round_trip(args.calls)


if __name__ == "__main__":
    main()
