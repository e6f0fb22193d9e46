"""The interactive session: the actors, the screen, and the loop from prompt to answer.

Runs on asyncio (prompt_toolkit's loop); the actors are backend-neutral. A turn runs inside a
cancel scope that Esc and Ctrl-C cancel: the kernel carries that cancellation into the
conductor, the model client and the tool executor (docs/architecture.md), and the conductor
keeps the conversation valid with what was done so far.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
import os
import signal
from typing import TYPE_CHECKING

import anyio
import msgspec
from rich.console import Console
from rich.text import Text

from actors.errors import LegatoError, UsageError
from actors.models import DEFAULT_ALIAS, MODELS, resolve_model
from actors.protocol import (
    AddDirectory,
    ApproveHooks,
    AttachReferences,
    CheckCommand,
    ClearConversation,
    Compact,
    DescribeProvider,
    ExplainPermissions,
    GetContext,
    GetContextFill,
    ListAgents,
    ListBackground,
    ListBackgroundAgents,
    ListCommands,
    ListFiles,
    LoadSession,
    PrepareCommand,
    RunPrompt,
    SetEffort,
    SetFast,
    SetMode,
    SetModel,
    Show,
    SkillOutput,
    TakeSandboxWarning,
    TurnOutcome,
    Undo,
    Usage,
)
from actors.visible import escape_controls
from frontends.commands.permission_session import mode_note, session_text
from frontends.errors_out import report
from frontends.interactive import slash_commands
from frontends.interactive.completion import MAX_FILES, LegatoCompleter
from frontends.interactive.hooks import hooks_text
from frontends.interactive.hosting import Hosting
from frontends.interactive.mcp import mcp_command
from frontends.interactive.renderer import TerminalRenderer
from frontends.interactive.resumed import resumed_header, resumed_lines
from frontends.interactive.screen import EXIT, Screen
from frontends.interactive.status import CYCLE, Status
from frontends.interactive.status_command import StatusCommand
from frontends.interactive.tasks import status_lines, tasks_text
from frontends.interactive.theme import DARK, palette
from frontends.interactive.view import TurnView
from frontends.session import assemble
from frontends.skills.command_run import running
from frontends.skills.skill_report import report_text
from frontends.skills.slash_line import split_command
from frontends.startup.checks import BYPASS_WARNING
from frontends.startup.version import __version__
from runtime import ActorCrashed, KernelError, first_error, release_collector

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from actors.protocol import Block, CommandInfo, ProjectContext, SkillPrompt
    from frontends.session import Session
    from frontends.session_options import SessionOptions

PLAN_APPROVED = "The user approved the plan. Carry it out now, step by step."
# How often the background commands' status lines are brought up to date while any runs: their
# ages count in seconds.
BACKGROUND_TICK = 1.0


def history_file(home: str, project_root: str) -> str:
    """Per-project input history, kept across sessions, outside the project itself."""
    digest = hashlib.sha256(project_root.encode()).hexdigest()[:16]
    name = os.path.basename(project_root.rstrip(os.sep)) or "root"
    return os.path.join(home, ".local", "state", "legato", "history", f"{name}-{digest}")


class InteractiveSession:
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

    async def _resume(self, argument: str) -> None:
        """Switch to another saved session of the project: this one's actors end (it stays
        saved), the picked one's start as ``--resume`` starts them, and its last exchanges
        are shown under what is on the screen."""
        from frontends.interactive.resume_command import session_to_resume

        if self._typed_ahead:
            # Typed while the prompt ran, for the conversation the person saw then: not
            # switched away from under what that prompt just said.
            self.view.note(
                "error",
                "/resume: a prompt was running when it was typed, so it did not switch "
                "sessions\n  → Type /resume again now",
            )
            return
        if self.session.sessions is None:
            self.view.note("error", "/resume: this session is not saved, so it has none to list")
            return
        if self.screen.background:
            self.view.note(
                "error",
                "/resume: background commands or agents are running, and switching sessions "
                "would stop them\n  → Wait for them, or stop them with /tasks stop <id>, then "
                "/resume",
            )
            return
        try:
            picked = await session_to_resume(
                argument,
                self.session.sessions.address,
                self.session.id,
                say=lambda shown: self.view.say(Text(shown)),
                ask=self._pick,
            )
        except UsageError as error:
            self.view.note("error", error.describe())
            return
        if picked is None:
            self.view.say(Text("No session picked; this one goes on.", style="legato.muted"))
            return
        left = self.session.id
        # This session's actors end first (their queued work done, the session saved), so
        # that nothing of theirs is running or writing when the picked one's start.
        await self._hosting.stop()
        # When the picked one cannot start, the one left goes on as a resume of it would (a
        # session with nothing saved yet goes on as a new one).
        if not await self._start_session(picked) and not await self._start_session(left):
            await self._start_session(None)
        # The usage and cost go on from the session's saved ones, not the one left's.
        self.status.usage, self.status.cost, self.status.cost_known = Usage(), 0.0, True
        session = self.session
        context = await session.memory.address.ask(GetContext())
        self.status.model = context.model
        try:
            await session.permissions.address.ask(SetMode(mode=self.status.mode))
        except UsageError as error:  # a settings file changed since: the session's own mode
            self.view.note("warning", error.describe())
            self.status.mode = context.permission_mode
        await self._show_resumed()
        self._background_poke.set()

    async def _start_session(self, resumed: str | None) -> bool:
        """Start the saved session ``resumed`` (None: a new one) as the one on the screen;
        False, said, when it cannot start (a session file that cannot be read)."""
        options = msgspec.structs.replace(
            self.options, session_id=resumed, resume=resumed is not None, initial_prompt=None
        )
        self.session = assemble(options, renderer=self.renderer)
        try:
            await self._hosting.start(self.session)
        except (ActorCrashed, LegatoError) as error:
            cause = error.cause if isinstance(error, ActorCrashed) else error
            said = cause.describe() if isinstance(cause, LegatoError) else str(cause)
            self.view.note("error", f"/resume: session {resumed} could not be opened: {said}")
            return False
        return True

    async def _pick(self, choices: tuple[str, ...], label: str) -> str | None:
        """One of ``choices``, typed; None when Esc or Ctrl-C lets the question go."""
        self.screen.changed()
        with anyio.CancelScope() as scope:
            self.screen.busy = scope
            try:
                return await self.screen.ask(choices, label=label)
            finally:
                self.screen.busy = None
        return None

    async def _show_resumed(self) -> None:
        """The resumed conversation's last exchanges under the banner; its usage counted, so
        that /cost and the status line go on from it."""
        if self.session.sessions is None:
            return
        saved = await self.session.sessions.address.ask(LoadSession())
        if saved.model and self.model_flag is None:
            # The conductor goes on with the session's /model choice, as --model did not say.
            self.status.model = saved.model
        for counted in saved.spent:
            self.status.count(counted.usage, model=counted.model)
        self.status.context_tokens = (
            await self.session.conductor.address.ask(GetContextFill())
        ).tokens
        self.view.say(resumed_header(saved))
        for line in resumed_lines(saved.messages, root=self.root):
            self.view.say(line)
        self.screen.changed()

    async def _say_setup_problems(self, model: str) -> None:
        """Under the banner, what would fail the first prompt (no API key, no region): said
        now, with its remedy, rather than after the person has typed a prompt."""
        report = await self.session.model.address.ask(DescribeProvider(model=model))
        for problem in report.problems:
            self.view.note("error", f"{problem.what}\n  → {problem.remedy}")
        if report.problems:
            self.screen.changed()

    async def _run_app(self, done: anyio.Event) -> None:
        try:
            await self.screen.app.run_async(handle_sigint=False)
        finally:
            done.set()
            self.screen.request_exit()  # the app ended (exit, or a crash in it): so does the loop

    async def _list_files(self) -> None:
        # A /resume that ended the session before the listing came: none for completion.
        with contextlib.suppress(KernelError):
            self.files = await self.session.tools.address.ask(ListFiles(limit=MAX_FILES))
            found = await self._commands()
            self.skills = [(f"/{info.name}", info.description) for info in found]
        self.screen.offer_completions()
        # Start-up is over, the prompt up and its completions loaded: the cycle collector,
        # held since `main`, runs from here on whether or not a prompt comes (the screen's
        # redraws make garbage while the person reads or types).
        release_collector()

    async def _say_sandbox(self) -> None:
        # Under the banner, once the session's trial of the sandbox is made: asked in the
        # background so the prompt does not wait for it. A command that comes first says it
        # instead, and then the answer is None.
        # Not answered when /resume ends the session first: the picked one does not say it.
        warning = None
        with contextlib.suppress(KernelError):
            warning = await self.session.tools.address.ask(TakeSandboxWarning())
        if warning is not None:
            self.view.note("warning", warning)
            self.screen.changed()

    async def _watch_signals(self) -> None:
        # SIGTERM and SIGHUP end the session cleanly, so the terminal is restored. SIGINT (a
        # `kill -INT`, since Ctrl-C arrives as a key in raw mode) acts like Ctrl-C.
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
            async for received in signals:
                if received == signal.SIGINT and self.screen.busy is not None:
                    self.screen.busy.cancel()
                else:
                    self.screen.request_exit()

    async def _watch_background(self) -> None:
        """A status line for each running background command, under the answer: the executor
        is asked once a second while a prompt or a background command runs, else when a prompt
        or a command starts or ends (``_background_poke``)."""
        while True:
            try:
                commands = await self.session.tools.address.ask(ListBackground())
                agents = await self.session.conductor.address.ask(ListBackgroundAgents())
            except KernelError:
                # The executor is gone: /resume is switching sessions (at the end, this task
                # is cancelled before the actors stop). The next session's are asked.
                await self._hosting.up.wait()
                continue
            lines = status_lines(commands, agents)
            if lines != self.screen.background:
                self.screen.background = lines
                self.screen.changed()
            active = bool(lines) or self.screen.busy is not None
            with anyio.move_on_after(BACKGROUND_TICK if active else math.inf):
                await self._background_poke.wait()
            self._background_poke = anyio.Event()

    # ── permission mode ─────────────────────────────────────────────────────────────────────

    def _cycle_mode(self) -> None:
        self.status.mode = CYCLE[self.status.mode]
        self._mode_changed.set()
        self.screen.changed()

    def _paste_wanted_set(self) -> None:
        self._paste_wanted.set()

    async def _paste_images(self) -> None:
        """Ctrl+V: the clipboard's image becomes ``[Image #N]`` at the cursor."""
        from frontends.interactive import clipboard

        while True:
            await self._paste_wanted.wait()
            self._paste_wanted = anyio.Event()
            name = self._next_token("Image")
            try:
                prepared = await clipboard.read_image(name)
            except LegatoError as error:
                self.view.note("warning", error.describe())
            else:
                self.pasted[name] = prepared.block
                self.screen.buffer.insert_text(name)
                self.view.note("info", f"{name}: {prepared.describe()}")
            self.screen.changed()

    def _pasted_text(self, data: str) -> str:
        """A pasted path of an image or PDF that exists becomes ``[Image #N]`` (``[PDF #N]``),
        attached on submit as ``@path`` is; any other paste is itself."""
        from frontends.interactive.pasted import pasted_path, path_kind

        path = pasted_path(data, self.root)
        kind = None if path is None else path_kind(path)
        if path is None or kind is None:
            return data
        token = self._next_token(kind)
        self.pasted_files[token] = path
        return token

    def _next_token(self, kind: str) -> str:
        """``[Image #3]``: numbered across the session, clipboard and pasted paths alike."""
        count = sum(1 for t in (*self.pasted, *self.pasted_files) if t.startswith(f"[{kind} "))
        return f"[{kind} #{count + 1}]"

    def _pasted_in(self, text: str) -> tuple[Block, ...]:
        """The pasted images whose tokens ``text`` holds, in the order it names them."""
        found = sorted((text.find(name), name) for name in self.pasted if name in text)
        return tuple(self.pasted[name] for _, name in found)

    async def _sync_mode(self) -> None:
        """Tells the broker each mode the user picks with Shift+Tab, in order."""
        while True:
            await self._mode_changed.wait()
            self._mode_changed = anyio.Event()
            broker = self.session.permissions.address
            await broker.ask(SetMode(mode=self.status.mode))
            # Whether the answers given earlier still hold is said with the change, not left
            # to be found out when a question does not come.
            note = mode_note(await broker.ask(ExplainPermissions()))
            if note is not None:
                self.view.say(Text(note, style="legato.muted"))
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

    async def _commands(self) -> tuple[CommandInfo, ...]:
        return await self.session.skills.address.ask(ListCommands())

    def _fast_text(self, active: bool) -> str:
        if not self.status.fast:
            return "Fast mode off."
        if active:
            return f"Fast mode on: faster output on {self.status.alias}, priced at 6x."
        return (
            f"Fast mode on, but {self.status.alias} has no fast mode: it runs at standard "
            "speed.\n  → /model opus for faster output"
        )

    async def _prompt(
        self,
        text: str,
        *,
        plan: bool,
        named_by_user: bool = True,
        command: SkillPrompt | None = None,
        blocks: tuple[Block, ...] = (),  # pasted images, after what @path attaches
        typed: str | None = None,  # as the person typed it (a skill's command line); None: text
    ) -> None:
        typed = text if typed is None else typed  # what /rewind lists and gives back
        self.renderer.outcome_shown = anyio.Event()
        with anyio.CancelScope() as scope:
            self.screen.busy = scope
            self._background_poke.set()
            self.screen.changed()
            try:
                pasted = blocks
                files = tuple(path for token, path in self.pasted_files.items() if token in text)
                if "@" in text or files:  # @path: the executor attaches what the prompt names
                    attachment = await self.session.tools.address.ask(
                        AttachReferences(text=text, named_by_user=named_by_user, paths=files)
                    )
                    for note in attachment.notes:
                        self.view.note("warning", note)
                    text, blocks = attachment.prompt, (*attachment.blocks, *pasted)
                back = self.status.model
                async with running(command, self.session, text, model_after=back) as text:
                    outcome = await self.session.conductor.address.ask(
                        RunPrompt(text=text, plan=plan, blocks=blocks, typed=typed)
                    )
            finally:
                self.screen.busy = None
                self._background_poke.set()
        if scope.cancelled_caught:
            outcome = _interrupted(self.session.id)
        await self.session.ui.address.tell(Show(outcome))
        await self.renderer.outcome_shown.wait()
        if plan and outcome.subtype == "success" and self.status.mode == "plan":
            await self._confirm_plan()

    async def _yes(self, question: str) -> bool:
        """Ask ``question``; Esc or Ctrl-C is a no."""
        self.view.say(Text(question))
        self.screen.changed()
        answer = "n"
        with anyio.CancelScope() as scope:
            self.screen.busy = scope
            try:
                answer = await self.screen.ask(("y", "n"))
            finally:
                self.screen.busy = None
        return answer == "y"

    async def choose(self, choices: tuple[str, ...], *, label: str) -> str | None:
        """Wait for one of ``choices`` (a picker's digits), asked as ``label``; Esc or Ctrl-C:
        None."""
        answer = None
        with anyio.CancelScope() as scope:
            self.screen.busy = scope
            self.screen.changed()
            try:
                answer = await self.screen.ask(choices, label=label)
            finally:
                self.screen.busy = None
        return answer

    async def _confirm_plan(self) -> None:
        """A plan is executed after the user confirms it; the mode returns to Normal."""
        if not await self._yes("Execute this plan? Plan mode ends and changes need your approval."):
            self.view.say(Text("Plan kept; still in plan mode. Say what to change."))
            return
        self.status.mode = "ask"
        await self.session.permissions.address.ask(SetMode(mode="ask"))
        self.view.say(Text("Plan mode off; carrying out the plan.", style="legato.good"))
        await self._prompt(PLAN_APPROVED, plan=False)


def _interrupted(session_id: str) -> TurnOutcome:
    return TurnOutcome(
        result="",
        is_error=True,
        subtype="interrupted",
        num_turns=0,
        duration_ms=0,
        duration_api_ms=0,
        usage=Usage(),
        total_cost_usd=None,
        session_id=session_id,
    )


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
