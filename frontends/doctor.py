"""``legato doctor``: what Legato would run with, and what stands in its way.

    legato doctor [project_path] [--model M] [--permission-mode P] [--no-probe]

It prints the effective settings and their sources, the allowedPaths and blockedPaths entries
that match nothing (warnings: fix or remove them), which credentials are in use (by name, never
their values), the proxy settings, a connectivity probe to ``{api_url}/v1/messages``, the tools
found on PATH and the debug log's state. Each problem is printed with the spec's remedy (section
7). Exit codes: 0 nothing wrong, 1 a problem was found, 2 a configuration file is invalid.

The probe sends a Messages request with no messages: the API checks the key before the body, so
HTTP 400 means "reachable, key accepted" and costs nothing; 401/403 means the key is wrong.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from frontends.cli import EXIT_FAILURE, EXIT_OK
from frontends.config_command import build_parser, credential_lines, explain, setting_lines

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.memory_store import Explained

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
class Problem:
    what: str
    remedy: str

    def lines(self) -> list[str]:
        return [f"  ✗ {self.what}", f"    → {self.remedy}"]


def run_doctor(argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    parser = build_parser("legato doctor", "Check the configuration, credentials and network.")
    parser.add_argument("--no-probe", action="store_true", help="skip the connectivity probe")
    args = parser.parse_args(list(argv))
    env = os.environ if env is None else env
    from actors.errors import LegatoError

    try:
        explained = explain(args, env)
    except LegatoError as error:
        print(f"legato doctor: {error.describe()}", file=sys.stderr)
        return error.exit_code
    problems: list[Problem] = []
    out: list[str] = [f"Project: {explained.context.project_root}", "", "Configuration"]
    out += setting_lines(explained)
    for warning in explained.context.warnings:
        out.append(f"  ! {warning}")
    out += ["", "Path rules", *rule_lines(explained)]
    out += ["", "Credentials", *credential_lines(explained, env)]
    problems += _credential_problems(explained, env)
    out += ["", "Proxy", *_proxy_lines(env)]
    out += ["", "Connectivity"]
    if args.no_probe:
        out.append("  (skipped: --no-probe)")
    else:
        line, problem = probe(explained, env)
        out.append(f"  {line}")
        if problem is not None:
            problems.append(problem)
    out += ["", "Tools on PATH"]
    tool_lines, tool_problems = _tools(env)
    out += tool_lines
    problems += tool_problems
    out += ["", "Debug log", f"  {_debug_line(env)}"]
    out += ["", "Problems" if problems else "No problems found."]
    for problem in problems:
        out += problem.lines()
    print("\n".join(out))
    return EXIT_FAILURE if problems else EXIT_OK


def rule_lines(explained: Explained) -> list[str]:
    """allowedPaths and blockedPaths entries that match nothing: warnings, not problems, since
    a rule for a file that does not exist yet (a future .env) can be deliberate."""
    from actors.memory_store import settings_path
    from frontends.rule_coverage import LIMIT, SKIPPED, coverage

    context = explained.context
    settings = context.settings
    if not settings.allowed_paths and not settings.blocked_paths:
        return ["  no allowedPaths or blockedPaths entries"]
    found = coverage(context, limit=LIMIT)
    file = settings_path(context.project_root)
    lines = []
    for item in found.unmatched:
        lines.append(f"  ! {file}: {item.field} '{item.text}' {item.what}")
        lines.append("    → Fix the entry, or remove it if it is no longer needed")
    if found.capped:
        lines.append(
            f"  ! the walk stopped after {LIMIT:,} files and folders: an entry reported above may "
            "match something further in"
        )
    if not found.unmatched:
        lines.append(f"  every entry matches something ({SKIPPED}/ not searched)")
    return lines


def _credential_problems(explained: Explained, env: Mapping[str, str]) -> list[Problem]:
    from actors.errors import REMEDY_API_KEY
    from actors.model_client.providers import endpoint_for, provider_for

    context = explained.context
    provider = provider_for(context.model, env)
    if provider == "anthropic" and endpoint_for(provider, env, context.config).api_key is None:
        return [Problem("no API key is set", f"{REMEDY_API_KEY} (export ASSISTANT_API_KEY=...)")]
    if provider == "bedrock" and not (env.get("CLOUD_REGION") or "").strip():
        return [Problem("CLOUD_REGION is not set", "Set CLOUD_REGION, e.g. us-east-1")]
    return []


def probe(explained: Explained, env: Mapping[str, str]) -> tuple[str, Problem | None]:
    """POST an empty Messages request to the configured API and judge the answer."""
    import httpx

    from actors.errors import REMEDY_API_KEY, REMEDY_NETWORK, LegatoError
    from actors.model_client.providers import provider_for
    from actors.model_client.providers.router import ProviderRouter
    from actors.protocol import ModelRequest

    context = explained.context
    router = ProviderRouter(env, context.config)
    with httpx.Client(trust_env=True, timeout=PROBE_TIMEOUT) as client:
        router.connect(httpx.AsyncClient(trust_env=False))  # only for building the request
        provider_client = router.client_for(context.model)
        request = ModelRequest(model=context.model, max_tokens=1, messages=[])
        try:
            url, body, headers = provider_client.prepare(request)
        except LegatoError as error:
            return f"not probed: {error.message}", Problem(error.message, error.remedy or "")
        try:
            response = client.post(url, content=body, headers=headers)
        except httpx.HTTPError as error:
            problem = f"cannot reach {url}: {error or type(error).__name__}"
            return problem, Problem(problem, REMEDY_NETWORK)
    status = response.status_code
    key_remedy = REMEDY_API_KEY
    if provider_for(context.model, env) == "bedrock":
        from actors.model_client.providers.bedrock import REMEDY_CLOUD

        key_remedy = REMEDY_CLOUD
    line = f"POST {url} -> HTTP {status}"
    if status in (401, 403):
        return f"{line}: the credentials were refused", Problem(
            f"the API at {url} refused the credentials (HTTP {status})", key_remedy
        )
    if status == 404:
        return f"{line}: no such address", Problem(
            f"{url} does not exist (HTTP 404)",
            "Check ASSISTANT_BASE_URL (or OPENAI_BASE_URL); unset it to use the default",
        )
    if status >= 500:
        return f"{line}: the API is having trouble", Problem(
            f"the API at {url} answered HTTP {status}", "Try again shortly"
        )
    return f"{line}: reachable, credentials accepted", None


def _proxy_lines(env: Mapping[str, str]) -> list[str]:
    lines = []
    for name in PROXY_VARIABLES:
        value = env.get(name) or env.get(name.lower())
        if value:
            lines.append(f"  {name}={_without_password(value)}")
    return lines or ["  no proxy variables set (connections go direct)"]


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _tools(env: Mapping[str, str]) -> tuple[list[str], list[Problem]]:
    from actors.errors import REMEDY_COMMAND

    path = env.get("PATH", "")
    lines, problems = [], []
    for tool, why, required in TOOLS:
        found = shutil.which(tool, path=path)
        lines.append(f"  {tool:<8} {found or 'not found'}  ({why})")
        if found is None and required:
            problems.append(Problem(f"{tool} was not found on PATH", REMEDY_COMMAND))
    return lines, problems


def _debug_line(env: Mapping[str, str]) -> str:
    from frontends.debug import LEVEL_VARIABLE, log_path

    where = log_path(env.get("HOME") or os.path.expanduser("~"))
    if (env.get(LEVEL_VARIABLE) or "").strip().lower() == "debug":
        return f"on: sessions write {where}"
    return f"off (set {LEVEL_VARIABLE}=debug to write {where})"
