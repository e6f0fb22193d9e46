"""The composition root: the only code that constructs actors, from one ``SessionOptions``.

A whole session (``assemble``) for the terminal, headless runs and the Agent SDK's protocol; a
part of one for a command that needs only some of its actors (``conductor``, ``memory_store``,
``model_client``, ``permission_broker``, ``questions_actor``, ``session_store``,
``skill_library``, ``tool_parts``, ``ui_actor``), built by the same functions ``assemble``
builds its own with, so that a subcommand, a benchmark or a test gets them wired exactly as a
session wires them.

Each function imports the actor packages it builds, when called: ``legato config`` loads the
two it starts, not all ten.

The memory store starts first (the others ask it for the configuration in their ``on_start``),
the conductor last but one (it asks the tool executor for the tool definitions). The skill
library needs nobody and reads nothing until a frontend asks it what ``/<name>`` runs.

What a frontend needs of an actor beyond its messages is exposed here, so that no frontend
imports an actor package: the types of the actors it builds, ``read_sdk_hooks`` (the Agent
SDK's ``hooks`` option as the memory store takes it) and ``search_binary`` (what Grep and Glob
run).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from typing import TYPE_CHECKING, Any

import msgspec

from actors.places import sessions_dir
from actors.protocol import Overrides

if TYPE_CHECKING:
    from actors.conductor import Conductor
    from actors.hooks import HookRunner
    from actors.mcp_client import McpClient
    from actors.memory_store import MemoryStore as MemoryStore  # for the subcommands' types
    from actors.model_client import ModelClient
    from actors.permission_broker import PermissionBroker
    from actors.protocol import HookGroup, McpServer, SessionStoreMsg
    from actors.session_store import SessionStore
    from actors.skills import SkillLibrary
    from actors.tool_executor import ToolExecutor
    from actors.ui import QuestionsActor, Renderer, UiActor
    from frontends.session_options import SessionOptions
    from runtime import Actor, Address

__all__ = [
    "Session",
    "ToolParts",
    "assemble",
    "conductor",
    "memory_store",
    "model_client",
    "permission_broker",
    "questions_actor",
    "read_sdk_hooks",
    "search_binary",
    "session_store",
    "skill_library",
    "tool_parts",
    "ui_actor",
]


class ToolParts(msgspec.Struct, frozen=True):
    """The tool executor and the actors a session gives it: the memory store (the sandbox's
    settings), the UI (each call's progress), who answers the broker's questions, the hooks
    (PreToolUse, PostToolUse, Notification) and the MCP client (the ``mcp__`` tools)."""

    memory: MemoryStore
    ui: UiActor | None  # None: the calls' progress comes back with their results
    questions: QuestionsActor | None  # None: nobody answers, a question is denied
    permissions: PermissionBroker
    hooks: HookRunner
    tools: ToolExecutor
    mcp: McpClient
    # The model client, when the parts were built for a whole session: the executor asks it
    # for WebFetch's answers; the session starts it (``Session.actors``), not ``actors`` below.
    model: ModelClient | None = None

    @property
    def actors(self) -> list[Actor[Any]]:
        """In the order they start: as a session starts them."""
        return [
            self.memory,
            *([] if self.ui is None else [self.ui]),
            *([] if self.questions is None else [self.questions]),
            self.permissions,
            self.hooks,
            self.tools,
            self.mcp,
        ]


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

    async def saved(self) -> None:
        """Returns once the session store has written every event sent to it so far, and so
        has handed the UI what it mirrors of them (``--session-mirror``) before whatever the
        frontend shows next: the Agent SDK writes mirrored lines to its store at each result,
        so they must come before the result line."""
        from actors.protocol import SaveEvents
        from runtime import KernelError

        if self.sessions is not None:
            with contextlib.suppress(KernelError):  # a store already stopped has nothing due
                await self.sessions.address.ask(SaveEvents(events=()))

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


def assemble(options: SessionOptions, *, renderer: Renderer) -> Session:
    """The whole session ``options`` describe, its events shown by ``renderer``."""
    # One id for all: the conductor's, the session file's, the one the hooks are told.
    session_id = _session_id(options)
    options = msgspec.structs.replace(options, session_id=session_id)
    parts = tool_parts(options, renderer=renderer, with_model=True)
    assert parts.ui is not None  # built with its UI: ``with_ui`` left True
    assert parts.model is not None  # built with its model client: ``with_model``
    skills = skill_library(options)
    sessions = session_store(options, parts.memory, ui=parts.ui)
    client = parts.model
    return Session(
        session_id,
        parts.memory,
        parts.ui,
        parts.permissions,
        client,
        parts.tools,
        conductor(options, parts, client, sessions=sessions.address, skills=skills),
        skills,
        parts.mcp,
        parts.hooks,
        sessions,
        parts.questions,
    )


def conductor(
    options: SessionOptions,
    parts: ToolParts,
    model: ModelClient,
    *,
    sessions: Address[SessionStoreMsg] | None = None,
    skills: SkillLibrary | None = None,
) -> Conductor:
    """The conductor that runs the session's turns with ``model`` and the executor of ``parts``
    (whose UI it needs). ``sessions``: where the conversation is saved (None: it is not);
    ``skills``: the user's agent types (None: the built-in ones)."""
    from actors.conductor import Conductor

    if parts.ui is None:
        raise ValueError("a conductor shows its turns: build its parts with their UI")
    return Conductor(
        memory=parts.memory.address,
        model=model.address,
        tools=parts.tools.address,
        ui=parts.ui.address,
        session_id=_session_id(options),
        headless=options.headless,
        sessions=sessions,
        skills=None if skills is None else skills.address,
        mcp=parts.mcp.address,
        hooks=parts.hooks.address,
        broker=parts.permissions.address,
        model_given=(options.overrides.model if options.overrides else options.model) is not None,
        reasoning=options.reasoning,
        max_budget_usd=options.max_budget_usd,
        fallback_model=options.fallback_model,
    )


def memory_store(options: SessionOptions, *, remember_notices: bool = True) -> MemoryStore:
    """The settings as the session's flags (or the driving program's options) and files make
    them. ``remember_notices``: False for a store started only to look (a note shown once by a
    session must not count as shown by a listing)."""
    from actors.memory_store import MemoryStore

    overrides = options.overrides or Overrides(
        model=options.model, permission_mode=options.permission_mode
    )
    return MemoryStore(
        options.project_root,
        home=options.home,
        overrides=overrides,
        env=options.env,
        remember_notices=remember_notices,
    )


def model_client(
    options: SessionOptions, memory: MemoryStore, *, connect_at_start: bool = True
) -> ModelClient:
    """The model client; ``connect_at_start`` False for a command that may send nothing (its
    HTTP client is then made on the first request)."""
    from actors.model_client import ModelClient

    return ModelClient(
        memory.address,
        env=options.env,
        read_timeout=options.stream_timeout,
        connect_at_start=connect_at_start,
    )


def permission_broker(
    memory: MemoryStore,
    *,
    questions: QuestionsActor | None = None,
    hooks: HookRunner | None = None,
) -> PermissionBroker:
    """The broker, its rules read from ``memory``. ``questions``: who answers what the rules put
    to a person (None: nobody, it is denied, and ``ExplainPermissions`` reports it as a
    question); ``hooks``: told when a question waits (the Notification hooks)."""
    from actors.permission_broker import PermissionBroker

    return PermissionBroker(
        memory.address,
        ui=None if questions is None else questions.address,
        hooks=None if hooks is None else hooks.address,
    )


def questions_actor(asker: Renderer) -> QuestionsActor:
    """Puts the broker's questions to ``asker``: a person at the terminal, or the program that
    drives the session."""
    from actors.ui import QuestionsActor

    return QuestionsActor(asker)


def session_store(
    options: SessionOptions, memory: MemoryStore, *, ui: UiActor | None = None
) -> SessionStore:
    """The saved sessions of the project: the session ``options.session_id`` (a new one when
    None), or, unasked to save, the list a picker shows. ``ui``: where its warnings go."""
    from actors.session_store import SessionStore, transcript_path

    session_id = _session_id(options)
    mirror = None
    if options.session_mirror:
        env = os.environ if options.env is None else options.env
        # The project's key, as the SDK (which starts Legato in the project) computes it: a
        # project path given from elsewhere must not file the session under that folder's.
        mirror = transcript_path(env, options.project_root, session_id)
    return SessionStore(
        memory.address,
        project_root=options.project_root,
        session_id=session_id,
        resume=options.resume,
        home=options.home,
        ui=None if ui is None else ui.address,
        mirror_path=mirror,
    )


def skill_library(options: SessionOptions) -> SkillLibrary:
    """The project's and the user's skills, patterns and agent types."""
    from actors.skills import SkillLibrary

    return SkillLibrary(options.project_root, home=options.home)


def tool_parts(
    options: SessionOptions,
    *,
    renderer: Renderer | None = None,
    with_ui: bool = True,
    mcp_servers: tuple[McpServer, ...] | None = None,
    bwrap: str | None = None,
    with_model: bool = False,
) -> ToolParts:
    """The tool executor as a session runs it, with the actors it works with; ``renderer``
    shows their events (None: nothing shown, no question answered); ``with_ui`` False leaves
    the UI actor out, for a caller that reads each call's progress on the call's own stream
    (the executor's way without a UI) rather than as a renderer's event. ``mcp_servers`` replaces
    the configured servers and ``bwrap`` names the bubblewrap to run (None: the one a session
    finds), for the benchmarks and tests that measure one server or one sandbox. ``with_model``
    builds the session's model client too (``ToolParts.model``), for WebFetch's answers."""
    from actors.hooks import HookRunner
    from actors.mcp_client import McpClient
    from actors.tool_executor import ToolExecutor
    from actors.ui import Renderer

    session_id = _session_id(options)
    memory = memory_store(options)
    ui = ui_actor(renderer or Renderer()) if with_ui else None
    shown = None if ui is None else ui.address
    asker = options.asker
    if asker is None and not options.headless and renderer is not None:
        asker = renderer
    questions = None if asker is None else questions_actor(asker)
    home = options.home or os.path.expanduser("~")
    hooks = HookRunner(
        memory.address,
        project_root=options.project_root,
        session_id=session_id,
        transcript_path=os.path.join(
            sessions_dir(options.project_root, home), f"{session_id}.jsonl"
        ),
        env=options.env,
        ui=shown,  # each hook's start and end: stream-json lines, the terminal's status
        invoke=options.hook_callbacks,
    )
    permissions = permission_broker(memory, questions=questions, hooks=hooks)
    # Servers start in the background as the actor starts: they never delay the first request.
    if mcp_servers is None:
        mcp = McpClient(memory=memory.address, cwd=options.project_root)
    else:
        mcp = McpClient(mcp_servers, cwd=options.project_root)
    client = model_client(options, memory) if with_model else None
    tools = ToolExecutor(
        permissions.address,
        project_root=options.project_root,
        max_concurrency=options.max_parallel,
        ui=shown,  # the calls' progress goes straight to the UI
        memory=memory.address,  # the sandbox's settings, the apiKey to keep from commands
        env=options.env,
        mcp=mcp.address,
        hooks=hooks.address,
        bwrap=bwrap,
        model=None if client is None else client.address,
    )
    return ToolParts(memory, ui, questions, permissions, hooks, tools, mcp, client)


def read_sdk_hooks(hooks: object) -> tuple[tuple[HookGroup, ...], list[str]]:
    """The Agent SDK's ``hooks`` option as the memory store takes them (``Overrides.hooks``),
    and what in it was not taken, in words."""
    from actors.memory_store import read_sdk_hooks

    return read_sdk_hooks(hooks)


def ui_actor(renderer: Renderer) -> UiActor:
    """The UI actor: shows the session's events, in the order they were sent, by ``renderer``."""
    from actors.ui import UiActor

    return UiActor(renderer)


def search_binary() -> str | None:
    """The ripgrep Grep and Glob run; None: they walk and match in Python."""
    from actors.tool_executor import ToolExecutor

    return ToolExecutor.search_binary()


def _session_id(options: SessionOptions) -> str:
    # A part built without an id (a subcommand's, a benchmark's) names a session of its own.
    return options.session_id or str(uuid.uuid4())
