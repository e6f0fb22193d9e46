"""Assembling a session: the actors, wired to each other, in the order they must start.

Shared by both frontends, headless and the interactive terminal. The memory store
starts first (the others ask it for the configuration in their ``on_start``), the conductor
last (it asks the tool executor for the tool definitions). The skill library needs nobody and
reads nothing until a frontend asks it what ``/<name>`` runs.
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Any

import msgspec

from actors.conductor import Conductor
from actors.hooks import HookRunner
from actors.mcp_client import McpClient
from actors.memory_store import MemoryStore, Overrides
from actors.model_client import ModelClient
from actors.permission_broker import PermissionBroker
from actors.places import sessions_dir
from actors.session_store import SessionStore
from actors.skills import SkillLibrary
from actors.tool_executor import ToolExecutor
from actors.ui import QuestionsActor, Renderer, UiActor

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.hooks import Invoke
    from actors.protocol import PermissionMode
    from runtime import Actor


class Session(msgspec.Struct, frozen=True):
    id: str
    memory: MemoryStore
    ui: UiActor
    permissions: PermissionBroker
    model: ModelClient
    tools: ToolExecutor
    conductor: Conductor
    skills: SkillLibrary  # what /<name> runs; it reads nothing until asked
    mcp: McpClient  # the user's MCP servers; with none configured it starts nothing
    hooks: HookRunner  # the user's hook commands; with none configured it runs nothing
    sessions: SessionStore | None = None  # saves the session as it goes
    questions: QuestionsActor | None = None  # the broker's questions, when there is a person

    @property
    def actors(self) -> list[Actor[Any]]:
        saving: list[Actor[Any]] = [] if self.sessions is None else [self.sessions]
        # The UI before the session store: the store can still warn while it drains.
        return [
            self.memory,
            self.skills,
            self.ui,
            *saving,
            *([] if self.questions is None else [self.questions]),
            self.permissions,
            self.hooks,
            self.model,
            self.tools,
            self.conductor,
            # Last: nobody asks it before the session's first prompt, and its SDK import (in a
            # worker thread) then competes with no other actor's start for the interpreter.
            # It stops first, once the conductor has nothing more to run.
            self.mcp,
        ]


def assemble(
    project_root: str,
    *,
    renderer: Renderer,
    headless: bool,
    model: str | None = None,
    permission_mode: PermissionMode | None = None,
    env: Mapping[str, str] | None = None,
    home: str | None = None,
    max_concurrency: int | None = None,  # None: the executor's defaults
    session_id: str | None = None,
    stream_timeout: float = 60.0,  # seconds without a byte before a stalled answer is retried
    resume: bool = False,  # go on with the saved session ``session_id`` (--continue, --resume)
    # The driving program's options (the Agent SDK's): replace ``model`` and ``permission_mode``.
    overrides: Overrides | None = None,
    # Who answers the broker's questions in a headless session (the driving program); None:
    # interactive sessions ask the renderer, headless ones deny.
    asker: Renderer | None = None,
    # Runs the driving program's callback hooks (the Agent SDK's ``hooks``): a control request.
    hook_callbacks: Invoke | None = None,
) -> Session:
    session_id = session_id or str(uuid.uuid4())
    memory = MemoryStore(
        project_root,
        home=home,
        overrides=overrides or Overrides(model=model, permission_mode=permission_mode),
        env=env,
    )
    ui = UiActor(renderer)
    skills = SkillLibrary(project_root, home=home)
    sessions = SessionStore(
        memory.address,
        project_root=project_root,
        session_id=session_id,
        resume=resume,
        home=home,
        ui=ui.address,
    )
    questions = QuestionsActor(asker) if asker is not None else None
    if questions is None and not headless:
        questions = QuestionsActor(renderer)
    hooks = HookRunner(
        memory.address,
        project_root=project_root,
        session_id=session_id,
        transcript_path=os.path.join(
            sessions_dir(project_root, home or os.path.expanduser("~")), f"{session_id}.jsonl"
        ),
        env=env,
        ui=ui.address,  # each hook's start and end: stream-json lines, the terminal's status
        invoke=hook_callbacks,
    )
    permissions = PermissionBroker(
        memory.address,
        ui=None if questions is None else questions.address,
        hooks=hooks.address,  # Notification hooks, when a question waits
    )
    # Servers start in the background as the actor starts: they never delay the first request.
    mcp = McpClient(memory=memory.address, cwd=project_root)
    client = ModelClient(memory.address, env=env, read_timeout=stream_timeout)
    tools = ToolExecutor(
        permissions.address,
        project_root=project_root,
        max_concurrency=max_concurrency,
        ui=ui.address,  # the calls' progress goes straight to the UI
        memory=memory.address,  # the sandbox's settings, the apiKey to keep from commands
        env=env,
        mcp=mcp.address,
        hooks=hooks.address,
    )
    conductor = Conductor(
        memory=memory.address,
        model=client.address,
        tools=tools.address,
        ui=ui.address,
        session_id=session_id,
        headless=headless,
        sessions=sessions.address,
        skills=skills.address,  # the user's agent types
        mcp=mcp.address,
        hooks=hooks.address,
    )
    return Session(
        session_id,
        memory,
        ui,
        permissions,
        client,
        tools,
        conductor,
        skills,
        mcp,
        hooks,
        sessions,
        questions,
    )
