"""The session store: every session saved as it goes, resumable.

``SessionStore`` is the actor: it saves the session, replays it on resume, and lists the
project's saved sessions (``ListSessions``) for ``--continue`` and the ``--resume`` picker.
"""

from __future__ import annotations

from actors.session_store.actor import SessionStore
from actors.session_store.files import read_events, session_path
from actors.session_store.mirror import transcript_path
from actors.session_store.replay import replay

__all__ = [
    "SessionStore",
    "read_events",
    "replay",
    "session_path",
    "transcript_path",
]
