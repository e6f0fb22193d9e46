"""``legato doctor``: what Legato would run with, and what stands in its way.

    legato doctor [project_path] [--model M] [--permission-mode P] [--no-probe]

It prints the effective settings and their sources, the allowedPaths and blockedPaths entries
that match nothing (warnings: fix or remove them), which credentials are in use (by name, never
their values), the proxy settings, a connectivity probe to ``{api_url}/v1/messages``, the tools
found on PATH, the MCP servers (the approved ones started, each reported ready with its tools or
failed with the reason, then stopped; an unapproved one is not started) and the debug log's
state. Each problem is printed with its remedy. Exit codes:
0 nothing wrong, 1 a problem was found, 2 a configuration file is invalid.

Each answer comes from the actor that owns it, started as a session would start it: the memory
store (the settings and their sources), the permission broker (the entries that match nothing)
and the model client (the provider and its credentials, and the probe: a Messages request with
no messages, which the API answers HTTP 400 once the key is accepted, at no cost).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.counts import counted
from actors.errors import EXIT_FAILURE, EXIT_OK
from actors.telemetry import describe as describe_telemetry
from actors.visible import printed_visibly, without_password
from frontends.commands.arguments import build_parser, session_options
from frontends.commands.listings import credential_lines, not_acted_on_lines, setting_lines
from frontends.errors_out import report

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from actors.protocol import (
        Explained,
        Finding,
        McpServerStatus,
        McpToolListing,
        ProbeReport,
        ProviderReport,
        RuleCoverage,
        SandboxReport,
    )

PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")
# (tool, why Legato wants it, required)
TOOLS = (
    ("bash", "runs the Bash tool's commands", True),
    ("git", "git operations the model runs", False),
    ("rg", "faster searches in commands the model runs", False),
    ("python3", "scripts the model runs", False),
)
PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Answers:
    """What the actors that own them say: the configuration (memory store), the path rules
    (permission broker), the provider and the probe (model client)."""

    explained: Explained
    coverage: RuleCoverage
    provider: ProviderReport
    probe: ProbeReport | None  # None: --no-probe
    sandbox: SandboxReport
    mcp: tuple[McpServerStatus, ...]  # once each approved server is ready or has failed
    mcp_tools: McpToolListing


@printed_visibly
def run_doctor(argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    parser = build_parser("legato doctor", "Check the configuration, credentials and network.")
    parser.add_argument("--no-probe", action="store_true", help="skip the connectivity probe")
    args = parser.parse_args(list(argv))
    env = os.environ if env is None else env
    from actors.errors import LegatoError

    try:
        answers = ask(args, env)
    except LegatoError as error:
        return report(error, program="legato doctor")
    explained = answers.explained
    problems: list[Finding] = []
    out: list[str] = [f"Project: {explained.context.project_root}", "", "Configuration"]
    out += setting_lines(explained)
    for warning in explained.context.warnings:
        out.append(f"  ! {warning}")
    if explained.not_acted_on:
        out += ["", "Not acted on (keys of the reference's settings that Legato does not use)"]
        out += not_acted_on_lines(explained)
    out += ["", "Path rules", *rule_lines(answers.coverage)]
    out += ["", "Sandbox for Bash commands", *sandbox_lines(answers.sandbox)]
    out += ["", "Credentials", *credential_lines(answers.provider)]
    problems += answers.provider.problems
    out += ["", "Web search", f"  {web_search_line(answers.provider)}"]
    out += ["", "Proxy", *_proxy_lines(env)]
    out += ["", "Connectivity"]
    if answers.probe is None:
        out.append("  (skipped: --no-probe)")
    else:
        out.append(f"  {answers.probe.line}")
        if answers.probe.problem is not None:
            problems.append(answers.probe.problem)
    out += ["", "Tools on PATH"]
    tool_lines, tool_problems = _tools(env)
    out += tool_lines
    problems += tool_problems
    out += ["", "MCP servers"]
    mcp_lines, mcp_problems = mcp_server_report(explained, answers.mcp, answers.mcp_tools)
    out += mcp_lines
    problems += mcp_problems
    out += ["", "Debug log", f"  {_debug_line(env)}"]
    out += ["", "Telemetry", f"  {describe_telemetry(env)}"]
    out += ["", "Problems" if problems else "No problems found."]
    # The probe meets what the credentials check found (no key, no region, a missing extra):
    # each is listed once.
    for problem in dict.fromkeys(problems):
        out += [f"  ✗ {problem.what}", f"    → {problem.remedy}"]
    print("\n".join(out))
    return EXIT_FAILURE if problems else EXIT_OK


def ask(args: argparse.Namespace, env: Mapping[str, str]) -> Answers:
    """Start the memory store, the permission broker, the model client, the tool executor and
    the MCP client as a session would, and ask each what it owns; raises the LegatoError that
    stops one starting."""
    import msgspec

    from actors.protocol import (
        CheckRuleCoverage,
        DescribeProvider,
        DescribeSandbox,
        ExplainContext,
        ListMcpServers,
        ListMcpTools,
        ProbeApi,
    )
    from frontends.commands.asking import ask_actors
    from frontends.session import model_client, tool_parts

    # Nobody answers here: whatever the rules would ask a person is reported, never asked.
    options = msgspec.structs.replace(session_options(args, env), headless=True)
    # The executor a session runs: with its hooks, its MCP client and a UI (that shows
    # nothing). It tries the sandbox once, as a session's first command would. The MCP client
    # starts the approved servers as a session would (the unapproved ones never), and its
    # stop ends them and their processes.
    parts = tool_parts(options)
    memory, broker, tools, mcp = parts.memory, parts.permissions, parts.tools, parts.mcp
    # With --no-probe nothing is sent: the HTTP client is not made.
    client = model_client(options, memory, connect_at_start=False)

    async def questions() -> Answers:
        explained = await memory.address.ask(ExplainContext())
        model = explained.context.model
        probe = None
        if not args.no_probe:
            probe = await client.address.ask(ProbeApi(model=model, timeout=PROBE_TIMEOUT))
        return Answers(
            explained,
            await broker.address.ask(CheckRuleCoverage()),
            await client.address.ask(DescribeProvider(model=model)),
            probe,
            await tools.address.ask(DescribeSandbox()),
            # Each server's start timeout bounds the wait; they started with the actor.
            mcp_tools=await mcp.address.ask(ListMcpTools(wait=True)),
            mcp=await mcp.address.ask(ListMcpServers()),
        )

    return ask_actors([*parts.actors, client], questions)


def mcp_server_report(
    explained: Explained, statuses: Sequence[McpServerStatus], listing: McpToolListing
) -> tuple[list[str], list[Finding]]:
    """Each server's state: ready with its tools, failed with why (a problem), not approved
    (a note with the remedy: the user may not want it to run)."""
    from actors.protocol import Finding
    from frontends.commands.mcp_notes import approve_remedy, error_lines

    if not statuses:
        return ["  none configured (.mcp.json or the global config)"], []
    servers = {server.name: server for server in explained.context.mcp_servers}
    lines: list[str] = []
    problems: list[Finding] = []
    for status in statuses:
        server = servers.get(status.name)
        head = f"  {status.name} ({status.source})"
        if status.state == "ready":
            names = [t.name.split("__", 2)[-1] for t in listing.tools if t.server == status.name]
            tools = counted(len(names), "tool")
            lines.append(f"{head}: ready, {tools}: {', '.join(names) or 'none'}")
        elif status.state == "unapproved":
            lines.append(f"{head}: not approved, not started")
            lines.append(f"    → {approve_remedy(status.name)}")
        elif status.state == "failed":
            lines.append(f"{head}: failed")
            lines += error_lines(status.error, "    ")
            problems.append(
                Finding(
                    f"the MCP server '{status.name}' failed to start",
                    f"Check its entry in {status.source}"
                    + (f" (it runs {server.command})" if server and server.command else ""),
                )
            )
        else:
            lines.append(f"{head}: still connecting after its start timeout")
    return lines, problems


def sandbox_lines(report: SandboxReport) -> list[str]:
    """Whether commands run confined, and what that enforces; a sandbox that does not work
    here is a warning, not a problem: commands still run, as they would without it."""
    if report.active and report.not_enforced:  # the fallback: a part of the sandbox
        return [
            f"  {report.mechanism}: active, in part (bubblewrap cannot run here)",
            *(f"  {line}" for line in report.enforces),
            *(f"  ! not enforced: {line}" for line in report.not_enforced),
            f"  ! {report.why_not}",
        ]
    if report.active:
        return [f"  {report.mechanism}: active", *(f"  {line}" for line in report.enforces)]
    return [f"  {report.mechanism}: not active", f"  ! {report.why_not}"]


def rule_lines(coverage: RuleCoverage) -> list[str]:
    """allowedPaths and blockedPaths entries that match nothing: warnings, not problems, since
    a rule for a file that does not exist yet (a future .env) can be deliberate."""
    if not coverage.entries:
        return ["  no allowedPaths or blockedPaths entries"]
    lines = []
    for item in coverage.unmatched:
        lines.append(f"  ! {coverage.rules_file}: {item.field} '{item.text}' {item.what}")
        lines.append("    → Fix the entry, or remove it if it is no longer needed")
    if coverage.capped:
        lines.append(
            f"  ! the walk stopped after {coverage.walked:,} files and folders: an entry "
            "reported above may match something further in"
        )
    if not coverage.unmatched:
        lines.append(f"  every entry matches something ({coverage.skipped}/ not searched)")
    return lines


# The providers by name, as a person knows them.
_PROVIDERS = {
    "anthropic": "the Anthropic API",
    "bedrock": "Amazon Bedrock",
    "openai": "an OpenAI-compatible API",
}


def web_search_line(provider: ProviderReport) -> str:
    """Whether the model is offered WebSearch, and why not where it is not: the tool runs on
    the provider's own server-side search."""
    name = _PROVIDERS.get(provider.provider, provider.provider)
    if provider.web_search:
        return f"WebSearch is offered: {name} searches the web itself (server-side web search)"
    return f"WebSearch is not offered: {name} has no server-side web search"


