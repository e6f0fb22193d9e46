"""The MCP servers of the project's ``.mcp.json`` and the global config, in Claude Code's format.

    {"mcpServers": {"<name>": {"command": "...", "args": [...], "env": {...}}}}      stdio
    {"mcpServers": {"<name>": {"type": "http", "url": "...", "headers": {...}}}}      http, sse

``${VAR}`` and ``${VAR:-default}`` expand in command, args, env values, url and header values,
from the session's environment, as Claude Code expands them; a server whose entry would hand it
one of Legato's own credentials is refused (``without_credential_servers``). A server's name
becomes part of its tools' names (``mcp__<server>__<tool>``), so it holds only letters, digits,
``_`` and ``-``. Reading the file starts nothing (docs/mcp.md).

A project's servers (its ``.mcp.json``, which a cloned repository brings) are approved only
when the user approved the entry as it is written (mcp_approvals.py), or turned
``enableAllProjectMcpServers`` on in the global config; the global config's are the user's own.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from typing import TYPE_CHECKING, Any

import msgspec

from actors.credentials import LEGATO_CREDENTIALS, credential_in, credential_values
from actors.errors import ConfigError
from actors.own_files import SETTINGS_CAP, Refused, read_own
from actors.settings import McpServer, McpWritten
from actors.settings.jsonpos import decode, key_positions

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    # The error for a message at a field path (its line found from the path), with a remedy.
    Fail = Callable[..., ConfigError]

MCP_FILE = ".mcp.json"  # at the project root
_NAME = re.compile(r"[A-Za-z0-9_-]+")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_KNOWN = frozenset({"type", "command", "args", "env", "url", "headers"})
_REMEDY = "Fix the entry (docs/mcp.md describes the format), or remove it"


def load_mcp_servers(
    project_root: str,
    config_file: str,
    env: Mapping[str, str],
    warnings: list[str],
    *,
    approvals: Mapping[str, str] | None = None,
    trust_all: bool = False,
) -> tuple[McpServer, ...]:
    """The project's servers, then the global config's whose names the project does not use
    (the project's entry wins on a clash, as its settings do). Raises ConfigError.

    ``approvals``: the fingerprint the user approved for each project server's name; a
    server whose entry has changed since is not approved. ``trust_all``: the global config's
    ``enableAllProjectMcpServers``."""
    project = read_mcp_servers(os.path.join(project_root, MCP_FILE), env, warnings)
    # A cloned repository's servers would run its code at the session's start: none runs until
    # the user has approved its entry as it is written now.
    approvals = approvals or {}
    project = tuple(
        msgspec.structs.replace(
            server, approved=trust_all or approvals.get(server.name) == server.fingerprint
        )
        for server in project
    )
    taken = {server.name for server in project}
    everywhere = read_mcp_servers(config_file, env, warnings)
    return (*project, *(server for server in everywhere if server.name not in taken))


def read_mcp_servers(
    path: str,
    env: Mapping[str, str],
    warnings: list[str],
    *,
    inside: Sequence[str] = (),
) -> tuple[McpServer, ...]:
    """The ``mcpServers`` of one file (none when the file is absent).

    Read through the door for Legato's own files: its real path must stay in ``inside`` (its
    own folder when empty: the project for ``.mcp.json``, ``~/.config/legato`` for the config),
    so a link out of the project is a ConfigError, as is a FIFO, a device or a file over the cap.
    """
    try:
        found = read_own(path, inside=inside or (os.path.dirname(path),), cap=SETTINGS_CAP)
    except Refused as refused:
        raise ConfigError(refused.why, path=path, remedy=refused.remedy) from None
    if found is None:
        return ()
    try:
        text = found.data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"cannot be read: {error}", path=path, remedy="Make it a readable UTF-8 file"
        ) from None
    if not text:
        # What the sandbox leaves where it keeps a command from creating .mcp.json.
        return ()
    return parse_mcp_servers(path, text, env, warnings)


def parse_mcp_servers(
    path: str, text: str, env: Mapping[str, str], warnings: list[str]
) -> tuple[McpServer, ...]:
    raw = decode(
        path,
        text,
        deep_remedy="No server entry nests that deep: fix the file",
        syntax_remedy="Fix the JSON at that line",
    )
    positions = key_positions(text)

    def fail(message: str, *steps: str, remedy: str = _REMEDY) -> ConfigError:
        line = None
        for end in range(len(steps), 0, -1):  # the nearest key that has a position
            if (found := positions.get(steps[:end])) is not None:
                line = found.line
                break
        return ConfigError(
            message, path=path, line=line or 1, field=".".join(steps) or None, remedy=remedy
        )

    if not isinstance(raw, dict):
        raise fail('the file must hold one JSON object such as {"mcpServers": {...}}')
    servers = raw.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise fail("must be an object of servers by name", "mcpServers")
    out: list[McpServer] = []
    for name, entry in servers.items():
        at = ("mcpServers", name)
        if not _NAME.fullmatch(name):
            raise fail(
                f"the name {name!r} cannot be part of a tool name (mcp__<server>__<tool>)",
                *at,
                remedy="Rename the server with letters, digits, '_' and '-' only",
            )
        if not isinstance(entry, dict):
            raise fail("must be an object with command or url", *at)
        for key in entry:
            if key not in _KNOWN:
                line = positions[(*at, key)].line
                warnings.append(f"{path}:{line}: unknown key 'mcpServers.{name}.{key}' is ignored")
        out.append(_server(path, name, entry, env, fail))
    return tuple(out)


def _server(
    path: str, name: str, entry: dict[str, Any], env: Mapping[str, str], fail: Fail
) -> McpServer:
    at = ("mcpServers", name)
    kind = entry.get("type", "stdio" if "command" in entry else "http")
    if kind not in ("stdio", "http", "sse"):
        raise fail(f"unknown type {kind!r}: it takes stdio, http or sse", *at, "type")
    fingerprint = entry_fingerprint(kind, entry)
    if ("command" in entry) == ("url" in entry):
        raise fail("a server has either command (stdio) or url (http, sse), one of them", *at)

    def text(value: Any, *steps: str) -> str:
        if not isinstance(value, str):
            raise fail("must be a string", *at, *steps)
        return _expand(
            value,
            env,
            lambda var: fail(
                f"${{{var}}} is not set and has no default",
                *at,
                *steps,
                remedy=f"Set {var} in the environment, or write ${{{var}:-default}}",
            ),
        )

    def strings(key: str) -> dict[str, str]:
        value = entry.get(key, {})
        if not isinstance(value, dict):
            raise fail("must be an object of strings", *at, key)
        return {k: text(v, key, k) for k, v in value.items()}

    if "command" in entry:
        if kind != "stdio":
            raise fail(f"a {kind} server takes url, not command", *at, "command")
        args = entry.get("args", [])
        if not isinstance(args, list):
            raise fail("must be a list of strings", *at, "args")
        return McpServer(
            name=name,
            transport="stdio",
            source=path,
            command=text(entry["command"], "command"),
            args=tuple(text(a, "args") for a in args),
            env=strings("env"),
            fingerprint=fingerprint,
            written=McpWritten(
                command=entry["command"], args=tuple(args), env=dict(entry.get("env", {}))
            ),
        )
    if kind == "stdio":
        raise fail("a stdio server takes command, not url", *at, "url")
    url = text(entry["url"], "url")
    # One that names a credential is refused with that reason (without_credential_servers).
    if not url.startswith(("http://", "https://")) and not _credential_named(entry["url"]):
        raise fail(f"{url!r} is not an http:// or https:// address", *at, "url")
    return McpServer(
        name=name,
        transport=kind,
        source=path,
        url=url,
        headers=strings("headers"),
        fingerprint=fingerprint,
        written=McpWritten(url=entry["url"], headers=dict(entry.get("headers", {}))),
    )


def entry_fingerprint(kind: str, entry: Mapping[str, Any]) -> str:
    """sha256 of what an entry runs, as written: before ``${VAR}`` expansion, so that a
    changed variable (a rotated token) does not ask again, while any change to the command,
    args, env, url, headers or transport in the file does. Unknown keys are not part of it."""
    what = {key: entry[key] for key in sorted(_KNOWN - {"type"}) if key in entry}
    data = msgspec.json.encode({"transport": kind, **what}, order="sorted")
    return hashlib.sha256(data).hexdigest()


def _expand(value: str, env: Mapping[str, str], unset: Callable[[str], ConfigError]) -> str:
    def one(match: re.Match[str]) -> str:
        var, default = match.group(1), match.group(2)
        if var in LEGATO_CREDENTIALS:
            # Never its value, set or not: the server is refused (without_credential_servers).
            return ""
        if var in env:
            return env[var]
        if default is not None:
            return default
        raise unset(var)

    return _VAR.sub(one, value)


# Any ``${NAME`` of an entry, nested in another's default too: ``${X:-${ASSISTANT_API_KEY}}``.
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")
_OWN_VARIABLE = (
    "Give the server a key of its own from a variable of your own, such as ${MY_SERVER_TOKEN}"
)


def without_credential_servers(
    servers: tuple[McpServer, ...],
    env: Mapping[str, str],
    secrets: Iterable[str | None],
    warnings: list[str],
) -> tuple[McpServer, ...]:
    """``servers`` but those whose entry would hand them one of Legato's own credentials (in
    command, args, env, url or headers: a ``${...}`` of a credential variable, or a value, as
    written or expanded, holding a credential's value). Legato's keys go to the model API
    alone, whatever file asks, so such a server is not started; a warning names its file, the
    field and the variable, and the session goes on with the others."""
    values = credential_values(env, secrets)
    kept = []
    for server in servers:
        problem = _credential_problem(server, env, values)
        if problem is None:
            kept.append(server)
            continue
        field, message = problem
        refused = ConfigError(
            f"{message}, which Legato keeps to itself: the MCP server '{server.name}' "
            f"was not started. {_OWN_VARIABLE}",
            path=server.source,
            field=f"mcpServers.{server.name}.{field}",
        )
        warnings.append(refused.message)
    return tuple(kept)


def _credential_problem(
    server: McpServer, env: Mapping[str, str], values: frozenset[str]
) -> tuple[str, str] | None:
    """The first field that would carry a credential, and what is wrong with it."""
    for field, (as_written, expanded) in _fields(server).items():
        if named := _credential_named(as_written):
            return field, f"${{{named}}} is one of Legato's own credential variables"
        names = _REFERENCE.findall(as_written)
        # A header's or variable's name too, which is sent as it is written.
        key = field.partition(".")[2]
        if credential_in(expanded, values) or credential_in(key, values):
            copies = [name for name in names if credential_in(env.get(name, ""), values)]
            if copies:
                return field, f"${{{copies[0]}}} holds Legato's own API key"
            return field, "the value is Legato's own API key"
    return None


def _credential_named(written: str) -> str | None:
    """The first of Legato's credential variables ``written`` refers to, if any."""
    return next((n for n in _REFERENCE.findall(written) if n in LEGATO_CREDENTIALS), None)


def _fields(server: McpServer) -> dict[str, tuple[str, str]]:
    """Each field of ``server`` by its name in the file: as written, and expanded."""
    written = server.written
    fields = {"command": (written.command, server.command), "url": (written.url, server.url)}
    args = itertools.zip_longest(written.args, server.args, fillvalue="")
    fields.update((f"args[{index}]", pair) for index, pair in enumerate(args))
    for key, as_written, expanded in (
        ("env", written.env, server.env),
        ("headers", written.headers, server.headers),
    ):
        for name in {**as_written, **expanded}:
            fields[f"{key}.{name}"] = (as_written.get(name, ""), expanded.get(name, ""))
    return fields
