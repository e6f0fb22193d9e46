"""A one-time note for path rules written before they read like ``.gitignore``.

Path entries used to be anchored at the project root, and a leading ``/`` was an absolute path
on this computer. Two kinds of entry changed meaning:

- a name with no slash but a trailing one (``*.md``, ``.env``, ``secrets/``) used to match only
  at the project root and now matches at any depth (``/*.md`` keeps the old meaning). Only an
  allowed one is noted: a blocked one now blocks more, never less, and a denial names the entry
  that decided it, so a new user's ``"blockedPaths": [".env"]`` (the README's) gets no note;
- an entry starting with a single ``/`` used to be a path on this computer and is now anchored
  at the project root (``//etc/passwd`` keeps the old meaning).

The note is given once per version of the rule lists: a digest of the lists already noted is
kept beside the project's memory folder (``places.path_rules_note_path``), and the note comes
back only when the lists change.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from typing import TYPE_CHECKING

from actors.atomic import write_atomically
from actors.memory_store.path_rules import ALLOWED, BLOCKED, where
from actors.own_files import SETTINGS_CAP, Refused, read_own

if TYPE_CHECKING:
    from collections.abc import Iterator

    from actors.settings import ProjectSettings
    from actors.settings.validate import Loaded


def migration_warnings(
    settings: Loaded[ProjectSettings], note_path: str, *, remember: bool
) -> list[str]:
    """The note for each entry whose meaning changed, unless these lists were noted already.

    With ``remember``, the lists are recorded as noted: only a caller that shows the warnings
    may pass it, or the one note would be spent where nobody sees it.
    """
    notes = [
        f"{where(settings, key, index)} {note}" for key, index, note in _changed(settings.value)
    ]
    if not notes:
        return []
    digest = _digest(settings.value)
    if _noted(note_path) == digest:
        return []
    if remember:
        # A home that cannot be written to only means the note is given again next time.
        with contextlib.suppress(OSError):
            write_atomically(note_path, json.dumps({"noted": digest}).encode())
    return notes


def _changed(settings: ProjectSettings) -> Iterator[tuple[str, int, str]]:
    for key, entries in ((ALLOWED, settings.allowed_paths), (BLOCKED, settings.blocked_paths)):
        for index, entry in enumerate(entries):
            note = _note(entry.strip(), blocked=key == BLOCKED)
            if note is not None:
                yield key, index, note


def _note(text: str, *, blocked: bool) -> str | None:
    if text.startswith("/") and not text.startswith("//"):
        inside = text.strip("/") or "the whole project"
        return (
            f"'{text}' now means {inside} inside the project; it used to mean {text} on this "
            f"computer. Path rules now read like .gitignore: write '/{text}' for the absolute "
            "path (this note is shown once)"
        )
    name = text.rstrip("/")
    if not name or "/" in name or name.startswith(("!", "~")) or set(name) == {"*"}:
        return None  # anchored, outside the project, an exception, or everything: unchanged
    if blocked:
        return None  # blocked at any depth: stricter than before, never looser
    return (
        f"'{text}' now matches at any depth; it used to match only at the project root. Path "
        f"rules now read like .gitignore: write '/{text}' to match at the root only (this note "
        "is shown once)"
    )


def _digest(settings: ProjectSettings) -> str:
    lists = [list(settings.allowed_paths), list(settings.blocked_paths)]
    return hashlib.sha256(json.dumps(lists).encode()).hexdigest()


def _noted(path: str) -> str | None:
    try:
        found = read_own(path, inside=(os.path.dirname(path),), cap=SETTINGS_CAP)
        data = json.loads(found.data) if found is not None else None
    except (Refused, ValueError, RecursionError):
        return None  # absent or damaged: the note is simply given again
    noted = data.get("noted") if isinstance(data, dict) else None
    return noted if isinstance(noted, str) else None
