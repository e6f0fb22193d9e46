"""The settings files a session reads, nearest first, each read once through one path.

    --settings                        (each a JSON text or a file's path)   flags
    .legato/settings.local.json       .claude/settings.local.json          local
    .legato/settings.json             .claude/settings.json                project
    ~/.config/legato/config.json      ~/.claude/settings.json              user

Nearest wins for a single value (model, permission mode); lists merge, nearest first. At each
level Legato's own file comes before the reference's. The ``local`` files are personal and
git-ignored; a repository can still commit one, so every file under the project is the
project's, with its approval (trust.py). An absent file costs one failed open.
"""

from __future__ import annotations

import functools
import os
import shlex
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgspec

from actors.errors import ConfigError, UsageError
from actors.models import resolve_model
from actors.own_files import SETTINGS_CAP, Refused, read_own, user_folders
from actors.settings import GlobalConfig, ProjectSettings, ReferenceSettings
from actors.settings.validate import FileSchema, Loaded, load_json
from actors.tool_names import PERMISSION_TOOLS
from actors.tool_names import entry_problem as tool_entry_problem

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

Level = Literal["flags", "local", "project", "user"]
S = TypeVar("S", bound=msgspec.Struct)

CONFIG_FILE = os.path.join(".config", "legato", "config.json")  # under the home directory
SETTINGS_FILE = os.path.join(".legato", "settings.json")  # under the project root
LOCAL_FILE = os.path.join(".legato", "settings.local.json")
REFERENCE_SETTINGS = os.path.join(".claude", "settings.json")  # project, and user under home
REFERENCE_LOCAL = os.path.join(".claude", "settings.local.json")
FLAG = "--settings"

# Keys whose values their own parser checks: what they take, for a message.
HOOKS = 'an object of hook events such as {"PostToolUse": [...]} (docs/hooks.md)'
MCP_SERVERS = "an object of MCP servers by name, as in .mcp.json"


class Reference(msgspec.Struct, frozen=True):
    """One of the reference's files, read, and its level."""

    loaded: Loaded[ReferenceSettings]
    level: Level


class Files(msgspec.Struct, frozen=True):
    """Every settings file as read. ``absent`` ones hold their defaults and no keys."""

    config: Loaded[GlobalConfig]
    local: Loaded[ProjectSettings]
    settings: Loaded[ProjectSettings]
    references: tuple[Reference, ...]  # nearest first, present ones only

    def project_level(self) -> list[Loaded[Any]]:
        """The files a repository can bring, nearest first."""
        found: list[Loaded[Any]] = [self.local]
        found += [r.loaded for r in self.references if r.level == "local"]
        found.append(self.settings)
        found += [r.loaded for r in self.references if r.level == "project"]
        return found

    def at(self, level: Level) -> list[Loaded[Any]]:
        """The files of one level, Legato's own first."""
        own: list[Loaded[Any]] = []
        if level == "local":
            own = [self.local]
        elif level == "project":
            own = [self.settings]
        elif level == "user":
            own = [self.config]
        return own + [r.loaded for r in self.references if r.level == level]


def config_path(home: str) -> str:
    return os.path.join(home, CONFIG_FILE)


def settings_path(project_root: str) -> str:
    return os.path.join(project_root, SETTINGS_FILE)


def local_path(project_root: str) -> str:
    return os.path.join(project_root, LOCAL_FILE)


def read_files(root: str, home: str, flags: Sequence[str], warnings: list[str]) -> Files:
    """Read and validate every settings file; raises ConfigError naming the file and line."""
    config_file = config_path(home)
    settings_file = settings_path(root)
    config = load_file(config_file, config_schema(settings_file), GlobalConfig(), warnings)
    schema = settings_schema(config_file)
    local = load_file(local_path(root), schema, ProjectSettings(), warnings)
    settings = load_file(settings_file, schema, ProjectSettings(), warnings)
    references: list[Reference] = []
    sources: list[tuple[str | None, Level, str | None]] = [
        *((flag, "flags", None) for flag in flags),
        (None, "local", os.path.join(root, REFERENCE_LOCAL)),
        (None, "project", os.path.join(root, REFERENCE_SETTINGS)),
        (None, "user", os.path.join(home, REFERENCE_SETTINGS)),
    ]
    if os.path.realpath(home) == root:
        # Started in the home folder: ~/.claude/settings.json is the user's own, read once.
        del sources[-2]
    for text, level, path in sources:
        loaded = _reference(text, path, root, warnings)
        if loaded is not None:
            references.append(Reference(loaded, level))
    return Files(config, local, settings, tuple(references))


