"""The fast model's answer to a WebFetch prompt over a page, as the reference gives it: the
page goes to the session's small model with the prompt, and only its answer goes back to the
session's model, so a long page costs a small model's tokens, not the main one's context.

The small model is ``ASSISTANT_SMALL_MODEL`` (an alias or an id) when set; otherwise, for the
Anthropic API, Haiku; another provider has none unless it is set, and the page's text is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import LegatoError
from actors.models import resolve_model
from actors.protocol import (
    DescribeProvider,
    Message,
    MessageFinished,
    ModelRequest,
    StreamMessage,
)
from actors.tool_executor.web.answer import WARNING, wrapped
from actors.tool_executor.web.pages import Answer

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from actors.protocol import ModelClientMsg
    from runtime import Address

SMALL_MODEL_VARIABLE = "ASSISTANT_SMALL_MODEL"
MAX_TOKENS = 2048
SYSTEM = (
    "You answer a question about one web page for a coding assistant. Use only the page's "
    "content; say so when the page does not answer. Be concise; keep code, commands, versions "
    "and URLs exact; quote at most a few short passages. " + WARNING
)


class FastModel:
    """Answers prompts over pages with the session's small model, chosen on first use."""

    def __init__(
        self,
        model: Address[ModelClientMsg],
        *,
        main_model: str,
        env: Mapping[str, str],
        take: Callable[[float | None], bool] = lambda cost: True,
    ) -> None:
        self._model = model
        self._take = take  # whether the run's budget has room for a request of this cost
        self._main = main_model
        self._asked = env.get(SMALL_MODEL_VARIABLE, "").strip() or None
        self._chosen: str | None = None
        self._decided = False

    async def answer(self, url: str, text: str, prompt: str) -> Answer:
        """The answer, or (None, why it failed), or (None, None) when there is no small model."""
        small = await self._small()
        if small is None:
            return Answer(None, None)
        content = f"{wrapped(url, text)}\n\nThe question about this page: {prompt}"
        request = ModelRequest(
            model=small,
            max_tokens=MAX_TOKENS,
            system=SYSTEM,
            messages=[Message("user", [{"type": "text", "text": content}])],
        )
        if not self._take(_most_cost(request)):
            # The page's text goes to the session's model instead, whose request the budget
            # checks as it checks every other.
            return Answer(None, "what is left of --max-budget-usd may not cover its request")
        finished: MessageFinished | None = None
        try:
            async with self._model.stream(StreamMessage(request=request)) as events:
                async for event in events:
                    if isinstance(event, MessageFinished):
                        finished = event
        except LegatoError as exc:
            return Answer(None, exc.message)
        if finished is None:
            return Answer(None, "its answer ended early")
        spent = ((small, finished.usage),)
        blocks = finished.message.content
        said = "".join(b.get("text", "") for b in blocks if b.get("type") == "text").strip()
        return Answer(said, None, spent) if said else Answer(None, "its answer was empty", spent)

    async def _small(self) -> str | None:
        if not self._decided:
            self._chosen = await self._choose()
            self._decided = True
        return self._chosen

    async def _choose(self) -> str | None:
        if self._asked is not None:
            try:
                return resolve_model(self._asked).id
            except LegatoError:
                return self._asked  # an id the table does not know: the provider's own name
        report = await self._model.ask(DescribeProvider(model=self._main))
        return resolve_model("haiku").id if report.provider == "anthropic" else None


def _most_cost(request: ModelRequest) -> float | None:
    """The most ``request`` may cost in US dollars, its input at about 4 bytes a token and the
    longest answer it allows; None when the model's prices are not known."""
    try:
        prices = resolve_model(request.model).prices
    except LegatoError:  # the provider's own name (ASSISTANT_SMALL_MODEL)
        return None
    if prices is None:
        return None
    texts = [
        str(block.get("text", "")) for message in request.messages for block in message.content
    ]
    sent = len(str(request.system or "")) + sum(map(len, texts))
    return (sent / 4 * prices.input + request.max_tokens * prices.output) / 1_000_000
