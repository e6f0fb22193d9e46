"""What each mechanism enforces, and what the fallback does not, in words: for ``legato
doctor``, the json result's ``sandbox`` field and the session's warning."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.tool_executor.sandbox.places import DEVICES, expand, inside_writable

if TYPE_CHECKING:
    from actors.protocol import SandboxSettings
    from actors.tool_executor.sandbox.layout import Layout

PROTECTED = (
    ".legato/",
    ".mcp.json",
    "git's config, hooks, info/ and commondir (and .git cannot be moved)",
    "the files hooks and MCP servers run",
)


def bubblewrap_enforces(
    settings: SandboxSettings, layout: Layout, *, blocked_rules: bool
) -> list[str]:
    writable = ", ".join(("the project", "a private TMPDIR", *settings.allow_write))
    read_only = ", ".join((*PROTECTED, *settings.read_only, "Legato's own .venv if it is there"))
    return [
        f"writable: {writable}; everything else read-only",
        f"read-only inside the project: {read_only}",
        f"unreadable: {', '.join(settings.deny_read) or 'nothing listed'}",
        "unreadable: the project's files that blockedPaths block"
        if blocked_rules
        else "blockedPaths: no entries",
        "unreachable: the sockets of services outside the sandbox "
        f"({', '.join(layout.services) or 'none here'}); sandbox.allowUnixSockets lets one "
        "through",
        "network: allowed" if settings.network else "network: none (sandbox.network false)",
        "processes: a PID namespace of their own, ended with the command",
    ]


def seatbelt_enforces(bubblewrap: list[str]) -> list[str]:
    """What sandbox-exec enforces: bubblewrap's list, less what macOS does differently."""
    out = []
    for line in bubblewrap:
        if line.startswith("unreachable: the sockets"):
            out.append("unreachable: Unix sockets outside the writable folders, with network off")
        elif line.startswith("processes:"):
            out += [
                "processes: signals only to the command's own; no PID namespace, so one that "
                "leaves the command's group (setsid, a daemon) outlives it, still confined",
                "ways out closed: Apple Events, LaunchServices opens, launchd jobs, hard links",
            ]
        else:
            out.append(line)
    return out


def landlock_enforces(
    version: int, settings: SandboxSettings, layout: Layout, *, project: str, home: str
) -> list[str]:
    """What a command under Landlock cannot do, in words, one line each."""
    writable = ", ".join(("the project", "a private TMPDIR", *settings.allow_write, *DEVICES))
    held = {path for path, _ in inside_writable(layout)}
    denied = [entry for entry in settings.deny_read if expand(entry, project, home) not in held]
    lines = [
        f"writable: {writable}; everything else read-only",
        f"unreadable: {', '.join(denied) or 'nothing listed'}; the terminals in /dev/pts",
    ]
    if settings.network:
        lines.append("network: allowed")
    elif version >= 4:
        abstract = " and abstract Unix sockets" if version >= 6 else ""
        lines.append(f"network: TCP (bind and connect){abstract} refused (sandbox.network false)")
    lines.append(
        "processes: another process's memory and environment (Legato's, with its keys) cannot "
        "be read, unless Legato runs as root"
    )
    if version >= 6:
        lines.append("processes: signals reach only the command's own processes")
    lines.append(
        "! the names inside an unreadable folder can be listed; an entry added while a command "
        "runs to a folder on the way to one (/, /dev, your home) is unreadable to that command"
    )
    if version < 2:
        lines.append(f"! moving or linking a file into another folder fails (ABI {version} < 2)")
    return lines


def landlock_not_enforced(
    version: int, settings: SandboxSettings, layout: Layout, *, blocked_rules: bool
) -> list[str]:
    """What bubblewrap would enforce and Landlock here does not, in words, one line each."""
    read_only = ", ".join((*PROTECTED, *settings.read_only))
    lines = [
        f"read-only inside the project ({read_only}): writable while a command runs, since a "
        "right on a folder holds for everything in it; what a command changes there is put "
        "back after it"
    ]
    if blocked_rules:
        lines.append("the project's files that blockedPaths block: readable, for the same reason")
    lines += [
        f"denyRead {path}: readable, inside the writable {place}"
        for path, place in inside_writable(layout)
    ]
    if not settings.network:
        if version >= 4:
            lines.append("network: UDP and Unix sockets stay open (Landlock covers TCP only)")
        else:
            lines.append(
                f"network: open; refusing TCP needs Landlock ABI 4, this kernel has {version}"
            )
    if layout.services:
        lines.append(
            "the sockets of services outside the sandbox "
            f"({', '.join(layout.services)}): reachable, Landlock does not govern them"
        )
    signals = (
        "" if version >= 6 else f", and signals reach any of your processes (ABI {version} < 6)"
    )
    lines.append(
        "processes: no PID namespace; a command sees the machine's processes, and one that "
        f"leaves the command's group (setsid, a daemon) outlives it{signals}"
    )
    if version < 3:
        lines.append(f"files outside the writable places can be truncated (ABI {version} < 3)")
    if version < 5:
        lines.append(f"ioctl on devices is not restricted (ABI {version} < 5)")
    return lines
