"""The fallback where bubblewrap cannot run: a Landlock ruleset, built here and applied by
``launcher.py`` in the process that becomes the command; and the session's one trial of it
(``try_landlock``), which also compiles the launcher for the session.

Landlock (Linux 5.13 on) needs no namespace and no mount, so it works where user namespaces are
turned off. It only grants, and a right on a folder holds for everything beneath it. So the
ruleset gives every right on the writable places (the project, the private TMPDIR,
``sandbox.allowWrite``, and ``places.DEVICES``) and read and execute on the rest, and it can
say no to reading a place only from outside it: for each path in ``places.UNREADABLE`` and
``sandbox.denyRead``, read is granted on every entry beside the path on the way from ``/`` down
to it, and the folders on the way can only be listed. What it cannot do is say no to something
inside a writable place: the project's ``.legato/``, ``.git/config``, ``.git/hooks/`` and its
blocked files stay writable or readable (``words.py`` says so to the user).

Rules are attached to files, not names: a rule follows its file when it is renamed, and a
file made after the build has only what the folders above it grant. The ruleset is built
once, and again when one of the folders on the way to an unreadable path changes (an entry
added, removed or renamed), when one of the places is another file than before, or when the
settings name other places. Each command gets a descriptor of its own (``borrow``), which
``run_group`` closes once the command has started and the launcher closes before it becomes
the command.
"""

from __future__ import annotations

import os
import py_compile
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from actors.tool_executor.sandbox import launcher
from actors.tool_executor.sandbox.places import DEVICES, UNREADABLE, within
from actors.tool_executor.sandbox.scope import SCOPE_ABSTRACT_UNIX_SOCKET

if TYPE_CHECKING:
    from actors.tool_executor.sandbox.layout import Layout

# Filesystem rights (linux/landlock.h). ABI 1 knows the first thirteen; REFER (linking or moving
# a file into another folder) came with ABI 2, TRUNCATE with 3, IOCTL_DEV with 5.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15
_FS_SINCE = ((5, (1 << 16) - 1), (3, (1 << 15) - 1), (2, (1 << 14) - 1), (1, (1 << 13) - 1))
READ = EXECUTE | READ_FILE | READ_DIR
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # all a file's rule may hold
NET_TCP = (1 << 0) | (1 << 1)  # bind and connect (ABI 4)
SCOPE_SIGNAL = 1 << 1  # ABI 6: no signal to a process outside the command
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
# A working Landlock answers in milliseconds; a stuck launcher must not hold the first command.
TRIAL_TIMEOUT = 5.0

# A folder's mtime ticks coarsely: one changed within this long of a build may hide a change
# the build did not see, so the next command builds again (as in blocked.py).
_SETTLED_NS = 1_000_000_000


