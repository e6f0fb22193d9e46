"""``--continue`` and ``--resume``: which saved session a frontend goes on with.

``--continue`` takes the project's latest session, ``--resume <id>`` the one named; bare
``--resume`` lists the sessions to pick from (a numbered choice in a terminal, the list and
the remedy headless, where nobody can choose).

The saved sessions are the session store's to list: before the session starts, the picker
starts just the memory store (the store reads ``autoSave`` from it) and a session store, asks
``ListSessions`` and stops them.
"""

from __future__ import annotations

import datetime
import functools
import sys
import uuid
from typing import IO, TYPE_CHECKING

import anyio

from actors.errors import LegatoError, UsageError
from actors.memory_store import MemoryStore
from actors.protocol import ListSessions
from actors.session_store import SessionStore
from runtime import ActorCrashed, supervise

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from actors.protocol import SessionSummary

PICKER_SIZE = 10


def chosen_session(
    *,
    project_root: str,
    continue_latest: bool,
    resume: str | None,
    interactive: bool,
    home: str | None = None,
    ask: Callable[[str], str] = input,
    out: IO[str] | None = None,
    backend: str = "trio",  # the event loop the session that follows runs on
) -> str | None:
    """The session id to resume, None for a new session; UsageError when there is none."""
    if continue_latest and resume is not None:
        raise UsageError(
            "--continue and --resume cannot be used together",
            remedy="Use --continue for the latest session, or --resume <id> for another",
        )
    if not continue_latest:
        if resume is None:
            return None
        if resume:
            return resume
    limit = 1 if continue_latest else PICKER_SIZE
    sessions = saved_sessions(project_root, limit=limit, home=home, backend=backend)
    if continue_latest:
        return sessions[0].id
    if not interactive:
        raise UsageError(
            "--resume needs a session id when there is no terminal to pick one in; saved "
            f"sessions, latest first:\n{listing(sessions)}",
            remedy='Run legato --resume <id> --headless "<prompt>", or --continue for the latest',
        )
    return pick(sessions, ask=ask, out=out or sys.stdout)


def saved_sessions(
    project_root: str, *, limit: int, home: str | None = None, backend: str = "trio"
) -> tuple[SessionSummary, ...]:
    """The project's saved sessions, latest first, as the session store lists them; the
    store's UsageError when there is none, a LegatoError when the configuration is bad."""
    try:
        return anyio.run(
            functools.partial(_ask_the_store, project_root, limit=limit, home=home),
            backend=backend,
        )
    except ActorCrashed as crash:
        if isinstance(crash.cause, LegatoError):
            raise crash.cause from None
        raise


async def _ask_the_store(
    project_root: str, *, limit: int, home: str | None
) -> tuple[SessionSummary, ...]:
    # The memory store's warnings are the session's to show, later: not remembered as shown.
    memory = MemoryStore(project_root, home=home, remember_notices=False)
    # A store with an id of its own that writes nothing: it is only asked to list.
    store = SessionStore(
        memory.address, project_root=project_root, session_id=str(uuid.uuid4()), home=home
    )
    async with supervise([memory, store]):
        return await store.address.ask(ListSessions(limit=limit))


def listing(sessions: Sequence[SessionSummary]) -> str:
    return "\n".join(
        f"  {number}. {info.id}  {_when(info.modified)}  {info.first_prompt or '(no prompt)'}"
        for number, info in enumerate(sessions, start=1)
    )


def pick(sessions: Sequence[SessionSummary], *, ask: Callable[[str], str], out: IO[str]) -> str:
    """A numbered choice; Enter takes the latest."""
    out.write(f"Saved sessions, latest first:\n{listing(sessions)}\n")
    out.flush()
    while True:
        try:
            answer = ask(f"Resume which session? [1-{len(sessions)}, Enter = 1] ").strip()
        except EOFError:
            raise UsageError(
                "no session was picked", remedy="Run legato --resume <id>, or --continue"
            ) from None
        if not answer:
            return sessions[0].id
        if answer.isdigit() and 1 <= int(answer) <= len(sessions):
            return sessions[int(answer) - 1].id
        matches = [s.id for s in sessions if s.id.startswith(answer)]
        if len(matches) == 1:
            return matches[0]
        out.write(f"'{answer}' is not one of the numbers 1-{len(sessions)} or a listed id\n")


def _when(timestamp: float) -> str:
    moment = datetime.datetime.fromtimestamp(timestamp).astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")
