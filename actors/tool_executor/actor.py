"""The tool executor actor: lists the tools, runs the model's calls to them, and is the one
door to project files for everything else that reads or writes them: ``@path`` attachments,
``/undo``'s checkpoints, and the files ``@path`` completion offers."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import anyio
import msgspec

from actors.errors import ToolFailure
from actors.protocol import (
    MCP_CALL,
    AttachReferences,
    CaptureCheckpoint,
    CaptureFiles,
    DescribeSandbox,
    FilterReadable,
    FindBlocked,
    GetContext,
    InterruptTools,
    ListBackground,
    ListFiles,
    ListTools,
    Notice,
    RestoreCheckpoint,
    RunPersonCommand,
    RunTools,
    SettleCheckpoint,
    Show,
    StopBackground,
    TakeBackgroundNews,
    TakeSandboxWarning,
    ToolCall,
    ToolExecutorMsg,
    ToolSet,
    WithdrawTools,
)
from actors.run_files import files_that_run
from actors.settings.rule_check import denies_paths
from actors.tool_executor.background import DEFAULT_BUFFER, Jobs
from actors.tool_executor.command_env import command_environment
from actors.tool_executor.files import FilesRead
from actors.tool_executor.hooks import ToolHooks
from actors.tool_executor.sandbox import Sandbox
from actors.tool_executor.sandbox.locate import configured_bwrap
from actors.tool_executor.scheduler import Scheduler
from actors.tool_executor.tools import TOOLS
from actors.tool_executor.web.pages import WebPages  # light: httpx loads with a fetch
from runtime import Actor

# The walk, ``@path`` references and checkpoints are imported where they are used: none of them
# is on the way to the first request (``ListTools``).

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from actors.protocol import (
        Changes,
        CommandId,
        FileBefore,
        HookRunnerMsg,
        McpClientMsg,
        MemoryStoreMsg,
        ModelClientMsg,
        PermissionBrokerMsg,
        SandboxSettings,
        UiMsg,
    )
    from actors.tool_executor.context import Confining
    from actors.tool_executor.process import Confinement
    from actors.tool_executor.snapshots import Store
    from runtime import Address, Reply


# How many calls run at once when the user has not said (--max-parallel N sets both to N).
# A model asks for a dozen or so calls in one answer at most: 16 commands run together, so a
# turn of 16 one-second commands takes one second, not two. File tools are cheap (a read or a
# write in a worker thread) and must not wait behind long commands, so they have room beyond
# the commands' share; the session's limit still bounds the whole.
DEFAULT_MAX_PARALLEL = 32
DEFAULT_MAX_COMMANDS = 16


class ToolExecutor(Actor[ToolExecutorMsg]):
    """Runs tool calls for one session; it owns what the session has read (for Edit's and
    Write's staleness check)."""

    name = "tool_executor"
    concurrent = True  # a long Bash call must not hold up ListTools or the next batch

    @staticmethod
    def search_binary() -> str | None:
        """The rg that Grep, Glob and ``@path`` completion run, or None: they then use the
        Python walk and matcher. (ripgrep's driver loads with the first search.)"""
        from actors.tool_executor.ripgrep import locate

        return locate()

    def __init__(
        self,
        permissions: Address[PermissionBrokerMsg],
        *,
        project_root: str,
        max_concurrency: int | None = None,  # None: the defaults below, by kind of call
        output_cap: int = 30_000,
        ui: Address[UiMsg] | None = None,  # where calls' progress goes; None: on the stream
        # The session's settings (the sandbox) and the configured apiKey, kept from commands;
        # None: commands run unconfined, without the credential variables.
        memory: Address[MemoryStoreMsg] | None = None,
        bwrap: str | None = None,  # the bwrap to run; None: ASSISTANT_BWRAP's, the wheel's, PATH's
        env: Mapping[str, str] | None = None,  # what commands start from; None: os.environ
        background_buffer: int = DEFAULT_BUFFER,  # bytes of a background command's output in
        # memory, and the most one TaskOutput returns; past it the output spills to a file
        mcp: Address[McpClientMsg] | None = None,  # runs the mcp__ tools; None: there are none
        hooks: Address[HookRunnerMsg] | None = None,  # runs PreToolUse/PostToolUse hooks
        # Answers WebFetch's prompts with the fast model; None: WebFetch gives the page's text.
        model: Address[ModelClientMsg] | None = None,
    ) -> None:
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        if output_cap < 100:
            raise ValueError(f"output_cap must be at least 100 characters, got {output_cap}")
        super().__init__()
        self._permissions = permissions
        self._root = os.path.abspath(project_root)
        self._ui = ui
        self._memory = memory
        self._env: Mapping[str, str] = os.environ if env is None else env
        self._bwrap = bwrap if bwrap is not None else configured_bwrap(self._env)
        self._sandbox = self._make_sandbox(None, home="", blocked_rules=False)
        self._scheduler = Scheduler(
            TOOLS,
            permissions=permissions,
            project_root=self._root,
            files_read=FilesRead(),
            max_concurrency=max_concurrency or DEFAULT_MAX_PARALLEL,
            max_commands=max_concurrency or DEFAULT_MAX_COMMANDS,
            output_cap=output_cap,
            ui=ui,
            confine=self._confine,
        )
        self._scheduler.confining = self._confining
        self._scheduler.command_env = command_environment(self._env)
        self._background = Jobs(buffer=background_buffer)
        self._scheduler.background = self._background
        self._scheduler.mcp = mcp
        self._web = WebPages(self._env)
        self._scheduler.web = self._web
        self._hooks = hooks
        self._model = model
        self._captures = 0  # CaptureCheckpoint requests so far: orders their contents
        self._snapshots: Store | None = None  # the copies commands' checkpoints start from

    async def on_start(self) -> None:
        await self.tasks.start(self._background.serve)
        if self._memory is not None:
            context = await self._memory.ask(GetContext())
            sandbox = context.settings.sandbox
            # The settings' ``env`` on top of the user's (never one of Legato's own variables:
            # the memory store leaves those out), still without Legato's credentials.
            self._scheduler.command_env = command_environment(
                {**self._env, **context.env},
                secrets=[context.config.api_key],
                passed=() if sandbox is None else sandbox.pass_env,
            )
            home = context.home or _home()
            runs = await anyio.to_thread.run_sync(
                lambda: files_that_run(
                    os.path.realpath(self._root),
                    home,
                    context.hooks,
                    context.mcp_servers,
                    context.status_line.command if context.status_line else None,
                )
            )
            self._sandbox = self._make_sandbox(
                context.settings.sandbox,
                home=home,
                blocked_rules=bool(context.settings.blocked_paths)
                or denies_paths(context.permission_rules),
                runs=runs,
                mcp_sealed=context.config.enable_all_project_mcp_servers,
            )
            self.tasks.start_soon(self._sandbox.warm)
            self._background.limit = context.settings.max_background_commands
            if self._model is not None:
                from actors.tool_executor.web.summary import FastModel

                fast = FastModel(
                    self._model, main_model=context.model, env=self._env, take=self._web.take
                )
                self._web.summarise = fast.answer
            if context.offered_tools is not None or context.refused_tools:
                self._scheduler.offer_only(context.offered_tools, context.refused_tools)
            events = frozenset(group.event for group in context.hooks)
            if self._hooks is not None and events & {"PreToolUse", "PostToolUse"}:
                # Only then: a session without tool hooks sends the runner nothing per call.
                self._scheduler.hooks = ToolHooks(self._hooks, events, self._warn)

    def close_inbox(self) -> None:
        # The session is ending: background commands are the one work of the executor that
        # would not end by itself, and the actor ends only when all its tasks have.
        super().close_inbox()
        self._background.close()

    async def on_stop(self) -> None:
        self._background.close()  # also when the actor ends without its inbox closed (a crash)
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            await self._sandbox.close()
            await anyio.to_thread.run_sync(self._background.remove_files)

    def _make_sandbox(
        self,
        settings: SandboxSettings | None,
        *,
        home: str,
        blocked_rules: bool,
        runs: Iterable[str] = (),
        mcp_sealed: bool = False,
    ) -> Sandbox:
        return Sandbox(
            settings,
            project=self._root,
            home=home,
            ask_blocked=self._find_blocked,
            blocked_rules=blocked_rules,
            warn=self._warn,
            bwrap=self._bwrap,
            env=self._env,
            runs=tuple(runs),
            mcp_sealed=mcp_sealed,
        )

    async def _confine(self, cwd: str) -> Confinement:
        return await self._sandbox.confinement(cwd)

    async def _confining(self) -> Confining:
        return await self._sandbox.confining()

    async def _find_blocked(self, paths: tuple[str, ...]) -> tuple[bool, ...]:
        return await self._permissions.ask(FindBlocked(paths=paths))

    async def _warn(self, text: str) -> None:
        if self._ui is not None:
            await self._ui.tell(Show(Notice("warning", text)))

    def arrived(self, msg: ToolExecutorMsg) -> None:
        # Calls on one path run in the order they came in; the handlers below start in any order.
        if isinstance(msg, RunTools):
            self._scheduler.register(msg.calls)

    async def handle(self, msg: ToolExecutorMsg, reply: Reply) -> None:
        match msg:
            case ListTools():
                tools = self._scheduler.tools.values()
                definitions = [tool.definition() for tool in tools]
                read_only = frozenset(tool.name for tool in tools if tool.read_only)
                await reply.answer(msg, ToolSet(definitions=definitions, read_only=read_only))
            case RunTools(calls=calls, agent=agent, spend_left=left):
                if left is not None:
                    self._web.allow(left)
                await self._scheduler.run(calls, reply.sender(msg), agent)
            case RunPersonCommand(id=call_id, command=command):
                # The model's Bash, with the person as its caller: one way to run a command.
                call = ToolCall(id=call_id, name="Bash", input={"command": command})
                await self._scheduler.run((call,), reply.sender(msg), by_person=True)
            case InterruptTools(ids=ids):
                self._scheduler.interrupt(ids)
            case WithdrawTools(ids=ids):
                self._scheduler.withdraw(ids)
            case AttachReferences(text=text, named_by_user=named_by_user, paths=paths):
                from actors.tool_executor import references

                await reply.answer(
                    msg,
                    await references.attach(
                        text,
                        self._root,
                        self._permissions,
                        self._reference_candidates,
                        named_by_user=named_by_user,
                        paths=paths,
                    ),
                )
            case ListFiles(limit=limit):
                from actors.tool_executor.ripgrep import readable_files

                await reply.answer(msg, await readable_files(self._root, self._readable, limit))
            case CaptureCheckpoint(calls=calls, taken=taken, room=room):
                await reply.answer(msg, await self._capture(calls, taken, room))
            case SettleCheckpoint(watch=watch, taken=taken, room=room):
                from actors.tool_executor import snapshots

                running = self._background.running() > 0
                settled = await snapshots.settle(
                    self._store(),
                    watch,
                    frozenset(taken),
                    room,
                    background=running,
                    blocked=self._find_blocked,
                )
                await reply.answer(msg, settled)
            case RestoreCheckpoint(files=files, folders=folders):
                from actors.tool_executor import checkpoints

                lines = await anyio.to_thread.run_sync(
                    checkpoints.restore, files, self._root, folders
                )
                await reply.answer(msg, tuple(lines))
            case CaptureFiles(files=files):
                await reply.answer(msg, await self._capture_files(files))
            case DescribeSandbox(try_it=try_it):
                await reply.answer(msg, await self._sandbox.describe(try_it=try_it))
            case TakeSandboxWarning():
                await reply.answer(msg, await self._sandbox.take_warning())
            case TakeBackgroundNews():
                await reply.answer(msg, self._background.news())
            case ListBackground():
                await reply.answer(msg, self._background.listing())
            case StopBackground(id=job_id):
                await reply.answer(msg, await self._stop_background(job_id))

    async def _stop_background(self, job_id: CommandId) -> str:
        try:
            job = self._background.get(job_id)
        except ToolFailure as exc:
            return exc.message
        if job.state != "running":
            return f"{job.id} is not running: {job.status()}."
        job = await self._background.stop(job, by="the user")
        return f"Stopped {job.id}, with every process it started: {job.status()}."

    async def _reference_candidates(self) -> tuple[str, ...]:
        from actors.tool_executor import references
        from actors.tool_executor.ripgrep import readable_files

        return await readable_files(self._root, self._readable, references.MAX_CANDIDATES)

    def _store(self) -> Store:
        if self._snapshots is None:
            from actors.tool_executor.snapshots import Store

            self._snapshots = Store(self._root)
        return self._snapshots

    async def _readable(self, folder: str, paths: tuple[str, ...]) -> tuple[bool, ...]:
        return await self._permissions.ask(FilterReadable(folder=folder, paths=paths))

    async def _capture(
        self, calls: tuple[ToolCall, ...], taken: tuple[str, ...], room: int | None
    ) -> Changes:
        from actors.tool_executor import checkpoints, snapshots

        changes = checkpoints.changes(TOOLS, calls, self._root)
        if not changes.paths and not changes.commands:
            return changes  # calls that only read
        self._captures += 1
        order = self._captures
        fresh = tuple(path for path in changes.paths if path not in taken)
        if fresh:
            blocked = await self._permissions.ask(FindBlocked(paths=fresh))
            kept = [path for path, no in zip(fresh, blocked, strict=True) if not no]
            files, missed = await anyio.to_thread.run_sync(
                checkpoints.capture, kept, self._root, room, order
            )
            changes = msgspec.structs.replace(changes, files=files, missed=missed)
        commands = tuple(
            c for c in changes.commands if not (c.startswith("mcp__") and c.endswith(MCP_CALL))
        )
        if commands:
            # A command may change any file: the project as it is now, to compare after.
            notes = await snapshots.open_watch(self._store(), order, commands, self._find_blocked)
            changes = msgspec.structs.replace(changes, watch=0 if notes else order, notes=notes)
        return changes

    async def _capture_files(self, files: tuple[FileBefore, ...]) -> tuple[FileBefore, ...]:
        """The files a rewind is about to restore, as they are now: read as a checkpoint reads
        them, so that the rewind can be undone (a file the rules block is left out, and so is
        one whose path leads elsewhere than it did: its restore is refused too)."""
        from actors.tool_executor import checkpoints

        if not files:
            return ()
        paths = tuple(before.path for before in files)
        blocked = await self._permissions.ask(FindBlocked(paths=paths))
        kept = [path for path, no in zip(paths, blocked, strict=True) if not no]
        # A file too large to copy now cannot be put back by undoing the rewind; the rewind
        # itself still restores the copy its checkpoint kept.
        now, _ = await anyio.to_thread.run_sync(checkpoints.capture, kept, self._root)
        then = {before.path: before.real for before in files}
        return tuple(f for f in now if then[f.path] is None or then[f.path] == f.real)


def _home() -> str:
    return os.path.expanduser("~")
