"""``/resume`` inside a session: which saved session of the project to switch to.

The same listing as ``legato --resume`` (frontends/startup/resume.py: ``listing``, latest
first, ``PICKER_SIZE`` of them), asked of the running session's store, without the session
that is running; the person picks by number, by the start of an id, or Enter for the latest.
``/resume <id or prefix>`` picks without the list.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypeAlias

from actors.errors import UsageError
from actors.protocol import ListSessions
from actors.visible import escape_controls
from frontends.startup.resume import ID_SHOWN, PICKER_SIZE, listing

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from actors.protocol import SessionStoreMsg
    from runtime import Address

# Asks the person: the choices, and the words before them; answers one of the choices, or
# None when the person let the question go (Esc, Ctrl-C).
Ask: TypeAlias = "Callable[[tuple[str, ...], str], Awaitable[str | None]]"


async def session_to_resume(
    argument: str,
    store: Address[SessionStoreMsg],
    current: str,
    *,
    say: Callable[[str], None],
    ask: Ask,
) -> str | None:
    """The id of the saved session to switch to; None when the person picked none (Esc).
    UsageError when there is none to switch to, or ``argument`` names none or several."""
    given = argument.strip()
    if given:
        return await _named(given, store, current)
    try:
        found = await store.ask(ListSessions(limit=PICKER_SIZE + 1))
    except UsageError:
        found = ()  # none saved yet, this one included: said below as a session sees it
    sessions = [info for info in found if info.id != current][:PICKER_SIZE]
    if not sessions:
        raise UsageError(
            "/resume: this project has no other saved session",
            remedy="Go on with this one; /clear starts afresh",
        )
    say(f"Saved sessions, latest first:\n{listing(sessions, width=80)}")
    numbers = tuple(str(number) for number in range(1, len(sessions) + 1))
    ids = tuple(info.id[:ID_SHOWN] for info in sessions)
    label = f"Resume which session? [1-{len(sessions)}, Enter = 1, Esc: none]"
    answer = await ask(("", *numbers, *ids), label)
    if answer is None:
        return None
    if answer in ids:
        return sessions[ids.index(answer)].id
    return sessions[int(answer or "1") - 1].id


async def _named(given: str, store: Address[SessionStoreMsg], current: str) -> str:
    shown = escape_controls(given, newlines=True)
    try:
        found = await store.ask(ListSessions(limit=sys.maxsize, prefix=given))
    except UsageError:
        found = ()
    exact = [info for info in found if info.id == given]
    # The running session is not one to switch to: named alone, it is said so.
    others = [info for info in exact or found if info.id != current]
    if not others:
        if any(info.id == current for info in found):
            raise UsageError(
                f"/resume {shown}: that is this session", remedy="Type /resume to pick another"
            )
        raise UsageError(
            f"/resume {shown}: no saved session of this project has an id that starts so",
            remedy="Type /resume to pick one from the list",
        )
    if len(others) > 1:
        ids = max(len(info.id) for info in others)
        raise UsageError(
            f"/resume {shown}: it begins the ids of {len(others)} saved sessions, latest "
            f"first:\n{listing(others, ids=ids, width=80)}",
            remedy="Give more of the id, enough to name one session",
        )
    return others[0].id
