"""The session store: appends a session's events to its file and replays them on resume.

Events come from the conductor, which does not wait for them (``AppendEvents``), except for a
checkpoint of files, which must be on disk before the tools it protects start changing them
(``SaveEvents``, answered once written). Either way they are written in the order they came.
``autoSave: false`` in the global config turns writing off; resuming still reads. It also lists
the project's saved sessions (``ListSessions``) for ``--continue`` and the ``--resume`` picker.

A file that cannot be written (a full disk, a folder that is not one) does not end the
session: the store says once, through the UI, which file and why, and stops saving; the
session goes on, and only resuming it later is lost.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import os
from typing import TYPE_CHECKING

import anyio.to_thread

from actors.errors import UsageError
from actors.protocol import (
    AppendEvents,
    GetContext,
    ListSessions,
    LoadSession,
    Notice,
    SavedSession,
    SaveEvents,
    SessionStarted,
    SessionStoreMsg,
    Show,
    TranscriptMirrored,
)
from actors.session_store.files import (
    ENCODE_EVENT,
    import_events,
    list_sessions,
    read_events,
    session_path,
)
from actors.session_store.replay import replay
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from actors.protocol import MemoryStoreMsg, SessionEvent, SessionSummary, UiMsg
    from runtime import Address, Reply


class SessionStore(Actor[SessionStoreMsg]):
    name = "session_store"

    def __init__(
        self,
        memory: Address[MemoryStoreMsg],
        *,
        project_root: str,
        session_id: str,
        resume: bool = False,
        home: str | None = None,
        ui: Address[UiMsg] | None = None,  # told once if the file cannot be written
        # --session-mirror: where the driving program keeps the session (session_store/mirror.py);
        # each batch saved is shown to ``ui`` for it, and a resume not saved here is read there.
        mirror_path: str | None = None,
    ) -> None:
        super().__init__()
        self._memory = memory
        self._ui = ui
        self._project_root = project_root
        self.session_id = session_id
        self._resume = resume
        self._home = home if home is not None else os.path.expanduser("~")
        self.path = session_path(project_root, self._home, session_id)  # UsageError for a bad id
        self._saving = True
        self._fd: int | None = None
        self._saved = SavedSession(session_id=session_id)
        self._mirror_path = mirror_path

    async def on_start(self) -> None:
        context = await self._memory.ask(GetContext())
        self._saving = context.config.auto_save
        if self._resume:
            try:
                events = await anyio.to_thread.run_sync(self._read_or_import)
            except FileNotFoundError:
                raise UsageError(
                    f"there is no saved session '{self.session_id}' for {self._project_root}",
                    remedy="Run 'legato --resume' without an id to pick one, or --continue "
                    "for the latest",
                ) from None
            self._saved = replay(self.session_id, events)

    async def on_stop(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    async def handle(self, msg: SessionStoreMsg, reply: Reply) -> None:
        match msg:
            case AppendEvents(events=events):
                await self._save(events)
            case SaveEvents(events=events):
                await self._save(events)
                await reply.answer(msg, None)
            case LoadSession():
                await reply.answer(msg, self._saved)
            case ListSessions(limit=limit, prefix=prefix):
                await reply.answer(msg, await self._list(limit, prefix))

    async def _list(self, limit: int, prefix: str) -> tuple[SessionSummary, ...]:
        found = await anyio.to_thread.run_sync(
            list_sessions, self._project_root, self._home, prefix
        )
        if not found and prefix:
            raise UsageError(
                f"there is no saved session for {self._project_root} whose id starts with "
                f"'{prefix}'",
                remedy="Run 'legato --resume' without an id to pick one, or --continue "
                "for the latest",
            )
        if not found:
            raise UsageError(
                f"there is no saved session for {self._project_root} to continue",
                remedy="Start one with 'legato' or 'legato --headless \"<prompt>\"' (autoSave "
                "in ~/.config/legato/config.json must not be false)",
            )
        return tuple(found[:limit])

    async def _save(self, events: tuple[SessionEvent, ...]) -> None:
        if not self._saving or not events:
            return
        try:
            data = await self._append(events)
        except OSError as error:
            self._saving = False
            await self._warn(error)
            return
        if self._mirror_path is not None and self._ui is not None:
            with contextlib.suppress(KernelError):  # a UI already gone has nobody to tell
                await self._ui.tell(Show(TranscriptMirrored(self._mirror_path, data)))

    def _read_or_import(self) -> list[SessionEvent]:
        """The saved session's events; with a mirror, a session this machine has not saved is
        taken from the copy the driving program put where it keeps sessions."""
        try:
            return read_events(self.path)
        except FileNotFoundError:
            if self._mirror_path is None:
                raise
        saved_as = self.path if self._saving else None
        return import_events(self._mirror_path, saved_as, self._project_root)

    async def _warn(self, error: OSError) -> None:
        if isinstance(error, (FileExistsError, NotADirectoryError)):
            reason = "a file stands where a folder on its path should be"
        else:
            reason = error.strerror or str(error)
        text = (
            f"Could not save this session to {self.path}: {reason}. The session goes on, but "
            "from here it is not saved, so it cannot be resumed later. Make sure "
            f"{os.path.dirname(self.path)} is a folder you can write to, with free space (or "
            'set "autoSave": false in ~/.config/legato/config.json to stop saving sessions).'
        )
        if self._ui is not None:
            with contextlib.suppress(KernelError):  # a UI already gone has nobody to tell
                await self._ui.tell(Show(Notice("warning", text)))

    async def _append(self, events: tuple[SessionEvent, ...]) -> bytes:
        if self._fd is None:
            self._fd = await anyio.to_thread.run_sync(self._open)
            if not self._resume:
                started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
                events = (SessionStarted(self.session_id, self._project_root, started), *events)
        data = b"".join(ENCODE_EVENT.encode(event) + b"\n" for event in events)
        await anyio.to_thread.run_sync(functools.partial(_write_all, self._fd, data))
        return data

    def _open(self) -> int:
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        # O_APPEND: each write lands at the end, whole lines only (see files.py).
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        # A session killed mid-write left a torn last line: end it, so that the events
        # appended now start on a line of their own instead of being lost with it.
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            _write_all(fd, b"\n")
        return fd


def _write_all(fd: int, data: bytes) -> None:
    # No fsync: the events must outlive the process (a SIGKILL), which the kernel's page
    # cache already ensures; surviving a power cut is not worth a disk flush per event.
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
