"""A command's prompt as it runs: its ``allowed-tools`` granted, its ``!`` lines run, its
``model`` in force, for that prompt alone. The one place the terminal, ``legato -p`` and the
Agent SDK's prompts run a command (``running``).

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

from actors.protocol import AllowForPrompt, GetContext, Notice, SetModel, Show
from frontends.skills.shell_lines import run_shell_lines

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from actors.protocol import SkillPrompt
    from frontends.session import Session


@contextlib.asynccontextmanager
async def running(
    command: SkillPrompt | None, session: Session, text: str, *, model_after: str | None = None
) -> AsyncIterator[str]:
    """``text`` (the command's prompt, its ``@path`` names attached) with the output of its
    ``!`` lines in their places, while its grants and its model hold; the model goes back to
    ``model_after`` when the block ends (a session that goes on after the prompt)."""
    async with _grants(command, session):
        if command is not None and command.shell:
            tools, ui = session.tools.address, session.ui.address
            text = await run_shell_lines(command, text, tools, ui)
        model = None if command is None else command.model
        if model is not None:
            # The user's own command names its model: for its prompt only.
            await session.conductor.address.ask(SetModel(model=model))
        try:
            yield text
        finally:
            if model is not None and model_after is not None:
                with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                    await session.conductor.address.ask(SetModel(model=model_after))


@contextlib.asynccontextmanager
async def _grants(command: SkillPrompt | None, session: Session) -> AsyncIterator[None]:
    """While the block runs, the broker allows what ``command``'s ``allowed-tools`` name; a
    project's left out (untrusted) is a warning."""
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
            said = (
                f"{command.path}: allowed-tools ({names}) not applied (project not trusted): "
                f"its tools are asked for as any call is; {remedy}"
            )
            await session.ui.address.tell(Show(Notice("warning", said)))
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
