"""The session's model and how it is asked: the model (the settings', a resumed session's,
``/model``'s), its reasoning settings (``--effort`` and the thinking flags), ``/fast``, and the
way on to ``--fallback-model`` once the model is overloaded.

What a model does not take is refused before any request where a flag or a setting asked for
it at start, and otherwise left out of its requests and said once for that model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actors.conductor.budget import overloaded, unavailable
from actors.errors import UsageError
from actors.models import resolve_model, same_provider
from actors.protocol import Notice, Show
from actors.reasoning import (
    chosen_effort,
    request_fields,
    with_settings_effort,
    without_unthought_turn,
)

if TYPE_CHECKING:
    from actors.conductor.turn import Dialogue
    from actors.errors import LegatoError
    from actors.protocol import Message, ProjectContext, UiMsg
    from actors.reasoning import Reasoning
    from runtime import Address


class ModelChoice:
    """The session's model, its reasoning settings, fast mode and fallback."""

    def __init__(
        self,
        *,
        reasoning: Reasoning | None,
        given: bool,
        fallback: str | None,
        max_tokens: int,
    ) -> None:
        self.model_id = ""
        self.reasoning = reasoning
        self._told: set[str] = set()  # models told what of it they do not take
        # The model was given for this run (--model): it wins over a resumed /model choice.
        self._given = given
        self.fallback = fallback
        self.fell_back_from: str | None = None  # the model the session left for the fallback
        self.fast = False  # /fast: only models with fast_mode run faster (actors/models.py)
        self.max_tokens = max_tokens

    def start(self, context: ProjectContext) -> None:
        """The project's model and effort, as the settings say."""
        self.model_id = context.model
        self.reasoning = with_settings_effort(self.reasoning, context.effort_level)

    def resumed(self, saved: str) -> None:
        """A resumed session goes on with its model, unless --model named one."""
        if saved and not self._given:
            try:
                self.model_id = resolve_model(saved).id
            except UsageError:  # a session file edited, or from a store, naming no model
                raise UsageError(
                    f"the resumed session's model '{saved}' is not a model",
                    remedy="Choose one with --model (an alias such as sonnet, or a model id)",
                ) from None

    def fast_now(self) -> bool:
        return self.fast and resolve_model(self.model_id).fast_mode

    def set_effort(self, level: str) -> str:
        """``/effort``: what is said of the choice."""
        model = resolve_model(self.model_id)
        self.reasoning, said = chosen_effort(self.reasoning, level, model)
        return said

    def request_fields(
        self, messages: list[Message]
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None, int]:
        """The next request's thinking, output config and max_tokens, as the model takes them."""
        thinking = output_config = None
        max_tokens = self.max_tokens
        if self.reasoning is not None:
            fields = request_fields(self.reasoning, resolve_model(self.model_id), max_tokens)
            thinking, output_config = fields.thinking, fields.output_config
            thinking = without_unthought_turn(thinking, messages)
            max_tokens = fields.max_tokens
        return thinking, output_config, max_tokens

    def check_reasoning(self) -> None:
        """A setting the session's model does not take is refused before any request (the
        model of the settings or of a resumed session; --model was checked with the flags)."""
        if self.reasoning is None:
            return
        fields = request_fields(self.reasoning, resolve_model(self.model_id), self.max_tokens)
        if fields.refused:
            raise fields.refused[0]

    def check_fallback(self) -> None:
        """A --fallback-model that is the session's own model (the default, the settings' or a
        resumed session's; --model was checked with the flags) is refused before any request,
        as it could never be switched to."""
        if self.fallback is not None and resolve_model(self.model_id).id == self.fallback:
            other = "sonnet" if "haiku" in self.fallback else "haiku"
            raise UsageError(
                f"--fallback-model {self.fallback} is the session's own model",
                remedy=f"Name another model to fall back to, such as --fallback-model {other}",
            )

    async def reasoning_notice(self, ui: Address[UiMsg]) -> None:
        """What the model does not take is left out of its requests, and said once for that
        model: after a switch of model (/model, the SDK's set_model), or asked for by a
        variable rather than a flag."""
        if self.reasoning is None or self.model_id in self._told:
            return
        self._told.add(self.model_id)
        fields = request_fields(self.reasoning, resolve_model(self.model_id), self.max_tokens)
        for refusal in (*fields.refused, *fields.unsent):
            await ui.tell(Show(Notice("warning", f"{refusal}: sent without it")))

    async def fall_back(self, error: LegatoError, dialogue: Dialogue, ui: Address[UiMsg]) -> bool:
        """Whether the dialogue goes on, on the fallback model (for the rest of the session),
        after ``error``: only when the model is overloaded past the model client's retries.
        False: ``error`` is the dialogue's end."""
        fallback = self.fallback
        same = fallback is not None and resolve_model(self.model_id).id == fallback
        if same and self.fell_back_from is not None and overloaded(error):
            # The fallback failed too: the usual remedy (a smaller model) may name the
            # very model that just failed, and the person should know both did.
            error.message = (
                f"the fallback model {fallback} failed too, after "
                f"{self.fell_back_from}: {error.message}"
            )
            error.remedy = "Wait a minute and try again, or name another --fallback-model"
            return False
        if fallback is None or same or not unavailable(error):
            return False
        # Only a failure before any of the answer: the conversation still ends with
        # what the request carried, and the same request goes to the fallback. Part of
        # an answer kept would be answered again, by another model.
        messages = dialogue.conversation.messages
        last = messages[-1] if messages else None
        if last is None or last.role != "user":
            return False
        if not same_provider(fallback, self.model_id):
            # The settings chose a model of another provider than the flag's check saw.
            note = (
                f"--fallback-model {fallback} is not used: it is served by another "
                f"provider than {self.model_id}, and a run does not change provider"
            )
            await ui.tell(Show(Notice("warning", note)))
            return False
        dialogue.turns -= 1
        primary, self.model_id = self.model_id, fallback
        self.fell_back_from = primary
        why = error.describe().splitlines()[0]
        note = (
            f"{primary} failed past the retries: {why}; going on with the fallback "
            f"model {fallback} for the rest of this run"
        )
        await ui.tell(Show(Notice("warning", note, model=fallback)))
        return True
