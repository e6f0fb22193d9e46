"""What a headless run's denied calls add up to, said once the answer is done (docs/headless.md).

A headless run asks nobody, so in ask mode every write outside ``allowedPaths`` is denied; the
model reads why and often still ends with "Wrote 2 files.". The tally here sees every call of
the prompt (its subagents' too) and makes the one line that says what was denied, with the
broker's own reason and remedy, and whether the run changed nothing at all because of it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.errors import REMEDY_PERMISSION
from actors.protocol import AgentEvent, ToolFinished, ToolStarted
from actors.tool_names import MCP_PREFIX

if TYPE_CHECKING:
    from actors.protocol import PermissionMode, UiEvent

# The tools that change a project file: a denied call of one is a change the run did not make.
FILE_TOOLS = frozenset({"Write", "Edit", "NotebookEdit"})
# Besides those, the calls that may change something when they run (a command, an MCP server's
# tool): once one ran, the run cannot say that nothing changed.
_MAY_CHANGE = frozenset({"Bash"})
# How the tool executor words a refusal (before the broker's reason).
_DENIED = "Permission denied: "
_SHOWN = 3  # denied calls named in the line; the rest are counted
_HEADLESS_REMEDY = (
    "Run with --permission-mode auto, or check the permission settings in "
    ".legato/settings.json (allowedPaths, blockedPaths, allowedCommands, allowedTools)"
)


class Denial(msgspec.Struct, frozen=True):
    tool: str
    target: str  # the file or the command, relative to the project where it is inside
    reason: str  # the broker's reason, ending with its remedy


class DenialTally:
    """The denied calls of one prompt, and how many calls that may change something ran."""

    def __init__(self, project_root: str) -> None:
        self.project_root = project_root
        self.denials: list[Denial] = []
        self.changes_made = 0
        self._calls: dict[str, tuple[str, str]] = {}  # running call id -> (tool, summary)

    def see(self, event: UiEvent) -> None:
        if isinstance(event, AgentEvent):  # a subagent's calls count with the prompt's
            event = event.event
        match event:
            case ToolStarted(id=call_id, name=name, summary=summary):
                self._calls[call_id] = (name, summary)
            case ToolFinished(result=result):
                name, summary = self._calls.pop(result.tool_use_id, ("", ""))
                if result.denied:
                    reason = _headless_reason(result.content)
                    self.denials.append(Denial(name, self._shown(summary), reason))
                elif name in _MAY_CHANGE or name.startswith(MCP_PREFIX):
                    self.changes_made += 1  # it ran: failed or not, it may have changed files
                elif name in FILE_TOOLS and not result.is_error:
                    self.changes_made += 1
            case _:
                pass

    @property
    def nothing_changed(self) -> bool:
        """The run tried to change a file, was denied, and ran nothing else that changes."""
        return self.changes_made == 0 and any(d.tool in FILE_TOOLS for d in self.denials)

    def report(self) -> str | None:
        """The line that names the denied calls and the first one's reason; None when none
        was denied."""
        if not self.denials:
            return None
        names = [f"{d.tool}({d.target})" for d in self.denials[:_SHOWN]]
        if len(self.denials) > _SHOWN:
            names.append(f"{len(self.denials) - _SHOWN} more")
        count = len(self.denials)
        calls = f"{count} call{'s were' if count > 1 else ' was'} denied"
        if self.nothing_changed:
            said = f"nothing was changed: {calls} ({', '.join(names)})"
        else:
            said = f"{calls}: {', '.join(names)}"
        return f"{said}\n  → {self.denials[0].reason}"

    def clear(self) -> None:
        self.denials.clear()
        self.changes_made = 0

    def _shown(self, summary: str) -> str:
        root = self.project_root.rstrip(os.sep) + os.sep
        return summary.removeprefix(root) if summary.startswith(root) else summary


def _headless_reason(content: str) -> str:
    """The broker's reason for a denial, with a remedy a headless run can use: the executor's
    general one offers the 'always' answer, which nobody can give here."""
    reason = content.removeprefix(_DENIED).strip()
    general = f". {REMEDY_PERMISSION}"
    if not reason.endswith(general):
        return reason
    reason = reason.removesuffix(general)
    if "--permission-mode" in reason or "allowedPaths in" in reason:
        return reason  # the broker named the remedy already
    return f"{reason}. {_HEADLESS_REMEDY}"


def writes_denied_warning(
    name: str, mode: PermissionMode, rules_file: str, *, all_denied: bool
) -> str:
    """Said before a pattern runs headless where its writes will be denied (``all_denied``:
    every write, whatever the paths, as in plan mode)."""
    if all_denied:
        return (
            f"/{name} generates files, and this run is in {_MODE_WORDS.get(mode, mode)}, which "
            "writes nothing: every write will be denied\n"
            "  → Run with --permission-mode auto to let it write"
        )
    return (
        f"/{name} generates files, and in {_MODE_WORDS.get(mode, mode)} a headless run denies "
        "every write, since nobody can approve one\n"
        f"  → Run with --permission-mode auto, or add the folders it writes to allowedPaths in "
        f"{rules_file}"
    )


_MODE_WORDS: dict[str, str] = {
    "ask": "ask mode",
    "custom": "custom mode",
    "plan": "plan mode",
    "dont_ask": "dontAsk mode",
}
