"""``--continue`` and ``--resume``: which saved session a frontend goes on with.

``--continue`` takes the project's latest session, ``--resume <id>`` the one named (or the
one session whose id starts with it); bare ``--resume`` lists the sessions to pick from (a
numbered choice in a terminal, the list and the remedy headless, where nobody can choose).

The saved sessions are the session store's to list: before the session starts, the picker
starts just the memory store (the store reads ``autoSave`` from it) and a session store, asks
``ListSessions`` and stops them.
"""

from __future__ import annotations

import datetime
import functools
import re
import shutil
import sys
from typing import IO, TYPE_CHECKING

import anyio

from actors.errors import LegatoError, UsageError
from actors.protocol import ListSessions
from actors.visible import escape_controls
from frontends.session import memory_store, session_store
from frontends.session_options import SessionOptions
from runtime import ActorCrashed, supervise

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from actors.protocol import SessionSummary

PICKER_SIZE = 10
# How much of an id the lists show: enough to tell sessions apart, and to give --resume.
ID_SHOWN = 8
# A whole session id (a uuid4), taken without listing the sessions.
WHOLE_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


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
            return _whole_id(project_root, resume, home=home, backend=backend)
    limit = 1 if continue_latest else PICKER_SIZE
    sessions = saved_sessions(project_root, limit=limit, home=home, backend=backend)
    if continue_latest:
        return sessions[0].id
    if not interactive:
        raise UsageError(
            "--resume needs a session id when there is no terminal to pick one in; saved "
            f"sessions, latest first:\n{listing(sessions)}",
            remedy='Run legato --resume <id> --headless "<prompt>" (the start of an id will do), '
            "or --continue for the latest",
        )
    return pick(sessions, ask=ask, out=out or sys.stdout)


def _whole_id(project_root: str, given: str, *, home: str | None, backend: str) -> str:
    """The one saved session whose id starts with ``given``. A whole id is taken as it is,
    without listing: the session store says so if there is no such session."""
    if WHOLE_ID.fullmatch(given):
        return given
    matches = saved_sessions(project_root, limit=None, prefix=given, home=home, backend=backend)
    if any(info.id == given for info in matches):
        return given  # an id of another form, which others begin with
    if len(matches) > 1:
        raise UsageError(
            f"'{given}' begins the ids of {len(matches)} saved sessions, latest first:\n"
            f"{listing(matches, ids=max(len(info.id) for info in matches))}",
            remedy="Give --resume more of the id, enough to name one session",
        )
    return matches[0].id


def saved_sessions(
    project_root: str,
    *,
    limit: int | None,
    prefix: str = "",
    home: str | None = None,
    backend: str = "trio",
) -> tuple[SessionSummary, ...]:
    """The project's saved sessions, latest first, as the session store lists them (those
    whose id starts with ``prefix``; ``limit`` None: all); the store's UsageError when there
    is none, a LegatoError when the configuration is bad."""
    ask = ListSessions(limit=sys.maxsize if limit is None else limit, prefix=prefix)
    try:
        return anyio.run(
            functools.partial(_ask_the_store, project_root, ask, home=home), backend=backend
        )
    except ActorCrashed as crash:
        if isinstance(crash.cause, LegatoError):
            raise crash.cause from None
        raise


async def _ask_the_store(
    project_root: str, ask: ListSessions, *, home: str | None
) -> tuple[SessionSummary, ...]:
    options = SessionOptions(project_root=project_root, home=home)
    # The memory store's warnings are the session's to show, later: not remembered as shown.
    memory = memory_store(options, remember_notices=False)
    # A store with an id of its own that writes nothing: it is only asked to list.
    store = session_store(options, memory)
    async with supervise([memory, store]):
        return await store.address.ask(ask)


def listing(sessions: Sequence[SessionSummary], *, ids: int = ID_SHOWN, width: int = 0) -> str:
    """One aligned row per session: its number, the start of its id (``ids`` characters),
    when it was last used, its size and its first prompt; ``width``: the terminal's, which
    the prompt is cut to (0: not cut)."""
    rows = [
        (
            f"{number}.",
            info.id[:ids],
            _when(info.modified),
            f"{info.messages:,} {'message' if info.messages == 1 else 'messages'}",
            f"{info.tokens:,} tokens",
            # A prompt may be a pasted page or a script's text: one line, controls shown.
            escape_controls(info.first_prompt, newlines=True) or "(no prompt)",
        )
        for number, info in enumerate(sessions, start=1)
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(5)]
    lines = []
    for number, short_id, when, messages, tokens, prompt in rows:
        line = (
            f"  {number:>{widths[0]}} {short_id:<{widths[1]}}  {when}  "
            f"{messages:>{widths[3]}}  {tokens:>{widths[4]}}  "
        )
        room = width - len(line)
        if width and len(prompt) > room:
            prompt = prompt[: max(room - 1, 0)] + "…"
        lines.append(line + prompt)
    return "\n".join(lines)


def pick(
    sessions: Sequence[SessionSummary],
    *,
    ask: Callable[[str], str],
    out: IO[str],
    width: int | None = None,  # None: the terminal's
) -> str:
    """A numbered choice; Enter takes the latest."""
    if width is None:
        width = shutil.get_terminal_size().columns
    out.write(f"Saved sessions, latest first:\n{listing(sessions, width=width)}\n")
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
