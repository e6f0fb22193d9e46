"""What every headless renderer shares: its two guarded streams, the tally of the run (turns,
usage, the calls running), and the words for what was going on when a run was interrupted.
The formats themselves: frontends/headless/output_formats.py."""

from __future__ import annotations

import time
from typing import IO, TYPE_CHECKING, Any

import msgspec

from actors.protocol import (
    MessageFinished,
    MessageStarted,
    Notice,
    ToolFinished,
    ToolStarted,
    TurnOutcome,
    Usage,
)
from actors.ui import Renderer
from frontends.headless.guarded import Guarded

if TYPE_CHECKING:
    from actors.protocol import SandboxReport, UiEvent
    from frontends.headless.denials import DenialTally

_encoder = msgspec.json.Encoder()


class HeadlessRenderer(Renderer):
    """Keeps track of what is running, so an interruption can say what it stopped."""

    # Whether stdout is shown as text; the JSON formats' stdout stays exact JSON (whose
    # strings carry control characters escaped already).
    visible_stdout = True

    def __init__(self, stdout: IO[str], stderr: IO[str]) -> None:
        self.stdout = Guarded(stdout, fatal=True, visible=self.visible_stdout)
        self.stderr = Guarded(stderr, fatal=False)
        self.streaming = False
        self.running: dict[str, tuple[str, str, float]] = {}  # id -> (tool, summary, started)
        self.sandbox: SandboxReport | None = None  # for the result object, once known
        self.turns = 0
        self.usage = Usage()
        self.finished: tuple[str, str, float] | None = None  # the call a ToolFinished ends
        self.calls = 0  # tool calls started so far (a command's may be the sandbox's trial)
        # A ``--headless`` run's denied calls, said before its result (frontends/headless/run.py
        # sets it); ``denials_fail``: a skill or pattern run, which fails when it changed nothing.
        self.denials: DenialTally | None = None
        self.denials_fail = False

    async def show(self, event: UiEvent) -> None:
        match event:
            case MessageStarted():
                self.streaming = True
            case MessageFinished(usage=usage):
                self.streaming = False
                self.turns += 1
                self.usage = self.usage + usage
            case ToolStarted(id=call_id, name=name, summary=summary):
                self.running[call_id] = (name, summary, time.monotonic())
                self.calls += 1
            case ToolFinished(result=result):
                self.finished = self.running.pop(result.tool_use_id, None)
            case _:
                pass
        if self.denials is not None:
            self.denials.see(event)
            if isinstance(event, TurnOutcome) and (note := self.denials.report()) is not None:
                failed = self.denials_fail and self.denials.nothing_changed
                self.render(Notice("error" if failed else "warning", note))
        self.render(event)
        await self.stdout.drain()
        await self.stderr.drain()

    def render(self, event: UiEvent) -> None:
        raise NotImplementedError

    def activity(self) -> str:
        """What was going on, in a few words: 'running Bash(sleep 100) for 3.2 s'."""
        now = time.monotonic()
        parts = [
            f"{named_call(name, short(summary))} after {now - started:.1f} s"
            for name, summary, started in self.running.values()
        ]
        if parts and self.streaming:  # calls start while the answer is still streaming
            return "running " + ", ".join(parts) + " while the model was answering"
        if parts:
            return "running " + ", ".join(parts)
        if self.streaming:
            return "while the model was answering"
        return "between steps"

    def write_line(self, stream: Guarded, obj: Any) -> None:
        stream.write(_encoder.encode(obj).decode() + "\n")
        stream.flush()


def named_call(name: str, target: str) -> str:
    """A tool line's call: ``Edit(greet.py)``, or the name alone when nothing names a target;
    an MCP tool's summary (``toy: shout {"text": "ab"}``) alone, since it names the server and
    the tool that ``mcp__toy__shout`` would name again."""
    if name.startswith("mcp__") and target:
        return target
    return f"{name}({target})" if target else name


def short(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
