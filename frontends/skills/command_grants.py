"""A command's ``allowed-tools``, granted to the broker for its prompt alone.

The reference lets a command (and a skill a person runs) name the tools its prompt may use
without asking; its ``!`` lines are what it names most. Here they are allow rules the broker
holds from just before the command's ``!`` lines run until its prompt's answer ends, after
every deny and ask rule as any allow rule is. The user's own files (``~/.claude/``) grant them;
a project's file only once the user trusts the project, as the project's settings' allow rules
(a cloned repository's command would otherwise allow itself what it likes).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import anyio

from actors.protocol import AllowForPrompt, GetContext

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from actors.protocol import SkillPrompt
    from frontends.session import Session


@contextlib.asynccontextmanager
async def command_grants(
    command: SkillPrompt | None, session: Session, note: Callable[[str], None]
) -> AsyncIterator[None]:
    """While the block runs, the broker allows what ``command``'s ``allowed-tools`` name;
    ``note`` is told when a project's are left out."""
    rules = () if command is None else command.allowed
    if rules and command is not None and command.from_project:
        context = await session.memory.address.ask(GetContext())
        if not context.trusted:
            names = ", ".join(rule.text for rule in rules)
            remedy = (
                "run 'legato trust' to apply the project's settings and its commands' allowed-tools"
                if context.trust_items
                else f"allow them yourself with legato permissions allow '{rules[0].text}'"
            )
            note(
                f"{command.path}: allowed-tools ({names}) not applied (project not trusted): "
                f"its tools are asked for as any call is; {remedy}"
            )
            rules = ()
    if not rules:
        yield
        return
    broker = session.permissions.address
    await broker.ask(AllowForPrompt(rules=rules))
    try:
        yield
    finally:
        # Shielded: an interrupted prompt must not leave its command's grants behind.
        with anyio.CancelScope(shield=True):
            await broker.ask(AllowForPrompt(rules=()))
