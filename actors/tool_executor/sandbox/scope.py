"""Abstract Unix sockets, cut off from a command under bubblewrap.

A socket in the abstract namespace has no path, so no mount hides it, and the namespace is the
network namespace's: while commands have the network (the default), they share it with every
program of the machine. X servers, Xwayland among them, listen there (keystrokes into another
terminal, run as the user), and so do some session buses. Landlock (ABI 6, Linux 6.12) scopes
them: a process under the scope reaches only the abstract sockets that its own domain made, so
a command's own processes still talk to each other, and nothing outside.

So each bubblewrap command runs the Landlock launcher (``launcher.py``) inside the sandbox with
a ruleset that handles nothing but that scope: bubblewrap does the rest. It is tried once with
the session's bubblewrap: where the kernel has no ABI 6, or the launcher cannot run in there
(its interpreter in a folder the sandbox's user cannot enter), commands run without it, and
``legato doctor`` says abstract sockets stay reachable.

The launcher's interpreter costs a command some 6 ms, so it runs only where it guards
something: while some program of the machine listens on an abstract socket
(``outside_listeners``, read from ``/proc/net/unix`` before each command), and the command has
the network. A service that starts listening while a command already runs is reachable by that
command (docs/security.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from actors.tool_executor.sandbox import launcher
from actors.tool_executor.sandbox.places import within
from actors.tool_executor.sandbox.probe import TRIAL_ARGS, TRIAL_TIMEOUT

if TYPE_CHECKING:
    from actors.tool_executor.sandbox.layout import Layout

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # landlock_ruleset_attr.scoped, ABI 6
_SINCE = 6
_VERSION = 1 << 0  # landlock_create_ruleset's flag: ask for the ABI version


def abstract_scope() -> int | None:
    """A Landlock ruleset (a descriptor, the caller's to close) that scopes abstract Unix
    sockets and handles nothing else; None where the kernel cannot."""
    try:
        version = launcher.syscall(launcher.CREATE_RULESET, None, 0, _VERSION)
    except OSError:
        return None
    if version < _SINCE:
        return None
    # struct landlock_ruleset_attr: handled_access_fs, handled_access_net, scoped.
    attr = b"".join(
        value.to_bytes(8, sys.byteorder) for value in (0, 0, SCOPE_ABSTRACT_UNIX_SOCKET)
    )
    try:
        fd = launcher.syscall(launcher.CREATE_RULESET, attr, len(attr), 0)
    except OSError:
        return None
    os.set_inheritable(fd, False)
    return fd


# /proc/net/unix's Flags column for a listening socket (__SO_ACCEPTCON).
_LISTENING = "00010000"


def outside_listeners(table: str = "/proc/net/unix") -> bool:
    """Whether any socket of this network namespace listens on an abstract address (its path
    shown as ``@name``). True where the table cannot be read: the scope is then kept."""
    try:
        with open(table, "rb") as file:
            data = file.read()
    except OSError:
        return True
    if b"@" not in data:
        return False
    for line in data.decode("utf-8", "replace").splitlines()[1:]:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[3] == _LISTENING and fields[7].startswith("@"):
            return True
    return False


def hidden_launcher(layout: Layout) -> str | None:
    """The launcher's interpreter or source where ``layout`` hides it (a ``denyRead`` folder
    holding Legato's installation, or a private /tmp not bound back), else None: the command
    then runs without the scope, rather than not at all."""
    for path in _launcher_files():
        hidden = any(within(path, place) for place, _ in (*layout.hidden, *layout.sealed))
        private = any(within(path, place) for place in layout.private) and not any(
            within(path, kept) for kept in (*layout.kept, *layout.writable, layout.tmpdir)
        )
        if hidden or private:
            return path
    return None


def _launcher_files() -> tuple[str, str]:
    return os.path.realpath(sys.executable), os.path.realpath(launcher.__file__)


def scoped_argv(ruleset: int) -> tuple[str, ...]:
    """What runs the command under ``ruleset`` inside bubblewrap: the launcher from its own
    source, read-only there (Legato's environment), by the interpreter's real path."""
    python, code = _launcher_files()
    return (
        python,
        "-I",
        "-S",
        code,
        str(ruleset),
        "--",
    )


def try_scope(bwrap: str) -> int | None:
    """``abstract_scope``'s ruleset, once a command of ``bwrap`` has run under it; else None.
    Blocking: run it in a worker thread."""
    ruleset = abstract_scope()
    if ruleset is None:
        return None
    # The trial's /tmp is private as a command's is, and a command binds the launcher back in
    # where it lies there (a checkout under /tmp): so does the trial.
    shown = [arg for path in _launcher_files() for arg in ("--ro-bind", path, path)]
    trial = [bwrap, *TRIAL_ARGS, *shown, "--", *scoped_argv(ruleset), "true"]
    try:
        ran = subprocess.run(
            trial,
            pass_fds=(ruleset,),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TRIAL_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        ran = None
    if ran is None or ran.returncode != 0:
        os.close(ruleset)
        return None
    return ruleset
