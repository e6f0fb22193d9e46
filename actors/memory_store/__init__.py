"""The memory store: global config, project settings, LEGATO.md and MEMORY.md.

``MemoryStore`` is the actor; ``load_context`` is the same loading as a plain function, for
callers (the CLI) that want to validate the files without starting a session.
"""

from __future__ import annotations

from actors.memory_store.actor import MemoryStore
from actors.memory_store.loader import (
    config_path,
    explain_context,
    load_context,
    settings_path,
)
from actors.protocol import Explained, Overrides, Setting

__all__ = [
    "Explained",
    "MemoryStore",
    "Overrides",
    "Setting",
    "config_path",
    "explain_context",
    "load_context",
    "settings_path",
]
