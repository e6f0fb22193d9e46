"""Where sessions live and how their files are read: ``~/.legato/projects/<hash>/sessions``.

One file per session, ``<id>.jsonl``, one event a line. A line is written whole with one
``write`` on a file opened for appending, so a process killed at any moment leaves every
earlier line intact and at worst a last line cut short; reading skips a line that does not
decode, which is how a session killed with SIGKILL resumes up to its last complete event.
"""

from __future__ import annotations

import os
import re

import msgspec

from actors.errors import UsageError
from actors.places import sessions_dir
from actors.protocol import MessageAdded, SessionEvent, SessionSummary
from actors.session_store.mirror import confined
from actors.session_store.replay import replay

_DECODE_EVENT = msgspec.json.Decoder(SessionEvent)
ENCODE_EVENT = msgspec.json.Encoder()
# Session ids are uuid4 strings; anything else given to --resume is refused before it can
# name a path outside the sessions folder.
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def session_path(project_root: str, home: str, session_id: str) -> str:
    if not _SESSION_ID.fullmatch(session_id):
        raise UsageError(
            f"'{session_id}' is not a session id",
            remedy="Run 'legato --resume' without an id to pick a session, or --continue "
            "for the latest",
        )
    return os.path.join(sessions_dir(project_root, home), f"{session_id}.jsonl")


def read_events(path: str) -> list[SessionEvent]:
    """The complete events of a session file; a torn or unreadable line is skipped."""
    events: list[SessionEvent] = []
    with open(path, "rb") as file:
        for line in file:
            if not line.endswith(b"\n"):
                break  # the last write was cut short: everything before it stands
            try:
                events.append(_DECODE_EVENT.decode(line))
            except (msgspec.DecodeError, RecursionError):
                continue  # damaged by hand or by a disk error: keep what can be read
    return events


def import_events(source: str, path: str | None, project_root: str) -> list[SessionEvent]:
    """The events of the session file ``source`` (another machine's, as the driving program
    wrote it back from its store), saved as the new session file ``path`` (None: not saved,
    ``autoSave`` being off). Blocking.

    Only what decodes as Legato's events is taken, and written afresh rather than copied, so
    the file holds nothing a session of its own would not, and no file outside
    ``project_root`` to restore (``mirror.confined``). ``path`` must not exist yet: a session
    saved here is never overwritten."""
    events = confined(read_events(source), project_root)  # FileNotFoundError: not there either
    if not events:
        raise UsageError(
            f"{source} holds no Legato session events to resume",
            remedy="Resume from the session store a session that Legato saved (mirrored with "
            "--session-mirror), or start a new one",
        )
    if path is None:
        return events
    data = b"".join(ENCODE_EVENT.encode(event) + b"\n" for event in events)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        # O_EXCL: a file made meanwhile, or a symlink planted where the session goes, is left be.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as error:
        raise UsageError(
            f"cannot save the resumed session as {path}: {error.strerror or error}",
            remedy=f"Make sure {os.path.dirname(path)} is a folder you can write to, and that "
            "nothing stands at that path",
        ) from None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return events


def list_sessions(project_root: str, home: str, prefix: str = "") -> list[SessionSummary]:
    """The project's saved sessions whose id starts with ``prefix``, the most recently used
    first. Blocking: the store calls it from a worker thread."""
    folder = sessions_dir(project_root, home)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    found: list[SessionSummary] = []
    for name in names:
        if not name.endswith(".jsonl") or not name.startswith(prefix):
            continue
        path = os.path.join(folder, name)
        try:
            modified = os.stat(path).st_mtime
            events = read_events(path)
        except OSError:
            continue  # removed or unreadable meanwhile: not a session to offer
        summary = _summary(name.removesuffix(".jsonl"), path, modified, events)
        # A run stopped before its first message (killed at start, or a /model and a quit)
        # has nothing to go on with: neither --continue nor the picker offers it.
        if summary.messages:
            found.append(summary)
    found.sort(key=lambda info: info.modified, reverse=True)
    return found


def _summary(
    session_id: str, path: str, modified: float, events: list[SessionEvent]
) -> SessionSummary:
    saved = replay(session_id, events)
    first = ""
    for event in events:
        match event:
            case MessageAdded(message=message) if message.role == "user":
                first = " ".join(
                    b.get("text", "") for b in message.content if b.get("type") == "text"
                ).split("\n", 1)[0][:120]
                if first:
                    break
    return SessionSummary(
        id=session_id,
        path=path,
        modified=modified,
        started=saved.started,
        first_prompt=first,
        messages=saved.added,
        tokens=saved.tokens,
    )
