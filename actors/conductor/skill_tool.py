"""The ``Skill`` tool: the model loads one of the skills it is shown, shaped as the reference's.

The tool's description lists each skill the model may load (name and description: what it
needs to choose); its input is ``skill`` (the name) and optionally ``args``. The skill library
renders the skill when it is called, and the body is the call's result. Loading a skill only
reads its file: whatever its steps then do is the model's own calls, each decided by the
permission broker as any other. A skill of the user's own (``~/.claude/skills/<name>/``) lies
outside the project: loading it lets the model read its folder for the rest of the session
(an allow rule naming that folder, handed to the broker), as the reference lets it.
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING, Any

from actors.errors import LegatoError
from actors.protocol import AllowForSession, LoadSkill, PermissionRule, ToolResult
from actors.tool_names import SKILL_TOOL
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.protocol import (
        Block,
        CommandInfo,
        PermissionBrokerMsg,
        SkillLibraryMsg,
        SkillPrompt,
        ToolCall,
    )
    from runtime import Address

_DESCRIPTION = (
    "Load a skill: the steps and knowledge for a task, written for this project or by the "
    "user. When a task matches a skill's description, load it first and follow it. Loading "
    "gives its text; run what it says with your other tools.\n\nAvailable skills:\n"
)
# The user's own skills' folder, under the home folder (the reference's place).
USER_SKILLS = ".claude/skills"
# The listing's share of every request: a description past this is cut.
_DESCRIPTION_CUT = 250
# And the descriptions' share of it all, as the reference's listing budget (1% of a 200K-token
# window, at about four characters a token): every name is listed, and with many skills (a
# repository can bring hundreds) each description is shortened to fit, so that they do not
# add tens of thousands of tokens to every request.
LISTING_BUDGET = 8_000


class SkillOffer:
    """The Skill tool of one session: its definition, and its calls answered."""

    def __init__(
        self,
        library: Address[SkillLibraryMsg],
        skills: tuple[CommandInfo, ...],
        *,
        broker: Address[PermissionBrokerMsg] | None = None,
        home: str = "",
    ):
        self._library = library
        self.skills = skills
        self._broker = broker
        self._home = home

    def definition(self) -> Block:
        cut = min(_DESCRIPTION_CUT, LISTING_BUDGET // max(len(self.skills), 1))
        listing = "\n".join(
            f"- {info.name}: {_visible(info.description)[:cut]}".rstrip(": ")
            for info in self.skills
        )
        return {
            "name": SKILL_TOOL,
            "description": _DESCRIPTION + listing,
            "input_schema": {
                "type": "object",
                "properties": {
                    "skill": {
                        "type": "string",
                        "description": "The skill's name, as listed",
                        "enum": [info.name for info in self.skills],
                    },
                    "args": {
                        "type": "string",
                        "description": "Arguments for the skill, as a person would type them "
                        "after /<name>",
                    },
                },
                "required": ["skill"],
            },
        }

    async def load(self, call: ToolCall) -> ToolResult:
        name: Any = call.input.get("skill")
        args: Any = call.input.get("args", "")
        if not isinstance(name, str) or not name.strip():
            return _error(call, 'Skill needs "skill": the name of one of the listed skills.')
        if not isinstance(args, str):
            return _error(call, '"args" must be a string, as typed after /<name>.')
        try:
            words = shlex.split(args)
        except ValueError:
            words = args.split()
        try:
            loaded = await self._library.ask(
                LoadSkill(name=name.strip().lstrip("/"), args=tuple(words))
            )
        except LegatoError as error:
            return _error(call, error.describe())
        await self._grant_folder(loaded)
        return ToolResult(tool_use_id=call.id, content=loaded.prompt)

    async def _grant_folder(self, loaded: SkillPrompt) -> None:
        """Reading the folder of the user's own skill, from now on."""
        rule = None if self._broker is None else folder_rule(loaded, self._home)
        if self._broker is not None and rule is not None:
            await self._broker.ask(AllowForSession(rules=(rule,)))


def folder_rule(loaded: SkillPrompt, home: str) -> PermissionRule | None:
    """The allow rule for reading a skill's folder when it is one of the user's own
    (``~/.claude/skills/<name>/SKILL.md``); None for any other."""
    if loaded.from_project:
        return None
    home = home or os.path.expanduser("~")
    folder = os.path.dirname(loaded.path)
    skills = os.path.join(home, USER_SKILLS)
    if os.path.dirname(folder) != skills or os.path.basename(loaded.path) != "SKILL.md":
        return None
    # Home-relative: the home folder's own name never stands in a pattern.
    text = f"Read(~/{USER_SKILLS}/{os.path.basename(folder)}/**)"
    return PermissionRule(behavior="allow", text=text, source=loaded.path, anchor=folder)


def summary(call: ToolCall) -> str:
    name: Any = call.input.get("skill", "")
    args: Any = call.input.get("args", "")
    return f"/{name} {args}".strip()[:120]


def _visible(text: str) -> str:
    # A repository's text, shown in the tool's description: its controls are shown, not obeyed.
    return escape_controls(text)


def _error(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(tool_use_id=call.id, content=text, is_error=True)
