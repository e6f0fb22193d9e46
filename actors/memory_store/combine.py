"""How the settings files' values combine into one session's: which file each effective value
came from, the project's hooks as one approval, the widening items of every project file, the
permission modes in precedence order, and the settings' ``env`` for MCP servers."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import msgspec

from actors.errors import ConfigError
from actors.memory_store import hooks_approval, reference_keys, trust
from actors.memory_store.command_grants import granting_items
from actors.memory_store.precedence import DEFAULT
from actors.memory_store.settings_files import RULE_KEYS, merged
from actors.protocol import Setting
from actors.settings import HookCommand, HookGroup, ProjectSettings, TrustItem

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from actors.memory_store.reference_keys import Gathered
    from actors.memory_store.settings_files import Files, Level
    from actors.protocol import PermissionMode
    from actors.settings import McpServer, StatusLine


def file_only(files: Files) -> list[Setting[Any]]:
    """Values only the files set: the nearest file that sets one (a list: each file that adds
    to it, nearest first), else the default."""
    settings = merged(files.local, files.settings)
    out: list[Setting[Any]] = []
    for loaded, value, keys in (
        (files.config, files.config.value, ("theme", "autoSave")),
        (None, settings, RULE_KEYS),
    ):
        for key in keys:
            found = msgspec.structs.asdict(value)[_snake(key)]
            sources = [
                each.path
                for each in ((loaded,) if loaded else (files.local, files.settings))
                if each.line_of(key) is not None
            ]
            out.append(Setting(key, found, " + ".join(sources) or DEFAULT))
    return out


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def project_hooks(files: Files, root: str) -> Any:
    """The project's hooks as one value, what an approval holds: ``.legato/settings.json``'s
    object as written when it alone has hooks, else each file's by its path in the project."""
    found = [loaded for loaded in files.project_level() if loaded.raw.get("hooks")]
    if not found:
        return None
    if found == [files.settings]:
        return files.settings.raw["hooks"]
    return {os.path.relpath(loaded.path, root): loaded.raw["hooks"] for loaded in found}


def trust_items(
    files: Files,
    gathered: Gathered,
    project_paths: Iterable[str],
    root: str,
    home: str,
    runs: Sequence[str],
) -> tuple[TrustItem, ...]:
    """The widening items of every file the project brings, each with its file."""
    items: list[TrustItem] = []
    for loaded in files.project_level():
        if isinstance(loaded.value, ProjectSettings):
            found = trust.widening_items(loaded.value, loaded.raw.get("hooks"), root, home, runs)
        else:
            hooks = loaded.raw.get("hooks")
            found = (TrustItem("hooks", hooks),) if hooks else ()
        items += (msgspec.structs.replace(item, source=loaded.path) for item in found)
    # A status line command runs as the user, outside the sandbox, as a hook does.
    items += (
        TrustItem(STATUS_LINE_KEY, loaded.raw[STATUS_LINE_KEY], loaded.path)
        for loaded in files.project_level()
        if loaded.value.status_line is not None
    )
    items += reference_keys.trust_items(gathered, project_paths)
    items += granting_items(root)
    return tuple(items)


STATUS_LINE_KEY = "statusLine"


def status_line(files: Files, *, trusted: bool) -> tuple[StatusLine, str] | None:
    """The nearest file's ``statusLine`` and that file; a project's only once the project is
    trusted (else the user's own applies, as if the project's file did not set one)."""
    for level in ("flags", "local", "project", "user"):
        if level in reference_keys.PROJECT_LEVELS and not trusted:
            continue
        for loaded in files.at(level):
            found: StatusLine | None = loaded.value.status_line
            if found is not None:
                return found, loaded.path
    return None


def status_line_scripts(files: Files, root: str, home: str) -> dict[str, str]:
    """The digests of the project's files that the project's ``statusLine`` commands run
    (``hooks_approval.scripts``): a change to one makes the project untrusted again."""
    groups = [
        HookGroup(event="Notification", hooks=(HookCommand(command=found.command),))
        for loaded in files.project_level()
        if (found := loaded.value.status_line) is not None and found.command
    ]
    return hooks_approval.scripts(root, home, groups) if groups else {}


def check_status_lines(files: Files) -> None:
    """A ``statusLine`` without its command is that file's error, whichever file wins."""
    for level in ("flags", "local", "project", "user"):
        for loaded in files.at(level):
            found = loaded.value.status_line
            if found is not None and not found.command:
                raise ConfigError(
                    'has no "command": the shell command whose output is the status line',
                    path=loaded.path,
                    line=loaded.line_of(STATUS_LINE_KEY),
                    field=STATUS_LINE_KEY,
                    remedy='Add "command": "~/.config/legato/statusline.sh" (any shell '
                    "command), or remove statusLine",
                )


def modes(
    files: Files, gathered: Gathered, *levels: Level, trusted: bool
) -> list[tuple[PermissionMode | None, str]]:
    """The files' permission modes of ``levels``, nearest first: in each file its own
    ``permissionMode`` before its ``permissions.defaultMode``. A project's mode that widens
    applies once trusted (what ``gathered`` holds is already so)."""
    found: list[tuple[PermissionMode | None, str]] = []
    for level in levels:
        for loaded in files.at(level):
            own = getattr(loaded.value, "permission_mode", None)
            widens = own not in trust.NARROW_MODES
            if own is not None and (
                trusted or level not in reference_keys.PROJECT_LEVELS or not widens
            ):
                found.append((own, loaded.path))
            found += (
                (mode, shown) for mode, path, _, shown in gathered.modes if path == loaded.path
            )
    return found


def with_env(server: McpServer, env: Mapping[str, str]) -> McpServer:
    """A stdio server with the settings' ``env``; its own entry's variables win."""
    if not env or server.transport != "stdio":
        return server
    return msgspec.structs.replace(server, env={**env, **server.env})


def reference_settings(gathered: Gathered) -> list[Setting[Any]]:
    """``env`` and ``additionalDirectories`` as they apply, each with the file that set it. A
    variable's value often holds a token: it is named, not shown."""
    sources: dict[str, str] = {}
    for name, _, path, _ in gathered.env:
        sources.setdefault(name, path)  # nearest first: the first one wins
    out: list[Setting[Any]] = [
        Setting(f"env.{name}", "(set)", path) for name, path in sorted(sources.items())
    ]
    if gathered.dirs:
        paths = " + ".join(dict.fromkeys(path for _, path, _ in gathered.dirs))
        out.append(
            Setting("additionalDirectories", tuple(entry for entry, _, _ in gathered.dirs), paths)
        )
    return out
