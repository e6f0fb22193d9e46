"""The hook runner actor: answers ``RunHooks`` and ``ListHooks``, many asks at once."""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING, Any, ClassVar

import anyio
import msgspec

from actors.hooks.callback import call_hook, fail_closed
from actors.hooks.matching import select, subject
from actors.hooks.outcome import combine, read_run
from actors.hooks.run import run_hook
from actors.permission_modes import to_sdk
from actors.protocol import (
    ApproveHooks,
    ApproveProjectHooks,
    GetContext,
    HookFinished,
    HookOutcome,
    HookStarted,
    ListHooks,
    RunHooks,
    RunStatusLine,
    Show,
)
from actors.settings import HookCommand
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.hooks.callback import Invoke
    from actors.protocol import (
        HookEvent,
        HookGroup,
        HookRun,
        HookRunnerMsg,
        MemoryStoreMsg,
        UiMsg,
    )
    from runtime import Address, Reply

# Legato's permission modes in the words Claude Code's hooks read in ``permission_mode``.


class HookRunner(Actor["HookRunnerMsg"]):
    """Runs hook commands. The groups come from the memory store's context when ``memory`` is
    given, else from ``groups``; ``env`` is the session's environment (None: this process's)."""

    name = "hooks"
    concurrent: ClassVar[bool] = True  # a slow hook delays only its own ask

    def __init__(
        self,
        memory: Address[MemoryStoreMsg] | None = None,
        *,
        project_root: str,
        session_id: str,
        transcript_path: str = "",
        groups: Sequence[HookGroup] = (),
        env: Mapping[str, str] | None = None,
        # The project's hooks run only once the user has approved them (``ApproveHooks``,
        # docs/hooks.md) or trusted the project (``legato trust``), headless too: a cloned
        # repository's hooks are commands that run as the user. True only for tests that do
        # not exercise approval.
        run_unapproved: bool = False,
        ui: Address[UiMsg] | None = None,  # shown each hook's start and end; None: not shown
        # Runs an Agent SDK callback hook through the frontend that speaks the SDK's protocol;
        # None: no frontend can, and each callback hook is reported as failed.
        invoke: Invoke | None = None,
    ) -> None:
        super().__init__()
        self._memory = memory
        self._root = project_root
        self._session_id = session_id
        self._transcript_path = transcript_path
        self._groups: tuple[HookGroup, ...] = tuple(groups)
        self._run_unapproved = run_unapproved
        self._ui = ui
        self._invoke = invoke
        self._count = 0  # hook runs so far: their ids
        self._told_unapproved = False  # the user is told once that the project's did not run
        base = os.environ if env is None else env
        self._env = {**base, **self._folders()}
        # The mode the hooks are told: the context's at start. A RunHooks whose payload holds
        # ``permission_mode`` (the asker knows the mode of the moment) overrides it for that run.
        self._permission_mode = "default"
        self._api_key: str | None = None  # the configured one: no hook gets it either

    def _folders(self) -> dict[str, str]:
        return {"LEGATO_PROJECT_DIR": self._root, "CLAUDE_PROJECT_DIR": self._root}

    async def on_start(self) -> None:
        if self._memory is not None:
            context = await self._memory.ask(GetContext())
            self._api_key = context.config.api_key
            # The settings' ``env`` (never one of Legato's own variables, nor the project
            # folder's, which the memory store leaves out).
            self._env = {**self._env, **context.env, **self._folders()}
            self._groups = context.hooks
            self._permission_mode = to_sdk(context.permission_mode)

    async def handle(self, msg: HookRunnerMsg, reply: Reply) -> None:
        match msg:
            case RunHooks():
                await reply.answer(msg, await self._run(msg))
            case ListHooks():
                await reply.answer(msg, self._groups)
            case RunStatusLine():
                await reply.answer(msg, await self._status_line(msg))
            case ApproveHooks():
                if self._memory is not None:
                    self._groups = await self._memory.ask(ApproveProjectHooks())
                else:
                    self._groups = tuple(
                        msgspec.structs.replace(group, approved=True) for group in self._groups
                    )
                await reply.answer(msg, self._groups)

    async def _run(self, msg: RunHooks) -> HookOutcome:
        name = subject(msg.event, msg.payload, msg.tool_name)
        groups, notes = self._runnable(msg.event)
        chosen, errors = select(groups, msg.event, name)
        errors = [*notes, *errors]
        if not chosen:
            return HookOutcome(errors=tuple(errors))
        stdin = json.dumps(self._input(msg), ensure_ascii=False).encode()
        tool_use_id = msg.payload.get("tool_use_id")
        if not isinstance(tool_use_id, str):
            tool_use_id = None
        runs: list[HookRun | None] = [None] * len(chosen)
        shown = msg.event if msg.tool_name is None else f"{msg.event}:{msg.tool_name}"

        async def one(index: int, hook: HookCommand, source: str) -> None:
            self._count += 1
            started = HookStarted(
                id=f"hook_{self._count}", name=shown, event=msg.event, command=hook.command
            )
            await self._show(started)
            try:
                if hook.callback is None:
                    run = await run_hook(
                        hook,
                        source=source,
                        stdin=stdin,
                        cwd=self._root,
                        env={**self._env, **msg.trace_context},
                        secrets=[self._api_key],
                    )
                else:
                    run = await call_hook(
                        hook,
                        source=source,
                        payload=json.loads(stdin),  # its own copy: the SDK may change it
                        tool_use_id=tool_use_id,
                        invoke=self._invoke,
                    )
                runs[index] = run
            except anyio.get_cancelled_exc_class():
                with anyio.CancelScope(shield=True):
                    await self._show(_finished(started, None))
                raise
            await self._show(_finished(started, run))

        async with anyio.create_task_group() as tasks:
            for index, (hook, source) in enumerate(chosen):
                tasks.start_soon(one, index, hook, source)
        done = [(hook, run) for (hook, _), run in zip(chosen, runs, strict=True) if run is not None]
        verdicts = [fail_closed(msg.event, hook, read_run(msg.event, run)) for hook, run in done]
        return combine([run for _, run in done], verdicts, errors)

    async def _status_line(self, msg: RunStatusLine) -> HookRun:
        # Shown nowhere as a hook: it runs after every answer, and the terminal says itself
        # when it fails or times out.
        workspace = {**msg.state.get("workspace", {}), "current_dir": self._root}
        workspace.setdefault("project_dir", self._root)
        state = {
            **msg.state,
            "session_id": self._session_id,
            "transcript_path": self._transcript_path,
            "cwd": self._root,
            "workspace": workspace,
        }
        return await run_hook(
            HookCommand(command=msg.command, timeout=msg.timeout),
            source="statusLine",
            stdin=json.dumps(state, ensure_ascii=False).encode(),
            cwd=self._root,
            env={**self._env, "COLUMNS": str(msg.columns)},
            secrets=[self._api_key],
        )

    async def _show(self, event: HookStarted | HookFinished) -> None:
        if self._ui is not None:
            with contextlib.suppress(KernelError):  # a display that is gone loses nothing
                await self._ui.tell(Show(event))

    def _runnable(self, event: HookEvent) -> tuple[tuple[HookGroup, ...], list[str]]:
        """The groups that may run now, and the note (once a session) that the project's
        hooks for this event are not approved, so did not run."""
        if self._run_unapproved:
            return self._groups, []
        waiting = [group for group in self._groups if not group.approved]
        runnable = tuple(group for group in self._groups if group.approved)
        if not waiting or self._told_unapproved:
            return runnable, []
        # Their matchers are not run: a pattern from an unapproved file is not trusted with
        # the CPU either (a backtracking one would stall the session). The event is enough.
        skipped = [group for group in waiting if group.event == event]
        if not skipped:
            return runnable, []
        self._told_unapproved = True
        note = (
            f"The project's hooks ({skipped[0].source}) have not been approved, so they do not "
            "run. Read them with /hooks, then approve them with /hooks approve; headless, "
            "trust the project with 'legato trust'."
        )
        return runnable, [note]

    def _input(self, msg: RunHooks) -> dict[str, Any]:
        common = {
            "session_id": self._session_id,
            "transcript_path": self._transcript_path,
            "cwd": self._root,
            "hook_event_name": msg.event,
            "permission_mode": self._permission_mode,
        }
        return {**common, **msg.payload}


def _finished(started: HookStarted, run: HookRun | None) -> HookFinished:
    if run is None:
        return HookFinished(
            id=started.id, name=started.name, event=started.event, command=started.command,
            outcome="cancelled",
        )  # fmt: skip
    ok = run.exit_code == 0 and not run.timed_out
    return HookFinished(
        id=started.id,
        name=started.name,
        event=started.event,
        command=started.command,
        outcome="success" if ok else "error",
        exit_code=run.exit_code,
        stdout=run.stdout,
        stderr=run.stderr,
        elapsed=run.elapsed,
    )
