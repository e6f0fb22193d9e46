"""The permission broker: answers ``CheckPermission`` with a ``Decision``, asking when needed.

It owns the mode and the session's ``always``/``never`` answers. Permission checks are judged
one at a time, in the order they came, so questions reach the person in that order and each
check sees the answers given before it. The rest (a walk's ``FilterReadable``, ``FindBlocked``,
explanations, ``legato doctor``'s ``CheckRuleCoverage``) is answered side by side and never
waits behind a question that is with the person.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread
import msgspec

from actors import telemetry
from actors.errors import UsageError
from actors.places import within
from actors.protocol import (
    AddDirectory,
    AllowForPrompt,
    AllowForSession,
    AskUser,
    CheckPermission,
    CheckRuleCoverage,
    Decision,
    ExplainPermissions,
    FilterReadable,
    FindBlocked,
    ForgetReply,
    GetContext,
    PermissionBrokerMsg,
    PermissionRequest,
    RunHooks,
    SetMode,
)
from actors.visible import escape_controls
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from actors.permission_broker.policy import Policy
    from actors.protocol import (
        HookRunnerMsg,
        MemoryStoreMsg,
        PermissionRule,
        ProjectContext,
        UiMsg,
    )
    from runtime import Address, Reply


class PermissionBroker(Actor[PermissionBrokerMsg]):
    name = "permission_broker"
    concurrent = True

    def __init__(
        self,
        memory: Address[MemoryStoreMsg],
        *,
        ui: Address[UiMsg] | None = None,
        hooks: Address[HookRunnerMsg] | None = None,  # told when a question waits (Notification)
    ) -> None:
        super().__init__()
        self._memory = memory
        self._ui = ui  # None: headless, whatever needs a person is denied
        self._hooks = hooks
        self._notify = False  # whether the user has Notification hooks
        self._context: ProjectContext | None = None
        self._policy: Policy | None = None
        # A command's allowed-tools, for its prompt alone (AllowForPrompt).
        self._prompt_rules: tuple[PermissionRule, ...] = ()
        # Granted for the rest of the session (AllowForSession).
        self._session_rules: tuple[PermissionRule, ...] = ()
        # Other folders a person added with /add-dir (AddDirectory), for the rest of the session.
        self._added_dirs: tuple[str, ...] = ()
        self._checks = anyio.Lock()  # fair: permission checks are judged in arrival order

    async def on_start(self) -> None:
        self._context = await self._memory.ask(GetContext())
        self._notify = any(group.event == "Notification" for group in self._context.hooks)

    @property
    def policy(self) -> Policy:
        # Built on first use: compiling the rules is not on the way to the first request.
        if self._policy is None:
            if self._context is None:
                raise KernelError(f"{self.name} has not started")
            # Imported here too: the rules' modules (~6 ms) load with the first check.
            from actors.permission_broker.policy import Policy

            context = self._context
            granted = self._session_rules + self._prompt_rules
            if granted:
                rules = context.permission_rules + granted
                context = msgspec.structs.replace(context, permission_rules=rules)
            if self._added_dirs:
                folders = context.add_dirs + self._added_dirs
                context = msgspec.structs.replace(context, add_dirs=folders)
            self._policy = Policy(context)
        return self._policy

    def _rebuild(self) -> None:
        """The policy again, for other granted rules, keeping the session's mode and answers."""
        old, self._policy = self._policy, None
        if old is not None:
            self.policy.carry_on_from(old)

    async def _notification(
        self, hooks: Address[HookRunnerMsg], request: PermissionRequest
    ) -> None:
        message = f"Legato needs your permission to use {request.tool}"
        payload = {"message": message, "notification_type": "permission_prompt"}
        with contextlib.suppress(KernelError):  # the session is ending
            await hooks.ask(RunHooks(event="Notification", payload=payload))

    async def handle(self, msg: PermissionBrokerMsg, reply: Reply) -> None:
        match msg:
            case CheckPermission(request=request):
                decision = await self._check(request)
                if telemetry.current is not None:
                    telemetry.current.decided(request.tool, decision.allowed)
                await reply.answer(msg, decision)
            case FindBlocked(paths=paths):
                policy = self.policy
                blocked = await anyio.to_thread.run_sync(
                    lambda: tuple(policy.hidden(path) for path in paths)
                )
                await reply.answer(msg, blocked)
            case FilterReadable(folder=folder, paths=paths, search=search):
                filtered = await anyio.to_thread.run_sync(self._filter, folder, paths, search)
                await reply.answer(msg, filtered)
            case AllowForPrompt(rules=rules):
                # Between checks: none is judged half by the old rules and half by the new.
                async with self._checks:
                    if rules != self._prompt_rules:
                        self._prompt_rules = rules
                        self._rebuild()
                await reply.answer(msg, None)
            case AllowForSession(rules=rules):
                async with self._checks:
                    added = tuple(rule for rule in rules if rule not in self._session_rules)
                    if added:
                        self._session_rules += added
                        self._rebuild()
                await reply.answer(msg, None)
            case SetMode(mode=mode):
                self.policy.switch(mode)
                await reply.answer(msg, mode)
            case ExplainPermissions(requests=requests):
                from actors.permission_broker.explain import report

                # The policy's own verdicts, nobody asked: what /permissions explain shows.
                explained = await anyio.to_thread.run_sync(report, self.policy, requests)
                started = self._context.add_dirs if self._context is not None else ()
                explained = msgspec.structs.replace(
                    explained, add_dirs=started, added_dirs=self._added_dirs
                )
                await reply.answer(msg, explained)
            case AddDirectory(path=path):
                async with self._checks:  # no check is judged half with the folder, half without
                    self._add_dir(path)
                await reply.answer(msg, self._added_dirs)
            case ForgetReply(number=number):
                # Under the checks' lock: a question being answered may be adding a reply.
                async with self._checks:
                    await reply.answer(msg, self.policy.forget(number))
            case CheckRuleCoverage(limit=limit):
                from actors.permission_broker.coverage import coverage

                # The entries as the broker compiled them: what it enforces is what is checked.
                policy = self.policy
                found = await anyio.to_thread.run_sync(
                    coverage, policy.rules.paths, policy.settings_file, limit
                )
                await reply.answer(msg, found)

    def _add_dir(self, path: str) -> None:
        root = self.policy.rules.paths.root
        for folder in (root, *self.policy.rules.paths.more_roots):
            if within(path, folder):
                shown = escape_controls(folder, newlines=True)
                whose = "the project" if folder == root else f"the added folder {shown}"
                raise UsageError(
                    f"/add-dir {escape_controls(path, newlines=True)}: {whose} already covers it",
                    remedy="The tools already work there as in the project; nothing to add",
                )
        self._added_dirs += (path,)
        self._rebuild()

    def _filter(self, folder: str, paths: tuple[str, ...], search: bool) -> tuple[bool, ...]:
        return self.policy.filter_readable(folder, paths, search=search)

    async def _check(self, request: PermissionRequest) -> Decision:
        # One permission check at a time, in the order they arrived: the person sees questions
        # in the model's order, and a check waiting here sees an 'always' or 'never' given to
        # the one before it. Walk filters and explanations do not queue here.
        if request.kind == "fetch":
            from actors.permission_broker.web import with_host

            # The host as the rules match it is the one the person is asked about.
            request = with_host(request)
        async with self._checks:
            # Resolving paths touches the file system: a worker thread keeps the loop free.
            outcome = await anyio.to_thread.run_sync(self.policy.assess, request)
            if isinstance(outcome, Decision):
                return outcome
            if self._ui is None:
                # The reason ends with what would allow it (a settings entry or a flag).
                return Decision(False, outcome.headless_reason)
            question = AskUser(
                request=request,
                choices=outcome.choices,
                warning=outcome.warning,
                confinement=outcome.confinement,
                covers=outcome.scope,
            )
            if self._notify and self._hooks is not None:
                # Beside the question, not before it: a slow hook must not hold it up.
                self.tasks.start_soon(self._notification, self._hooks, request)
            answer = await self._ui.ask(question)
            return self.policy.answer(outcome, answer)
