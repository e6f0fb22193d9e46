"""What the settings files' reference-shaped keys mean for a session: ``permissions.allow`` /
``ask`` / ``deny`` as rules, ``permissions.defaultMode``, ``permissions.additionalDirectories``,
``env``, and the keys Legato does not act on. Legato's own files accept ``permissions`` too.

The project's files (``.legato/`` and ``.claude/``, local or not: a cloned repository can commit
any of them) narrow at once and widen only once trusted (trust.py). What widens:

- an ``allow`` rule, unless it only reads inside the project (``Read(src/**)``, ``Grep``'s and
  ``Glob``'s likewise): every other allows calls the person would otherwise be asked about;
- ``defaultMode: acceptEdits``; ``bypassPermissions`` never applies from a project's file;
- each ``additionalDirectories`` entry: the tools would work outside the project;
- each ``env`` variable: ``PATH`` or ``LD_PRELOAD`` changes what every command runs.

``ask`` and ``deny`` rules only take away, so they always apply. ``env`` never sets one of
Legato's own variables (credentials, provider, endpoint, proxy), from any file: it is given to
the processes Legato starts, never to Legato itself, and a command must not reach Legato's
provider through a variable it did not choose.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import msgspec

from actors.credentials import LEGATO_CREDENTIALS
from actors.permission_modes import SDK_MODES
from actors.protocol import Setting
from actors.settings import PermissionRule, TrustItem
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from actors.memory_store.settings_files import Files, Level
    from actors.protocol import PermissionMode
    from actors.settings import Permissions
    from actors.settings.validate import Loaded

LEVELS: tuple[Level, ...] = ("flags", "local", "project", "user")
PROJECT_LEVELS = ("local", "project")
# Legato's own variables and the provider's: never set by a settings file.
_OWN_PREFIXES = ("ASSISTANT_", "ANTHROPIC_", "CLOUD_", "OPENAI_", "LEGATO_", "AWS_")
_OWN_NAMES = frozenset(
    {
        *LEGATO_CREDENTIALS,
        "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "CLAUDE_PROJECT_DIR", "HOME",
    }
)  # fmt: skip
# Tools that only read: an allow rule for them inside the project widens nothing.
_READERS = frozenset({"Read", "Grep", "Glob", "LS"})
MODE_KEY = "permissions.defaultMode"
DIRS_KEY = "permissions.additionalDirectories"
ALLOW_KEY = "permissions.allow"
BYPASS_REMEDY = "start with --dangerously-skip-permissions or --permission-mode bypassPermissions"


class Gathered(msgspec.Struct, frozen=True):
    """What the files' reference-shaped keys ask for, before trust decides."""

    rules: tuple[PermissionRule, ...]  # flags' first, then nearest file first
    env: tuple[tuple[str, str, str, Level], ...]  # name, value, file, level; nearest first
    dirs: tuple[tuple[str, str, Level], ...]  # as written, file, level
    # mode, file, level, where (file and line); nearest first
    modes: tuple[tuple[PermissionMode, str, Level, str], ...]


def gather(
    files: Files, flag_rules: Sequence[PermissionRule], root: str, warnings: list[str]
) -> Gathered:
    """Every file's ``permissions`` and ``env``, nearest first; refused variables and
    ``bypassPermissions`` from a project's file are warnings here."""
    rules = list(flag_rules)
    env: list[tuple[str, str, str, Level]] = []
    dirs: list[tuple[str, str, Level]] = []
    modes: list[tuple[PermissionMode, str, Level, str]] = []
    for level in LEVELS:
        for loaded in files.at(level):
            permissions: Permissions = loaded.value.permissions
            anchor = _anchor(loaded.path, level, root)
            for behavior in ("deny", "ask", "allow"):
                for index, text in enumerate(getattr(permissions, behavior)):
                    rules.append(
                        PermissionRule(
                            behavior=behavior,
                            text=text,
                            source=loaded.path,
                            line=loaded.line_of("permissions", behavior, index),
                            anchor=anchor,
                        )
                    )
            dirs += ((entry, loaded.path, level) for entry in permissions.additional_directories)
            mode = _mode(loaded, level, warnings)
            if mode is not None:
                where = _at(loaded, "permissions", "defaultMode")
                modes.append((mode, loaded.path, level, f"{where} (permissions.defaultMode)"))
            for name, value in getattr(loaded.value, "env", {}).items():
                problem = env_problem(name)
                if problem:
                    warnings.append(
                        f"{_at(loaded, 'env', name)}: env variable {escape_controls(name)!r} "
                        f"not applied: {problem}; remove it from 'env'"
                    )
                else:
                    env.append((name, value, loaded.path, level))
    return Gathered(tuple(rules), tuple(env), tuple(dirs), tuple(modes))


def _anchor(path: str, level: Level, root: str) -> str:
    """What a path rule's single leading '/' is relative to, as the reference's docs define
    it: the project for a project's or a local file and the flags, the folder of the file for
    the user's files (``~/.claude``) and a ``--settings`` file."""
    if level in PROJECT_LEVELS or not os.path.isabs(path):
        return root
    return os.path.dirname(path)


