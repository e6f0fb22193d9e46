"""The memory store: global config, project settings, LEGATO.md and MEMORY.md.

``MemoryStore`` is the actor; ``load_context`` is the same loading as a plain function, for
callers (the CLI) that want to validate the files without starting a session.
``read_sdk_hooks`` reads the Agent SDK's ``hooks`` option into groups for ``Overrides.hooks``.
"""

from __future__ import annotations

from actors.memory_store.actor import MemoryStore
from actors.memory_store.loader import explain_context, load_context
from actors.memory_store.sdk_hooks import read_sdk_hooks
from actors.memory_store.settings_files import config_path, settings_path
from actors.protocol import Explained, Overrides, Setting

__all__ = [
    "Explained",
    "MemoryStore",
    "Overrides",
    "Setting",
    "config_path",
    "explain_context",
    "load_context",
    "read_sdk_hooks",
    "settings_path",
]
