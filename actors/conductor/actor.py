"""One prompt, turn by turn: stream the model's answer, run its tool calls, send the results.

The conductor owns the conversation. The turns are run by ``turn.py``, as a subagent's are;
what is the main conversation's is here: everything heard from the model client and the tool
executor is passed on to the UI as it arrives, the conversation is saved as it grows and
compacted when nearly full, and the prompt's outcome is counted. The conversation is made valid
again before the conductor lets go of a cancelled prompt (see ``Conversation.close_interrupted``).

It handles its messages one at a time, in order (``InOrder``), but for the questions about
background agents, answered at once even while a prompt runs (``/tasks`` is asked then).

What it keeps for the session is kept by parts it holds: the prompt while it runs
(``prompt_run.PromptRun``, the main conversation's seat at the turns), the model and how it is
asked (``model_choice.ModelChoice``, with the way on to ``--fallback-model``), the spend under
``--max-budget-usd`` (``budget.Spending``), the tools offered beside the executor's
(``offers.Offers``), the session file and checkpoints (``keeper.SessionKeeper``),
``/rewind`` (``rewind.Rewinder``), the conversation itself with how full it leaves the
context window, resumed, undone, rewound and compacted (``main_conversation.MainConversation``),
and each request a turn sends, built, held to the budget and counted
(``main_requests.MainRequests``).
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

import anyio
import msgspec

from actors import telemetry
from actors.conductor import structured
from actors.conductor.agents import Subagents, agent_types
from actors.conductor.budget import (
    BudgetReached,
    Spending,
    unpriced,
)
from actors.conductor.guided import nested_guides
from actors.conductor.hooks import ConversationHooks, PromptHooks
from actors.conductor.in_order import InOrder
from actors.conductor.keeper import SessionKeeper
from actors.conductor.main_conversation import MainConversation
from actors.conductor.main_requests import MainRequests
from actors.conductor.mcp_tools import McpOffer
from actors.conductor.model_choice import ModelChoice
from actors.conductor.offers import Offers
from actors.conductor.prompt import agent_context, system_prompt
from actors.conductor.prompt_run import PromptRun
from actors.conductor.rewind import Rewinder, still_running
from actors.conductor.structured import StructuredOutput
from actors.conductor.turn import BackgroundCommands, Dialogue, run_dialogue
from actors.errors import LegatoError, SessionError, UsageError
from actors.models import resolve_model
from actors.protocol import (
    AddDirectory,
    AddNote,
    ClearConversation,
    Compact,
    ConductorMsg,
    GetContext,
    GetContextFill,
    GetConversation,
    GetUsage,
    ListAgents,
    ListBackgroundAgents,
    ListOfferedTools,
    ListRewindPoints,
    ListTools,
    Notice,
    Rewind,
    RunPrompt,
    SetEffort,
    SetFast,
    SetModel,
    Show,
    StopBackgroundAgent,
    TurnOutcome,
    Undo,
    UndoRewind,
    Usage,
)
from actors.settings.rule_check import denied_agents, removed_mcp_tools
from actors.tool_names import (
    AGENT_TOOL,
    STRUCTURED_OUTPUT,
    TASK_TOOLS,
)
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.conversation import Conversation
    from actors.conductor.turn import Ending
    from actors.instructions import NestedGuides
    from actors.protocol import (
        AgentId,
        AgentTypes,
        Block,
        HookRunnerMsg,
        McpClientMsg,
        MemoryStoreMsg,
        ModelClientMsg,
        PermissionBrokerMsg,
        ProjectContext,
        RewindReport,
        SessionStoreMsg,
        SkillLibraryMsg,
        ToolExecutorMsg,
        UiMsg,
    )
    from actors.reasoning import Reasoning
    from runtime import Address, Reply

DEFAULT_MAX_TOKENS = 16_384
SESSION_END_WAIT = 5.0  # seconds the SessionEnd hooks may hold up the session's end


# Answered at once, beside a running prompt (what a program driving the session asks while it
# runs: the context's fill, the usage so far, another model from the next request on); the rest
# wait their turn, so the conversation never has two writers.
_AT_ONCE = (
    ListBackgroundAgents,
    StopBackgroundAgent,
    GetContextFill,
    GetUsage,
    SetModel,
    SetEffort,
    ListOfferedTools,
)


class Conductor(Actor[ConductorMsg]):
    name = "conductor"
    concurrent = True  # see the module's docstring: the order is kept by ``InOrder``

    def __init__(
        self,
        *,
        memory: Address[MemoryStoreMsg],
        model: Address[ModelClientMsg],
        tools: Address[ToolExecutorMsg],
        ui: Address[UiMsg],
        session_id: str,
        headless: bool,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        sessions: Address[SessionStoreMsg] | None = None,
        context_window: int | None = None,  # tests: a small window compacts sooner
        skills: Address[SkillLibraryMsg] | None = None,  # the user's agent types; None: built-in
        mcp: Address[McpClientMsg] | None = None,  # the MCP servers' tools; None: none offered
        hooks: Address[HookRunnerMsg] | None = None,  # runs the user's hooks; None: none run
        # Told what a loaded skill of the user's own may read (its folder); None: nothing.
        broker: Address[PermissionBrokerMsg] | None = None,
        # The model was given for this run (--model): it wins over a resumed /model choice.
        model_given: bool = False,
        # --effort and the thinking flags; None: the model's defaults (nothing is sent).
        reasoning: Reasoning | None = None,
        # --max-budget-usd: the most the session's prompts may spend together (budget.py).
        max_budget_usd: float | None = None,
        # --fallback-model, resolved: the model the session goes on with once its own is
        # overloaded; never saved as the session's model, so a resumed session starts on its own.
        fallback_model: str | None = None,
    ) -> None:
        super().__init__()
        self._choice = ModelChoice(
            reasoning=reasoning,
            given=model_given,
            fallback=fallback_model,
            max_tokens=max_tokens,
        )
        self._spending = Spending(max_budget_usd)
        self._memory = memory
        self._model = model
        self._tools = tools
        self._ui = ui
        self._skills = skills
        self._broker = broker
        self._mcp_client = mcp
        self._hooks_runner = hooks
        self._hooks: ConversationHooks | None = None  # once started, when hooks are configured
        self._prompt_hooks = PromptHooks()
        self.session_id = session_id
        self._headless = headless
        self._usage = Usage()  # every request's, for the session's whole life (GetUsage)
        self._offers = Offers()  # the tools beside the executor's, and who answers them
        self._project: ProjectContext | None = None  # what the system prompt is made from
        # The session file, the ledger and the checkpoints.
        self._keeper = SessionKeeper(sessions, tools)
        self._rewinder = Rewinder(self._keeper, tools)
        # The conversation, its instruction files and the context's size.
        self._main = MainConversation(
            keeper=self._keeper,
            rewinder=self._rewinder,
            offers=self._offers,
            choice=self._choice,
            model=model,
            ui=ui,
            context_window=context_window,
        )
        self._background = BackgroundCommands()  # shared with the subagents
        # Each request built, held to the budget and counted.
        self._requests = MainRequests(
            main=self._main,
            choice=self._choice,
            offers=self._offers,
            spending=self._spending,
            keeper=self._keeper,
            model=model,
            tools=tools,
            ui=ui,
            background=self._background,
            used=self._used,
        )
        self._in_order = InOrder()
        # How a subagent gets its own sub-folders' instruction files (guided.py).
        self._new_guides: Callable[[], NestedGuides] | None = None

    @property
    def conversation(self) -> Conversation:
        """The main conversation, as ``MainConversation`` keeps it."""
        return self._main.conversation

    @property
    def context_window(self) -> int | None:
        """The window compaction aims at; None: the model's own (tests set a small one)."""
        return self._main.context_window

    @context_window.setter
    def context_window(self, window: int | None) -> None:
        self._main.context_window = window

    @property
    def prompt_caching(self) -> bool:
        """Whether requests carry cache_control breakpoints (benchmarks turn them off)."""
        return self._requests.prompt_caching

    @prompt_caching.setter
    def prompt_caching(self, caching: bool) -> None:
        self._requests.prompt_caching = caching

    async def on_start(self) -> None:
        context: ProjectContext = await self._memory.ask(GetContext())
        if telemetry.current is not None:
            telemetry.current.session_started(self.session_id)
        self._choice.start(context)
        self._project = context
        self._main.system = system_prompt(context, headless=self._headless)
        # The main conversation's, for the whole session; each subagent gets its own.
        self._new_guides = nested_guides(context)
        self._main.guides = self._new_guides()
        tools = await self._tools.ask(ListTools())
        self._offers.tool_specs = tools.definitions
        self._keeper.read_only = tools.read_only
        if self._mcp_client is not None and context.mcp_servers:
            self._offers.mcp = McpOffer(
                self._mcp_client,
                window=self._main.window(),
                removed=removed_mcp_tools(context.permission_rules),
            )
        events = frozenset(group.event for group in context.hooks)
        if self._hooks_runner is not None and events:
            self._hooks = ConversationHooks(self._hooks_runner, events, self._ui)
            self._prompt_hooks.hooks = self._hooks
            self._requests.hooks = self._hooks
        await self._start_agents(context, tools.definitions)
        await self._offers.offer_skills(context, self._skills, self._broker)
        await self._offers.offer_search(
            context,
            model=self._model,
            broker=self._broker,
            ui=self._ui,
            model_id=lambda: self._choice.model_id,
            on_usage=self._used,
        )
        await self._main.resume()
        if self.conversation.messages:
            self._prompt_hooks.source = "resume"
        self._choice.check_reasoning()
        self._choice.check_fallback()

    async def _start_agents(self, context: ProjectContext, specs: list[Block]) -> None:
        user: AgentTypes | None = None
        if self._skills is not None:
            user = await self._skills.ask(ListAgents())
        agents = Subagents(
            model=self._model,
            tools=self._tools,
            ui=self._ui,
            keeper=self._keeper,
            settings=context.settings.agents,
            types=agent_types(
                user.types if user is not None else (), denied_agents(context.permission_rules)
            ),
            tool_specs=specs,
            environment=agent_context(context),
            guides=self._new_guides,
            max_tokens=self._choice.max_tokens,
            on_usage=self._used,
            mcp_specs=self._offers.mcp_specs_for_agents,
            commands=self._background,
            hooks=self._hooks if self._hooks and "SubagentStop" in self._hooks.events else None,
            refused=frozenset(
                name
                for name in (AGENT_TOOL, *TASK_TOOLS)
                if (context.offered_tools is not None and name not in context.offered_tools)
                or name in context.refused_tools
            ),
        )
        if agents.enabled and agents.types and AGENT_TOOL not in agents.refused:
            self._offers.agent_tool = agents.definition()
        self._requests.agents = agents  # the one holder: the turn's calls run them
        await self.tasks.start(agents.background.serve)

    def close_inbox(self) -> None:
        # The session is ending: background agents are the one work of the conductor that
        # would not end by itself, and the actor ends only when all its tasks have.
        super().close_inbox()
        if self._requests.agents is not None:
            self._requests.agents.background.close()

    async def on_stop(self) -> None:
        if self._requests.agents is not None:  # also when the actor ends without its inbox closed
            self._requests.agents.background.close()
        if self._hooks is not None and "SessionEnd" in self._hooks.events:
            # Bounded: a hook must not hold up the end (its tree is killed when cut short).
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(SESSION_END_WAIT),
                contextlib.suppress(KernelError),
            ):
                await self._hooks.run("SessionEnd", reason="other")

    def arrived(self, msg: ConductorMsg) -> None:
        if not isinstance(msg, _AT_ONCE):
            self._in_order.arrived(msg)

    def _used(self, model: str, usage: Usage) -> None:
        """A subagent's answer: counted in the session's usage."""
        self._usage = self._usage + usage
        self._keeper.count(usage, model)

    async def handle(self, msg: ConductorMsg, reply: Reply) -> None:
        match msg:
            case ListBackgroundAgents():
                agents = self._requests.agents
                listing = () if agents is None else agents.background.listing()
                await reply.answer(msg, listing)
            case StopBackgroundAgent(id=job_id):
                await reply.answer(msg, await self._stop_agent(job_id))
            case GetContextFill():
                await reply.answer(msg, self._main.fill(planning=self._requests.planning))
            case GetUsage():
                await reply.answer(msg, self._usage)
            case ListOfferedTools():
                names = (spec["name"] for spec in self._offers.offered(with_mcp=False))
                await reply.answer(msg, tuple(names))
            case SetModel(model=name):
                chosen = resolve_model(name)  # UsageError goes back to the caller
                if self._spending.budget is not None and chosen.prices is None:
                    # Refused now, the session going on with its model, rather than at the
                    # next prompt, which the budget would stop.
                    raise UsageError(unpriced(chosen))
                self._choice.model_id = chosen.id
                await self._keeper.choose_model(self._choice.model_id)
                await reply.answer(msg, self._choice.model_id)
            case SetEffort(level=level):
                await reply.answer(msg, self._choice.set_effort(level))
            case _:
                async with self._in_order.turn(msg):
                    await self._handle_in_order(msg, reply)

    async def _stop_agent(self, job_id: AgentId) -> str:
        if self._requests.agents is None:
            return f"No background agent {str(job_id)!r}: this session runs no agents."
        background = self._requests.agents.background
        job = background.find(job_id)
        if isinstance(job, str):
            return job
        if job.ended is not None:
            return f"Nothing to stop: {job.id} ({job.agent}: {job.description}): {job.status()}."
        await background.stop(job, by="the user")
        return f"Stopped {job.id} ({job.agent}: {job.description}): {job.status()}."

    async def _handle_in_order(self, msg: ConductorMsg, reply: Reply) -> None:
        match msg:
            case RunPrompt():
                try:
                    outcome = await self._run(msg)
                finally:
                    await self._main.save_after_prompt()
                await reply.answer(msg, outcome)
            case SetFast(fast=fast):
                self._choice.fast = fast
                await reply.answer(msg, self._choice.fast_now())
            case ClearConversation():
                self._prompt_hooks.source = "clear"
                await self._main.clear()
                await reply.answer(msg, None)
            case Undo() if self._keeper.rewind is not None:
                await reply.answer(msg, (await self._rewind(UndoRewind())).text)
            case AddNote(text=text):
                await self._main.add_note(text)
                await reply.answer(msg, None)
            case Undo():
                await reply.answer(msg, await self._main.undo())
            case Rewind() | UndoRewind():
                await reply.answer(msg, await self._rewind(msg))
            case ListRewindPoints():
                await reply.answer(msg, self._rewinder.points(self.conversation.messages))
            case Compact():
                await self._rewinder.settle()
                await reply.answer(msg, await self._requests.compact(None, forced=True))
            case GetConversation():
                await reply.answer(msg, list(self.conversation.messages))
            case AddDirectory(path=path) if self._project is not None:
                # Named with the others from the next request on, as --add-dir's are.
                folders = (*self._project.add_dirs, path)
                self._project = msgspec.structs.replace(self._project, add_dirs=folders)
                self._main.system = system_prompt(self._project, headless=self._headless)
                await reply.answer(msg, folders)

    async def _run(self, prompt: RunPrompt) -> TurnOutcome:
        run = PromptRun(
            model=self._model,
            hooks=self._hooks,
            dialogue=Dialogue(self.conversation, self._main.guides),
            ui=self._ui,
            background=self._background,
            started=time.monotonic(),
            next_request=self._requests.next_request,
            calls=self._requests.calls,
            answered=self._requests.answered,
            used=self._used,
            save=self._main.save,
        )
        if self._offers.search is not None:
            self._offers.search.new_prompt()
            if self._spending.budget is not None:  # a search's own requests are the run's too
                self._offers.search.check = lambda r: self._spending.reserve(
                    self._requests.spent_by(run), r
                )
                self._offers.search.settle = self._spending.settle
        schema = prompt.output_schema
        self._offers.structured = None if schema is None else StructuredOutput(schema)
        exported = telemetry.current
        if exported is not None:
            exported.prompt_started(len(prompt.typed if prompt.typed is not None else prompt.text))
        outcome = "interrupted"
        try:
            done = await self._run_prompt(run, prompt)
            outcome = done.subtype
            return done
        except Exception:
            outcome = "error"
            raise
        finally:
            self._offers.structured = None
            self._spending.prompt_ended(self._requests.spent_by(run))
            if exported is not None:
                took = round((time.monotonic() - run.started) * 1000)
                exported.prompt_finished(outcome, took)

    async def _run_prompt(self, run: PromptRun, prompt: RunPrompt) -> TurnOutcome:
        self._requests.planning = prompt.plan
        if (
            self._spending.budget is not None
            and resolve_model(self._choice.model_id).prices is None
        ):
            # The settings chose a model the flag's check could not see.
            return self._outcome(
                run,
                "error_during_execution",
                SessionError(unpriced(resolve_model(self._choice.model_id))),
            )
        refused = await self._prompt_hooks.refusal(prompt.text)
        if refused is not None:
            return self._outcome(run, "error_during_execution", SessionError(refused))
        before = list(self.conversation.messages)
        self.conversation.add_prompt(prompt.text, prompt.blocks)
        self._keeper.start_prompt(
            prompt.text,
            typed=prompt.typed,
            before=before,
            after=self.conversation.messages,
            message_id=prompt.message_id,
        )
        for note in self._prompt_hooks.take_context():
            self.conversation.add_user_text(note)
        await self._main.save()
        try:
            ending = await self._dialogue(run, prompt.max_turns)
            while (
                ending == "answered"
                and self._offers.structured
                and not self._offers.structured.exhausted
            ):
                # An answer without the value: the model is told to give it.
                self._offers.structured.missed([f"the answer did not call {STRUCTURED_OUTPUT}"])
                if self._offers.structured.exhausted:
                    break
                self.conversation.add_user_text(structured.NUDGE)
                ending = await self._dialogue(run, prompt.max_turns)
        except BudgetReached as error:
            return self._outcome(run, "error_max_budget_usd", error)
        except LegatoError as error:
            # An API failure ends the prompt but not the session: the caller gets an outcome
            # it can report (and, interactively, the next prompt works).
            return self._outcome(run, "error_during_execution", error)
        if ending == "max_turns":
            return self._outcome(
                run,
                "error_max_turns",
                SessionError(f"stopped after {_turns(prompt.max_turns)} (--max-turns)"),
            )
        shaped = self._offers.structured
        if shaped is not None and not shaped.given and (ending == "answered" or shaped.exhausted):
            # Off-schema values (or none) until the tries ran out: the last problems, in words.
            return self._outcome(
                run,
                "error_max_structured_output_retries",
                SessionError(
                    f"no answer valid against the output schema after "
                    f"{structured.MAX_RETRIES} tries: {'; '.join(shaped.errors)}"
                ),
            )
        if ending == "stopped" and run.dialogue.stop_reason == structured.ENDED:
            return self._outcome(run, "success")
        if ending == "stopped":
            note = f"A hook stopped the work: {run.dialogue.stop_reason}"
            await self._ui.tell(Show(Notice("warning", note)))
        return self._outcome(run, "success")

    async def _dialogue(self, run: PromptRun, max_turns: int) -> Ending:
        """The prompt's dialogue, gone on with on the fallback model (for the rest of the
        session) when the model is overloaded past the model client's retries."""
        while True:
            try:
                return await run_dialogue(run.dialogue, run, max_turns=max_turns)
            except LegatoError as error:
                if not await self._choice.fall_back(error, run.dialogue, self._ui):
                    raise

    async def _rewind(self, ask: Rewind | UndoRewind) -> RewindReport:
        """``/rewind`` and its undo, and what still runs in the background, which a rewind
        does not stop."""
        report = await self._main.rewind(ask)
        agents = () if self._requests.agents is None else self._requests.agents.background.listing()
        running = await still_running(self._tools, agents)
        if running:
            report = msgspec.structs.replace(report, text=f"{report.text}\n{running}")
        return report

    def _outcome(self, run: PromptRun, subtype: str, error: Exception | None = None) -> TurnOutcome:
        # The subagents' answers and the searches' count with the prompt's, each at its own
        # model's price.
        return run.outcome(
            subtype,
            error,
            searched=self._offers.searched(),
            total=self._requests.spent_by(run),
            session_id=self.session_id,
            structured=self._offers.structured.value
            if self._offers.structured is not None
            else None,
        )


def _turns(count: int) -> str:
    return f"{count} turn" if count == 1 else f"{count} turns"