_REFERENCE_SCHEMA = FileSchema(ReferenceSettings, others={"hooks": HOOKS}, foreign=True)


def _reference(
    flag: str | None, path: str | None, root: str, warnings: list[str]
) -> Loaded[ReferenceSettings] | None:
    if flag is not None and flag.lstrip().startswith("{"):
        return load_json(FLAG, flag, _REFERENCE_SCHEMA, warnings)
    if flag is not None:
        # A file the person names on the command line: theirs to choose, wherever it is.
        given = os.path.abspath(os.path.expanduser(flag))
        text = read_text(given, inside=(os.sep,))
        if text is None:
            raise ConfigError(
                "does not exist", path=given, remedy=f"Give {FLAG} a JSON text or an existing file"
            )
        return load_json(given, text, _REFERENCE_SCHEMA, warnings)
    assert path is not None
    text = read_text(path)
    return None if text is None else load_json(path, text, _REFERENCE_SCHEMA, warnings)


# The permission rules of Legato's project settings, as JSON names.
RULE_KEYS = (
    "allowedPaths",
    "blockedPaths",
    "allowedCommands",
    "blockedCommands",
    "allowedTools",
    "blockedTools",
)


def config_schema(settings_file: str) -> FileSchema[GlobalConfig]:
    return FileSchema(
        GlobalConfig,
        # Read by mcp_servers.py and hook_settings.py, which check each entry.
        others={"mcpServers": MCP_SERVERS, "hooks": HOOKS},
        secret=frozenset({"apiKey"}),
        elsewhere={
            key: f"the project settings file ({settings_file})" for key in (*RULE_KEYS, "sandbox")
        },
    )


def settings_schema(config_file: str) -> FileSchema[ProjectSettings]:
    return FileSchema(
        ProjectSettings,
        others={"hooks": HOOKS},
        elsewhere={
            # A project folder is often committed: the key belongs in the private file.
            "apiKey": f"the global config file ({config_file}), which is not committed",
            "theme": f"the global config file ({config_file})",
            "autoSave": f"the global config file ({config_file})",
            "mcpServers": "the project's .mcp.json (or the global config file)",
            # A repository must not approve its own servers.
            "enableAllProjectMcpServers": f"the global config file ({config_file}) only",
        },
    )


def load_file(path: str, schema: FileSchema[S], default: S, warnings: list[str]) -> Loaded[S]:
    text = read_text(path)
    if text is None:
        return Loaded(path, default, {})
    return load_json(path, text, schema, warnings)


def read_text(path: str, inside: Sequence[str] | None = None) -> str | None:
    """The file's text, or None when it does not exist; unreadable is an error, not absent.

    Read through the door for Legato's own files: a settings file that is a link out of the
    project (or, for the user's files, out of their folders), a FIFO, a device or a file over
    the cap stops the start with a ConfigError, since going on without it would quietly run
    with other permissions than the ones written.
    """
    try:
        found = read_own(path, inside=inside or folders_of(path), cap=SETTINGS_CAP)
    except Refused as refused:
        raise ConfigError(refused.why, path=path, remedy=refused.remedy) from None
    if found is None:
        return None
    data = found.data
    try:
        return data.decode("utf-8-sig")  # tolerate the BOM some editors write
    except UnicodeDecodeError as error:
        text = data[: error.start].decode("utf-8", errors="replace")
        raise ConfigError(
            f"is not UTF-8 text (byte {error.start})",
            path=path,
            line=text.count("\n") + 1,
            remedy="Save the file as UTF-8",
        ) from None


def folders_of(path: str) -> tuple[str, ...]:
    """Where a settings file may lead: the project holding it, or the user's own folders for
    the user's files (``~/.claude`` beside Legato's own, for the reference's)."""
    for name in (SETTINGS_FILE, LOCAL_FILE, REFERENCE_LOCAL):
        if path.endswith(os.sep + name):
            return (path[: -len(name) - 1],)
    if path.endswith(os.sep + CONFIG_FILE):
        return user_folders(path[: -len(CONFIG_FILE) - 1])
    if path.endswith(os.sep + REFERENCE_SETTINGS):
        above = path[: -len(REFERENCE_SETTINGS) - 1]
        # The user's ~/.claude/settings.json, or a project's .claude/settings.json: either
        # way the folder holding .claude is as far as it may lead.
        return (above,)
    return (os.path.dirname(path),)


