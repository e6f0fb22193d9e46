"""The memory store: loads the session's configuration once and answers ``GetContext``, and
``ExplainContext`` with where each effective value came from.

Everything is read and validated in ``on_start``, so a bad file stops the session before any
request is made: the supervisor reports the crash, and the frontend shows the ConfigError.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

import anyio.to_thread

from actors.memory_store.loader import explain_context
from actors.protocol import ExplainContext, GetContext, MemoryStoreMsg, Overrides
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.protocol import Explained
    from runtime import Reply


class MemoryStore(Actor[MemoryStoreMsg]):
    name = "memory_store"

    def __init__(
        self,
        project_root: str,
        *,
        home: str | None = None,
        overrides: Overrides | None = None,
        env: Mapping[str, str] | None = None,
        # Whoever asks shows the context's warnings, so a note given only once counts as given
        # (migration.py). A session's store does; one started only to list sessions does not.
        remember_notices: bool = True,
    ) -> None:
        super().__init__()
        self._remember_notices = remember_notices
        self._project_root = project_root
        self._home = home if home is not None else os.path.expanduser("~")
        self._overrides = overrides or Overrides()
        self._env: Mapping[str, str] = env if env is not None else os.environ
        self._explained: Explained | None = None

    async def on_start(self) -> None:
        # File reading blocks; a worker thread keeps the event loop free meanwhile. Where each
        # value came from is kept as it is found: it costs nothing more than the loading.
        self._explained = await anyio.to_thread.run_sync(
            functools.partial(
                explain_context,
                self._project_root,
                home=self._home,
                overrides=self._overrides,
                env=self._env,
                remember_notices=self._remember_notices,
            )
        )

    async def handle(self, msg: MemoryStoreMsg, reply: Reply) -> None:
        if self._explained is None:
            raise KernelError(f"{self.name} has not loaded its context")
        match msg:
            case GetContext():
                await reply.answer(msg, self._explained.context)
            case ExplainContext():
                await reply.answer(msg, self._explained)
