"""The main conversation, and how it is kept: saved, resumed, cleared, undone, rewound, compacted.

``MainConversation`` holds the session's conversation with the sub-folders' instruction files
it has been given, the system prompt it is sent with, and how full it leaves the context
window: what the latest answer measured, or an estimate until one does. Everything that
changes the conversation outside a prompt's turns is here: resuming it from the session file
(made valid again when tools were cut short), ``/clear``, a note, ``/undo`` and ``/rewind``
telling the model what went back, and compaction, which replaces the older turns by the
model's own summary with the task ledger beside it. The turns themselves are run by the
conductor (``actor.py``) through ``turn.py``, which add to the same ``Conversation``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import anyio
import msgspec

from actors.conductor import compaction
from actors.conductor.conversation import Conversation
from actors.conductor.fill import context_fill
from actors.conductor.interrupt import INTERRUPT_WAIT
from actors.conductor.ledger import merge as merge_ledger
from actors.conductor.prompt import PLAN_MODE_NOTE
from actors.models import resolve_model
from actors.protocol import ContextFill, Notice, Rewind, Show
from actors.tool_routes import offered_tools
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.hooks import ConversationHooks
    from actors.conductor.keeper import SessionKeeper
    from actors.conductor.model_choice import ModelChoice
    from actors.conductor.offers import Offers
    from actors.conductor.rewind import Rewinder
    from actors.instructions import NestedGuides
    from actors.protocol import (
        ModelClientMsg,
        ModelRequest,
        RewindReport,
        UiMsg,
        UndoRewind,
        Usage,
    )
    from runtime import Address


class MainConversation:
    def __init__(
        self,
        *,
        keeper: SessionKeeper,
        rewinder: Rewinder,
        offers: Offers,
        choice: ModelChoice,
        model: Address[ModelClientMsg],
        ui: Address[UiMsg],
        context_window: int | None,
    ) -> None:
        self.conversation = Conversation()
        self._keeper = keeper
        self._rewinder = rewinder
        self._offers = offers  # the tools the requests offer: part of the context's size
        self._choice = choice  # the model, whose window it is
        self._model = model  # asked for compaction's summary
        self._ui = ui
        self.system = ""  # the system prompt the conversation is sent with
        # The sub-folders' instruction files the conversation was given (once a session).
        self.guides: NestedGuides | None = None
        self.context_window = context_window  # None: the model's own (actors/models.py)
        self.context_tokens = 0  # what the latest answer measured, or an estimate
        self.measured = False  # whether the latest answer measured it (/context says which)
        self.compacted_at = -1  # the conversation's length after the latest compaction

    # ── saving and resuming ─────────────────────────────────────────────────────────────

    async def resume(self) -> None:
        messages = await self._keeper.restore()
        self._choice.resumed(self._keeper.model)
        if not messages:
            return
        self.conversation.messages = messages
        # Killed while tools ran: their calls get the interrupted notice, as after Ctrl-C.
        if self.conversation.pending_tool_uses():
            self.conversation.close_interrupted([], {})
            await self._keeper.save(self.conversation.messages)
        self.context_tokens = self.estimate_context()

    async def save(self) -> None:
        await self._keeper.save(self.conversation.messages)

    async def save_after_prompt(self) -> None:
        # An interrupted prompt's conversation was just closed: save that too. Shielded and
        # bounded like every cleanup; a session store already stopped has nothing to save to.
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(INTERRUPT_WAIT),
            contextlib.suppress(KernelError),
        ):
            await self._keeper.save(self.conversation.messages)

    async def add_note(self, text: str) -> None:
        # A user message now goes out with the next prompt (the two are merged), and
        # a session that ends here resumes with it.
        self.conversation.add_user_text(text)
        await self._keeper.save(self.conversation.messages)

    async def clear(self) -> None:
        """``/clear``: the conversation forgotten, a rewind settled, the session file told."""
        self.conversation = Conversation()
        if self.guides is not None:
            self.guides.forget()
        self.context_tokens = 0
        self.measured = False
        await self._rewinder.settle()
        await self._keeper.clear()

    # ── how full the context window is ──────────────────────────────────────────────────

    def measure(self, tokens: int) -> None:
        """An answer's count of the whole context."""
        self.context_tokens = tokens
        self.measured = True

    def needs_compaction(self) -> bool:
        return (
            compaction.needs_compaction(self.context_tokens, self.window())
            # Not again before the conversation has grown: a kept turn too large to fit
            # would otherwise be summarised over and over.
            and len(self.conversation.messages) != self.compacted_at
        )

    def estimate_context(self) -> int:
        """Until an answer measures it: the conversation, the tools and the system prompt."""
        tools = self._offers.offered(with_mcp=False)
        fixed = len(msgspec.json.encode(tools)) + len(self.system.encode())
        return compaction.estimate_tokens(self.conversation.messages) + fixed // 4

    def fill(self, *, planning: bool) -> ContextFill:
        """The next request's parts, as the conductor's ``_request`` would build it now."""
        mcp = self._offers.mcp.specs() if self._offers.mcp is not None else []
        return context_fill(
            system=f"{self.system}\n\n{PLAN_MODE_NOTE}" if planning else self.system,
            tools=offered_tools(
                self._offers.tool_specs,
                agent=self._offers.agent_tool,
                search=self._offers.search_definition(),
            ),
            skill=self._offers.skill_definition(),
            mcp=mcp,
            messages=self.conversation.messages,
            window=self.window(),
            tokens=self.context_tokens,
            measured=self.measured,
        )

    def window(self) -> int:
        if self.context_window is not None:
            return self.context_window
        return resolve_model(self._choice.model_id).context_window

    # ── undo and rewind ─────────────────────────────────────────────────────────────────

    async def undo(self) -> str:
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

    async def rewind(self, ask: Rewind | UndoRewind) -> RewindReport:
        """``/rewind`` and its undo: the files through the executor, the conversation here."""
        messages = self.conversation.messages
        if isinstance(ask, Rewind):
            after, report = await self._rewinder.rewind(ask, messages)
        else:
            after, report = await self._rewinder.undo(messages)
        with anyio.CancelScope(shield=True):  # the files are back: the conversation follows
            if after is not None:
                # As it was then: the model is told nothing (a sub-folder's instructions it
                # had read may be gone with the cut, so they may come again).
                self.conversation.messages = after
                if self.guides is not None:
                    self.guides.forget()
                self.context_tokens = self.estimate_context()
            elif self.conversation.messages:
                # Only the files went back: the conversation still says they were changed.
                what = "rewound the files" if isinstance(ask, Rewind) else "undid a rewind"
                self.conversation.add_user_text(f"(Note: the user {what}:\n{report.text})")
            await self._keeper.save(self.conversation.messages)
        return report

    # ── compaction ──────────────────────────────────────────────────────────────────────

    async def compact(
        self,
        *,
        forced: bool,
        request: Callable[[], ModelRequest],
        hooks: ConversationHooks | None,
        check: Callable[[ModelRequest], object] | None,
        count: Callable[[ModelRequest, Usage], None],
    ) -> str:
        """Replace the older turns by a summary, the ledger beside it (``/compact`` or full).

        ``request`` builds the next request, whose model, system and tools the summary's
        shares; ``check`` holds it to the budget (None: no budget, or no prompt running);
        ``count`` counts what it used."""
        messages = list(self.conversation.messages)
        # On request, only the latest exchange stays as it is; when full, a little more.
        cut = compaction.split_point(messages, keep=2 if forced else compaction.KEEP_MESSAGES)
        if cut is None:
            return "Nothing to compact yet: the conversation is too short."
        before = self.context_tokens
        reason = "on request" if forced else "the context window is nearly full"
        if hooks is not None:
            await hooks.run(
                "PreCompact", trigger="manual" if forced else "auto", custom_instructions=""
            )
        await self._ui.tell(Show(Notice("info", f"Compacting the conversation ({reason})…")))
        ledger = self._keeper.ledger
        summary_request = compaction.summary_request(request(), messages[:cut], ledger)
        if check is not None:
            # The summary is a request of the run's too.
            check(summary_request)
        summary, usage = await compaction.summarise(self._model, summary_request)
        count(summary_request, usage)
        await self._keeper.save_ledger(merge_ledger(ledger, summary.decisions, summary.open_steps))
        kept = messages[cut:]
        said = summary.text + compaction.media_note(messages[:cut])
        self.conversation.messages = compaction.compacted(said, self._keeper.ledger, kept)
        if self.guides is not None:
            self.guides.forget()  # a summary does not carry a sub-folder's instructions
        await self._keeper.save(self.conversation.messages)
        self.context_tokens = self.estimate_context()
        self.measured = False
        self.compacted_at = len(self.conversation.messages)
        text = (
            f"Compacted {cut} earlier message{'s' if cut > 1 else ''} into a summary; the task "
            "ledger is kept. "
            f"Context: {ContextFill(before, self.window()).describe()} before, about "
            f"{ContextFill(self.context_tokens, self.window()).describe()} now."
        )
        if not forced:
            # /compact's asker says the result itself; shown here too, it would be said twice.
            await self._ui.tell(Show(Notice("info", text)))
        return text
