"""The sandbox as bubblewrap arguments: which folders are writable, read-only or hidden.

Mounts stack in the order given, later over earlier: the whole filesystem read-only first, then
the private temporary folders (empty) and what is bound back inside them, then the writable
folders, then what stays read-only inside them, then what is hidden, so that a
blocked file inside ``.legato/`` is still hidden, and the project's ``.git/config`` is read-only
although the project is writable.
"""

from __future__ import annotations

from dataclasses import dataclass

# An empty file no process can open: bubblewrap mounts with ``nodev``, so a device bound over a
# file reads as "Permission denied", which is what a blocked file should look like.
UNOPENABLE = "/dev/null"


@dataclass(frozen=True, slots=True)
class Layout:
    """Every path real and absolute; the lists hold no path inside another of the same list."""

    tmpdir: str  # the session's private temporary folder; TMPDIR points there
    writable: tuple[str, ...]  # the project first, then sandbox.allowWrite's folders
    read_only: tuple[str, ...]  # existing paths inside writable ones, bound over themselves
    sealed: tuple[tuple[str, bool], ...]  # (missing path, is a folder): must not be created
    hidden: tuple[tuple[str, bool], ...]  # (existing path, is a folder): must not be read
    network: bool
    # Those of ``hidden`` that sandbox.denyRead names; the others are blockedPaths' or, in
    # ``services``, where services outside the sandbox listen.
    denied: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    # Inside hidden folders: what sandbox.allowUnixSockets lets through, bound back in.
    reopened: tuple[str, ...] = ()
    # Temporary folders (/tmp) the command gets empty and read-only, so that it reaches no
    # other program's sockets and files there; and what inside them is bound back, read-only.
    private: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    # The size of the command's own /dev/shm, in bytes (0: bubblewrap's, unbounded): files
    # there are memory that no process limit counts.
    shm_bytes: int = 0
    # Existing folders bound over themselves, writable: a mount point cannot be renamed nor
    # removed, so ``.git`` (and a nested repository's folder) cannot be swapped for another.
    fixed: tuple[str, ...] = ()
    # The files a hook or an MCP server runs, outside the sandbox: read-only, or sealed.
    runs: tuple[str, ...] = ()


def bwrap_args(layout: Layout, cwd: str) -> list[str]:
    """What goes between ``bwrap`` and the command."""
    # No --die-with-parent: the parent it means is the thread that started bwrap (the kernel's
    # PR_SET_PDEATHSIG is per thread), a worker thread that trio ends after 10 s idle, which
    # killed every confined command at 10 s. The command's group is ended as an unconfined
    # one's is, and its PID namespace with it.
    # --cap-drop: run by root, bubblewrap keeps every capability for the command otherwise, and
    # a command with CAP_SYS_ADMIN unmounts what hides ~/.ssh. Unprivileged, it has none anyway.
    args = ["--unshare-pid", "--cap-drop", "ALL"]
    if not layout.network:
        args.append("--unshare-net")  # its own network: only a loopback of its own
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if layout.shm_bytes:
        args += ["--size", str(layout.shm_bytes), "--tmpfs", "/dev/shm"]
    for folder in layout.private:  # first: what is bound back below lies inside
        args += ["--tmpfs", folder]
    for path in layout.kept:
        args += ["--ro-bind", path, path]
    for folder in (*layout.writable, layout.tmpdir):
        args += ["--bind", folder, folder]
    for folder in layout.fixed:
        args += ["--bind", folder, folder]
    for path in layout.read_only:
        args += ["--ro-bind", path, path]
    empty: list[str] = []
    for path, is_folder in (*layout.sealed, *layout.hidden):
        if is_folder:  # an empty folder that stays empty
            args += ["--tmpfs", path]
            empty.append(path)
        else:
            args += ["--ro-bind", UNOPENABLE, path]
    # A socket let through from a hidden folder is bound back in before that folder becomes
    # read-only (bubblewrap makes its mount point there); its source is the host's.
    for path in layout.reopened:
        args += ["--ro-bind", path, path]
    # /dev last: a file made there would be memory too; its devices and /dev/shm stay usable.
    for path in (*empty, *layout.private, "/dev"):
        args += ["--remount-ro", path]
    args += ["--setenv", "TMPDIR", layout.tmpdir, "--chdir", cwd]
    return args
