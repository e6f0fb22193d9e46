"""What the sandbox refused a failed command, in lines the model can act on.

A program the sandbox stops says only what the kernel told it (``touch: cannot touch '/tmp/x':
Read-only file system``), not why. When a confined command fails, its output is searched for
the paths that error messages name, and each is judged against the ``Layout`` the command ran
with: a path is named only when that layout really keeps it from the command (outside every
writable place, read-only or sealed inside one, or hidden), so a program's own "Permission
denied", or a printed "Read-only file system" about a writable path, gets no line.

The output is the command's, and the model chose the command: it can print anything. So a line
states only what the layout says about a path, names are shortened and their control
characters escaped, a few paths at most are named, and the remedy it offers,
``dangerouslyDisableSandbox``, still has to be approved by a person.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import TYPE_CHECKING, Literal

from actors.counts import counted
from actors.tool_executor.sandbox.places import within

if TYPE_CHECKING:
    from collections.abc import Iterator

    from actors.tool_executor.sandbox.layout import Layout

Failure = Literal["read-only", "denied", "missing", "busy"]

# What the error says, as strerror, Python's OSError and Node's messages spell it.
_FAILURES: dict[str, Failure] = {
    "read-only file system": "read-only",  # EROFS: a write under a read-only mount
    "permission denied": "denied",  # EACCES: a blocked file (a device on a nodev mount)
    "no such file or directory": "missing",  # ENOENT: inside a hidden (empty) folder
    "connection refused": "denied",  # ECONNREFUSED: a hidden socket (a device now)
    # EBUSY: a rename over a read-only mount (git's config); Node says "resource busy or locked"
    "device or resource busy": "busy",
    "resource busy": "busy",
}
_FAILURE = re.compile("|".join(map(re.escape, _FAILURES)), re.IGNORECASE)
# A quoted name: coreutils' ‘…’ in UTF-8 locales, else '…' or "…" (Python, Node, git)
# standing as a word of its own, so that the apostrophe of "couldn't" opens nothing.
_QUOTED = re.compile(
    r"‘([^’\n]+)’"
    r"|(?:^|(?<=[\s(\[=,]))'([^'\n]+)'(?=$|[\s:,;)\]])"
    r"|(?:^|(?<=[\s(\[=,]))\"([^\"\n]+)\"(?=$|[\s:,;)\]])"
)
MAX_PATHS = 3  # named in a result; more are counted
_MAX_CANDIDATES = 100  # names judged in one output, at most: each costs a realpath
_MAX_SHOWN = 120  # characters of a name shown; longer ones lose their middle
# The sandbox's own /dev and /proc: what fails there is not a place the layout decides.
_OWN_MOUNTS = ("/dev", "/proc")

REMEDY = (
    "If the command needs this, it may be run again with dangerouslyDisableSandbox: true; a "
    "person must approve that, and a headless run denies it."
)
# The same for a command the person typed (``!cmd``): they cannot ask for that flag.
PERSON_REMEDY = (
    "If the command needs this, run it in a shell of your own outside Legato, or allow the "
    "place in sandbox.allowWrite (docs/configuration.md)."
)


def explain(output: str, layout: Layout, cwd: str, *, by_person: bool = False) -> list[str]:
    """One line for each path (a few at most) that the sandbox refused the command whose
    ``output`` this is, ran in ``cwd`` under ``layout``, and the remedy; empty when there is
    none the sandbox can be blamed for. ``by_person``: the person typed it (``!cmd``), and the
    remedy is theirs."""
    refused: dict[str, str] = {}  # real path -> its line
    for judged, (failure, name) in enumerate(_named(output)):
        if judged >= _MAX_CANDIDATES:
            break
        written = os.path.normpath(os.path.join(cwd, name))
        try:
            real = os.path.realpath(written)
        except (OSError, ValueError):  # a NUL in it: no file's name
            continue
        if real in refused:
            continue
        reason = _judge(real, failure, layout)
        if reason is not None:
            refused[real] = f"The sandbox refused '{_shown(written, cwd)}': {reason}."
    if not refused:
        return []
    lines = list(refused.values())[:MAX_PATHS]
    if len(refused) > MAX_PATHS:
        lines.append(f"It refused {counted(len(refused) - MAX_PATHS, 'other path')} too.")
    return [*lines, PERSON_REMEDY if by_person else REMEDY]


def _named(output: str) -> Iterator[tuple[Failure, str]]:
    """The names each error line of ``output`` gives, with what it says failed."""
    for line in output.split("\n"):  # not splitlines: a name may hold U+2028
        said = _FAILURE.search(line)
        if said is None:
            continue
        failure = _FAILURES[said.group().lower()]
        quoted = [next(filter(None, match.groups())) for match in _QUOTED.finditer(line)]
        if quoted:
            for name in quoted:
                yield failure, name
            continue
        # Unquoted, as bash and cat say it: "bash: line 1: /x: ...", "cat: .env: ...", or
        # git's "could not lock config file .git/config: ...": the part before the error, or
        # its last word.
        before = line[: said.start()].rstrip(" :,")
        name = before.rsplit(": ", 1)[-1]
        if name:
            yield failure, name
            if " " in name:
                yield failure, name.rsplit(" ", 1)[-1]


def _judge(path: str, failure: Failure, layout: Layout) -> str | None:
    """Why the layout kept ``path`` (real, absolute) from the command, given how it failed;
    None when the sandbox is not why."""
    for place, is_folder in layout.hidden:
        if within(path, place):
            if failure == "missing" and not (is_folder and path != place):
                return None
            what = _place(path, place, is_folder, layout)
            if place in layout.services:
                return (
                    f"{what} where a service outside the sandbox listens, out of commands' "
                    "reach (sandbox.allowUnixSockets lets a socket through)"
                )
            rule = "sandbox.denyRead" if place in layout.denied else "blockedPaths"
            return f"{what} unreadable to commands ({rule})"
    if failure == "missing" and (private := _private(path, layout)):
        return (
            f"{private} is private to each command, empty but for the project and $TMPDIR: "
            "other programs' files and sockets there are out of its reach"
        )
    if failure in ("denied", "missing"):
        return None  # the program's own reasons: the file's mode, or it is not there
    kept = [(place, os.path.isdir(place)) for place in layout.read_only] + list(layout.sealed)
    for place, is_folder in kept:
        if within(path, place):
            what = _place(path, place, is_folder, layout)
            return f"{what} read-only to commands ({_why_read_only(place, layout)})"
    if failure == "busy" and path in layout.fixed:
        return (
            "commands cannot move, remove or replace it (git finds its config and hooks through it)"
        )
    if failure == "busy":
        return None  # only a mount point is busy this way, and those are all above
    if any(within(path, place) for place in (*layout.writable, layout.tmpdir, *_OWN_MOUNTS)):
        return None
    return (
        "it is outside the places commands may write (the project, $TMPDIR and the folders "
        "in sandbox.allowWrite)"
    )


def _private(path: str, layout: Layout) -> str | None:
    """The private temporary folder that hides ``path`` from the command, if one does."""
    shown = (*layout.kept, *layout.writable, layout.tmpdir)
    if any(within(path, place) for place in shown):
        return None
    return next((folder for folder in layout.private if within(path, folder)), None)


def _place(path: str, place: str, is_folder: bool, layout: Layout) -> str:
    """The subject of the reason: "it is" for the place itself, else the place and "is"."""
    if path == place:
        return "it is"
    shown = _shown(place, layout.writable[0]) + ("/" if is_folder else "")
    return f"{shown} is"


def _why_read_only(place: str, layout: Layout) -> str:
    name = os.path.relpath(place, layout.writable[0])
    if any(within(run, place) for run in layout.runs):
        return "a hook or an MCP server runs it, or runs what it says, outside the sandbox"
    if name == ".mcp.json":
        return "the project's MCP servers, which run outside the sandbox"
    if name == ".legato" or name.startswith(".legato/"):
        return "Legato's own settings"
    if name == ".claude" or name.startswith(".claude/"):
        return "the reference assistant's settings, commands, skills and agents, which Legato reads"
    if name == ".git" or name.startswith(".git/"):
        return "git runs the programs its config and hooks name"
    return "sandbox.readOnly"


def _shown(path: str, project: str) -> str:
    """``path`` as the model should read it: relative inside the project, escaped, short."""
    if within(path, project) and path != project:
        path = os.path.relpath(path, project)
    safe = "".join(_escaped(char) for char in path)
    if len(safe) > _MAX_SHOWN:
        half = _MAX_SHOWN // 2 - 1
        safe = f"{safe[:half]}…{safe[-half:]}"
    return safe


def _escaped(char: str) -> str:
    """A character that could end the line, end the quotes or change how the line reads
    (control, format, line and paragraph separators, unassigned) as its escape; any other as
    itself."""
    if char in "\\'":
        return "\\" + char
    category = unicodedata.category(char)
    if category[0] == "C" or category in ("Zl", "Zp"):
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return char
