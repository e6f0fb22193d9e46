"""The ``Agent`` tool: a subagent is a conversation of its own, run inside the Agent call.

The conductor answers Agent calls itself (the executor runs tools and never talks to the
model): ``Subagents`` checks the call, picks the agent's type, model and tools, and runs the
agent's conversation (``agent_loop.py``) in the task of the call, inside the turn's task group.
So an interrupt of the turn stops the agent and every call and process it started, as it
stops any call, and the agent shares the session's model client, broker, executor and
memory. Its final text is the call's result; nothing else of it enters the parent's context.

Limits (``agents`` in the project settings): how many run at once (``maxConcurrent``; the
others wait), how deep agents may start agents (``maxDepth``; 1: the main conversation's
agents start none, and are not offered the tool), and each agent's turns (``maxTurns``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from actors.conductor.background_agents import BackgroundAgents
from actors.conductor.prompt import PLAN_MODE_NOTE
from actors.errors import UsageError
from actors.models import resolve_model, same_provider
from actors.protocol import AgentScope, AgentType, ToolResult, Usage
from actors.tool_names import AGENT_TOOL, TASK_TOOLS
from actors.tool_routes import AgentJobCall, offered_tools, route

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.background_agents import AgentJob
    from actors.conductor.hooks import ConversationHooks
    from actors.conductor.keeper import SessionKeeper
    from actors.conductor.tally import Tally
    from actors.conductor.turn import BackgroundCommands
    from actors.instructions import NestedGuides
    from actors.protocol import (
        AgentId,
        AgentSettings,
        Block,
        ModelClientMsg,
        ModelRequest,
        ToolCall,
        ToolExecutorMsg,
        UiMsg,
    )
    from runtime import Address

GENERAL_PURPOSE = AgentType(
    name="general-purpose",
    description=(
        "General-purpose agent for researching complex questions, searching for code and "
        "carrying out multi-step tasks. Has every tool but Agent."
    ),
    prompt=(
        "You are an agent for Legato, a coding assistant. Given the user's message, use the "
        "tools available to complete the task fully, without gold-plating. When you are done, "
        "reply with a concise report of what you found or did: it is all the caller will see "
        "of your work, so include the facts it needs (paths, names, results)."
    ),
)

_DESCRIPTION = """\
Launch a subagent to handle a complex, multi-step task on its own. It gets a fresh \
conversation with its own system prompt and tools, works until done, and its final message \
is this call's result; nothing else of what it did enters this conversation. Several Agent \
calls in one message run at the same time. Write the prompt as a complete brief: the agent \
sees nothing of this conversation. Say whether it should change files or only report. With \
run_in_background the call returns at once with the agent's id (agent_N) while it works on: \
read its state and, once done, its answer with TaskOutput; stop it with TaskStop; you are told \
when it ends.

Available agent types (subagent_type):
"""


@dataclass
class Subagents:
    """The session's agent types and limits, and the way to run one Agent call."""

    model: Address[ModelClientMsg]
    tools: Address[ToolExecutorMsg]
    ui: Address[UiMsg]
    keeper: SessionKeeper
    settings: AgentSettings
    types: dict[str, AgentType]
    tool_specs: list[Block]  # the executor's tools
    environment: (
        str  # the project's context (root, instruction files, memory), after each agent's prompt
    )
    max_tokens: int
    on_usage: Callable[[str, Usage], None]  # the session's total: the model, its tokens
    # The session's: an agent's background command is news for the main conversation too.
    commands: BackgroundCommands
    # The MCP tools the main conversation offers now (ToolSearch aside, which only it answers):
    # an agent gets those its type allows, as they are when it starts.
    mcp_specs: Callable[[], list[Block]] = list
    hooks: ConversationHooks | None = None  # the user's SubagentStop hooks, if any
    # A new agent's own record of the sub-folders' instruction files it was given.
    guides: Callable[[], NestedGuides] | None = None
    # Of the tools the conductor answers, those the session does not offer (the SDK's ``tools``
    # and ``disallowed_tools``): their calls go to the executor, which knows no such tool.
    refused: frozenset[str] = frozenset()
    background: BackgroundAgents = field(default_factory=BackgroundAgents)
    # Agents started by the main conversation take a place; nested ones run in their
    # parent's, so a parent never waits for a place its own child would need.
    places: anyio.CapacityLimiter = field(init=False)

    def __post_init__(self) -> None:
        self.places = anyio.CapacityLimiter(self.settings.max_concurrent)

    @property
    def enabled(self) -> bool:
        return self.settings.max_depth >= 1

    def definition(self) -> Block:
        """The Agent tool as the model is offered it, listing the types."""
        listing = "\n".join(
            f"- {t.name}: {t.description} (Tools: {', '.join(t.tools) if t.tools else '*'})"
            for t in self.types.values()
        )
        return {
            "name": AGENT_TOOL,
            "description": _DESCRIPTION + listing,
            "input_schema": {
                "type": "object",
                "properties": {
                    "description": {
                        "type": "string",
                        "description": "A short (3-5 word) description of the task",
                    },
                    "prompt": {"type": "string", "description": "The task for the agent"},
                    "subagent_type": {
                        "type": "string",
                        "description": "The type of agent to use",
                        "enum": list(self.types),
                    },
                    "model": {
                        "type": "string",
                        "description": "A model alias or id for this agent; default: its "
                        "type's model, else this conversation's",
                    },
                    "run_in_background": {
                        "type": "boolean",
                        "description": "Return at once with the agent's id; read its answer "
                        "later with TaskOutput",
                    },
                },
                "required": ["description", "prompt", "subagent_type"],
            },
        }

    def runner(
        self,
        *,
        depth: int,
        parent_model: str,
        tally: Tally,
        allowed: bool = True,  # False: the asking agent's tools leave Agent out
        asker: str | None = None,
        planning: bool = False,  # Plan Mode: agents are told, as the main conversation is
        check: Callable[[ModelRequest], object] | None = None,  # may each request go (a budget)
        spend_left: Callable[[], float | None] = lambda: None,  # what the budget leaves
        settle: Callable[[ModelRequest], object] = lambda request: None,  # a request answered
    ) -> _Runner:
        """The runner for the Agent calls of a conversation at ``depth`` (0: the main one)."""
        return _Runner(
            self, depth, parent_model, tally, allowed, asker, planning, check, spend_left, settle
        )


