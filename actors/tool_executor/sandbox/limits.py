"""How many processes and how much memory a confined command may take, from the settings.

RLIMIT_NPROC counts every process (and thread) of a user, not only the command's. Under
bubblewrap, on Linux 5.14 and later, the command runs in a user namespace of its own and the
kernel counts what runs in that namespace against the limit: ``sandbox.maxProcesses`` means
the command's own. Elsewhere (Landlock, an older kernel) it counts all of the user's, so the
processes the user runs already are added to it: the command may still start that many more.

Memory is RLIMIT_DATA, per process: heap and private writable mappings. Not RLIMIT_AS, which
counts address space reserved and never used (V8's and the JVM's reservations, sanitizers),
and would break ``npm`` and ``gradle`` long before memory runs short. Each process has its own
limit, so a command's whole use is at most ``maxProcesses`` times it; only a cgroup could
bound the sum, and an unprivileged session cannot count on one.
"""

from __future__ import annotations

import contextlib
import os
import resource
from typing import TYPE_CHECKING

from actors.tool_executor.process import Limits

if TYPE_CHECKING:
    from actors.protocol import SandboxSettings

MIB = 1024 * 1024
# Where the machine's memory cannot be read: a default that lets builds run.
FALLBACK_MEMORY_MB = 8192
COUNTED_IN_NAMESPACE = (5, 14)  # the kernel counts RLIMIT_NPROC per user namespace from here


def default_memory_mb() -> int:
    """Half the machine's memory, in MiB."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return FALLBACK_MEMORY_MB
    return max(64, total // 2 // MIB) if total > 0 else FALLBACK_MEMORY_MB


def memory_mb(settings: SandboxSettings) -> int:
    return settings.max_memory_mb if settings.max_memory_mb is not None else default_memory_mb()


def limits(settings: SandboxSettings, *, namespaced: bool) -> Limits:
    """The limits for one command. ``namespaced``: it runs in a user namespace of its own
    (bubblewrap). Runs in a worker thread: it may read /proc."""
    processes = settings.max_processes
    if not (namespaced and _kernel() >= COUNTED_IN_NAMESPACE):
        processes += user_tasks(os.getuid())
    data = memory_mb(settings) * MIB
    # Never above what Legato itself may have: ulimit cannot raise a hard limit.
    processes = _at_most(processes, resource.RLIMIT_NPROC)
    data = _at_most(data, resource.RLIMIT_DATA)
    return Limits(processes=processes, data=data)


def _at_most(value: int, which: int) -> int:
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _kernel() -> tuple[int, int]:
    release = os.uname().release.split("-")[0].split(".")
    with contextlib.suppress(ValueError, IndexError):
        return int(release[0]), int(release[1])
    return (0, 0)


def user_tasks(uid: int) -> int:
    """The processes and threads ``uid`` runs now: what RLIMIT_NPROC counts outside a user
    namespace. A folder's link count in /proc/<pid>/task is two plus its threads."""
    count = 0
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0
    for name in names:
        if not name.isdigit():
            continue
        try:
            tasks = os.stat(f"/proc/{name}/task")
        except OSError:
            continue  # ended while we looked
        if tasks.st_uid == uid:
            count += max(1, tasks.st_nlink - 2)
    return count
