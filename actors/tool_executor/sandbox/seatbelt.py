"""The sandbox on macOS: a ``Layout`` as a profile for ``sandbox-exec`` (Seatbelt).

The profile allows everything, takes every write away, gives writes back in the writable
folders, and then denies again what must stay read-only, must not be created or must not be
read: in a profile the later of two matching rules wins, so each denial comes after the allows
it narrows.

No path is ever written into the profile. Folder and file names come from the repository, which
may be hostile, and a name holding ``"`` or ``)`` spliced into the text would end a string or a
rule and add rules of its own. Each path travels as an argument instead (``-D R0=/p/.legato``)
and the profile names it ``(param "R0")``, so the profile's text depends only on how many paths
of each kind the layout holds, never on what they are called.

The kernel matches a rule against the path with every symlink resolved (``/tmp/x`` is
``/private/tmp/x``), which is why the layout holds real paths: a symlink in the project leading
to a hidden file reaches it under the hidden file's own path, and is refused.
"""

from __future__ import annotations

import os
import platform
import subprocess

import anyio

from actors.tool_executor.sandbox.layout import Layout
from actors.tool_executor.sandbox.places import within
from actors.tool_executor.sandbox.probe import TRIAL_TIMEOUT, Trial

# Only /usr/bin's: one found on PATH could be any program, given every command's arguments.
SANDBOX_EXEC = "/usr/bin/sandbox-exec"
# sandbox-exec cannot set a variable; env does, then runs the command in its place.
ENV = "/usr/bin/env"

# Device files that ordinary commands write, all outside the writable folders: the null and
# zero devices, the controlling terminal, DTrace's helper (python and node register their
# probes through it when they start) and the pseudo-terminal multiplexer (script, expect).
DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper", "/dev/ptmx")
# A process's own open files under a second name (/dev/stdout leads to /dev/fd/1): writing
# through one grants nothing the descriptor did not.
DEVICE_FOLDERS = ("/dev/fd",)
# A pseudo-terminal is writable only when the command opened it itself (the kernel gives such a
# terminal this extension): the user's terminal windows are /dev/ttys* too, and text written to
# one can make some terminals type their answers back into the shell.
OWN_TERMINALS = '(require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty"))'

# Ways out that allow-by-default leaves open and no path rule closes: asking another
# application to act (Apple Events: "tell Terminal to do script"), opening a document or an
# application through LaunchServices (``open -a Terminal x.command``) and handing launchd a job
# (``launchctl submit``) each start a program outside the sandbox with the user's full rights.
# Signals stay among the command's own processes, as the PID namespace keeps them on Linux.
CONTAINED = (
    "(deny appleevent-send)",
    "(deny lsopen)",
    "(deny job-creation)",
    "(deny signal)",
    "(allow signal (target same-sandbox))",
)


def seatbelt_args(layout: Layout) -> list[str]:
    """What goes between ``sandbox-exec`` and the command: the parameters, the profile, and
    ``env`` setting TMPDIR. The working folder is the one the process is started in."""
    text, params = profile(layout)
    args: list[str] = []
    for name, path in params.items():
        args += ["-D", f"{name}={path}"]
    return [*args, "-p", text, ENV, f"TMPDIR={layout.tmpdir}"]


def profile(layout: Layout) -> tuple[str, dict[str, str]]:
    """The profile's text, and the value of each parameter it names."""
    params = _Params()
    writable = [params.subpath(path, "W") for path in layout.writable]
    writable.append(params.subpath(layout.tmpdir, "T"))
    read_only = [params.subpath(path, "R") for path in layout.read_only]
    sealed = [params.subpath(path, "S") for path, _ in layout.sealed]
    hidden = [params.subpath(path, "H") for path, _ in layout.hidden]
    pinned = [params.literal(path, "A") for path in _pinned(layout)]
    devices = [f'(literal "{path}")' for path in DEVICE_FILES]
    devices += [f'(subpath "{path}")' for path in DEVICE_FOLDERS]

    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    lines += _rule("allow file-write*", writable)
    lines += _rule("allow file-write*", [*devices, OWN_TERMINALS])
    lines += _rule("deny file-write*", [*read_only, *sealed, *hidden])
    # Rules name paths, not files: a folder above a protected path, renamed (``mv .git g``),
    # would carry it to a name no rule covers, to be changed or read there and moved back.
    lines += _rule("deny file-write-unlink", pinned)
    # No hard links at all: a link is a second name for a file, and the rules see names, so a
    # link in the project to ~/.bashrc or .git/config could be written, one to a hidden file
    # read (bubblewrap's mounts refuse such links). Git, cargo and pnpm copy or rename instead.
    lines.append("(deny file-link)")
    lines += _rule("deny file-clone", hidden)  # a clone copies a file without reading it
    # The contents and extended attributes of a hidden file, and a hidden folder's listing,
    # stay unreadable; its metadata does not, so that ``ls -l``, ``find`` and ``git status``
    # walking the project do not fail on a blocked ``.env``: they learn it exists, and its size.
    lines += _rule("deny file-read-data file-read-xattr", hidden)
    lines += CONTAINED
    lines += _private(layout, params)
    if not layout.network:
        lines += _offline(layout, params)
    return "\n".join(lines) + "\n", params.values


