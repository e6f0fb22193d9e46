"""The interactive session: the actors, the screen, and the loop from prompt to answer.

Runs on asyncio (prompt_toolkit's loop); the actors are backend-neutral. A turn runs inside a
cancel scope that Esc and Ctrl-C cancel: the kernel carries that cancellation into the
conductor, the model client and the tool executor (docs/architecture.md), and the conductor
keeps the conversation valid with what was done so far.

``InteractiveSession`` is put together from the parts it runs: the typed commands
(``command_dispatch``, with ``prompt_turn``, ``session_switch`` and ``questions`` under it), the
tasks beside the loop (``watchers``) and the pasted tokens (``pastes``). This module builds the
session, shows its banner and runs the loop that reads the input.
"""

from __future__ import annotations

import hashlib
import io
import os
from typing import TYPE_CHECKING

import anyio
from rich.console import Console
from rich.text import Text

from actors.errors import LegatoError
from actors.models import DEFAULT_ALIAS, resolve_model
from actors.protocol import (
    DescribeProvider,
    GetContext,
    ListAgents,
)
from frontends.errors_out import report
from frontends.interactive import slash_commands
from frontends.interactive.command_dispatch import SlashCommands
from frontends.interactive.completion import LegatoCompleter
from frontends.interactive.hosting import Hosting
from frontends.interactive.pastes import Pastes
from frontends.interactive.renderer import TerminalRenderer
from frontends.interactive.screen import EXIT, Screen
from frontends.interactive.status import Status
from frontends.interactive.status_command import StatusCommand
from frontends.interactive.theme import DARK, palette
from frontends.interactive.view import TurnView
from frontends.interactive.watchers import Watchers
from frontends.session import assemble
from frontends.startup.checks import BYPASS_WARNING
from frontends.startup.version import __version__
from runtime import ActorCrashed, KernelError, first_error

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from actors.protocol import Block, ProjectContext
    from frontends.session import Session
    from frontends.session_options import SessionOptions


def history_file(home: str, project_root: str) -> str:
    """Per-project input history, kept across sessions, outside the project itself."""
    digest = hashlib.sha256(project_root.encode()).hexdigest()[:16]
    name = os.path.basename(project_root.rstrip(os.sep)) or "root"
    return os.path.join(home, ".local", "state", "legato", "history", f"{name}-{digest}")


