"""Becomes one command confined by Landlock, where bubblewrap cannot run.

The session builds a Landlock ruleset (``landlock.py``) and starts
``python -I -S launcher.py FD -- bash -c COMMAND`` with the ruleset as descriptor FD. This
process restricts itself to it, closes it, and becomes the command (``execve``): Landlock
confines the calling thread and what it starts later, so the restriction is made in the process
that becomes the command. It keeps its pid and its process group, and the session ends it as
it ends an unconfined command. No path passes through here, so none can be misread. If the
restriction fails, the command does not run (exit 126, the shell's "cannot execute").

It runs before every confined command, so it imports only what the interpreter has loaded
already (``posix``, ``sys``) and ``_ctypes``: ``ctypes``, the module around it, takes longer to
import than all of this takes to run. The session calls the kernel through the same binding.
"""

from __future__ import annotations

import _ctypes
import posix
import sys

# Landlock's system calls, numbered alike on every Linux architecture (linux/landlock.h).
CREATE_RULESET = 444
ADD_RULE = 445
RESTRICT_SELF = 446
PR_SET_NO_NEW_PRIVS = 38

NOT_CONFINED = 126
NOT_FOUND = 127


class _Long(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "l"


class _Function(_ctypes.CFuncPtr):
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = _Long


_libc = _ctypes.dlopen(None)  # type: ignore[arg-type]  # None: the program, and libc with it
_syscall = _Function(_ctypes.dlsym(_libc, "syscall"))
_prctl = _Function(_ctypes.dlsym(_libc, "prctl"))


def _call(function: _Function, *args: int | bytes | None) -> int:
    # Every number as a C long: syscall() and prctl() read their arguments as longs.
    result: int = function(*(_Long(arg) if isinstance(arg, int) else arg for arg in args))
    if result < 0:
        number = _ctypes.get_errno()
        raise OSError(number, posix.strerror(number))
    return result


def syscall(number: int, *args: int | bytes | None) -> int:
    """``syscall(2)``: bytes go as a pointer to them, None as NULL; raises OSError on failure."""
    return _call(_syscall, number, *args)


def restrict(ruleset: int) -> None:
    """Confine this thread, and what it starts from now on, to ``ruleset``."""
    _call(_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # Landlock requires it of the unprivileged
    syscall(RESTRICT_SELF, ruleset, 0)


def _exec(command: list[str]) -> None:
    """``execvp``: the program from PATH, unless it names a path."""
    program = command[0]
    places = [program]
    if "/" not in program:
        path = posix.environ.get(b"PATH", b"/usr/local/bin:/usr/bin:/bin")
        folders = path.decode(sys.getfilesystemencoding(), "surrogateescape").split(":")
        places = [f"{folder or '.'}/{program}" for folder in folders]
    for place in places:
        try:
            posix.execv(place, command)
        except OSError:
            continue


def _fail(code: int, why: str) -> SystemExit:
    sys.stderr.write(f"legato's Landlock launcher: {why}\n")
    return SystemExit(code)


def main(args: list[str]) -> None:
    if len(args) < 3 or not args[0].isdigit() or args[1] != "--":
        raise _fail(NOT_CONFINED, "expected FD -- PROGRAM ARG...")
    ruleset = int(args[0])
    try:
        restrict(ruleset)
    except OSError as error:
        raise _fail(NOT_CONFINED, f"the command did not run: {error.strerror}") from None
    posix.close(ruleset)  # the command must not add rules to the session's ruleset
    _exec(args[2:])
    raise _fail(NOT_FOUND, f"{args[2]}: command not found")


if __name__ == "__main__":
    main(sys.argv[1:])