def _offline(layout: Layout, params: _Params) -> list[str]:
    """No network at all, the machine's loopback included: a local proxy or service there could
    carry what the command read elsewhere (bubblewrap gives such commands a loopback of their
    own, which Seatbelt cannot). Unix sockets stay usable where the command may write (test
    suites and build daemons talk through them), and nowhere else: the socket of the DNS
    resolver would carry data out in the names it looks up, Docker's would start containers."""
    lines = ["(deny network*)"]
    for path in (*layout.writable, layout.tmpdir):
        where = params.subpath(path, "W")
        # One path per unix-socket filter: Seatbelt reads only the first.
        lines.append(f"(allow network-bind (local unix-socket {where}))")
        lines.append(f"(allow network-outbound (remote unix-socket {where}))")
    return lines


def _private(layout: Layout, params: _Params) -> list[str]:
    """No Unix socket in the shared temporary folders (tmux's and screen's servers run any
    command sent to them, unconfined), except in the writable places inside them. Their files
    stay readable: a profile cannot give a folder empty, as a mount does."""
    lines = []
    for path in layout.private:
        where = params.subpath(path, "P")
        lines.append(f"(deny network-outbound (remote unix-socket {where}))")
    for path in (*layout.writable, layout.tmpdir):
        if any(within(path, folder) for folder in layout.private):
            where = params.subpath(path, "W")
            lines.append(f"(allow network-outbound (remote unix-socket {where}))")
    return lines


def _pinned(layout: Layout) -> list[str]:
    """The folders a command could rename with a protected path inside: those above it, up to
    and including the writable folder that holds it. Folders outside every writable one cannot
    be renamed anyway."""
    places = (*layout.writable, layout.tmpdir)
    protected = (*layout.read_only, *(path for path, _ in (*layout.sealed, *layout.hidden)))
    folders: dict[str, None] = {}
    for path in protected:
        below, folder = path, os.path.dirname(path)
        while folder != below and any(within(folder, place) for place in places):
            folders[folder] = None
            below, folder = folder, os.path.dirname(folder)
    return list(folders)


def _rule(head: str, filters: list[str]) -> list[str]:
    if not filters:  # a rule without a filter would apply to every path
        return []
    *first, last = filters
    return [f"({head}", *(f"  {one}" for one in first), f"  {last})"]


class _Params:
    """One parameter per path: its name is the kind's letter and a count (``R0``, ``H12``),
    given by the first kind that names the path."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # name -> path
        self._names: dict[str, str] = {}  # path -> name
        self._counts: dict[str, int] = {}

    def subpath(self, path: str, kind: str) -> str:
        return f'(subpath (param "{self._name(path, kind)}"))'

    def literal(self, path: str, kind: str) -> str:
        return f'(literal (param "{self._name(path, kind)}"))'

    def _name(self, path: str, kind: str) -> str:
        name = self._names.get(path)
        if name is None:
            count = self._counts.get(kind, 0)
            self._counts[kind] = count + 1
            name = self._names[path] = f"{kind}{count}"
            self.values[name] = path
        return name


LEAST_PROFILE = "(version 1)(allow default)"
# One path of every kind, so that the trial compiles every rule a command's profile can hold:
# a macOS that does not know one of them refuses the whole profile, and every command with it.
# Nothing here needs to exist; the trial runs ``true``.
_TRIAL_ROOT = "/private/var/empty/legato-trial"
TRIAL_LAYOUT = Layout(
    tmpdir=f"{_TRIAL_ROOT}/tmp",
    writable=(f"{_TRIAL_ROOT}/project",),
    read_only=(f"{_TRIAL_ROOT}/project/.git/config",),
    sealed=((f"{_TRIAL_ROOT}/project/.legato", True),),
    hidden=((f"{_TRIAL_ROOT}/project/.env", False),),
    network=False,
    private=(_TRIAL_ROOT,),
)


async def try_seatbelt(sandbox_exec: str = SANDBOX_EXEC) -> Trial:
    """Whether sandbox-exec confines commands here, found by running ``true`` twice: under the
    least profile (it fails inside another sandbox, as when Legato itself runs in one), then
    under the profile Legato writes, with every kind of rule in it."""
    release = platform.mac_ver()[0]
    version = f"sandbox-exec (macOS {release})" if release else ""
    try:
        with anyio.fail_after(TRIAL_TIMEOUT):
            least = await _run([sandbox_exec, "-p", LEAST_PROFILE, "true"])
            ours = await _run([sandbox_exec, *seatbelt_args(TRIAL_LAYOUT), "true"])
    except TimeoutError:  # first: it is an OSError too
        return Trial(False, "", f"{sandbox_exec} did not answer within {TRIAL_TIMEOUT:.0f} s")
    except OSError as error:
        return Trial(False, "", f"{sandbox_exec} could not be run: {error.strerror or error}")
    if least.returncode != 0:
        return Trial(False, version, f"{sandbox_exec} cannot make a sandbox here: {_said(least)}")
    if ours.returncode != 0:
        why = f"{sandbox_exec} refuses the profile Legato writes: {_said(ours)}"
        return Trial(False, version, why)
    return Trial(True, version)


async def _run(argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    return await anyio.run_process(argv, check=False, stdin=subprocess.DEVNULL)


def _said(ran: subprocess.CompletedProcess[bytes]) -> str:
    lines = ran.stderr.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit code {ran.returncode}"
