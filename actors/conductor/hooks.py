"""The user's hooks at the conversation's own steps (docs/hooks.md): the hook runner
(``actors/hooks``) runs them; this says when, and what their outcome does to the conversation.

- ``UserPromptSubmit``: before a prompt enters the conversation. A block refuses the prompt
  (the user is told why; nothing is sent); a hook's context goes with the prompt.
- ``SessionStart``: once the conversation is ready (``startup``, ``resume``) or cleared
  (``clear``); its context goes with the next prompt.
- ``Stop``: when an answer ends the prompt (``SubagentStop``: an agent's answer, its Agent
  call; ``turn.py`` asks both). A block makes the model go on, told the reason;
  ``stop_hook_active`` says so to the hook, and after ``MAX_STOP_BLOCKS`` in a row the prompt
  ends anyway, so a hook that always blocks cannot loop for ever.
- ``PreCompact`` (``manual``, ``auto``) and ``SessionEnd``: told, nothing to decide.

Only the events that have hooks are sent: a session without them sends the runner nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.protocol import HookOutcome, Notice, RunHooks, Show

if TYPE_CHECKING:
    from actors.protocol import HookEvent, HookRunnerMsg, UiMsg
    from runtime import Address

MAX_STOP_BLOCKS = 8


class ConversationHooks(msgspec.Struct):
    runner: Address[HookRunnerMsg]
    events: frozenset[HookEvent]
    ui: Address[UiMsg]

    async def run(self, event: HookEvent, **payload: Any) -> HookOutcome:
        if event not in self.events:
            return HookOutcome()
        outcome = await self.runner.ask(RunHooks(event=event, payload=payload))
        for error in outcome.errors:
            await self.ui.tell(Show(Notice("warning", error)))
        for message in outcome.system_messages:  # a hook's word for the user
            await self.ui.tell(Show(Notice("info", f"{event} hook: {message}")))
        return outcome


class PromptHooks:
    """SessionStart's hooks (once, and again after /clear) and UserPromptSubmit's, before a
    prompt enters the conversation; their context is kept for the prompt that goes."""

    def __init__(self) -> None:
        self.hooks: ConversationHooks | None = None  # once started, when hooks are configured
        self.source: str | None = "startup"  # SessionStart's, until it has run
        self._context: list[str] = []

    async def refusal(self, text: str) -> str | None:
        """Run the hooks for the prompt ``text``: why it is refused, or None."""
        if self.hooks is None:
            return None
        if self.source is not None:
            started = await self.hooks.run("SessionStart", source=self.source)
            self.source = None
            if started.context:
                self._context.append(context_note("SessionStart", started.context))
        submitted = await self.hooks.run("UserPromptSubmit", prompt=text)
        if submitted.blocked:
            return f"A UserPromptSubmit hook refused the prompt: {submitted.reason or 'no reason'}"
        if submitted.stop:  # "continue": false
            return f"A UserPromptSubmit hook stopped: {submitted.stop_reason or 'no reason given'}"
        if submitted.context:
            self._context.append(context_note("UserPromptSubmit", submitted.context))
        return None

    def take_context(self) -> list[str]:
        """The hooks' context for the prompt about to go, once."""
        context, self._context = self._context, []
        return context


def context_note(event: str, context: str) -> str:
    """A hook's context as the model reads it, beside the prompt."""
    return f"({event} hook context:\n{context.strip()})"