def _proxy_lines(env: Mapping[str, str]) -> list[str]:
    lines = []
    for name in PROXY_VARIABLES:
        value = env.get(name) or env.get(name.lower())
        if value:
            lines.append(f"  {name}={without_password(value)}")
    return lines or ["  no proxy variables set (connections go direct)"]


def _tools(env: Mapping[str, str]) -> tuple[list[str], list[Finding]]:
    from actors.errors import REMEDY_COMMAND
    from actors.protocol import Finding

    path = env.get("PATH", "")
    lines: list[str] = []
    problems: list[Finding] = []
    for tool, why, required in TOOLS:
        found = shutil.which(tool, path=path)
        lines.append(f"  {tool:<8} {found or 'not found'}  ({why})")
        if found is None and required:
            problems.append(Finding(f"{tool} was not found on PATH", REMEDY_COMMAND))
    lines.append(f"  {'search':<8} {_search_backend()}")
    return lines, problems


def _search_backend() -> str:
    """What Grep, Glob and ``@path`` completion walk and match with."""
    from frontends.session import search_binary

    rg = search_binary()
    if rg is None:
        return "the Python walk and matcher (no rg beside Legato or on PATH: slower on big trees)"
    return f"{rg}  (Grep, Glob and @path completion; the Python walk where it cannot run)"


def _debug_line(env: Mapping[str, str]) -> str:
    from frontends.startup.debug import LEVEL_VARIABLE, log_path

    where = log_path(env.get("HOME") or os.path.expanduser("~"))
    if (env.get(LEVEL_VARIABLE) or "").strip().lower() == "debug":
        return f"on: sessions write {where}"
    return f"off (set {LEVEL_VARIABLE}=debug to write {where})"
