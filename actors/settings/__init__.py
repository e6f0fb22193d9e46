"""What the settings files hold, validated: the types every actor that is given settings needs.

A leaf the actors share, not an actor: the memory store reads the files and sends these in
``ProjectContext``; the tool executor, the broker, the MCP client and the hook runner receive
them. Each field's bounds and meaning are written once, in its ``msgspec.Meta``
(``words.py`` turns them into the words of a message).

The pure part of reading a file is here too: ``validate.py`` turns a JSON text into these types
or a ConfigError naming the file, the line and the field (``jsonpos.py`` finds the lines). The
memory store opens the files and decides which value wins (actors/memory_store/).
"""

from __future__ import annotations

from actors.settings.declared import (
    HOOK_TIMEOUT,
    HookCommand,
    HookEvent,
    HookGroup,
    McpServer,
    McpWritten,
    StatusLine,
)
from actors.settings.files import (
    MAX_BACKGROUND_COMMANDS,
    SETTINGS_MODES,
    AgentSettings,
    GlobalConfig,
    PermissionMode,
    ProjectSettings,
    SettingsMode,
    TrustItem,
    WebSearchSettings,
)
from actors.settings.reference import DEFAULT_MODES, DefaultMode, Permissions, ReferenceSettings
from actors.settings.rules import PermissionRule, RuleBehavior
from actors.settings.sandbox import DEFAULT_DENY_READ, MAX_PROCESSES, SandboxSettings
from actors.settings.words import keys, takes

__all__ = [
    "DEFAULT_DENY_READ",
    "DEFAULT_MODES",
    "HOOK_TIMEOUT",
    "MAX_BACKGROUND_COMMANDS",
    "MAX_PROCESSES",
    "SETTINGS_MODES",
    "AgentSettings",
    "DefaultMode",
    "GlobalConfig",
    "HookCommand",
    "HookEvent",
    "HookGroup",
    "McpServer",
    "McpWritten",
    "PermissionMode",
    "PermissionRule",
    "Permissions",
    "ProjectSettings",
    "ReferenceSettings",
    "RuleBehavior",
    "SandboxSettings",
    "SettingsMode",
    "StatusLine",
    "TrustItem",
    "WebSearchSettings",
    "keys",
    "takes",
]
