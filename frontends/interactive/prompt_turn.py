"""A prompt run as a turn: what it attaches, the turn the conductor runs, and Plan Mode's end.

The turn runs in a cancel scope that Esc and Ctrl-C cancel (``Screen.busy``): the kernel
carries that cancellation into the conductor, the model client and the tool executor, and the
outcome shown is then an interrupted one. A plan made in plan mode is carried out once the
person says yes to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from rich.text import Text

from actors.protocol import AttachReferences, RunPrompt, SetMode, Show, TurnOutcome, Usage
from frontends.interactive.questions import Questions
from frontends.skills.command_run import running

if TYPE_CHECKING:
    from actors.protocol import Block, SkillPrompt
    from frontends.interactive.renderer import TerminalRenderer
    from frontends.interactive.screen import Screen
    from frontends.interactive.status import Status
    from frontends.interactive.view import TurnView
    from frontends.session import Session

PLAN_APPROVED = "The user approved the plan. Carry it out now, step by step."


class PromptTurns(Questions):
    """Prompts run as turns: part of ``InteractiveSession``, which sets the fields."""

    view: TurnView
    screen: Screen
    status: Status
    renderer: TerminalRenderer
    session: Session
    pasted_files: dict[str, str]
    _background_poke: anyio.Event

    async def _prompt(
        self,
        text: str,
        *,
        plan: bool,
        named_by_user: bool = True,
        command: SkillPrompt | None = None,
        blocks: tuple[Block, ...] = (),  # pasted images, after what @path attaches
        typed: str | None = None,  # as the person typed it (a skill's command line); None: text
    ) -> None:
        typed = text if typed is None else typed  # what /rewind lists and gives back
        self.renderer.outcome_shown = anyio.Event()
        with anyio.CancelScope() as scope:
            self.screen.busy = scope
            self._background_poke.set()
            self.screen.changed()
            try:
                pasted = blocks
                files = tuple(path for token, path in self.pasted_files.items() if token in text)
                if "@" in text or files:  # @path: the executor attaches what the prompt names
                    attachment = await self.session.tools.address.ask(
                        AttachReferences(text=text, named_by_user=named_by_user, paths=files)
                    )
                    for note in attachment.notes:
                        self.view.note("warning", note)
                    text, blocks = attachment.prompt, (*attachment.blocks, *pasted)
                back = self.status.model
                async with running(command, self.session, text, model_after=back) as text:
                    outcome = await self.session.conductor.address.ask(
                        RunPrompt(text=text, plan=plan, blocks=blocks, typed=typed)
                    )
            finally:
                self.screen.busy = None
                self._background_poke.set()
        if scope.cancelled_caught:
            outcome = _interrupted(self.session.id)
        await self.session.ui.address.tell(Show(outcome))
        await self.renderer.outcome_shown.wait()
        if plan and outcome.subtype == "success" and self.status.mode == "plan":
            await self._confirm_plan()

    async def _confirm_plan(self) -> None:
        """A plan is executed after the user confirms it; the mode returns to Normal."""
        if not await self._yes("Execute this plan? Plan mode ends and changes need your approval."):
            self.view.say(Text("Plan kept; still in plan mode. Say what to change."))
            return
        self.status.mode = "ask"
        await self.session.permissions.address.ask(SetMode(mode="ask"))
        self.view.say(Text("Plan mode off; carrying out the plan.", style="legato.good"))
        await self._prompt(PLAN_APPROVED, plan=False)


def _interrupted(session_id: str) -> TurnOutcome:
    return TurnOutcome(
        result="",
        is_error=True,
        subtype="interrupted",
        num_turns=0,
        duration_ms=0,
        duration_api_ms=0,
        usage=Usage(),
        total_cost_usd=None,
        session_id=session_id,
    )