def abi() -> int:
    """The running kernel's Landlock ABI version; 0 where it has none or it is turned off."""
    try:
        return launcher.syscall(launcher.CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except OSError:
        return 0


def handled(version: int, network: bool) -> tuple[int, int, int]:
    """What a ruleset for ABI ``version`` handles: filesystem rights, network rights, scopes.
    A right newer than the kernel is left out: it would refuse the whole ruleset."""
    fs = next((rights for since, rights in _FS_SINCE if version >= since), 0)
    net = NET_TCP if version >= 4 and not network else 0
    scoped = 0
    if version >= 6:
        # Abstract sockets whatever the network: no path hides them, and an X server listens
        # there. The command's own processes still reach each other's.
        scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET
    return fs, net, scoped


def ruleset_attr(version: int, fs: int, net: int, scoped: int) -> bytes:
    """struct landlock_ruleset_attr, only as long as ABI ``version`` knows it."""
    attr = fs.to_bytes(8, sys.byteorder)
    if version >= 4:
        attr += net.to_bytes(8, sys.byteorder)
    if version >= 6:
        attr += scoped.to_bytes(8, sys.byteorder)
    return attr


@dataclass(frozen=True, slots=True)
class Plan:
    """Real absolute paths; what does not exist when the ruleset is built is skipped."""

    writable: tuple[str, ...]
    unreadable: tuple[str, ...]  # none inside a writable place, none inside another
    network: bool


def plan(layout: Layout) -> Plan:
    places = (*layout.writable, layout.tmpdir)
    unreadable = [
        path
        for path in (*layout.denied, *UNREADABLE)
        if not any(within(path, place) for place in places)
    ]
    return Plan((*places, *DEVICES), tuple(unreadable), layout.network)


def _on_the_way(unreadable: tuple[str, ...]) -> list[str]:
    """The folders from ``/`` down to each existing unreadable path, that path left out."""
    folders: set[str] = set()
    for path in unreadable:
        if os.path.lexists(path):
            parts = [part for part in path.split("/") if part]
            folders.update("/" + "/".join(parts[:end]) for end in range(len(parts)))
    return sorted(folders)


def _identity(path: str, *, settled: bool = False) -> tuple[int, int, object] | None:
    """Which file ``path`` is; with ``settled``, its mtime too, when it is old enough to
    trust, and otherwise a value equal to nothing, so that the next look builds again."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    if not settled:
        return found.st_dev, found.st_ino, 0
    changed = found.st_mtime_ns
    return (
        found.st_dev,
        found.st_ino,
        changed if time.time_ns() - changed > _SETTLED_NS else object(),
    )


def fingerprint(plan: Plan) -> tuple[object, ...]:
    """What the ruleset for ``plan`` depends on besides the plan: which files the places are,
    and the listing of each folder on the way to an unreadable path."""
    return (
        tuple(_identity(path) for path in (*plan.writable, *plan.unreadable)),
        tuple(_identity(folder, settled=True) for folder in _on_the_way(plan.unreadable)),
    )


def build(version: int, plan: Plan) -> int:
    """A ruleset descriptor for ``plan`` (close-on-exec, as Landlock makes it)."""
    fs, net, scoped = handled(version, plan.network)
    attr = ruleset_attr(version, fs, net, scoped)
    ruleset = launcher.syscall(launcher.CREATE_RULESET, attr, len(attr), 0)
    try:
        _grant_reads(ruleset, fs, plan.unreadable)
        for path in plan.writable:
            _grant(ruleset, fs, path, fs)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def _grant_reads(ruleset: int, fs: int, unreadable: tuple[str, ...]) -> None:
    denied = {path for path in unreadable if os.path.lexists(path)}
    on_the_way = _on_the_way(tuple(denied))
    if not on_the_way:
        _grant(ruleset, fs, "/", READ)
        return
    skip = denied.union(on_the_way)
    for folder in on_the_way:
        _grant(ruleset, fs, folder, READ_DIR)  # the names in it may be listed, no more
        try:
            with os.scandir(folder) as entries:
                beside = [entry.path for entry in entries if entry.path not in skip]
        except OSError:
            continue  # not listable: what is in it stays unreadable
        for path in beside:
            _grant(ruleset, fs, path, READ)


def _grant(ruleset: int, fs: int, path: str, rights: int) -> None:
    """Give ``path`` (not a symlink: what one leads to has rules of its own, or none) ``rights``
    beneath it. A path that cannot be opened or ruled stays without rights: failing here can
    only refuse, never grant."""
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISLNK(mode):
            return
        access = rights & fs if stat.S_ISDIR(mode) else rights & fs & FILE_RIGHTS
        # struct landlock_path_beneath_attr: the rights, then the descriptor, packed.
        beneath = access.to_bytes(8, sys.byteorder) + fd.to_bytes(4, sys.byteorder, signed=True)
        if access:
            launcher.syscall(launcher.ADD_RULE, ruleset, RULE_PATH_BENEATH, beneath, 0)
    except OSError:
        return
    finally:
        os.close(fd)


class Rulesets:
    """The session's ruleset, built again when what it was built from changed. Called from
    worker threads, several at once."""

    def __init__(self, version: int) -> None:
        self.version = version
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._built_for: tuple[object, ...] | None = None

    def borrow(self, wanted: Plan) -> int:
        """A descriptor of the ruleset for ``wanted``, the caller's to close."""
        key = (wanted, fingerprint(wanted))  # taken first: a change during the build shows next
        with self._lock:
            if self._fd is None or key != self._built_for:
                fresh = build(self.version, wanted)
                if self._fd is not None:
                    os.close(self._fd)  # commands starting with it hold descriptors of their own
                self._fd, self._built_for = fresh, key
            return os.dup(self._fd)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


@dataclass(frozen=True, slots=True)
class Launcher:
    """``launcher.py`` compiled once for the session, in a folder of its own that commands
    cannot write: started from bytecode, it is not compiled again before every command (about
    1 ms of its cost here). The interpreter by its real path, outside a virtual environment
    that may lie in the writable project; ``-S`` needs nothing from the environment's
    site-packages."""

    python: str
    code: str

    def argv(self, ruleset: int) -> tuple[str, ...]:
        """What runs the launcher with ``ruleset``, before the command."""
        return (self.python, "-I", "-S", self.code, str(ruleset), "--")

    def remove(self) -> None:
        shutil.rmtree(os.path.dirname(self.code), ignore_errors=True)


def make_launcher() -> Launcher:
    """Raises OSError when it cannot be compiled or written."""
    folder = tempfile.mkdtemp(prefix="legato-launcher-")  # mode 700
    code = os.path.join(folder, "launcher.pyc")
    try:
        py_compile.compile(os.path.realpath(launcher.__file__), cfile=code, doraise=True)
    except py_compile.PyCompileError as error:
        shutil.rmtree(folder, ignore_errors=True)
        raise OSError(str(error)) from error
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    # The interpreter the environment was made from, not a venv's own copy of it, which may lie
    # in the project where a command could replace it before the next command starts.
    interpreter = getattr(sys, "_base_executable", None) or sys.executable
    return Launcher(os.path.realpath(interpreter), code)


@dataclass(frozen=True, slots=True)
class LandlockTrial:
    works: bool
    version: int  # the kernel's Landlock ABI; 0: none
    reason: str | None = None  # why it does not work, in words
    launcher: Launcher | None = None  # when it works


async def try_landlock() -> LandlockTrial:
    """The kernel's ABI, then the launcher run once with ``true`` under a ruleset."""
    version = abi()
    if version < 1:
        return LandlockTrial(False, 0, "is not in this kernel, or is turned off")
    try:
        prepared = await anyio.to_thread.run_sync(make_launcher)
    except OSError as error:
        return LandlockTrial(False, version, f"could not prepare its launcher: {error}")
    try:
        said = await _run_once(version, prepared)
    except BaseException:  # cancelled: the session is ending
        prepared.remove()
        raise
    if said is None:
        return LandlockTrial(True, version, launcher=prepared)
    await anyio.to_thread.run_sync(prepared.remove)
    return LandlockTrial(False, version, said)


async def _run_once(version: int, prepared: Launcher) -> str | None:
    """Why ``true`` does not run under a ruleset; None when it does."""
    try:
        ruleset = await anyio.to_thread.run_sync(build, version, Plan((), (), False))
    except OSError as error:
        return f"refused a ruleset: {error.strerror}"
    try:
        with anyio.fail_after(TRIAL_TIMEOUT):
            ran = await anyio.run_process(
                [*prepared.argv(ruleset), "true"],
                check=False,
                stdin=subprocess.DEVNULL,
                pass_fds=(ruleset,),
            )
    except OSError as error:
        return f"could not start its launcher: {error.strerror or error}"
    except TimeoutError:
        return f"its launcher did not end within {TRIAL_TIMEOUT:.0f} s"
    finally:
        os.close(ruleset)
    if ran.returncode == 0:
        return None
    said = ran.stderr.decode(errors="replace").strip().splitlines()
    return f"failed its trial: {said[-1] if said else f'exit code {ran.returncode}'}"
