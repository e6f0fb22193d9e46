"""The status line's facts: model, fast mode, permission mode, tokens and cost so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from actors.models import cost_usd, resolve_model
from actors.protocol import ContextFill, Usage
from actors.visible import one_line

if TYPE_CHECKING:
    from actors.protocol import PermissionMode, SettingsMode

# Shift+Tab cycles Normal -> Auto-Accept -> Plan -> Normal. "custom" (the project's
# rules) is not on the cycle; Shift+Tab from it goes on as if from Normal. Nor are the modes
# only an embedding frontend sets (dontAsk, bypassPermissions): the cycle's modes are those a
# settings file may choose, so a key press never turns the questions off.
CYCLE: dict[PermissionMode, SettingsMode] = {
    "ask": "auto",
    "auto": "plan",
    "plan": "ask",
    "custom": "auto",
    "dont_ask": "auto",
    "bypass": "auto",
}

# The status texts of the modes; Normal Mode shows none.
MODE_TEXT: dict[str, str] = {
    "ask": "",
    "auto": "⏵⏵ accept edits on",
    "plan": "⏸ plan mode on",
    "custom": "custom rules",
    "dont_ask": "don't ask",
    "bypass": "bypass permissions on",
}


@dataclass
class Status:
    model: str  # the model id
    mode: PermissionMode
    fast: bool = False
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    cost_known: bool = True  # False once a model with unknown prices answered
    context_tokens: int = 0  # how much of the window the latest answer used
    hooks: dict[str, str] = field(default_factory=dict)  # running hooks: id -> "PreToolUse:Bash"
    last_usage: Usage | None = None  # the main conversation's latest answer's
    api_ms: int = 0  # time spent waiting for the model, over the session's turns
    # What the statusLine command printed last (status_command.py): shown in place of line().
    custom: tuple[str, ...] = ()

    @property
    def alias(self) -> str:
        info = resolve_model(self.model)
        return info.alias or info.id

    @property
    def fast_active(self) -> bool:
        return self.fast and resolve_model(self.model).fast_mode

    def count(self, usage: Usage, *, model: str | None = None) -> None:
        """One message's usage, priced with the model and speed it ran at; ``model``: a
        subagent's answer, which leaves the main conversation's context fill alone."""
        self.usage = self.usage + usage
        if model is None:
            self.context_tokens = usage.context_tokens
            self.last_usage = usage
        info = resolve_model(model or self.model)
        cost = cost_usd(info, usage, fast=self.fast_active and model is None)
        if cost is None:
            self.cost_known = False
        else:
            self.cost += cost

    @property
    def input_tokens(self) -> int:
        u = self.usage
        return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens

    @property
    def cost_text(self) -> str:
        return f"${self.cost:.4f}" if self.cost_known else f"${self.cost:.4f} + unknown"

    def cost_report(self) -> str:
        """What /cost prints (input tokens, output tokens, total cost in USD)."""
        return (
            f"Input tokens:  {self.input_tokens:,}\n"
            f"Output tokens: {self.usage.output_tokens:,}\n"
            f"Total cost:    {self.cost_text} USD"
        )

    def usage_report(self) -> str:
        """/cost's lines on the prompt cache and the context window."""
        u = self.usage
        return (
            f"Cache reads:   {u.cache_read_input_tokens:,} tokens (billed at 0.1x)\n"
            f"Cache writes:  {u.cache_creation_input_tokens:,} tokens (billed at 1.25x)\n"
            f"Context:       {self.context.describe()}"
        )

    @property
    def context(self) -> ContextFill:
        """How full the window of the model in use is, as the latest answer measured it."""
        return ContextFill(self.context_tokens, resolve_model(self.model).context_window)

    def facts(self) -> tuple[object, ...]:
        """What a statusLine command is told that changes: it runs again when this does."""
        return (
            self.model, self.mode, self.fast, self.usage, self.cost, self.context_tokens,
            self.api_ms,
        )  # fmt: skip

    def footer(self) -> list[tuple[str, str]]:
        """Under a statusLine command's lines: the mode and running hooks, which the person
        needs whatever the script shows (the reference keeps its mode under the script's)."""
        parts: list[tuple[str, str]] = []
        mode = MODE_TEXT[self.mode]
        if mode:
            parts += [
                ("class:status.mode", f" {mode}"),
                ("class:status.hint", " (shift+tab to cycle)"),
            ]
        if self.hooks:
            running = one_line(", ".join(dict.fromkeys(self.hooks.values())))
            parts.append(("class:status.mode", f" running hook {running}"))
        return parts

    def line(self) -> list[tuple[str, str]]:
        """The status line as prompt_toolkit (style, text) fragments."""
        # prompt_toolkit draws this line itself, passing what it does not map (a bidirectional
        # override, a zero-width space) to the terminal: the model's name may be a project's
        # setting, a hook's name its matcher.
        parts: list[tuple[str, str]] = [("class:status", f" {one_line(self.alias)}")]
        if self.fast_active:
            parts.append(("class:status.mode", " ⚡fast"))
        mode = MODE_TEXT[self.mode]
        if mode:
            parts += [("class:status", " · "), ("class:status.mode", mode)]
            parts.append(("class:status.hint", " (shift+tab to cycle)"))
        tokens = self.input_tokens + self.usage.output_tokens
        parts.append(("class:status", f" · {tokens:,} tokens · {self.cost_text}"))
        if self.context_tokens:
            parts.append(("class:status", f" · context {self.context.percent}"))
        if self.hooks:
            running = one_line(", ".join(dict.fromkeys(self.hooks.values())))
            parts.append(("class:status.mode", f" · running hook {running}"))
        return parts
