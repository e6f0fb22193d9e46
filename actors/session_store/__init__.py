"""The session store: every session saved as it goes, resumable (issue 7).

``SessionStore`` is the actor; ``list_sessions`` and ``latest_session`` read the project's
saved sessions for ``--continue`` and the ``--resume`` picker.
"""

from __future__ import annotations

from actors.session_store.actor import SessionStore
from actors.session_store.files import (
    SessionInfo,
    latest_session,
    list_sessions,
    read_events,
    session_path,
)
from actors.session_store.replay import replay

__all__ = [
    "SessionInfo",
    "SessionStore",
    "latest_session",
    "list_sessions",
    "read_events",
    "replay",
    "session_path",
]
