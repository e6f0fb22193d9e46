"""Which of a project's .mcp.json servers the user approved, kept in the user's own folder.

    ~/.legato/projects/<hash>/mcp-approved.json
    {"servers": {"<name>": "<fingerprint>"}}

Never in the project: its files are the repository's to write, and a repository must not be
able to approve its own servers. An approval holds the server's name and the fingerprint of its
entry as written (``entry_fingerprint``: before ``${VAR}`` expansion), so that any change to
what the entry runs makes it unapproved again, while a variable the user sets (a token) may
change freely: the repository cannot set the user's environment.

A file that cannot be read approves nothing (every project server stays unapproved, and the
warning says why); writing it is atomic.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.atomic import write_atomically
from actors.errors import UsageError
from actors.own_files import SETTINGS_CAP, Refused, read_own

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from actors.settings import McpServer


class _Approvals(msgspec.Struct, frozen=True):
    servers: dict[str, str] = msgspec.field(default_factory=dict)  # name -> fingerprint


def read_approvals(path: str, warnings: list[str]) -> dict[str, str]:
    """The approved fingerprint by server name; none when the file is absent or unreadable."""
    try:
        found = read_own(path, inside=(os.path.dirname(path),), cap=SETTINGS_CAP)
    except Refused as refused:
        warnings.append(f"{refused.message}; no project MCP server is approved. {refused.remedy}")
        return {}
    if found is None:
        return {}
    data = found.data
    try:
        return dict(msgspec.json.decode(data, type=_Approvals).servers)
    except (msgspec.DecodeError, RecursionError) as error:
        warnings.append(
            f"{path}: not an approvals file ({error}); no project MCP server is approved. "
            "Remove it and approve the servers again with 'legato mcp approve'"
        )
        return {}


def choose(servers: Sequence[McpServer], names: Iterable[str]) -> tuple[McpServer, ...]:
    """The servers of these names; raises UsageError (exit 2) naming the known ones."""
    known = {server.name: server for server in servers}
    names = tuple(dict.fromkeys(names))
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join(known) or "none"
        raise UsageError(
            f"no MCP server named {', '.join(repr(name) for name in unknown)} "
            f"(the known ones: {listed})",
            remedy="Run 'legato mcp list' to see the servers and what each runs",
        )
    return tuple(known[name] for name in names)


def approve(path: str, servers: Sequence[McpServer], names: Iterable[str]) -> tuple[McpServer, ...]:
    """Record the approval of the named servers, as their entries are now; answers them,
    approved. Raises UsageError for a name that is not configured."""
    chosen = choose(servers, names)
    # The global config's servers are always approved: only the project's are recorded.
    record_approvals(
        path, [server for server in chosen if server.fingerprint and not server.approved]
    )
    return tuple(msgspec.structs.replace(server, approved=True) for server in chosen)


def record_approvals(path: str, servers: Iterable[McpServer]) -> None:
    """Approve these servers' entries as they are now (an earlier approval of a name is
    replaced)."""
    current = read_approvals(path, [])
    current.update({server.name: server.fingerprint for server in servers})
    _write(path, current)


def revoke(path: str, servers: Sequence[McpServer], names: Iterable[str]) -> tuple[str, ...]:
    """Forget the approval of these names (a configured server's, or one the file still
    holds for an entry since removed); answers the names whose approval was recorded. Raises
    UsageError for a name that is neither."""
    current = read_approvals(path, [])
    names = tuple(dict.fromkeys(names))
    known = {server.name for server in servers} | set(current)
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise UsageError(
            f"no MCP server named {', '.join(repr(name) for name in unknown)} "
            f"(the known ones: {listed})",
            remedy="Run 'legato mcp list' to see the servers",
        )
    revoked = tuple(name for name in names if current.pop(name, None) is not None)
    if revoked:
        _write(path, current)
    return revoked


def _write(path: str, approvals: dict[str, str]) -> None:
    data = msgspec.json.format(msgspec.json.encode(_Approvals(dict(sorted(approvals.items())))))
    write_atomically(path, data + b"\n", mode=0o600)
