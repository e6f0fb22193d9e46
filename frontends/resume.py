"""``--continue`` and ``--resume``: which saved session a frontend goes on with (issue 7).

``--continue`` takes the project's latest session, ``--resume <id>`` the one named; bare
``--resume`` lists the sessions to pick from (a numbered choice in a terminal, the list and
the remedy headless, where nobody can choose).
"""

from __future__ import annotations

import datetime
import sys
from typing import IO, TYPE_CHECKING

from actors.errors import UsageError
from actors.session_store import SessionInfo, latest_session, list_sessions

if TYPE_CHECKING:
    from collections.abc import Callable

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
) -> str | None:
    """The session id to resume, None for a new session; UsageError when there is none."""
    if continue_latest and resume is not None:
        raise UsageError(
            "--continue and --resume cannot be used together",
            remedy="Use --continue for the latest session, or --resume <id> for another",
        )
    if continue_latest:
        return latest_session(project_root, home)
    if resume is None:
        return None
    if resume:
        return resume
    sessions = list_sessions(project_root, home)[:PICKER_SIZE]
    if not sessions:
        latest_session(project_root, home)  # raises the "nothing saved" error
    if not interactive:
        raise UsageError(
            "--resume needs a session id when there is no terminal to pick one in; saved "
            f"sessions, latest first:\n{listing(sessions)}",
            remedy='Run legato --resume <id> --headless "<prompt>", or --continue for the latest',
        )
    return pick(sessions, ask=ask, out=out or sys.stdout)


def listing(sessions: list[SessionInfo]) -> str:
    return "\n".join(
        f"  {number}. {info.id}  {_when(info.modified)}  {info.first_prompt or '(no prompt)'}"
        for number, info in enumerate(sessions, start=1)
    )


def pick(sessions: list[SessionInfo], *, ask: Callable[[str], str], out: IO[str]) -> str:
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