class _Runner(msgspec.Struct):
    agents: Subagents
    depth: int
    parent_model: str
    tally: Tally
    allowed: bool
    asker: str | None
    planning: bool
    check: Callable[[ModelRequest], object] | None = None
    spend_left: Callable[[], float | None] = lambda: None
    settle: Callable[[ModelRequest], object] = lambda request: None

    def takes(self, call: ToolCall) -> bool:
        """Agent calls, and TaskOutput and TaskStop of a background agent: the conductor's."""
        if call.name in self.agents.refused:
            return False
        to = route(call)
        return to == "Agent" or isinstance(to, AgentJobCall)

    def summary(self, call: ToolCall) -> str:
        if call.name in TASK_TOOLS:
            return str(call.input.get("task_id"))
        kind = call.input.get("subagent_type")
        what = call.input.get("description")
        return f"{kind}: {what}" if isinstance(kind, str) and isinstance(what, str) else "?"

    async def run(self, call: ToolCall) -> ToolResult:
        to = route(call)
        if isinstance(to, AgentJobCall):
            return await self._task(call, to.id)
        refusal = self._refusal()
        if refusal is not None:
            return _error(call, refusal)
        checked = self._check(call)
        if isinstance(checked, str):
            return _error(call, checked)
        kind, model_id, prompt = checked
        agents = self.agents
        if call.input.get("run_in_background") is True:

            async def work(job: AgentJob) -> ToolResult:
                return await self._run(call, kind, model_id, prompt, job)

            # Its place is taken in its own task: the call returns while it waits for one.
            return agents.background.start(
                call, kind.name, str(call.input["description"]), work, agents.places
            )
        if self.depth == 0:
            async with agents.places:
                return await self._run(call, kind, model_id, prompt)
        return await self._run(call, kind, model_id, prompt)

    async def _task(self, call: ToolCall, job_id: AgentId | str) -> ToolResult:
        """TaskOutput or TaskStop of a background agent."""
        if self.depth > 0:
            # Only the main conversation starts background agents, so only it reads and stops
            # them: a subagent's tools, which may leave these out, are not gone around.
            return _error(
                call,
                f"Background agents belong to the main conversation; the agent {self.asker!r} "
                "cannot read or stop them.",
            )
        background = self.agents.background
        job = background.find(job_id)
        if isinstance(job, str):
            return _error(call, job)
        if call.name == "TaskStop":
            if job.ended is not None:
                return ToolResult(tool_use_id=call.id, content=f"Nothing to stop: {job.read()}")
            await background.stop(job, by="the model")
            return ToolResult(tool_use_id=call.id, content=f"Stopped. {job.read()}")
        wait = call.input.get("timeout")
        if call.input.get("block", True) is not False and job.ended is None:
            # An interrupt ends the wait, never the agent.
            seconds = (wait if isinstance(wait, int) and wait >= 0 else DEFAULT_WAIT_MS) / 1000
            with anyio.move_on_after(seconds):
                await job.done.wait()
        return ToolResult(tool_use_id=call.id, content=job.read())

    async def _run(
        self,
        call: ToolCall,
        kind: AgentType,
        model_id: str,
        prompt: str,
        job: AgentJob | None = None,  # a background agent's record
    ) -> ToolResult:
        agents = self.agents
        depth = self.depth + 1
        offered = kind.tools
        every = [*agents.tool_specs, *agents.mcp_specs()]
        names = {spec["name"] for spec in every}
        # Agent only when the type lists it: "every tool" means the executor's.
        may_nest = depth < agents.settings.max_depth and AGENT_TOOL in (offered or ())
        specs = offered_tools(
            [s for s in every if offered is None or s["name"] in offered],
            agent=agents.definition() if may_nest else None,
        )
        scope = AgentScope(
            name=kind.name,
            parent_tool_use_id=call.id,
            tools=frozenset(names if offered is None else set(offered) & names),
            background=job is not None,
        )

        def used(usage: Usage, model: str = model_id) -> None:
            self.tally.add(model, usage)
            agents.on_usage(model, usage)

        # A subagent's own loop loads with the first subagent, not with every session.
        from actors.conductor.agent_loop import AgentRun, run_agent

        run = AgentRun(
            hooks=agents.hooks,
            background=agents.commands,
            call_id=call.id,
            scope=scope,
            model_id=model_id,
            system="\n\n".join(
                [kind.prompt, agents.environment, *([PLAN_MODE_NOTE] if self.planning else [])]
            ),
            prompt=prompt,
            tool_specs=specs,
            max_turns=agents.settings.max_turns,
            max_tokens=agents.max_tokens,
            model=agents.model,
            tools=agents.tools,
            ui=agents.ui,
            keeper=agents.keeper,
            guides=agents.guides() if agents.guides is not None else None,
            nested=agents.runner(
                depth=depth,
                parent_model=model_id,
                tally=self.tally,
                allowed=may_nest,
                asker=kind.name,
                planning=self.planning,
                check=self.check,
                spend_left=self.spend_left,
                settle=self.settle,
            ),
            check=self.check,
            spend_left=self.spend_left,
            settle=self.settle,
            used=used,
            denied=self.tally.denials.append,
            watch=None if job is None else job.watch,
        )
        return await run_agent(run)

    def _refusal(self) -> str | None:
        settings = self.agents.settings
        if not self.agents.enabled:
            return "The Agent tool is turned off in this project (agents.maxDepth is 0)."
        if self.depth >= settings.max_depth or not self.allowed:
            return (
                f"The agent {self.asker!r} may not start agents: agents may be nested "
                f"{settings.max_depth} deep (agents.maxDepth), and the Agent tool is not among "
                "its tools. Do the work yourself with the tools you have. Nothing was started."
            )
        return None

    def _check(self, call: ToolCall) -> tuple[AgentType, str, str] | str:
        """The call's type, model id and prompt, or why it cannot run."""
        given: dict[str, Any] = call.input
        for key in ("description", "prompt", "subagent_type"):
            if not isinstance(given.get(key), str) or not given[key].strip():
                return f"Invalid input for Agent: '{key}' is required, as a non-empty string."
        if given.get("run_in_background") and self.depth > 0:
            # It would outlive the agent that started it, with nobody left to read it.
            return (
                "An agent cannot start an agent in the background: call Agent without "
                "run_in_background, and it will answer when the agent is done."
            )
        kind = self.agents.types.get(given["subagent_type"])
        if kind is None:
            listing = ", ".join(self.agents.types)
            return (
                f"Unknown agent type {given['subagent_type']!r}. The available types are: "
                f"{listing}."
            )
        wanted = given.get("model")
        try:
            if isinstance(wanted, str) and wanted.strip() and wanted.strip() != "inherit":
                model_id = resolve_model(wanted).id
            else:
                model_id = kind.model or self.parent_model
        except UsageError as error:
            return f"Invalid input for Agent: {error.message}"
        if not same_provider(model_id, self.parent_model):
            # The endpoint (and the key sent to it) is the user's choice, not the model's.
            return (
                f"Invalid input for Agent: model {model_id!r} is served "
                f"by another provider than this conversation's ({self.parent_model}); an agent "
                "stays on the session's provider. Leave 'model' out, or name a model of the "
                "same provider. Nothing was started."
            )
        return kind, model_id, given["prompt"]


# TaskOutput's wait for the end when the call gives no timeout: as for a background command.
DEFAULT_WAIT_MS = 30_000


def _error(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(tool_use_id=call.id, content=text, is_error=True)


def agent_types(
    user: tuple[AgentType, ...], denied: frozenset[str] = frozenset()
) -> dict[str, AgentType]:
    """The built-in type and the user's, by name (a user's type may replace the built-in),
    without those a deny rule names (``Agent(Explore)``): never offered, never started."""
    types = {GENERAL_PURPOSE.name: GENERAL_PURPOSE}
    types.update((agent.name, agent) for agent in user)
    return {name: kind for name, kind in types.items() if name not in denied}
