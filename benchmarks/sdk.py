"""The official Agent SDK driving Legato and the SDK's bundled CLI, for docs/performance.md.

    uv run python -m benchmarks.sdk [--runs 9] [--prompts 20] [--cli legato|bundled|stub]

Each CLI runs under ``claude_agent_sdk`` against the scripted server on loopback, every request
answered with the same short text reply, the same model named for all (``--model``). Legato is
pointed at the server by ``ASSISTANT_BASE_URL``; the bundled CLI by ``ANTHROPIC_BASE_URL``, with
its non-essential traffic, telemetry, error reporting and updater turned off and its config in a
throwaway home: it then makes no request but the model's (the notes under the first table list
every request each CLI made). The runs interleave the CLIs, the order turning each run, after a
warm-up run of each; each run has a fresh scripted server.

- one prompt: ``query()`` from the call to the ResultMessage, and to the iterator's end (the CLI
  gone); also to the first request reaching the server.
- a session: ``ClaudeSDKClient`` connects (timed alone), then sends ``--prompts`` prompts one
  after another; each prompt's time, from ``client.query()`` to its ResultMessage, minus the
  server's own time for the requests that arrived meanwhile, is its overhead. The first prompt
  is shown apart; the later ones are pooled over every session.
- floors: the scripted server's own time for a request (its arrival to the answer's last event
  sent); the same answer read by a bare httpx client; and a stub CLI (``benchmarks/sdk_stub.py``,
  stdlib Python run as ``python -I -S``) that answers the SDK's ``initialize`` and makes one
  ``http.client`` request per prompt: what the SDK and a process in between cost by themselves.
- peak RSS: the largest high-water mark (VmHWM) in the CLI's process tree, read from /proc while
  it runs (every ``POLL`` seconds, by a thread of this process); the figure GNU time gives for a
  process and the children it waits for. The kernel keeps the mark per process from its exec
  on, so a poll only has to come after the peak. A sum over the tree would count a child forked
  before its exec (Legato's sandbox probe starting ``bwrap``) at its parent's size;
  ``ru_maxrss`` of a child vforked from this process would start at this process's size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import msgspec
from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage, query

from benchmarks import procfs
from benchmarks.harness import LEGATO, Project
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from frontends.demo.scripted_api import RecordedRequest, Step

# With its default model the bundled CLI sends a `role: "system"` message under a beta header,
# which the scripted server refuses as a bad role; with this one it sends a plain conversation.
MODEL = "claude-sonnet-4-6"
REPLY = "Done."
POLL = 0.025  # seconds between reads of /proc for the peak RSS
MESSAGE_STOP = b"event: message_stop"
BUNDLED = "bundled CLI"
STUB = "floor: stub CLI (stdlib Python)"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


# ── the scripted server's side ─────────────────────────────────────────────────────────────


class Timeline:
    """Each request's arrival and the moment its answer's last event was sent (perf_counter).

    Every request gets the same short text reply, so a CLI that asks for more than the turn
    (a title, a summary) is answered too and its extra requests show in ``paths``.
    """

    def __init__(self, step: Step) -> None:
        self.step = step
        self.arrived: list[float] = []
        self.finished: list[float] = []
        self.paths: list[str] = []
        self.sizes: list[int] = []  # each request's body, re-encoded as compact JSON

    def answer(self, request: RecordedRequest) -> Step:
        self.arrived.append(time.perf_counter())
        self.paths.append(request.path)
        self.sizes.append(len(msgspec.json.encode(request.body)))
        return self.step

    def sent(self, data: bytes) -> None:
        if data.startswith(MESSAGE_STOP):
            self.finished.append(time.perf_counter())

    def server_seconds(self, start: float = 0.0, end: float = float("inf")) -> float:
        """The server's own time for the requests that arrived between ``start`` and ``end``.

        Arrivals and ends pair up in order: the CLIs here send one request at a time.
        """
        return sum(
            done - came
            for came, done in zip(self.arrived, self.finished, strict=False)
            if start <= came <= end
        )


def server(timeline: Timeline) -> ScriptedServer:
    return ScriptedServer(timeline.answer, on_sent=timeline.sent)


# ── peak RSS of the spawned tree ───────────────────────────────────────────────────────────


class TreePeak:
    """The peak RSS of this process's descendants, polled from /proc by a thread."""

    def __init__(self) -> None:
        self._root = os.getpid()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-peak", daemon=True)
        self.high_water_kb: dict[int, int] = {}  # pid -> its VmHWM at the last read
        self.names: dict[int, str] = {}  # pid -> its command name (after its exec, if any)
        self.tree: dict[int, str] = {}  # the descendants seen, by pid

    def __enter__(self) -> TreePeak:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak_mb(self) -> float:
        return max(self.high_water_kb.values(), default=0) / 1024

    def _run(self) -> None:
        while not self._stop.wait(POLL):
            self._sample()

    def _sample(self) -> None:
        children: dict[int, list[int]] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat", "rb") as file:
                        stat = file.read()
                except OSError:
                    continue  # gone since the listing
                command, _, rest = stat.partition(b" (")[2].rpartition(b")")
                children.setdefault(int(rest.split()[1]), []).append(int(name))
                self.names[int(name)] = command.decode(errors="replace")
        pending = list(children.get(self._root, ()))
        while pending:
            pid = pending.pop()
            pending.extend(children.get(pid, ()))
            kb = procfs.high_water_kb(pid)
            if kb is not None:
                self.tree[pid] = self.names[pid]
                self.high_water_kb[pid] = max(kb, self.high_water_kb.get(pid, 0))


