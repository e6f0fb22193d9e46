"""One prompt, turn by turn: stream the model's answer, run its tool calls, send the results.

The conductor owns the conversation. Everything it hears from the model client and the tool
executor is passed on to the UI as it arrives, and the conversation is made valid again before
the conductor lets go of a cancelled prompt (see ``Conversation.close_interrupted``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from actors.conductor.conversation import Conversation
from actors.conductor.prompt import system_prompt
from actors.errors import LegatoError, SessionError
from actors.models import cost_usd, resolve_model
from actors.protocol import (
    ConductorMsg,
    GetContext,
    ListTools,
    MessageFinished,
    ModelRequest,
    Retrying,
    RunPrompt,
    RunTools,
    Show,
    StreamMessage,
    TextDelta,
    ToolCall,
    ToolFinished,
    TurnOutcome,
    Usage,
)
from runtime import Actor

if TYPE_CHECKING:
    from actors.protocol import (
        Block,
        MemoryStoreMsg,
        ModelClientMsg,
        ProjectContext,
        ToolExecutorMsg,
        ToolResult,
        UiMsg,
    )
    from runtime import Address, Reply

DEFAULT_MAX_TOKENS = 16_384


class Conductor(Actor[ConductorMsg]):
    name = "conductor"

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
    ) -> None:
        super().__init__()
        self._memory = memory
        self._model = model
        self._tools = tools
        self._ui = ui
        self.session_id = session_id
        self._headless = headless
        self._max_tokens = max_tokens
        self.conversation = Conversation()
        self.usage = Usage()
        self._tool_specs: list[Block] = []
        self._system = ""
        self._model_id = ""

    async def on_start(self) -> None:
        context: ProjectContext = await self._memory.ask(GetContext())
        self._model_id = context.model
        self._system = system_prompt(context, headless=self._headless)
        self._tool_specs = await self._tools.ask(ListTools())

    async def handle(self, msg: ConductorMsg, reply: Reply) -> None:
        match msg:
            case RunPrompt():
                await reply.send(await self._run(msg))

    async def _run(self, prompt: RunPrompt) -> TurnOutcome:
        run = _PromptRun(started=time.monotonic())
        self.conversation.add_user_text(prompt.text)
        try:
            while True:
                if run.turns >= prompt.max_turns:
                    return self._outcome(
                        run,
                        "error_max_turns",
                        SessionError(
                            f"stopped after {prompt.max_turns} turns (--max-turns)",
                        ),
                    )
                run.turns += 1
                finished = await self._stream_turn(run)
                calls = _tool_calls(finished)
                if finished.stop_reason == "pause_turn":
                    continue  # a server tool is mid-loop: resending lets it go on
                if finished.stop_reason != "tool_use" or not calls:
                    return self._outcome(run, "success")
                await self._run_tools(run, calls)
        except LegatoError as error:
            # An API failure ends the prompt but not the session: the caller gets an outcome
            # it can report (and, interactively, the next prompt works).
            return self._outcome(run, "error_during_execution", error)
        finally:
            # Runs on cancellation too, synchronously, so it cannot itself be cancelled.
            if run.partial is not None or self.conversation.pending_tool_uses():
                self.conversation.close_interrupted(run.partial or [], run.results)

    async def _stream_turn(self, run: _PromptRun) -> MessageFinished:
        request = ModelRequest(
            model=self._model_id,
            max_tokens=self._max_tokens,
            messages=list(self.conversation.messages),
            system=self._system,
            tools=self._tool_specs,
        )
        run.partial = []
        api_started = time.monotonic()
        finished: MessageFinished | None = None
        try:
            async with self._model.stream(StreamMessage(request=request)) as events:
                async for event in events:
                    await self._ui.tell(Show(event))
                    match event:
                        case TextDelta(text=text):
                            run.append_text(text)
                        case Retrying():
                            run.partial = []  # the client retries only before any content
                        case MessageFinished():
                            finished = event
        finally:
            run.api_seconds += time.monotonic() - api_started
        if finished is None:
            raise SessionError("the model's answer ended without its final event")
        run.partial = None
        self.conversation.add_assistant(finished.message)
        self.usage = self.usage + finished.usage
        run.usage = run.usage + finished.usage
        run.last_text = _text_of(finished.message.content) or run.last_text
        return finished

    async def _run_tools(self, run: _PromptRun, calls: tuple[ToolCall, ...]) -> None:
        run.results = {}
        async with self._tools.stream(RunTools(calls=calls)) as events:
            async for event in events:
                await self._ui.tell(Show(event))
                if isinstance(event, ToolFinished):
                    run.results[event.result.tool_use_id] = event.result
                    if event.result.denied:
                        call = next(c for c in calls if c.id == event.result.tool_use_id)
                        run.denials.append(
                            {
                                "tool_name": call.name,
                                "tool_use_id": call.id,
                                "tool_input": call.input,
                            }
                        )
        missing = [c.id for c in calls if c.id not in run.results]
        if missing:
            raise SessionError(f"the tool executor gave no result for {', '.join(missing)}")
        self.conversation.add_tool_results([run.results[c.id] for c in calls])
        run.results = {}

    def _outcome(
        self, run: _PromptRun, subtype: str, error: Exception | None = None
    ) -> TurnOutcome:
        model = resolve_model(self._model_id)
        return TurnOutcome(
            result=run.last_text,
            is_error=subtype != "success",
            subtype=subtype,  # type: ignore[arg-type]
            num_turns=run.turns,
            duration_ms=round((time.monotonic() - run.started) * 1000),
            duration_api_ms=round(run.api_seconds * 1000),
            usage=run.usage,
            total_cost_usd=cost_usd(model, run.usage),
            session_id=self.session_id,
            permission_denials=tuple(run.denials),
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
        self.partial: list[Block] | None = None  # text of a message still streaming
        self.results: dict[str, ToolResult] = {}  # finished calls of a batch still running
        self.denials: list[Block] = []

    def append_text(self, text: str) -> None:
        assert self.partial is not None
        if self.partial and self.partial[-1].get("type") == "text":
            self.partial[-1]["text"] += text
        else:
            self.partial.append({"type": "text", "text": text})


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
