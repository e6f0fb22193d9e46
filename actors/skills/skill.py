"""The ``Skill`` record: one skill or command as read from its file, whichever format it was
written in (Legato's own ``<name>.md``, or the reference's commands and ``SKILL.md`` folders in
``reference.py``), with the argument hint and the one-line description both readers share.
"""

from __future__ import annotations

from typing import Literal

import msgspec

# Claude Code's field for the arguments a skill takes, shown by /help: "<file> [focus]".
HINT_FIELD = "argument-hint"
DEFAULT_HINT = "[args]"


class Skill(msgspec.Struct, frozen=True):
    name: str
    description: str
    body: str
    path: str
    bundled: bool
    hint: str = DEFAULT_HINT  # the arguments, as /help shows them
    body_line: int = 1  # the body's first line in the file, for messages
    level: Literal["project", "user", "bundled"] = "project"
    source: str = ""  # where it is read from, as /help shows it: ".claude/commands/x.md"
    folder: str = ""  # a SKILL.md's folder, whose files its steps may name
    zero_based: bool = False  # the reference's placeholders: $0 is the first argument
    allowed_tools: tuple[str, ...] = ()  # the reference's allowed-tools, as written
    allowed_line: int | None = None  # its line in the file, for the rules' messages
    model: str | None = None  # the reference's model field, as written
    user_invocable: bool = True  # a person may run it as /name
    model_invocable: bool = True  # the model may load it (the Skill tool)


def one_line(text: str) -> str:
    """A description written as a YAML block (``description: |``), on one line: it is shown
    in listings and opens the prompt."""
    return " ".join(text.split())
