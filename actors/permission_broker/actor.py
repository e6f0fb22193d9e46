"""The permission broker: answers ``CheckPermission`` with a ``Decision``, asking when needed.

It owns the mode and the session's ``always``/``never`` answers. One message at a time (the
default), on purpose: while one question is with the person, the next request waits, and so
sees the answer if it was ``always`` or ``never``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio.to_thread

from actors.permission_broker.policy import Policy
from actors.protocol import (
    AskUser,
    CheckPermission,
    Decision,
    GetContext,
    PermissionBrokerMsg,
    PermissionRequest,
    SetMode,
)
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from actors.protocol import MemoryStoreMsg, UiMsg
    from runtime import Address, Reply


class PermissionBroker(Actor[PermissionBrokerMsg]):
    name = "permission_broker"

    def __init__(
        self, memory: Address[MemoryStoreMsg], *, ui: Address[UiMsg] | None = None
    ) -> None:
        super().__init__()
        self._memory = memory
        self._ui = ui  # None: headless, whatever needs a person is denied
        self._policy: Policy | None = None

    async def on_start(self) -> None:
        self._policy = Policy(await self._memory.ask(GetContext()))

    @property
    def policy(self) -> Policy:
        if self._policy is None:
            raise KernelError(f"{self.name} has not started")
        return self._policy

    async def handle(self, msg: PermissionBrokerMsg, reply: Reply) -> None:
        match msg:
            case CheckPermission(request=request):
                await reply.send(await self._check(request))
            case SetMode(mode=mode):
                self.policy.mode = mode
                await reply.send(mode)

    async def _check(self, request: PermissionRequest) -> Decision:
        # Resolving paths touches the file system: a worker thread keeps the event loop free.
        # Nothing else uses the policy meanwhile, since the broker handles one message at a time.
        outcome = await anyio.to_thread.run_sync(self.policy.assess, request)
        if isinstance(outcome, Decision):
            return outcome
        if self._ui is None:
            return Decision(False, outcome.headless_reason)
        answer = await self._ui.ask(AskUser(request=request, choices=outcome.choices))
        return self.policy.answer(outcome, answer)
