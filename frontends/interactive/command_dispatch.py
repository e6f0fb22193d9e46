"""What a line typed at the prompt does when it is not a prompt for the model.

``!cmd`` and ``#text`` (``person_command``), the built-in slash commands (``/help``,
``/model``, ``/add-dir``... as ``slash_commands`` parses them), and a skill's or a custom
command's ``/name [args]``, whose prompt then runs like a typed one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from actors.errors import LegatoError, UsageError
from actors.models import MODELS, resolve_model
from actors.protocol import (
    AddDirectory,
    ApproveHooks,
    CheckCommand,
    ClearConversation,
    Compact,
    GetContext,
    GetContextFill,
    PrepareCommand,
    SetEffort,
    SetFast,
    SetModel,
    SkillOutput,
    Undo,
)
from actors.visible import escape_controls
from frontends.commands.permission_session import session_text
from frontends.interactive import slash_commands
from frontends.interactive.hooks import hooks_text
from frontends.interactive.mcp import mcp_command
from frontends.interactive.prompt_turn import PromptTurns
from frontends.interactive.session_switch import SessionSwitch
from frontends.interactive.tasks import tasks_text
from frontends.skills.skill_report import report_text
from frontends.skills.slash_line import split_command

if TYPE_CHECKING:
    from frontends.session import Session


class SlashCommands(PromptTurns, SessionSwitch):
    """The typed commands: part of ``InteractiveSession``, which sets the fields."""

    session: Session
    home: str
    person_commands: int

    async def _add_dir(self, argument: str) -> None:
        """Another folder the tools work in for the rest of the session: the broker decides
        whether it is new (and from then on judges paths there as in the project), then the
        system prompt names it."""
        from frontends.interactive.add_dir import folder_to_add

        try:
            path = folder_to_add(argument, self.root, self.home)
            await self.session.permissions.address.ask(AddDirectory(path=path))
        except UsageError as error:
            self.view.note("error", error.describe())
            return
        await self.session.conductor.address.ask(AddDirectory(path=path))
        self.view.say(
            Text(
                f"Added {escape_controls(path, newlines=True)} for this session: the tools read "
                "and edit there under the same rules as in the project. /permissions lists it."
            )
        )

    async def _person_line(self, text: str) -> bool:
        """``!cmd`` runs a command, ``#text`` saves to memory; whether ``text`` was either."""
        from frontends.interactive import person_command

        if (command := person_command.command_of(text)) is not None:
            await person_command.run_command(self, command)
        elif (memory := person_command.memory_of(text)) is not None:
            await person_command.remember(self, memory)
        else:
            return False
        return True

    async def _command(self, command: slash_commands.Command) -> None:
        if (extra := slash_commands.extra_words(command)) is not None:
            self.view.note("error", extra)
            return
        conductor = self.session.conductor.address
        match command.name:
            case "/help":
                self.view.say(slash_commands.Listing(slash_commands.help_text()))
                listing = PrepareCommand(name="help", in_session=True)
                library = await self.session.skills.address.ask(listing)
                if isinstance(library, SkillOutput):
                    self.view.say(slash_commands.Listing("\n" + library.text))
            case "/clear":
                await conductor.ask(ClearConversation())
                self.status.context_tokens = 0
                self.view.say(Text("Conversation cleared; the next prompt starts afresh."))
            case "/context":
                from frontends.interactive.context_view import context_view

                fill = await conductor.ask(GetContextFill())
                self.status.context_tokens = fill.tokens
                context = await self.session.memory.address.ask(GetContext())
                self.view.say(context_view(context, fill))
            case "/add-dir":
                await self._add_dir(command.argument)
            case "/resume":
                await self._resume(command.argument)
            case "/cost":
                fill = await conductor.ask(GetContextFill())
                self.status.context_tokens = fill.tokens
                report = f"{self.status.cost_report()}\n{self.status.usage_report()}"
                self.view.say(Text(report))
            case "/undo":
                self.view.say(Text(await conductor.ask(Undo())))
            case "/rewind":
                from frontends.interactive.rewind import rewind

                await rewind(command.argument, conductor, self.screen, self.view)
                self.status.context_tokens = (await conductor.ask(GetContextFill())).tokens
            case "/compact":
                self.view.say(Text(await conductor.ask(Compact())))
                self.status.context_tokens = (await conductor.ask(GetContextFill())).tokens
            case "/effort":
                try:
                    said = await conductor.ask(SetEffort(level=command.argument))
                except UsageError as error:
                    self.view.note("error", error.describe())
                    return
                self.view.say(Text(said))
            case "/fast":
                self.status.fast = not self.status.fast
                active = await conductor.ask(SetFast(fast=self.status.fast))
                self.view.say(Text(self._fast_text(active)))
            case "/permissions":
                try:
                    shown = await session_text(
                        command.argument, self.root, self.session.permissions.address
                    )
                except UsageError as error:
                    self.view.note("error", error.describe())
                    return
                self.view.say(Text(shown))
            case "/tasks":
                try:
                    shown = await tasks_text(
                        command.argument, self.session.tools.address, conductor
                    )
                except UsageError as error:
                    self.view.note("error", error.describe())
                    return
                self.view.say(Text(shown))
                self._background_poke.set()
            case "/mcp":
                try:
                    await mcp_command(
                        command.argument,
                        self.session.memory.address,
                        self.session.mcp.address,
                        lambda shown: self.view.say(Text(shown)),
                        lambda: self._yes("Approve and start these servers?"),
                    )
                except UsageError as error:
                    self.view.note("error", error.describe())
            case "/export":
                from frontends.interactive.export_command import export

                await export(self, command.argument)
            case "/hooks" if command.argument == "approve":
                if await self._yes("Run the project's hooks, as /hooks lists them, from now on?"):
                    await self.session.hooks.address.ask(ApproveHooks())
                    self.view.say(Text("Approved: the project's hooks run from now on."))
            case "/hooks" if command.argument:
                refused = UsageError(
                    f"/hooks takes no argument but 'approve', not {command.argument!r}",
                    remedy="Type /hooks to list them, /hooks approve to run the project's",
                )
                self.view.note("error", refused.describe())
            case "/hooks":
                self.view.say(Text(await hooks_text(self.session.memory.address)))
            case "/model" if command.argument:
                try:
                    model = resolve_model(command.argument)
                except UsageError as error:
                    self.view.note("error", error.describe())
                    return
                self.status.model = await conductor.ask(SetModel(model=model.id))
                self.view.say(Text(f"Model set to {self.status.alias} ({self.status.model})."))
            case "/model":
                aliases = ", ".join(m.alias for m in MODELS if m.alias)
                self.view.say(
                    Text(
                        f"Current model: {self.status.alias} ({self.status.model})\n"
                        f"  → /model <alias> switches ({aliases})"
                    )
                )

    async def _skill(self, text: str, unknown: slash_commands.Unknown) -> None:
        """``/<skill-or-pattern> [args]``: its prompt runs like a typed one."""
        try:
            name, args = split_command(text)
            if "--test" in args:
                # The same check as ``legato /<name> --test`` in a shell.
                report = await self.session.skills.address.ask(CheckCommand(name=name))
                self.view.say(Text(report_text(report)))
                return
            prepare = PrepareCommand(name=name, args=tuple(args), in_session=True)
            result = await self.session.skills.address.ask(prepare)
        except UsageError as error:
            # Neither a command nor a skill: a skill's did-you-mean first, else a command's.
            skill_hint = (error.remedy or "").startswith("Did you mean")
            shown = unknown.message() if unknown.suggestion and not skill_hint else error.describe()
            self.view.note("error", shown)
            return
        except LegatoError as error:
            self.view.note("error", error.describe())
            return
        if isinstance(result, SkillOutput):
            self.view.say(Text(result.text))
        else:
            for note in result.notes:
                self.view.note("warning", note)
            await self._prompt(
                result.prompt,
                plan=self.status.mode == "plan",
                named_by_user=not result.from_project,
                command=result,
                typed=text,
            )

    def _fast_text(self, active: bool) -> str:
        if not self.status.fast:
            return "Fast mode off."
        if active:
            return f"Fast mode on: faster output on {self.status.alias}, priced at 6x."
        return (
            f"Fast mode on, but {self.status.alias} has no fast mode: it runs at standard "
            "speed.\n  → /model opus for faster output"
        )
