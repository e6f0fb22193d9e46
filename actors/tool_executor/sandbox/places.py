"""From the ``sandbox`` settings and the project's blocked files to a ``Layout``.

Runs in a worker thread before each confined command: it looks at what exists now, since a
path can only be bound where there is something, and what is missing must not be creatable.

A missing read-only path is sealed at its first missing component: bubblewrap makes an empty
folder or file there to mount over, on the real disk, and it stays after the command (an empty
``.legato/`` or ``.claude/`` folder, for one). Git does not track an empty folder, and without
it a command could create ``.legato/settings.json`` and loosen the next session's rules.

Besides what the settings name, every command finds ``DEFAULT_DENY_READ`` and Legato's own
folders hidden, and /tmp and /var/tmp empty (``private_temporary``): the settings add to these,
and cannot take them away.

A missing ``.git`` is left alone: ``git init`` must work. The repository a command creates is
writable, hooks included, until that command ends; the next command finds it and gets its
config-bearing files read-only (``git_places.py``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.places import (
    leaves_project,
    legato_folders,
    opens_legato_folder,
    sandbox_path,
)
from actors.places import within as within  # the sandbox's modules find it here
from actors.run_files import MCP_FILE
from actors.settings import DEFAULT_DENY_READ
from actors.tool_executor.sandbox.git_places import git_protected
from actors.tool_executor.sandbox.layout import Layout
from actors.tool_executor.sandbox.limits import MIB, memory_mb

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from actors.protocol import SandboxSettings

# Inside the project, read-only in every confined command: (path, is a folder). Legato's
# settings, and the reference's (settings, commands, skills, agents), which Legato reads as its
# own; git's files that run programs or locate the repository come from ``git_controls``.
PROTECTED = ((".legato", True), (".claude", True))

# Writable besides the places the settings give: the character devices bubblewrap's own /dev
# offers for writing, which shells and programs open as sinks (``> /dev/null``).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
# Unreadable besides sandbox.denyRead: the user's terminals, where a command could read what
# is typed into another (bubblewrap's /dev does not show them).
UNREADABLE = ("/dev/pts",)

# Where services outside the sandbox listen. A Unix socket on a read-only mount still takes
# connections, and behind these are ways out: the session bus (``systemd-run --user`` starts
# any program, unconfined), systemd itself when Legato runs as root, the docker and podman
# daemons (a container that mounts /), the X server (keystrokes into another terminal), the
# SSH agent (the user's keys). Hidden unless sandbox.allowUnixSockets names them.
SERVICE_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/dbus/system_bus_socket",
    "/run/systemd/private",
    "/run/snapd.socket",
    "/run/snapd-snap.socket",
    "/run/libvirt",
    "/tmp/.X11-unix",
    "/tmp/.ICE-unix",
    # GNU screen's servers run what they are sent (``screen -X exec``), as tmux's do.
    "/run/screen",
    "/var/run/screen",
)


def service_sockets(env: Mapping[str, str], uid: int) -> tuple[str, ...]:
    """The places of ``SERVICE_SOCKETS``, the user's runtime folder (the session bus,
    systemd's user manager, the keyring's and agents' sockets), and the sockets that ``env``
    points at; as given, whether they exist or not."""
    # Both: XDG_RUNTIME_DIR can name another folder while systemd's bus is in /run/user.
    places = [env.get("XDG_RUNTIME_DIR") or f"/run/user/{uid}", f"/run/user/{uid}"]
    places += SERVICE_SOCKETS
    if agent := env.get("SSH_AUTH_SOCK"):
        places.append(agent)
    # The terminal multiplexers' servers wherever they were told to listen: /tmp is private
    # already, these may lie elsewhere (the socket is the first field of TMUX).
    if tmux := env.get("TMUX", "").split(",")[0]:
        places.append(tmux)
    if tmux_tmpdir := env.get("TMUX_TMPDIR"):
        places.append(f"{tmux_tmpdir.rstrip('/')}/tmux-{uid}")
    if screen := env.get("SCREENDIR"):
        places.append(screen)
    if home := env.get("HOME"):
        places.append(f"{home.rstrip('/')}/.screen")
    for address in env.get("DBUS_SESSION_BUS_ADDRESS", "").split(";"):
        transport, _, keys = address.partition(":")
        for key, _, value in (pair.partition("=") for pair in keys.split(",")):
            if transport == "unix" and key == "path" and value:
                places.append(value)
    return tuple(place for place in places if place.startswith("/"))


class Skipped(msgspec.Struct):
    """Entries that could not be applied, in words for ``legato doctor``."""

    notes: list[str] = msgspec.field(default_factory=list)


def expand(entry: str, project: str, home: str) -> str:
    """A real absolute path: ``~/x`` under the home folder, ``/x`` or ``//x`` absolute, else
    relative to the project root."""
    return sandbox_path(entry, project, home)


def layout(
    settings: SandboxSettings,
    *,
    project: str,
    home: str,
    tmpdir: str,
    blocked: Iterable[tuple[str, bool]] = (),
    services: Iterable[str] = (),  # where services listen (``service_sockets``)
    # Legato's own environment (its interpreter, its packages, the bwrap it runs), read-only
    # where it lies in a writable folder (a project's own .venv): a command that changed it
    # would have its code run, unconfined, by the next session.
    own: Iterable[str] = (),
    skipped: Skipped | None = None,
    # Files inside the project that hooks and MCP servers run, outside the sandbox
    # (``actors/run_files.py``); and whether a missing .mcp.json must not be created, as where
    # the user has enabled all of a project's servers (a server written there starts unasked).
    runs: Iterable[str] = (),
    mcp_sealed: bool = False,
    # Files a command's launcher needs (the abstract-socket scope's source, which an editable
    # install keeps in its checkout): bound back in where a private /tmp would hide them.
    seen: Iterable[str] = (),
) -> Layout:
    """What a confined command may write, may only read, may not read, and may not reach."""
    skipped = skipped if skipped is not None else Skipped()
    runs = tuple(runs)
    writable = [project]
    for entry in settings.allow_write:
        path = expand(entry, project, home)
        opened = opens_legato_folder(entry, project, home)
        out = leaves_project(entry, project, home)
        if opened is not None:  # the settings loader refuses it too; a link may lead there since
            skipped.notes.append(f"allowWrite '{entry}': not writable, it opens {opened}")
        elif out is not None:  # a link made since the settings were read and judged
            skipped.notes.append(
                f"allowWrite '{entry}': not writable, it is in the project but a link leads it "
                f"to {out}; name {out} itself in sandbox.allowWrite if it is meant (a place "
                "outside the project applies once you trust the project)"
            )
        elif os.path.isdir(path):
            writable.append(path)
        else:
            skipped.notes.append(f"allowWrite '{entry}': {path} is not an existing folder")
    writable = _outermost(writable)
    places = [*writable, tmpdir]

    read_only: list[str] = []
    sealed: list[tuple[str, bool]] = []
    wanted = list(PROTECTED)
    git_wanted, fixed = git_protected(project, home, skipped.notes)
    wanted += git_wanted
    if os.path.isfile(os.path.join(project, ".git")):  # a worktree's or submodule's pointer
        wanted.append((".git", False))
    wanted += [(entry.rstrip("/"), entry.endswith("/")) for entry in settings.read_only]
    wanted += [(path, False) for path in runs]
    mcp = os.path.join(project, MCP_FILE)
    if mcp_sealed or os.path.lexists(mcp):
        wanted.append((mcp, False))
    # Not when it is a writable folder itself (a project that is a venv): that stays writable.
    wanted += [
        ("/" + path.lstrip("/"), True) for path in own if os.path.realpath(path) not in writable
    ]
    for entry, is_folder in wanted:
        path = expand(entry, project, home)
        if not any(within(path, place) for place in places):
            named = os.path.join(project, entry)
            if within(named, project) and os.path.islink(named):
                # What it leads to is read-only, but the link lives in the writable project:
                # a command can put a folder of its own in its place.
                skipped.notes.append(
                    f"{entry} is a symlink to {path}: a command can replace the link; make it "
                    "a real folder or file to keep it read-only"
                )
            continue  # read-only already
        if os.path.lexists(path):
            read_only.append(path)
        else:
            sealed.append(_first_missing(path, is_folder))

    hidden: list[tuple[str, bool]] = []
    denied: set[str] = set()
    guarded = [*places, *read_only]
    for entry in dict.fromkeys((*DEFAULT_DENY_READ, *settings.deny_read)):
        path = expand(entry, project, home)
        if not os.path.lexists(path):
            continue
        holds = [place for place in guarded if within(place, path)]
        if holds:
            if entry in settings.deny_read:  # the defaults are said once, in words.py
                skipped.notes.append(f"denyRead '{entry}' is not hidden: it holds {holds[0]}")
            continue
        hidden.append((path, os.path.isdir(path)))
        denied.add(path)
    allowed = [expand(entry, project, home) for entry in settings.allow_unix_sockets]
    listening: set[str] = set()
    reopened: list[str] = []
    for place in dict.fromkeys(map(os.path.realpath, services)):
        if not os.path.lexists(place) or any(within(place, entry) for entry in allowed):
            continue
        if any(within(kept, place) or within(place, kept) for kept in guarded):
            continue  # the project or a writable folder is there: its own sockets are its own
        hidden.append((place, os.path.isdir(place)))
        listening.add(place)
        reopened += [entry for entry in allowed if within(entry, place) and entry != place]
    for path, is_folder in blocked:
        real = os.path.realpath(path)  # a blocked symlink: what it leads to is hidden
        if real == project or not os.path.exists(real):
            continue
        hidden.append((real, os.path.isdir(real) if real != path else is_folder))
    # Legato's own folders, even inside a writable place (the project is the home folder).
    hidden += [
        (path, os.path.isdir(path))
        for path in legato_folders(home)
        if os.path.lexists(path) and not any(within(place, path) for place in places)
    ]
    outermost_hidden = _outermost_pairs(hidden)
    private = private_temporary(tmpdir, home=home, writable=writable)
    # Inside a private temporary folder, bound back in: the home folder (HOME=/tmp/... in some
    # CI), Legato's own environment and launcher, and the sockets sandbox.allowUnixSockets names.
    kept = [home, *(os.path.realpath(path) for path in (*own, *seen)), *allowed]
    return Layout(
        tmpdir=tmpdir,
        writable=tuple(writable),
        read_only=tuple(_outermost(read_only)),
        sealed=tuple(sealed),
        hidden=tuple(outermost_hidden),
        network=settings.network,
        denied=tuple(_outermost(sorted(denied))),
        services=tuple(path for path, _ in outermost_hidden if path in listening),
        reopened=tuple(path for path in _outermost(reopened) if os.path.exists(path)),
        private=private,
        shm_bytes=memory_mb(settings) * MIB,
        kept=tuple(
            path
            for path in _outermost([path for path in kept if os.path.exists(path)])
            if any(within(path, folder) and path != folder for folder in private)
        ),
        fixed=tuple(_outermost_first(fixed + _on_the_way([*read_only, *dict(sealed)], writable))),
        runs=tuple(map(os.path.realpath, runs)),
    )


# Where every user's programs leave files and sockets: tmux's and screen's servers, other
# sessions' and other programs' files. A confined command gets each as an empty, read-only
# folder of its own; its TMPDIR is its place to write.
TEMPORARY = ("/tmp", "/var/tmp")


def private_temporary(tmpdir: str, *, home: str, writable: Sequence[str]) -> tuple[str, ...]:
    """The temporary folders a command gets empty: ``TEMPORARY`` and the folder holding the
    session's TMPDIR, unless one is the home folder or inside it (HOME=/tmp), or is a writable
    place or inside one (the project is /tmp itself: the user's choice). A home inside one is
    bound back (``Layout.kept``)."""
    found: list[str] = []
    for folder in (*TEMPORARY, os.path.dirname(tmpdir)):
        real = os.path.realpath(folder)
        if real == "/" or not os.path.isdir(real) or within(real, os.path.realpath(home)):
            continue
        if any(within(real, place) for place in writable):
            continue
        found.append(real)
    return tuple(_outermost(found))


def _on_the_way(paths: Sequence[str], writable: Sequence[str]) -> list[str]:
    """The folders between a writable place and each of ``paths`` inside it. Renaming one would
    carry the read-only path away (its mount with it) and let a command put its own in its
    place: ``mv scripts s && mkdir scripts && echo ... > scripts/fmt.sh``. Each is bound over
    itself, and a mount point cannot be renamed."""
    folders: list[str] = []
    for path in paths:
        place = next((place for place in writable if within(path, place)), None)
        if place is None:
            continue
        folder = os.path.dirname(path)
        while folder != place and within(folder, place):
            folders.append(folder)
            folder = os.path.dirname(folder)
    return folders


def _outermost_first(folders: Sequence[str]) -> list[str]:
    """Each once, a folder before the folders inside it: a later bind over an outer folder
    would cover the inner ones' mounts."""
    return sorted(set(folders), key=lambda folder: (folder.count("/"), folder))


def _first_missing(path: str, is_folder: bool) -> tuple[str, bool]:
    """Where to seal a missing path: its first missing component (a folder, unless it is the
    path itself and names a file), so that nothing on the way can be created either."""
    missing = path
    while not os.path.lexists(os.path.dirname(missing)):
        missing = os.path.dirname(missing)
    return missing, is_folder or missing != path


def _outermost(paths: Sequence[str]) -> list[str]:
    ordered = sorted(dict.fromkeys(paths))
    out: list[str] = []
    for path in ordered:
        if not any(within(path, kept) for kept in out):
            out.append(path)
    return out


def _outermost_pairs(pairs: Sequence[tuple[str, bool]]) -> list[tuple[str, bool]]:
    folders = dict(pairs)
    return [(path, folders[path]) for path in _outermost([path for path, _ in pairs])]


def inside_writable(layout: Layout) -> list[tuple[str, str]]:
    """(denyRead path, writable place holding it): what Landlock cannot make unreadable."""
    places = (*layout.writable, layout.tmpdir)
    return [(path, place) for path in layout.denied for place in places if within(path, place)]