def merged(near: Loaded[S], far: Loaded[S]) -> S:
    """``far``'s value with what ``near`` sets: a single value replaced, a list with near's
    entries first, an object key by key (``sandbox``, ``permissions``), but one that may be
    absent (``statusLine``) whole, as the reference takes it from the nearest file."""
    return _merged(near.value, near.raw, far.value)


def _merged(near: S, near_raw: Mapping[str, Any], far: S) -> S:
    if not near_raw:
        return far  # the near file is absent, or sets nothing: the usual case
    changes: dict[str, Any] = {}
    for field in _fields(type(near)):
        if field.encode_name not in near_raw:
            continue
        ours, theirs = getattr(near, field.name), getattr(far, field.name)
        written = near_raw[field.encode_name]
        if isinstance(ours, tuple):
            changes[field.name] = ours + tuple(e for e in theirs if e not in ours)
        elif isinstance(ours, dict):
            changes[field.name] = {**theirs, **ours}
        elif (
            isinstance(ours, msgspec.Struct)
            and isinstance(written, dict)
            and field.default is not None
        ):
            changes[field.name] = _merged(ours, written, theirs)
        else:  # a single value; an object that may be absent (``statusLine``) is one too
            changes[field.name] = ours
    return msgspec.structs.replace(far, **changes)


@functools.cache
def _fields(cls: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    # Read from the class's annotations each time it is asked (~0.4 ms): once is enough.
    return msgspec.structs.fields(cls)


def line_of(loaded: Loaded[Any], *steps: str | int) -> str:
    """``path:line`` of a key or element, or the path alone."""
    line = loaded.line_of(*steps)
    return f"{loaded.path}:{line}" if line else loaded.path


def present(files: Iterable[Loaded[Any]]) -> list[Loaded[Any]]:
    return [loaded for loaded in files if loaded.positions or loaded.raw]


# ── checks of what the files hold ──────────────────────────────────────────────────────────


def check_models(files: Files) -> None:
    """An unknown model name in a file is that file's error, whichever value ends up used."""
    found: list[tuple[Loaded[Any], str, str | None]] = [
        (files.config, "defaultModel", files.config.value.default_model),
        (files.local, "model", files.local.value.model),
        (files.settings, "model", files.settings.value.model),
        *((r.loaded, "model", r.loaded.value.model) for r in files.references),
    ]
    for loaded, key, name in found:
        if name is None:
            continue
        try:
            resolve_model(name)
        except UsageError as error:
            raise ConfigError(
                error.message,
                path=loaded.path,
                line=loaded.line_of(key),
                field=key,
                remedy=error.remedy,
            ) from None


def check_entries(settings: Loaded[ProjectSettings]) -> None:
    """An entry that can never match is a mistake; a command entry must split into words."""
    for key, entries in (
        ("allowedCommands", settings.value.allowed_commands),
        ("blockedCommands", settings.value.blocked_commands),
        ("allowedPaths", settings.value.allowed_paths),
        ("blockedPaths", settings.value.blocked_paths),
        ("allowedTools", settings.value.allowed_tools),
        ("blockedTools", settings.value.blocked_tools),
    ):
        for index, entry in enumerate(entries):
            remedy = f"Fix or remove that entry of '{key}'"
            if key.endswith("Tools"):
                problem = tool_entry_problem(entry)
                remedy = (
                    f"Write a built-in tool's name ({', '.join(PERMISSION_TOOLS)}), "
                    f"'mcp__<server>' or 'mcp__<server>__<tool>', or remove that entry of '{key}'"
                )
            else:
                problem = _entry_problem(entry, is_command=key.endswith("Commands"))
            if problem:
                raise ConfigError(
                    problem,
                    path=settings.path,
                    line=settings.line_of(key, index) or settings.line_of(key),
                    field=f"{key}[{index}]",
                    remedy=remedy,
                )


def _entry_problem(entry: str, *, is_command: bool) -> str | None:
    if not entry.strip():
        return "an empty entry matches nothing"
    if is_command:
        try:
            shlex.split(entry)
        except ValueError as error:
            return f"{entry!r} does not split into words: {error}"
    return None
