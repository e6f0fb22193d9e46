"""One prompt, turn by turn: stream the model's answer, run its tool calls, send the results.

The conductor owns the conversation. Everything it hears from the model client and the tool
executor is passed on to the UI as it arrives, and the conversation is made valid again before
the conductor lets go of a cancelled prompt (see ``Conversation.close_interrupted``).

It handles its messages one at a time, in order (``InOrder``), but for the questions about
background agents, answered at once even while a prompt runs (``/tasks`` is asked then).
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

import anyio
import msgspec

from actors.conductor import compaction
from actors.conductor.agents import Subagents, Tally, agent_types, describe_faults
from actors.conductor.caching import with_breakpoints
from actors.conductor.calls import ConductorCalls, Display, TurnCalls
from actors.conductor.conversation import Conversation
from actors.conductor.hooks import MAX_STOP_BLOCKS, ConversationHooks, context_note
from actors.conductor.in_order import InOrder
from actors.conductor.interrupt import INTERRUPT_WAIT
from actors.conductor.keeper import SessionKeeper
from actors.conductor.ledger import merge as merge_ledger
from actors.conductor.mcp_tools import McpOffer
from actors.conductor.partial import PartialMessage
from actors.conductor.prompt import PLAN_MODE_NOTE, agent_context, system_prompt
from actors.errors import LegatoError, SessionError
from actors.models import cost_usd, resolve_model, speed_notice
from actors.protocol import (
    BlockFinished,
    ClearConversation,
    Compact,
    ConductorMsg,
    ContextFill,
    GetContext,
    GetContextFill,
    GetConversation,
    GetUsage,
    ListAgents,
    ListBackgroundAgents,
    ListTools,
    Message,
    MessageFinished,
    ModelRequest,
    Notice,
    Retrying,
    RunPrompt,
    SetFast,
    SetModel,
    Show,
    StopBackgroundAgent,
    StreamMessage,
    TakeBackgroundNews,
    TextDelta,
    ToolCall,
    ToolResult,
    TurnOutcome,
    Undo,
    Usage,
)
from actors.tool_routes import AGENT_TOOL, TASK_TOOLS, TOOL_SEARCH, offered_tools
from runtime import Actor, KernelError, release_collector

if TYPE_CHECKING:
    from actors.protocol import (
        AgentId,
        AgentTypes,
        Block,
        HookRunnerMsg,
        McpClientMsg,
        MemoryStoreMsg,
        ModelClientMsg,
        ModelEvent,
        ProjectContext,
        SessionStoreMsg,
        SkillLibraryMsg,
        ToolExecutorMsg,
        UiMsg,
    )
    from runtime import Address, Reply

DEFAULT_MAX_TOKENS = 16_384
SESSION_END_WAIT = 5.0  # seconds the SessionEnd hooks may hold up the session's end


# Answered at once, beside a running prompt (what a program driving the session asks while it
# runs: the context's fill, the usage so far, another model from the next request on); the rest
# wait their turn, so the conversation never has two writers.
_AT_ONCE = (ListBackgroundAgents, StopBackgroundAgent, GetContextFill, GetUsage, SetModel)


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
    ) -> None:
        super().__init__()
        self._memory = memory
        self._model = model
        self._tools = tools
        self._ui = ui
        self._skills = skills
        self._agents: Subagents | None = None  # the Agent tool, once started
        self._mcp_client = mcp
        self._mcp: McpOffer | None = None  # once started, when MCP servers are configured
        self._hooks_runner = hooks
        self._hooks: ConversationHooks | None = None  # once started, when hooks are configured
        self._session_source: str | None = "startup"  # SessionStart's, until it has run
        self._hook_context: list[str] = []  # hooks' context, for the next prompt
        self.session_id = session_id
        self._headless = headless
        self._max_tokens = max_tokens
        self.conversation = Conversation()
        self._usage = Usage()  # every request's, for the session's whole life (GetUsage)
        self._tool_specs: list[Block] = []  # the executor's (ListTools)
        self._agent_tool: Block | None = None  # Agent, when the session offers it
        self._system = ""
        self._model_id = ""
        self._fast = False  # /fast: only models with fast_mode run faster (actors/models.py)
        self._planning = False
        # The session file, the ledger and the checkpoints; the context's size.
        self._keeper = SessionKeeper(sessions, tools)
        self.context_window = context_window  # None: the model's own (actors/models.py)
        self._context_tokens = 0  # what the latest answer measured, or an estimate
        self._compacted_at = -1  # the conversation's length after the latest compaction
        self.prompt_caching = True  # cache_control breakpoints (benchmarks turn them off)
        # A call of this session asked for a background command: from then on, each turn asks
        # the executor which have ended (a session without any asks nothing).
        self._background = False
        self._in_order = InOrder()

    async def on_start(self) -> None:
        context: ProjectContext = await self._memory.ask(GetContext())
        self._model_id = context.model
        self._system = system_prompt(context, headless=self._headless)
        tools = await self._tools.ask(ListTools())
        self._tool_specs = tools.definitions
        self._keeper.read_only = tools.read_only
        if self._mcp_client is not None and context.mcp_servers:
            self._mcp = McpOffer(self._mcp_client, window=self._window())
        events = frozenset(group.event for group in context.hooks)
        if self._hooks_runner is not None and events:
            self._hooks = ConversationHooks(self._hooks_runner, events, self._ui)
        await self._start_agents(context, tools.definitions)
        await self._resume()
        if self.conversation.messages:
            self._session_source = "resume"

    async def _start_agents(self, context: ProjectContext, specs: list[Block]) -> None:
        user: AgentTypes | None = None
        if self._skills is not None:
            user = await self._skills.ask(ListAgents())
        if user is not None and user.faults:
            await self._ui.tell(Show(Notice("warning", describe_faults(user.faults))))
        self._agents = Subagents(
            model=self._model,
            tools=self._tools,
            ui=self._ui,
            keeper=self._keeper,
            settings=context.settings.agents,
            types=agent_types(user.types if user is not None else ()),
            tool_specs=specs,
            environment=agent_context(context),
            max_tokens=self._max_tokens,
            on_usage=self._used,
            mcp_specs=self._mcp_specs_for_agents,
            hooks=self._hooks if self._hooks and "SubagentStop" in self._hooks.events else None,
            refused=frozenset(
                name
                for name in (AGENT_TOOL, *TASK_TOOLS)
                if (context.offered_tools is not None and name not in context.offered_tools)
                or name in context.refused_tools
            ),
        )
        if self._agents.enabled and AGENT_TOOL not in self._agents.refused:
            self._agent_tool = self._agents.definition()
        await self.tasks.start(self._agents.background.serve)

    def close_inbox(self) -> None:
        # The session is ending: background agents are the one work of the conductor that
        # would not end by itself, and the actor ends only when all its tasks have.
        super().close_inbox()
        if self._agents is not None:
            self._agents.background.close()

    async def on_stop(self) -> None:
        if self._agents is not None:  # also when the actor ends without its inbox closed
            self._agents.background.close()
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

    def _mcp_specs_for_agents(self) -> list[Block]:
        if self._mcp is None:
            return []
        return [spec for spec in self._mcp.specs() if spec["name"] != TOOL_SEARCH]

    def _offered_tools(self, *, with_mcp: bool = True) -> list[Block]:
        """The main conversation's tools: the executor's and Agent, fixed at start, then the
        MCP tools offered now (``with_mcp``)."""
        mcp = self._mcp.specs() if with_mcp and self._mcp is not None else ()
        return offered_tools(self._tool_specs, agent=self._agent_tool, mcp=mcp)

    def _used(self, model: str, usage: Usage) -> None:
        """A subagent's answer: counted in the session's usage."""
        self._usage = self._usage + usage
        self._keeper.count(usage, model)

    async def handle(self, msg: ConductorMsg, reply: Reply) -> None:
        match msg:
            case ListBackgroundAgents():
                listing = () if self._agents is None else self._agents.background.listing()
                await reply.answer(msg, listing)
            case StopBackgroundAgent(id=job_id):
                await reply.answer(msg, await self._stop_agent(job_id))
            case GetContextFill():
                await reply.answer(msg, ContextFill(self._context_tokens, self._window()))
            case GetUsage():
                await reply.answer(msg, self._usage)
            case SetModel(model=name):
                self._model_id = resolve_model(name).id  # UsageError goes back to the caller
                await reply.answer(msg, self._model_id)
            case _:
                async with self._in_order.turn(msg):
                    await self._handle_in_order(msg, reply)

    async def _stop_agent(self, job_id: AgentId) -> str:
        if self._agents is None:
            return f"No background agent {str(job_id)!r}: this session runs no agents."
        background = self._agents.background
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
                    await self._save_after_prompt()
                await reply.answer(msg, outcome)
            case SetFast(fast=fast):
                self._fast = fast
                await reply.answer(msg, self._fast_now())
            case ClearConversation():
                self.conversation = Conversation()
                self._context_tokens = 0
                self._session_source = "clear"
                await self._keeper.clear()
                await reply.answer(msg, None)
            case Undo():
                await reply.answer(msg, await self._undo())
            case Compact():
                await reply.answer(msg, await self._compact(None, forced=True))
            case GetConversation():
                await reply.answer(msg, list(self.conversation.messages))

    async def _prompt_hooks(self, text: str) -> str | None:
        """SessionStart's hooks (once, and after /clear), then UserPromptSubmit's: why the
        prompt is refused, or None; their context is kept for the prompt."""
        assert self._hooks is not None
        if self._session_source is not None:
            started = await self._hooks.run("SessionStart", source=self._session_source)
            self._session_source = None
            if started.context:
                self._hook_context.append(context_note("SessionStart", started.context))
        submitted = await self._hooks.run("UserPromptSubmit", prompt=text)
        if submitted.blocked:
            return f"A UserPromptSubmit hook refused the prompt: {submitted.reason or 'no reason'}"
        if submitted.stop:  # "continue": false
            return f"A UserPromptSubmit hook stopped: {submitted.stop_reason or 'no reason given'}"
        if submitted.context:
            self._hook_context.append(context_note("UserPromptSubmit", submitted.context))
        return None

    async def _stop_hooks_go_on(self, run: _PromptRun) -> bool:
        """Whether a Stop hook makes the model go on (told why), at most MAX_STOP_BLOCKS times
        in a row."""
        if self._hooks is None or run.stop_blocks >= MAX_STOP_BLOCKS:
            return False
        outcome = await self._hooks.run("Stop", stop_hook_active=run.stop_blocks > 0)
        if not outcome.blocked:
            return False
        run.stop_blocks += 1
        reason = outcome.reason or "no reason given"
        self.conversation.add_user_text(f"(A Stop hook asks you to go on: {reason})")
        return True

    def _fast_now(self) -> bool:
        return self._fast and resolve_model(self._model_id).fast_mode

    async def _run(self, prompt: RunPrompt) -> TurnOutcome:
        run = _PromptRun(started=time.monotonic())
        self._planning = prompt.plan
        if self._hooks is not None:
            refused = await self._prompt_hooks(prompt.text)
            if refused is not None:
                return self._outcome(run, "error_during_execution", SessionError(refused))
        self._keeper.start_prompt(prompt.text)
        self.conversation.add_user_text(prompt.text)
        for note in self._hook_context:
            self.conversation.add_user_text(note)
        self._hook_context = []
        await self._keeper.save(self.conversation.messages)
        try:
            while True:
                if run.turns >= prompt.max_turns:
                    return self._outcome(
                        run,
                        "error_max_turns",
                        SessionError(
                            f"stopped after {_turns(prompt.max_turns)} (--max-turns)",
                        ),
                    )
                run.turns += 1
                finished, ran = await self._turn(run)
                if run.stop_reason is not None:
                    # The turn's results are in the conversation: the model reads them next time.
                    note = f"A hook stopped the work: {run.stop_reason}"
                    await self._ui.tell(Show(Notice("warning", note)))
                    return self._outcome(run, "success")
                if finished.stop_reason == "pause_turn":
                    continue  # a server tool is mid-loop: resending lets it go on
                if finished.stop_reason != "tool_use" or not ran:
                    if await self._stop_hooks_go_on(run):
                        continue
                    return self._outcome(run, "success")
        except LegatoError as error:
            # An API failure ends the prompt but not the session: the caller gets an outcome
            # it can report (and, interactively, the next prompt works).
            return self._outcome(run, "error_during_execution", error)
        finally:
            # Runs on cancellation too, synchronously, so it cannot itself be cancelled.
            if run.partial is not None or self.conversation.pending_tool_uses():
                kept = run.partial.content() if run.partial is not None else []
                self.conversation.close_interrupted(kept, run.results)

    async def _turn(self, run: _PromptRun) -> tuple[MessageFinished, bool]:
        """Stream one answer and run its tool calls, each from the moment its block is complete
        (``calls.py``); returns the answer, and whether it had calls, once all have reported."""
        if (
            compaction.needs_compaction(self._context_tokens, self._window())
            # Not again before the conversation has grown: a kept turn too large to fit
            # would otherwise be summarised over and over.
            and len(self.conversation.messages) != self._compacted_at
        ):
            await self._compact(run, forced=False)
        await self._background_news()
        if self._mcp is not None:
            self._mcp.window = self._window()  # /model may have changed it
            with contextlib.suppress(KernelError):  # the client is gone: the session is ending
                await self._mcp.refresh()
        request = self._request()
        run.partial = PartialMessage()
        run.results = {}
        display = Display(self._ui)
        finished: MessageFinished | None = None
        failure: Exception | None = None
        calls = TurnCalls(
            tools=self._tools,
            keeper=self._keeper,
            display=display,
            record=lambda call, result: _record(run, call, result),
            agents=ConductorCalls(
                None
                if self._agents is None
                else self._agents.runner(
                    depth=0, parent_model=self._model_id, tally=run.agents, planning=self._planning
                ),
                self._mcp,
            ),
        )
        try:
            async with anyio.create_task_group() as calls.tasks:
                calls.tasks.start_soon(calls.send)
                api_started = time.monotonic()
                try:
                    async with self._model.stream(StreamMessage(request=request)) as events:
                        async for event in events:
                            await display.show(event)
                            finished = await self._on_event(run, request, calls, event) or finished
                            if finished is not None and event is finished:
                                await display.release()
                except Exception as exc:  # raised below, once the calls that started are done
                    failure = exc
                finally:
                    run.api_seconds += time.monotonic() - api_started
                await calls.all_sent()
                if finished is None:
                    await calls.withdraw_waiting()
                    cut = _cut_short(run, calls)
                    if cut is not None:
                        await display.show(cut)
                    await display.release()
        finally:
            # Also when the turn is cut or interrupted: a command it started still runs.
            self._background = self._background or any(map(_starts_background, calls.started))
            if run.partial is not None:
                # A complete call the cut came too soon to send: it never started.
                sent = {c.id for c in calls.started}
                for call in run.partial.calls():
                    if call.id not in sent:
                        run.results.setdefault(call.id, _never_started(call))
            if not display.released:  # cancelled: what is held, as far as it fits
                cut = _cut_short(run, calls) if finished is None else None
                if cut is not None:
                    display.show_nowait(cut)
                display.release_nowait()
            # Start-up is over: from here on a long session makes garbage in cycles.
            release_collector()
        if failure is not None:
            raise failure
        if finished is None:
            raise SessionError("the model's answer ended without its final event")
        if calls.failures or len(run.results) < len(calls.started):
            missing = [c.id for c in calls.started if c.id not in run.results]
            raise SessionError(
                f"the tool executor gave no result for {', '.join(missing)}"
            ) from next(iter(calls.failures), None)
        if calls.started:
            # In the calls' order, whatever order they finished in.
            self.conversation.add_tool_results([run.results[c.id] for c in calls.in_order()])
            run.results = {}
            await self._keeper.save(self.conversation.messages)
        return finished, bool(calls.started)

    async def _on_event(
        self, run: _PromptRun, request: ModelRequest, calls: TurnCalls, event: ModelEvent
    ) -> MessageFinished | None:
        """Keep track of one event of the answer; returns the answer once it is whole."""
        assert run.partial is not None
        match event:
            case TextDelta(index=index, text=text):
                run.partial.add_text(index, text)
            case BlockFinished(index=index, block=block):
                call = run.partial.finish(index, block)
                if call is not None:
                    calls.start(call)
            case Retrying():
                if calls.queued:
                    # The client retries only before any content; a retry now would run the
                    # calls again. Never silently: the prompt ends here.
                    raise SessionError("the model client retried an answer whose calls had run")
                run.partial = PartialMessage()
            case MessageFinished(message=message):
                # A call the provider did not finish block by block starts now, in order.
                begun = {c.id for c in calls.queued}
                for call in _tool_calls(event):
                    if call.id not in begun:
                        calls.start(call)
                run.partial = None
                self.conversation.add_assistant(message)
                await self._finished(run, request, event)
                return event
        return None

    async def _finished(
        self, run: _PromptRun, request: ModelRequest, finished: MessageFinished
    ) -> None:
        self._usage = self._usage + finished.usage
        self._keeper.count(finished.usage, request.model)
        run.usage = run.usage + finished.usage
        run.last_text = _text_of(finished.message.content) or run.last_text
        # Fast mode may silently run at standard speed: usage.speed says so.
        slow = speed_notice(
            resolve_model(request.model), asked_fast=request.speed == "fast", usage=finished.usage
        )
        if slow is not None:
            await self._ui.tell(Show(Notice("warning", slow)))
        self._context_tokens = finished.usage.context_tokens
        await self._keeper.save(self.conversation.messages)

    async def _background_news(self) -> None:
        """Background commands and agents that ended since the model last heard: it is told
        here, once, in the user content of the request about to go (each is given once)."""
        news: tuple[str, ...] = ()
        if self._background:
            news = await self._tools.ask(TakeBackgroundNews())
        if self._agents is not None:
            news = (*news, *self._agents.background.news())
        if news:
            self.conversation.add_user_text("(Note: " + " ".join(news) + ")")

    def _request(self) -> ModelRequest:
        request = ModelRequest(
            model=self._model_id,
            max_tokens=self._max_tokens,
            messages=list(self.conversation.messages),
            system=f"{self._system}\n\n{PLAN_MODE_NOTE}" if self._planning else self._system,
            tools=self._offered_tools(),
            speed="fast" if self._fast_now() else None,
        )
        return with_breakpoints(request) if self.prompt_caching else request

    # ── saving, resuming, undo, compaction ───────────────────────────────────────────────

    async def _resume(self) -> None:
        messages = await self._keeper.restore()
        if not messages:
            return
        self.conversation.messages = messages
        # Killed while tools ran: their calls get the interrupted notice, as after Ctrl-C.
        if self.conversation.pending_tool_uses():
            self.conversation.close_interrupted([], {})
            await self._keeper.save(self.conversation.messages)
        self._context_tokens = self._estimate_context()

    async def _save_after_prompt(self) -> None:
        # An interrupted prompt's conversation was just closed: save that too. Shielded and
        # bounded like every cleanup; a session store already stopped has nothing to save to.
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(INTERRUPT_WAIT),
            contextlib.suppress(KernelError),
        ):
            await self._keeper.save(self.conversation.messages)

    def _estimate_context(self) -> int:
        """Until an answer measures it: the conversation, the tools and the system prompt."""
        tools = self._offered_tools(with_mcp=False)
        fixed = len(msgspec.json.encode(tools)) + len(self._system.encode())
        return compaction.estimate_tokens(self.conversation.messages) + fixed // 4

    def _window(self) -> int:
        if self.context_window is not None:
            return self.context_window
        return resolve_model(self._model_id).context_window

    async def _undo(self) -> str:
        text, undone = await self._keeper.undo()
        if undone and self.conversation.messages:
            # The conversation still says the files were changed: tell the model otherwise.
            # A user message now goes out with the next prompt (the two are merged).
            self.conversation.add_user_text(
                f"(Note: the user ran /undo, which put back the files the previous prompt "
                f"changed:\n{text})"
            )
            await self._keeper.save(self.conversation.messages)
        return text

    async def _compact(self, run: _PromptRun | None, *, forced: bool) -> str:
        """Replace the older turns by a summary, the ledger beside it (``/compact`` or full)."""
        messages = list(self.conversation.messages)
        # On request, only the latest exchange stays as it is; when full, a little more.
        cut = compaction.split_point(messages, keep=2 if forced else compaction.KEEP_MESSAGES)
        if cut is None:
            return "Nothing to compact yet: the conversation is too short."
        before = self._context_tokens
        reason = "on request" if forced else "the context window is nearly full"
        if self._hooks is not None:
            await self._hooks.run(
                "PreCompact", trigger="manual" if forced else "auto", custom_instructions=""
            )
        await self._ui.tell(Show(Notice("info", f"Compacting the conversation ({reason})…")))
        ledger = self._keeper.ledger
        request = compaction.summary_request(self._request(), messages[:cut], ledger)
        summary, usage = await compaction.summarise(self._model, request)
        self._usage = self._usage + usage
        self._keeper.count(usage, request.model)
        if run is not None:
            run.usage = run.usage + usage
        await self._keeper.save_ledger(merge_ledger(ledger, summary.decisions, summary.open_steps))
        kept = messages[cut:]
        self.conversation.messages = compaction.compacted(summary.text, self._keeper.ledger, kept)
        await self._keeper.save(self.conversation.messages)
        self._context_tokens = self._estimate_context()
        self._compacted_at = len(self.conversation.messages)
        text = (
            f"Compacted {cut} earlier message{'s' if cut > 1 else ''} into a summary; the task "
            "ledger is kept. "
            f"Context: {ContextFill(before, self._window()).describe()} before, about "
            f"{ContextFill(self._context_tokens, self._window()).describe()} now."
        )
        await self._ui.tell(Show(Notice("info", text)))
        return text

    def _outcome(
        self, run: _PromptRun, subtype: str, error: Exception | None = None
    ) -> TurnOutcome:
        model = resolve_model(self._model_id)
        own = cost_usd(model, run.usage, fast=self._fast_now())
        agents = run.agents.cost
        return TurnOutcome(
            result=run.last_text,
            is_error=subtype != "success",
            subtype=subtype,  # type: ignore[arg-type]
            num_turns=run.turns,
            duration_ms=round((time.monotonic() - run.started) * 1000),
            duration_api_ms=round(run.api_seconds * 1000),
            # The subagents' answers count with the prompt's, each at its own model's price.
            usage=run.usage + run.agents.usage,
            total_cost_usd=None if own is None or agents is None else own + agents,
            session_id=self.session_id,
            permission_denials=(*run.denials, *run.agents.denials),
            error=_describe(error),
        )


class _PromptRun:
    """The bookkeeping of one prompt while it runs."""

    def __init__(self, *, started: float) -> None:
        self.started = started
        self.turns = 0
        self.api_seconds = 0.0
        self.usage = Usage()
        self.last_text = ""
        self.partial: PartialMessage | None = None  # a message still streaming
        self.results: dict[str, ToolResult] = {}  # finished calls of the turn still running
        self.denials: list[Block] = []
        self.agents = Tally()  # what its subagents used
        self.stop_blocks = 0  # Stop hooks that made the model go on, in a row
        self.stop_reason: str | None = None  # a tool hook said "continue": false


def _record(run: _PromptRun, call: ToolCall, result: ToolResult) -> None:
    run.results[result.tool_use_id] = result
    if result.stop_reason is not None:
        run.stop_reason = result.stop_reason
    if result.denied:
        run.denials.append(
            {"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.input}
        )


def _starts_background(call: ToolCall) -> bool:
    return call.name == "Bash" and call.input.get("run_in_background") is True


def _never_started(call: ToolCall) -> ToolResult:
    return ToolResult(
        tool_use_id=call.id,
        content="Interrupted before it started; nothing was done.",
        is_error=True,
    )


def _cut_short(run: _PromptRun, calls: TurnCalls) -> MessageFinished | None:
    """An answer cut short after some of its calls started, as the conversation keeps it:
    shown like a finished answer, so that each call's result is shown after its call."""
    kept = run.partial.content() if run.partial is not None else []
    if not calls.started or not kept:
        return None
    return MessageFinished(Message("assistant", kept), None, Usage())


def _tool_calls(finished: MessageFinished) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(block["id"], block["name"], dict(block.get("input") or {}))
        for block in finished.message.content
        if block.get("type") == "tool_use"
    )


def _text_of(content: list[Block]) -> str:
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def _describe(error: Exception | None) -> str | None:
    if error is None:
        return None
    if isinstance(error, LegatoError):
        return error.describe()
    return str(error)


def _turns(count: int) -> str:
    return f"{count} turn" if count == 1 else f"{count} turns"