def _mode(loaded: Loaded[Any], level: Level, warnings: list[str]) -> PermissionMode | None:
    written = loaded.value.permissions.default_mode
    if written is None:
        return None
    mode = SDK_MODES[written]
    at = _at(loaded, "permissions", "defaultMode")
    if mode == "bypass" and level in PROJECT_LEVELS:
        warnings.append(
            f"{at}: defaultMode bypassPermissions not applied: a project's file never starts "
            f"a session without questions; to run so, {BYPASS_REMEDY}"
        )
        return None
    if mode == "bypass":
        warnings.append(
            f"{at}: defaultMode bypassPermissions: every tool call the rules do not deny runs "
            "without a question, commands and edits outside the project included; use it only "
            "in a container or a throwaway machine"
        )
    return mode


def env_problem(name: str) -> str | None:
    """Why a settings file may not set the variable ``name``; None when it may."""
    if not name or "=" in name or "\0" in name:
        return "not a variable name"
    upper = name.upper()
    if upper in _OWN_NAMES or upper.startswith(_OWN_PREFIXES):
        return "it is one of Legato's own (credentials, provider, endpoint or proxy)"
    return None


def rule_widens(text: str) -> bool:
    """Whether a project's allow rule lets the model do more than it may unasked (above)."""
    tool, paren, rest = text.partition("(")
    if tool.strip() not in _READERS or not paren or not rest.endswith(")"):
        return True
    spec = rest[:-1].strip()
    if not spec or spec.startswith(("//", "~", "\\")) or spec == "*":
        return True
    parts = spec.replace("\\", "/").split("/")
    return ".." in parts or any(part.startswith((".git", ".legato", ".claude")) for part in parts)


def trust_items(gathered: Gathered, project_files: Iterable[str]) -> list[TrustItem]:
    """The project's widening items among what was gathered, each with its file."""
    project = frozenset(project_files)
    items = [
        TrustItem(ALLOW_KEY, rule.text, rule.source)
        for rule in gathered.rules
        if rule.behavior == "allow" and rule.source in project and rule_widens(rule.text)
    ]
    items += (
        TrustItem(MODE_KEY, "acceptEdits", path)
        for mode, path, level, _ in gathered.modes
        if level in PROJECT_LEVELS and mode == "auto"
    )
    items += (
        TrustItem(DIRS_KEY, entry, path)
        for entry, path, level in gathered.dirs
        if level in PROJECT_LEVELS
    )
    items += (
        TrustItem(f"env.{name}", value, path)
        for name, value, path, level in gathered.env
        if level in PROJECT_LEVELS
    )
    return items


def untrusted(gathered: Gathered, project_files: Iterable[str]) -> Gathered:
    """What applies while the project is untrusted: its widening items left out."""
    project = frozenset(project_files)
    return Gathered(
        rules=tuple(
            rule
            for rule in gathered.rules
            if not (rule.behavior == "allow" and rule.source in project and rule_widens(rule.text))
        ),
        env=tuple(entry for entry in gathered.env if entry[3] not in PROJECT_LEVELS),
        dirs=tuple(entry for entry in gathered.dirs if entry[2] not in PROJECT_LEVELS),
        modes=tuple(
            entry
            for entry in gathered.modes
            if entry[2] not in PROJECT_LEVELS or entry[0] not in ("auto", "bypass")
        ),
    )


def effective_env(gathered: Gathered) -> dict[str, str]:
    """The variables, nearest file winning."""
    env: dict[str, str] = {}
    for name, value, _, _ in reversed(gathered.env):
        env[name] = value
    return env


def directories(gathered: Gathered, root: str, home: str, warnings: list[str]) -> tuple[str, ...]:
    """The ``additionalDirectories`` as real folders; one that is not a folder is a warning."""
    found: list[str] = []
    for entry, path, _ in gathered.dirs:
        expanded = home + entry[1:] if entry == "~" or entry.startswith("~/") else entry
        folder = os.path.realpath(os.path.join(root, expanded))
        if not os.path.isdir(folder):
            warnings.append(
                f"{path}: additionalDirectories entry {escape_controls(entry)!r} is not a "
                "folder and was left out; fix or remove it"
            )
        elif folder not in found:
            found.append(folder)
    return tuple(found)


def not_acted_on(files: Files) -> list[Setting[Any]]:
    """The keys of the reference's files that Legato does not act on, with file and line."""
    return [
        Setting(key, None, f"{ref.loaded.path}:{line}" if line else ref.loaded.path)
        for ref in files.references
        for key, line in ref.loaded.unknown
    ]


def _at(loaded: Loaded[Any], *steps: str | int) -> str:
    line = loaded.line_of(*steps)
    return f"{loaded.path}:{line}" if line else loaded.path


def bypass_disabled(files: Files) -> tuple[Loaded[Any], int | None] | None:
    """The nearest file whose ``permissions.disableBypassPermissionsMode`` is ``"disable"``,
    and its line. Any file counts, a project's untrusted one too: it only takes a mode away."""
    for level in LEVELS:
        for loaded in files.at(level):
            if loaded.value.permissions.disable_bypass_permissions_mode == "disable":
                return loaded, loaded.line_of("permissions", "disableBypassPermissionsMode")
    return None