class InteractiveSession(SlashCommands, Watchers, Pastes):
    """One session on the terminal, from its banner to /quit."""

    def __init__(
        self,
        options: SessionOptions,
        *,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        project_root = self.root = options.project_root
        self.home = options.home or os.path.expanduser("~")
        self.resumed = options.resume
        self.model_flag = options.model
        self.initial_prompt = options.initial_prompt
        self.draft = options.draft
        self.files: tuple[str, ...] = ()  # for @path completion, filled in the background
        self.skills: list[tuple[str, str]] = []
        self.console = Console(
            file=io.StringIO(), force_terminal=True, color_system="truecolor", width=80
        )
        self.printer = Console(
            file=io.StringIO(), force_terminal=True, color_system="truecolor", width=80
        )
        for console in (self.console, self.printer):
            console.push_theme(DARK.rich_theme())
        self.view = TurnView(self.console, DARK, printer=self.printer)
        self.status = Status(
            resolve_model(options.model or DEFAULT_ALIAS).id, options.permission_mode or "ask"
        )
        try:
            path = history_file(self.home, project_root)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            history: FileHistory | InMemoryHistory = FileHistory(path)
        except OSError:
            history = InMemoryHistory()  # a read-only home: history for this session only
        self._mode_changed = anyio.Event()
        self._paste_wanted = anyio.Event()
        # Images pasted from the clipboard, by the token that stands for each in the input:
        # a prompt takes those whose token it still holds (deleting the token drops the image).
        self.pasted: dict[str, Block] = {}
        self.pasted_files: dict[str, str] = {}  # token: the absolute path of a pasted file
        self._background_poke = anyio.Event()
        self.person_commands = 0  # ``!cmd`` lines run, for their calls' ids
        self.screen = Screen(
            self.view,
            self.status,
            DARK,
            history=history,
            completer=LegatoCompleter(lambda: self.files, lambda: self.skills),
            on_cycle_mode=self._cycle_mode,
            on_paste_image=self._paste_wanted_set,
            on_paste=self._pasted_text,
            input=input,
            output=output,
        )
        self.renderer = TerminalRenderer(self.view, self.status, self.screen)
        self.options = options
        self.session: Session = assemble(options, renderer=self.renderer)
        self._typed_ahead = False  # whether the input in hand was typed while a prompt ran

    async def run(self) -> int:
        async with anyio.create_task_group() as tasks:
            self._hosting = Hosting(tasks)
            await self._hosting.start(self.session)
            try:
                code = await self._run_screen()
            finally:
                self._hosting.end()
        return code

    async def _run_screen(self) -> int:
        context = await self.session.memory.address.ask(GetContext())
        self._apply(context)
        if faults := (await self.session.skills.address.ask(ListAgents())).describe_faults():
            self.view.note("warning", faults)  # under the banner, with the settings'
        # The banner goes out before the prompt is first drawn: written while the prompt
        # shows, it would leave a copy of the prompt and status line above it.
        await self.screen.paint()
        await self._say_setup_problems(context.model)
        if self.resumed:
            await self._show_resumed()
        if self.initial_prompt is not None:
            # `legato "explain this project"`: the first prompt, as if typed.
            self.screen.inputs_send.send_nowait(self.initial_prompt)
        elif self.draft is not None:
            from prompt_toolkit.document import Document

            self.screen.buffer.document = Document(self.draft, len(self.draft))
        async with anyio.create_task_group() as tasks:
            app_done = anyio.Event()
            tasks.start_soon(self._run_app, app_done)
            tasks.start_soon(self.screen.paint_forever)
            tasks.start_soon(self._list_files)
            tasks.start_soon(self._say_sandbox)
            tasks.start_soon(self._sync_mode)
            tasks.start_soon(self._paste_images)
            tasks.start_soon(self._watch_signals)
            tasks.start_soon(self._watch_background)
            if context.status_line is not None:
                command = self._status_command(context)
                self.screen.watchers.append(command.poke)
                tasks.start_soon(command.run_forever)
            try:
                await self._loop()
            finally:
                if self.screen.app.is_running:
                    self.screen.app.exit()
                with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                    await self.screen.paint()
                    await app_done.wait()
                tasks.cancel_scope.cancel()
                self.screen.close()
        return 0

    def _apply(self, context: ProjectContext) -> None:
        colours = palette(context.config.theme)
        for console in (self.console, self.printer):
            console.push_theme(colours.rich_theme())
        self.view.palette = colours
        self.view.root = context.project_root
        self.screen.app.style = colours.prompt_style()
        self.status.model = context.model
        self.status.mode = context.permission_mode
        self.view.say(
            Text.assemble(
                ("✻ Legato ", "legato.accent"),
                (f"{__version__}  ", "legato.muted"),
                (context.project_root, "bold"),
            )
        )
        self.view.say(
            Text(
                "  /help for commands · Shift+Tab cycles modes · Esc stops an answer, not "
                "background tasks",
                style="legato.muted",
            )
        )
        if context.permission_mode == "bypass":
            # Whatever chose it (--dangerously-skip-permissions, a trusted settings file): a
            # person must know that what the rules do not block runs without a question.
            self.view.note("warning", BYPASS_WARNING)
        for warning in context.warnings:
            self.view.note("warning", warning)
        if waiting := [server.name for server in context.mcp_servers if not server.approved]:
            self.view.note(
                "warning",
                f"MCP servers of .mcp.json not approved, so not started: {', '.join(waiting)}. "
                "/mcp shows what they run; /mcp approve <name> starts one.",
            )
        if waiting_hooks := [group for group in context.hooks if not group.approved]:
            self.view.note(
                "warning",
                f"The project's hooks ({waiting_hooks[0].source}) are not approved, so they do "
                "not run. /hooks shows their commands; /hooks approve runs them from now on.",
            )
        self.screen.changed()

    def _status_command(self, context: ProjectContext) -> StatusCommand:
        assert context.status_line is not None
        return StatusCommand(
            context.status_line,
            lambda: self.session.hooks.address,
            self.status,
            project_root=context.project_root,
            added=context.add_dirs,
            version=__version__,
            columns=lambda: self.screen.app.output.get_size().columns,
            note=lambda text: self.view.note("warning", text),
            changed=self.screen.changed,
        )

    async def _say_setup_problems(self, model: str) -> None:
        """Under the banner, what would fail the first prompt (no API key, no region): said
        now, with its remedy, rather than after the person has typed a prompt."""
        report = await self.session.model.address.ask(DescribeProvider(model=model))
        for problem in report.problems:
            self.view.note("error", f"{problem.what}\n  → {problem.remedy}")
        if report.problems:
            self.screen.changed()

    # ── the loop ────────────────────────────────────────────────────────────────────────────

    async def _loop(self) -> None:
        async for item in self.screen.inputs:
            if item is EXIT or self.screen.leaving:
                return
            text = str(item)
            self._typed_ahead = text in self.screen.queued  # while a prompt ran
            if self._typed_ahead:
                self.screen.queued.remove(text)
            self.view.say(Text(f"› {text}", style="legato.accent"))
            if await self._person_line(text):
                self.screen.changed()
                continue
            parsed = slash_commands.parse(text)
            if isinstance(parsed, slash_commands.Unknown):
                await self._skill(text, parsed)
            elif isinstance(parsed, slash_commands.Command):
                if parsed.name == "/quit":
                    return
                await self._command(parsed)
            else:
                blocks = self._pasted_in(text)
                await self._prompt(text, plan=self.status.mode == "plan", blocks=blocks)
            self.screen.changed()


async def run_session(
    options: SessionOptions, *, input: Input | None = None, output: Output | None = None
) -> int:
    """One interactive session, with failures turned into a message and an exit code."""
    try:
        session = InteractiveSession(options, input=input, output=output)
        return await session.run()
    except BaseExceptionGroup as group:
        error = first_error(group)
        if isinstance(error, BaseExceptionGroup):
            raise
        return _fail(error)
    except (LegatoError, KernelError) as error:
        return _fail(error)


def _fail(error: BaseException) -> int:
    return report(error.cause if isinstance(error, ActorCrashed) else error)
