"""``/name args`` as a prompt of a running session that has no terminal: the Agent SDK's prompts
(``--input-format stream-json``), which the reference runs as its commands do.

A prompt that starts with a path (``/etc/hosts is missing``) goes to the model as it is, as in
the terminal; ``/name`` is prepared as ``legato --headless "/name args"`` prepares it (an
unknown name or a broken file is that prompt's error, naming what there is): the
command's prompt, its ``@path`` names attached (a project's as the model's reads are), and
the command, whose ``!`` lines, grants and model ``command_run.running`` puts in force while
the prompt runs; or the text Legato produces itself (``/help``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.errors import LegatoError
from actors.protocol import (
    AttachReferences,
    Notice,
    PrepareCommand,
    Show,
    SkillOutput,
)
from frontends.skills.slash_line import split_command

if TYPE_CHECKING:
    from actors.protocol import Block, SkillPrompt
    from frontends.session import Session


class Prepared(msgspec.Struct, frozen=True):
    """What a prompt runs: ``prompt`` for the model, or ``said`` (Legato's own answer, or why
    the command could not run, then ``failed``) with no model."""

    prompt: str | None = None
    said: str = ""
    failed: bool = False
    command: SkillPrompt | None = None  # the command the prompt is, to run as it runs
    blocks: tuple[Block, ...] = ()  # the images and PDFs its ``@path`` references name


async def prepare_prompt(session: Session, text: str) -> Prepared:
    """``text`` made ready: a command's prompt, or the text itself when it names none."""
    try:
        name, args = split_command(text)
    except LegatoError:
        return Prepared(prompt=text)
    if "/" in name:  # a path, as the terminal reads one: "/etc/hosts is missing"
        return Prepared(prompt=text)
    try:
        result = await session.skills.address.ask(
            PrepareCommand(name=name, args=tuple(args), in_session=True)
        )
    except LegatoError as error:
        return Prepared(said=error.describe(), failed=True)
    if isinstance(result, SkillOutput):
        return Prepared(said=result.text)
    ui = session.ui.address
    for note in result.notes:
        await ui.tell(Show(Notice("warning", note)))
    prompt = result.prompt
    blocks: tuple[Block, ...] = ()
    if "@" in prompt:
        attachment = await session.tools.address.ask(
            AttachReferences(text=prompt, named_by_user=not result.from_project)
        )
        for note in attachment.notes:
            await ui.tell(Show(Notice("warning", note)))
        prompt, blocks = attachment.prompt, attachment.blocks
    return Prepared(prompt=prompt, command=result, blocks=blocks)
