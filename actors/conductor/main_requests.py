"""The main conversation's requests: each built, held to the budget, and counted once answered.

What a turn of a prompt asks of the session (``prompt_run.PromptRun`` hands it on) is answered
here: the next request, with the conversation made ready for it (compacted when nearly full,
told what the background finished) and checked against ``--max-budget-usd``; the turn's tool
calls, the Agent tool's among them; and the answer counted, in the session's usage and the
prompt's cost. What one prompt has spent so far (``spent_by``) is reckoned here too, its
subagents' and its searches' with its own, each at its own model's price.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import anyio

from actors.conductor.budget import MAIN, Cached
from actors.conductor.caching import with_breakpoints
from actors.conductor.calls import TurnCalls
from actors.conductor.prompt import PLAN_MODE_NOTE
from actors.models import cost_usd, resolve_model, speed_notice
from actors.protocol import ModelRequest, Notice, Show, TakeBackgroundNews
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.agents import Subagents
    from actors.conductor.budget import Spending
    from actors.conductor.display import Display
    from actors.conductor.hooks import ConversationHooks
    from actors.conductor.keeper import SessionKeeper
    from actors.conductor.main_conversation import MainConversation
    from actors.conductor.model_choice import ModelChoice
    from actors.conductor.offers import Offers
    from actors.conductor.prompt_run import PromptRun
    from actors.conductor.turn import BackgroundCommands
    from actors.protocol import (
        MessageFinished,
        ModelClientMsg,
        ToolCall,
        ToolExecutorMsg,
        ToolResult,
        UiMsg,
        Usage,
    )
    from runtime import Address


class MainRequests:
    """The main conversation's requests, as the conductor's parts make them now."""

    def __init__(
        self,
        *,
        main: MainConversation,
        choice: ModelChoice,
        offers: Offers,
        spending: Spending,
        keeper: SessionKeeper,
        model: Address[ModelClientMsg],
        tools: Address[ToolExecutorMsg],
        ui: Address[UiMsg],
        background: BackgroundCommands,
        used: Callable[[str, Usage], None],  # an answer counted in the session's usage
    ) -> None:
        self._main = main
        self._choice = choice
        self._offers = offers
        self._spending = spending
        self._keeper = keeper
        self._model = model
        self._tools = tools
        self._ui = ui
        self._background = background
        self._used = used
        self.agents: Subagents | None = None  # the Agent tool, once started
        self.hooks: ConversationHooks | None = None  # once started, when hooks are configured
        self.planning = False  # the prompt's: plan mode's note goes with the system prompt
        self.prompt_caching = True  # cache_control breakpoints (benchmarks turn them off)

    def spent_by(self, run: PromptRun) -> float | None:
        """What ``run`` has spent so far: its answers, its subagents' and its searches', each at
        its own model's price; None once part of it was at unknown prices."""
        searched = self._offers.searched()
        parts = (run.cost, run.agents.cost, searched.cost)
        return None if None in parts else sum(p for p in parts if p is not None)

    async def next_request(self, run: PromptRun) -> ModelRequest:
        """The conversation made ready for the next answer (compacted when nearly full, told
        the background's news), and the request for it."""
        if self._main.needs_compaction():
            await self.compact(run, forced=False)
        await self._background_news()
        # /model may have changed the provider.
        await self._offers.provider_searches(self._model, self._choice.model_id)
        if self._offers.mcp is not None:
            self._offers.mcp.window = self._main.window()  # /model may have changed it
            with contextlib.suppress(KernelError):  # the client is gone: the session is ending
                await self._offers.mcp.refresh()
        await self._choice.reasoning_notice(self._ui)
        request = self.request()
        self._spending.sent_at = anyio.current_time()
        if self._spending.budget is not None:
            self._spending.reserved.pop(MAIN, None)  # a request that failed: not spent
            self._spending.reserved[MAIN] = self._spending.check(
                self.spent_by(run), request, cached=self._spending.cached
            )
        return request

    def calls(
        self, run: PromptRun, display: Display, record: Callable[[ToolCall, ToolResult], None]
    ) -> TurnCalls:
        agents = None
        if self.agents is not None:
            agents = self.agents.runner(
                depth=0,
                parent_model=self._choice.model_id,
                tally=run.agents,
                planning=self.planning,
                check=(
                    None
                    if self._spending.budget is None
                    else lambda r: self._spending.reserve(self.spent_by(run), r)
                ),
                settle=self._spending.settle,
                spend_left=lambda: self._spending.left(self.spent_by(run)),
            )
        return TurnCalls(
            tools=self._tools,
            keeper=self._keeper,
            display=display,
            record=record,
            spend_left=lambda: self._spending.left(self.spent_by(run)),
            agents=self._offers.conductor_calls(agents),
        )

    async def answered(
        self, run: PromptRun, request: ModelRequest, finished: MessageFinished
    ) -> None:
        self._used(request.model, finished.usage)
        run.usage = run.usage + finished.usage
        # At the model that answered: a run that fell back is priced at both.
        cost = cost_usd(resolve_model(request.model), finished.usage, fast=request.speed == "fast")
        run.cost = None if run.cost is None or cost is None else run.cost + cost
        # Fast mode may silently run at standard speed: usage.speed says so.
        slow = speed_notice(
            resolve_model(request.model), asked_fast=request.speed == "fast", usage=finished.usage
        )
        if slow is not None:
            await self._ui.tell(Show(Notice("warning", slow)))
        self._main.measure(finished.usage.context_tokens)
        self._spending.cached = Cached.of(request, finished.usage, self._spending.sent_at)
        self._spending.reserved.pop(MAIN, None)  # counted in run.cost now

    async def _background_news(self) -> None:
        """Background commands and agents that ended since the model last heard: it is told
        here, once, in the user content of the request about to go (each is given once)."""
        news: tuple[str, ...] = ()
        if self._background.started:
            news = await self._tools.ask(TakeBackgroundNews())
        if self.agents is not None:
            news = (*news, *self.agents.background.news())
        if news:
            self._main.conversation.add_user_text("(Note: " + " ".join(news) + ")")

    def request(self) -> ModelRequest:
        thinking, output_config, max_tokens = self._choice.request_fields(
            self._main.conversation.messages
        )
        request = ModelRequest(
            model=self._choice.model_id,
            max_tokens=max_tokens,
            thinking=thinking,
            output_config=output_config,
            messages=list(self._main.conversation.messages),
            system=f"{self._main.system}\n\n{PLAN_MODE_NOTE}"
            if self.planning
            else self._main.system,
            tools=self._offers.offered(),
            speed="fast" if self._choice.fast_now() else None,
        )
        return with_breakpoints(request) if self.prompt_caching else request

    async def compact(self, run: PromptRun | None, *, forced: bool) -> str:
        """Compaction (``main_conversation.py``), its summary counted and held to the budget
        as the run's own requests are; ``run`` is None for ``/compact``."""
        return await self._main.compact(
            forced=forced,
            request=self.request,
            hooks=self.hooks,
            check=None
            if run is None or self._spending.budget is None
            else lambda r: self._spending.check(self.spent_by(run), r),
            count=lambda request, usage: self._summarised(run, request, usage),
        )

    def _summarised(self, run: PromptRun | None, request: ModelRequest, usage: Usage) -> None:
        """A compaction's summary: counted in the session's usage, and the run's."""
        self._used(request.model, usage)
        if run is not None:
            run.usage = run.usage + usage
            cost = cost_usd(resolve_model(request.model), usage, fast=request.speed == "fast")
            run.cost = None if run.cost is None or cost is None else run.cost + cost
