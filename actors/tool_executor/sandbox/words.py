"""What each mechanism enforces, and what the fallback does not, in words: for ``legato
doctor``, the json result's ``sandbox`` field and the session's warning."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.settings import DEFAULT_DENY_READ
from actors.tool_executor.sandbox.limits import memory_mb
from actors.tool_executor.sandbox.places import DEVICES, inside_writable, within

if TYPE_CHECKING:
    from actors.protocol import SandboxSettings
    from actors.tool_executor.sandbox.layout import Layout

PROTECTED = (
    ".legato/",
    ".claude/",
    ".mcp.json",
    "git's config, hooks, info/ and commondir (and .git cannot be moved)",
    "the files hooks and MCP servers run",
)


def bubblewrap_enforces(
    settings: SandboxSettings, layout: Layout, *, blocked_rules: bool, home: str
) -> list[str]:
    writable = ", ".join(("the project", "a private TMPDIR", *settings.allow_write))
    read_only = ", ".join((*PROTECTED, *settings.read_only, "Legato's own .venv if it is there"))
    return [
        f"writable: {writable}; everything else read-only",
        f"read-only inside the project: {read_only}",
        *unreadable(layout, home),
        "unreadable: the project's files that blockedPaths block"
        if blocked_rules
        else "blockedPaths: no entries",
        "unreachable: the sockets of services outside the sandbox "
        f"({', '.join(layout.services) or 'none here'}); sandbox.allowUnixSockets lets one "
        "through",
        "network: allowed" if settings.network else "network: none (sandbox.network false)",
        "processes: a PID namespace of their own, ended with the command",
        _temporary(layout),
        limits_line(settings),
    ]


def unreadable(layout: Layout, home: str) -> list[str]:
    """What a command can and cannot read, for the doctor: the places hidden here."""
    shown = [_tilde(path, home) for path in layout.denied]
    return [
        f"unreadable here: {', '.join(shown) or 'nothing'}",
        ALWAYS_HIDDEN,
        "readable: everything else, the rest of your home folder included",
    ]


# The places every command finds hidden, whatever the mechanism (``DEFAULT_DENY_READ``).
ALWAYS_HIDDEN = (
    f"unreadable wherever they appear: the {len(DEFAULT_DENY_READ)} places where tokens live "
    "that Legato always hides (gh, git's credential store, npm, yarn, PyPI, cargo, netrc, "
    "ssh, gpg, cloud CLIs, docker, kube, keyrings, browser profiles, other assistants', "
    "Hugging Face's token, shell history, Legato's own; "
    "docs/security.md lists them); sandbox.denyRead adds to them"
)


def _tilde(path: str, home: str) -> str:
    home = home.rstrip("/")
    return "~" + path[len(home) :] if home and within(path, home) else path


def _temporary(layout: Layout) -> str:
    if not layout.private:
        return "! /tmp is shared: it holds the home folder or the project"
    return (
        f"private: {', '.join(layout.private)} empty and read-only (other programs' sockets and "
        "files there unreachable, tmux's and screen's included); TMUX and STY unset"
    )


def abstract_sockets(*, scoped: bool, network: bool, hidden: str | None = None) -> str:
    """Whether a bubblewrap command reaches abstract Unix sockets outside it (scope.py);
    ``hidden``: the launcher's file the sandbox hides, which keeps the scope off."""
    if scoped:
        return (
            "unreachable: abstract Unix sockets outside the command (X servers, some buses), "
            "by Landlock's scope while one listens; its own processes still reach each other's"
        )
    if not network:
        return "unreachable: abstract Unix sockets (the command has a network of its own)"
    why = (
        f"Legato's {hidden} is hidden from commands, so Landlock's scope cannot run inside"
        if hidden is not None
        else "Landlock's scope needs Linux 6.12, and Legato's interpreter inside the sandbox"
    )
    return (
        "! abstract Unix sockets outside the command (X servers, some buses) stay reachable: "
        f"{why}; sandbox.network false cuts them"
    )


def limits_line(settings: SandboxSettings) -> str:
    line = (
        f"limits: {settings.max_processes} processes (threads count; sandbox.maxProcesses), "
        f"{memory_mb(settings)} MiB of data memory per process (sandbox.maxMemoryMB)"
    )
    if os.geteuid() == 0:  # the kernel never applies RLIMIT_NPROC to uid 0
        line += "; run as root, the process limit does not hold"
    return line


def seatbelt_enforces(bubblewrap: list[str]) -> list[str]:
    """What sandbox-exec enforces: bubblewrap's list, less what macOS does differently."""
    out = []
    for line in bubblewrap:
        if line.startswith("private:"):
            out.append(
                "unreachable: Unix sockets in the shared temporary folders (tmux's, screen's); "
                "TMUX and STY unset"
            )
            out.append("! the files of other programs in /tmp stay readable (no private /tmp)")
        elif line.startswith("limits:"):
            out.append("! limits on processes and memory: not applied by sandbox-exec")
        elif line.startswith("unreachable: the sockets"):
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
    version: int, settings: SandboxSettings, layout: Layout, *, home: str
) -> list[str]:
    """What a command under Landlock cannot do, in words, one line each."""
    writable = ", ".join(("the project", "a private TMPDIR", *settings.allow_write, *DEVICES))
    held = {path for path, _ in inside_writable(layout)}
    denied = [_tilde(path, home) for path in layout.denied if path not in held]
    lines = [
        f"writable: {writable}; everything else read-only",
        f"unreadable here: {', '.join(denied) or 'nothing'}; the terminals in /dev/pts",
        ALWAYS_HIDDEN,
    ]
    if settings.network:
        lines.append("network: allowed")
        if version >= 6:
            lines.append(abstract_sockets(scoped=True, network=True))
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
        limits_line(settings)
        + "; the processes count all of yours, so those you run already are added"
    )
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
    lines.append(
        "a private /tmp: Landlock cannot give one; other programs' files and sockets there "
        "(tmux's and screen's servers, which run what they are sent) stay reachable"
        + ("" if settings.network or version < 6 else ", abstract Unix sockets excepted")
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