# ── the CLIs under the SDK ─────────────────────────────────────────────────────────────────


def options(cli: str | None, url: str, project: Project, errors: list[str]) -> ClaudeAgentOptions:
    home = project.home
    if cli is None:
        env = {
            "HOME": home,
            "CLAUDE_CONFIG_DIR": str(Path(home, ".claude")),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "bench-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    else:
        env = {"HOME": home, "ASSISTANT_BASE_URL": url, "ASSISTANT_API_KEY": "bench-key"}
    return ClaudeAgentOptions(
        cli_path=cli, cwd=project.root, env=env, model=MODEL, stderr=errors.append
    )


def check(result: ResultMessage | None, name: str, errors: list[str]) -> ResultMessage:
    if result is None or result.is_error or result.result != REPLY:
        raise failed(name, f"no good result ({result!r})", errors)
    return result


def failed(name: str, why: object, errors: list[str]) -> SystemExit:
    """What stops the benchmark when a CLI fails, with the end of what it wrote to stderr."""
    tail = "\n".join(errors[-20:])
    return SystemExit(f"{name}: {why}\n{tail}")


@dataclass
class QuerySample:
    to_result: float
    to_end: float
    to_request: float
    server: float
    rss_mb: float
    processes: list[str]  # each process seen in the tree, by command name
    paths: list[str]
    request_bytes: int


async def one_query(name: str, cli: str | None, project: Project) -> QuerySample:
    timeline = Timeline(text(REPLY))
    errors: list[str] = []
    result: ResultMessage | None = None
    with server(timeline) as scripted, TreePeak() as peak:
        chosen = options(cli, scripted.url, project, errors)
        started = time.perf_counter()
        try:
            async for message in query(prompt="Say done.", options=chosen):
                if isinstance(message, ResultMessage):
                    result = message
                    answered = time.perf_counter()
        except Exception as exc:
            raise failed(name, exc, errors) from exc
        ended = time.perf_counter()
    check(result, name, errors)
    return QuerySample(
        to_result=answered - started,
        to_end=ended - started,
        to_request=timeline.arrived[0] - started,
        server=timeline.server_seconds(),
        rss_mb=peak.peak_mb,
        processes=sorted(peak.tree.values()),
        paths=timeline.paths,
        request_bytes=timeline.sizes[0],
    )


@dataclass
class SessionSample:
    connect: float
    overheads: list[float] = field(default_factory=list)  # per prompt, the server's time out
    prompts: list[float] = field(default_factory=list)
    requests: int = 0
    rss_mb: float = 0.0


async def one_session(name: str, cli: str | None, project: Project, prompts: int) -> SessionSample:
    timeline = Timeline(text(REPLY))
    errors: list[str] = []
    with server(timeline) as scripted, TreePeak() as peak:
        client = ClaudeSDKClient(options(cli, scripted.url, project, errors))
        started = time.perf_counter()
        try:
            await client.connect()
        except Exception as exc:
            raise failed(name, exc, errors) from exc
        sample = SessionSample(connect=time.perf_counter() - started)
        try:
            for number in range(prompts):
                result: ResultMessage | None = None
                started = time.perf_counter()
                try:
                    await client.query(f"Say done ({number}).")
                    async for message in client.receive_response():
                        if isinstance(message, ResultMessage):
                            result = message
                except Exception as exc:
                    raise failed(name, exc, errors) from exc
                ended = time.perf_counter()
                check(result, name, errors)
                seconds = ended - started
                sample.prompts.append(seconds)
                sample.overheads.append(seconds - timeline.server_seconds(started, ended))
        finally:
            await client.disconnect()
    sample.requests = len(timeline.arrived)
    sample.rss_mb = peak.peak_mb
    return sample


# ── floors ─────────────────────────────────────────────────────────────────────────────────

FLOOR_BODY: dict[str, Any] = {
    "model": MODEL,
    "max_tokens": 1024,
    "stream": True,
    "messages": [{"role": "user", "content": "Say done."}],
}
FLOOR_HEADERS = {"x-api-key": "bench-key", "anthropic-version": "2023-06-01"}


def httpx_floor(runs: int, per_connection: int) -> float:
    """One streamed answer read by a bare httpx client: median seconds per request, over
    ``per_connection`` requests on one connection (1: the connection's set-up included)."""
    samples = []
    for _ in range(runs):
        timeline = Timeline(text(REPLY))
        with server(timeline) as scripted, httpx.Client(base_url=scripted.url) as client:
            for _ in range(per_connection):
                started = time.perf_counter()
                with client.stream(
                    "POST", "/v1/messages", json=FLOOR_BODY, headers=FLOOR_HEADERS
                ) as response:
                    for _ in response.iter_bytes():
                        pass
                samples.append(time.perf_counter() - started)
    return statistics.median(samples)


# ── the tables ─────────────────────────────────────────────────────────────────────────────


def order(clis: dict[str, str | None], run: int) -> Sequence[str]:
    """Interleaved, the order turning each run, so none always runs after the same one."""
    names = list(clis)
    turn = run % len(names)
    return names[turn:] + names[:turn]


def stub_cli(project: Project) -> str:
    """The stub, as an executable the SDK can spawn: this interpreter, isolated, no site."""
    path = Path(project.home, "stub-cli")
    source = Path(__file__).with_name("sdk_stub.py").read_text()
    path.write_text(f"#!{sys.executable} -IS\n{source}")
    path.chmod(0o755)
    return str(path)


async def bench_query(clis: dict[str, str | None], project: Project, runs: int) -> None:
    for name, cli in clis.items():  # a warm-up each: the page cache, bytecode, config files
        await one_query(name, cli, project)
    samples: dict[str, list[QuerySample]] = {name: [] for name in clis}
    for run in range(runs):
        for name in order(clis, run):
            samples[name].append(await one_query(name, clis[name], project))
    floor = httpx_floor(runs, 1)
    print(
        f"| one-prompt `query()` ({runs} runs) | to ResultMessage (median) | worst "
        "| to the end (CLI gone) | to the first request | server's own time | request body "
        "| peak RSS (median) |\n|---|---|---|---|---|---|---|---|"
    )
    for name, mine in samples.items():
        print(
            f"| {name} | {ms(statistics.median(s.to_result for s in mine))} "
            f"| {ms(max(s.to_result for s in mine))} "
            f"| {ms(statistics.median(s.to_end for s in mine))} "
            f"| {ms(statistics.median(s.to_request for s in mine))} "
            f"| {statistics.median(s.server for s in mine) * 1000:.1f} ms "
            f"| {statistics.median(s.request_bytes for s in mine) / 1000:.1f} kB "
            f"| {statistics.median(s.rss_mb for s in mine):.0f} MB |"
        )
    print(f"| floor: the answer read by a bare httpx client, connection included | {ms(floor)} |")
    for name, mine in samples.items():
        paths = sorted({path for s in mine for path in s.paths})
        counts = sorted({len(s.paths) for s in mine})
        trees = sorted({", ".join(s.processes) for s in mine})
        print(f"- {name}: requests per run {counts} to {paths}; the trees seen: {trees}")
    sys.stdout.flush()


async def bench_session(
    clis: dict[str, str | None], project: Project, runs: int, prompts: int
) -> None:
    samples: dict[str, list[SessionSample]] = {name: [] for name in clis}
    for run in range(runs):
        for name in order(clis, run):
            samples[name].append(await one_session(name, clis[name], project, prompts))
    floor = httpx_floor(runs, prompts)
    print(
        f"\n| `ClaudeSDKClient`, {prompts} prompts a session ({runs} sessions) | connect "
        "(median) | first prompt's overhead | each later prompt (median) | its overhead, the "
        "server's time out (median) | p90 | requests a session | peak RSS (median) |"
        "\n|---|---|---|---|---|---|---|---|"
    )
    for name, mine in samples.items():
        later = [o for s in mine for o in s.overheads[1:]]
        print(
            f"| {name} | {ms(statistics.median(s.connect for s in mine))} "
            f"| {statistics.median(s.overheads[0] for s in mine) * 1000:.1f} ms "
            f"| {statistics.median(p for s in mine for p in s.prompts[1:]) * 1000:.1f} ms "
            f"| {statistics.median(later) * 1000:.1f} ms "
            f"| {statistics.quantiles(later, n=10)[-1] * 1000:.1f} ms "
            f"| {', '.join(str(n) for n in sorted({s.requests for s in mine}))} "
            f"| {statistics.median(s.rss_mb for s in mine):.0f} MB |"
        )
    print(
        "| floor: one answer on a kept-alive connection, bare httpx | | | "
        f"{floor * 1000:.1f} ms | | | | |"
    )
    sys.stdout.flush()


async def bench(runs: int, prompts: int, only: Sequence[str], chosen: Sequence[str]) -> None:
    project = Project({"README.md": "bench\n"})
    clis: dict[str, str | None] = {}
    if "legato" in chosen:
        clis["Legato"] = LEGATO
    if "bundled" in chosen:
        clis[BUNDLED] = None  # the SDK finds its own
    if "stub" in chosen:
        clis[STUB] = stub_cli(project)
    try:
        if "query" in only:
            await bench_query(clis, project, runs)
        if "session" in only:
            await bench_session(clis, project, runs, prompts)
    finally:
        project.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--prompts", type=int, default=20)
    parser.add_argument("--only", choices=["query", "session"], action="append")
    parser.add_argument(
        "--cli", choices=["legato", "bundled", "stub"], action="append", help="default: all"
    )
    args = parser.parse_args()
    # The SDK gives a CLI this process's environment under its own options' env: keep only
    # what options() sets for the CLIs to read, and no proxy in the way of loopback.
    for name in list(os.environ):
        if name.lower().endswith("_proxy") or name.startswith(
            ("ANTHROPIC_", "ASSISTANT_", "CLAUDE")
        ):
            del os.environ[name]
    precompile()
    only = args.only or ["query", "session"]
    anyio.run(bench, args.runs, args.prompts, only, args.cli or ["legato", "bundled", "stub"])


if __name__ == "__main__":
    main()
