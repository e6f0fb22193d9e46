"""The memory store: loads the session's configuration once and answers ``GetContext``, and
``ExplainContext`` with where each effective value came from. ``ApproveProjectMcpServers``
records the user's approval of project MCP servers (mcp_approvals.py) and updates the context;
``ApproveImports`` the approval of instruction files' imports from outside the project.

Everything is read and validated in ``on_start``, so a bad file stops the session before any
request is made: the supervisor reports the crash, and the frontend shows the ConfigError.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

import anyio.to_thread
import msgspec

from actors.memory_store import hooks_approval, import_approvals, mcp_approvals, trust
from actors.memory_store.loader import explain_context
from actors.memory_store.mcp_servers import MCP_FILE
from actors.places import (
    hooks_approval_path,
    imports_approval_path,
    mcp_approvals_path,
    trust_path,
)
from actors.protocol import (
    AddMemory,
    ApproveImports,
    ApproveProjectHooks,
    ApproveProjectMcpServers,
    ExplainContext,
    GetContext,
    MemoryStoreMsg,
    Overrides,
    RevokeProjectMcpServers,
    RevokeTrust,
    RuleWritten,
    TrustProject,
    WriteRule,
)
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.protocol import Explained
    from actors.settings import HookGroup, McpServer
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
        self._explained = await self._load()

    async def _load(self) -> Explained:
        # File reading blocks; a worker thread keeps the event loop free meanwhile. Where each
        # value came from is kept as it is found: it costs nothing more than the loading.
        return await anyio.to_thread.run_sync(
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
            case ApproveProjectHooks():
                await reply.answer(msg, await self._approve_hooks(self._explained))
            case TrustProject(fingerprint=shown):
                context = self._explained.context
                path = trust_path(context.project_root, self._home)
                if shown and shown == context.trust_fingerprint:
                    await anyio.to_thread.run_sync(trust.record, path, shown)
                    self._explained = await self._load()
                await reply.answer(msg, self._explained.context)
            case ApproveImports(fingerprints=shown):
                context = self._explained.context
                asked = {request.fingerprint for request in context.import_requests}
                chosen = [fingerprint for fingerprint in shown if fingerprint in asked]
                if chosen:
                    path = imports_approval_path(context.project_root, self._home)
                    await anyio.to_thread.run_sync(import_approvals.approve, path, chosen)
                    self._explained = await self._load()
                await reply.answer(msg, self._explained.context)
            case RevokeTrust():
                root = self._explained.context.project_root
                path = trust_path(root, self._home)
                trusted = await anyio.to_thread.run_sync(trust.revoke, path)
                # The imports' approvals go with it: "legato trust" records both.
                imports = imports_approval_path(root, self._home)
                approved = await anyio.to_thread.run_sync(import_approvals.revoke, imports)
                await reply.answer(msg, trusted or approved)
            case AddMemory(target=target, text=text):
                from actors.memory_store import memory_notes

                assert self._explained is not None
                root = self._explained.context.project_root
                added = await anyio.to_thread.run_sync(
                    memory_notes.append, target, root, self._home, text
                )
                # What /context and a later GetContext see holds the new line.
                self._explained = await self._load()
                await reply.answer(msg, added)
            case WriteRule():
                await reply.answer(msg, await self._write_rule(msg))
            case ApproveProjectMcpServers(names=names):
                await reply.answer(msg, await self._approve(self._explained, names))
            case RevokeProjectMcpServers(names=names):
                context = self._explained.context
                path = mcp_approvals_path(context.project_root, self._home)
                revoked = await anyio.to_thread.run_sync(
                    mcp_approvals.revoke, path, context.mcp_servers, names
                )
                # What the context says agrees with the file (the global trust-all aside).
                trust_all = context.config.enable_all_project_mcp_servers
                project_file = os.path.join(context.project_root, MCP_FILE)
                servers = tuple(
                    msgspec.structs.replace(server, approved=trust_all)
                    if server.name in revoked and server.source == project_file
                    else server
                    for server in context.mcp_servers
                )
                context = msgspec.structs.replace(context, mcp_servers=servers)
                self._explained = msgspec.structs.replace(self._explained, context=context)
                await reply.answer(msg, revoked)

    async def _write_rule(self, msg: WriteRule) -> RuleWritten:
        """Write the rule, load again, and keep the trust the project had (or give it, when it
        widened nothing before) when the rule is all that changed in what it widens: the
        person's own rule, not the repository's."""
        from actors.memory_store import rule_file

        assert self._explained is not None
        before = self._explained.context
        root, home = before.project_root, self._home
        path, changed, excluded = await anyio.to_thread.run_sync(
            rule_file.write, msg.scope, root, home, msg.behavior, msg.text
        )
        self._explained = await self._load()
        after = self._explained.context
        # A project that widened nothing before widens now only what the person just wrote.
        held = before.trusted or not before.trust_items
        if held and not after.trusted and after.trust_fingerprint:
            was = {(item.key, repr(item.value)) for item in before.trust_items}
            now = {(item.key, repr(item.value)) for item in after.trust_items}
            if now - was <= {("permissions.allow", repr(msg.text))} and was - now <= {
                ("permissions.allow", repr(msg.text))
            }:
                shown = after.trust_fingerprint
                await anyio.to_thread.run_sync(trust.record, trust_path(root, home), shown)
                self._explained = await self._load()
        return RuleWritten(
            path=path, changed=changed, excluded=excluded, context=self._explained.context
        )

    async def _approve_hooks(self, explained: Explained) -> tuple[HookGroup, ...]:
        context = explained.context
        if context.project_hooks_fingerprint:
            path = hooks_approval_path(context.project_root, self._home)
            await anyio.to_thread.run_sync(
                hooks_approval.record, path, context.project_hooks_fingerprint
            )
        groups = tuple(msgspec.structs.replace(group, approved=True) for group in context.hooks)
        context = msgspec.structs.replace(context, hooks=groups)
        self._explained = msgspec.structs.replace(explained, context=context)
        return groups

    async def _approve(self, explained: Explained, names: tuple[str, ...]) -> tuple[McpServer, ...]:
        context = explained.context
        path = mcp_approvals_path(context.project_root, self._home)
        approved = await anyio.to_thread.run_sync(
            mcp_approvals.approve, path, context.mcp_servers, names
        )
        now = {server.name: server for server in approved}
        servers = tuple(now.get(server.name, server) for server in context.mcp_servers)
        context = msgspec.structs.replace(context, mcp_servers=servers)
        self._explained = msgspec.structs.replace(explained, context=context)
        return approved
