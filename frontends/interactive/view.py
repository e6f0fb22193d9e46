"""What a turn looks like: the finished part, printed once, and the live part, redrawn.

``TurnView`` takes the session's events and keeps two things: ``take_printed()``, text that is
finished and goes into the terminal's scrollback exactly once, and ``live()``, the small part
still changing (the markdown block in progress, the running tools with their output tails and
elapsed times). Both are rendered with rich to ANSI text; the screen decides when to show them.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from rich.console import Group
from rich.padding import Padding
from rich.syntax import Syntax
from rich.text import Span, Text

from actors.counts import counted
from actors.protocol import (
    AgentEvent,
    BlockFinished,
    MessageStarted,
    Notice,
    Retrying,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolOutput,
    ToolStarted,
)
from actors.visible import (
    argument_lines,
    escape_controls,
    one_line,
    project_relative,
    shown_for_approval,
)
from frontends.interactive.markdown_stream import Code, MarkdownStream, Piece, Prose
from frontends.interactive.request_words import request_header, request_target
from frontends.interactive.running_call import Running, call_text
from frontends.interactive.transcript_render import (
    TranscriptMarkdown,
    diff_text,
    lexer,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console, RenderableType
    from rich.markdown import Markdown

    from actors.protocol import Block, HowItRuns, PermissionRequest, UiEvent
    from frontends.interactive.theme import Palette

# The live part is a few rows above the prompt: a running call's target and the question's
# one-line summary are cut there, saying so; the whole is in the lines printed above them.
LIVE_TARGET = 40
SUMMARY_TARGET = 60
MCP_PREFIX = "mcp__"  # an MCP tool's name: mcp__<server>__<tool>
_PADDING = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)

_THOUGHT = ("thinking", "redacted_thinking")


class TurnView:
    def __init__(
        self,
        console: Console,
        palette: Palette,
        *,
        clock: Callable[[], float] = time.monotonic,
        printer: Console | None = None,
    ) -> None:
        self.console = console  # renders the live part, on the event loop
        # Renders finished text; the screen does that in a worker thread, hence its own console.
        self.printer = printer or console
        self.palette = palette
        self.clock = clock
        self.root = ""  # the project's folder, left out of the paths in tool results
        self.stream = MarkdownStream()
        self.running: dict[str, Running] = {}
        self.thinking = False
        self._thinking_since: float | None = None  # when the block being thought began
        self._printed: list[Piece | RenderableType] = []  # rendered in take_printed
        self._live_cache: tuple[int, str] | None = None
        self._after_other = False  # the last thing printed was not answer text
        self.version = 0  # bumped on every change, so the screen knows when to redraw

    # ── events ──────────────────────────────────────────────────────────────────────────────

    def apply(self, event: UiEvent) -> None:
        self.version += 1
        match event:
            case TextDelta(text=text):
                self.thinking = False
                # Escaped before rich reads it as markdown: rich keeps ESC, and the model's
                # text must not reach the terminal as a title, a clipboard write or a cursor
                # move; rich's own styling of the markdown is added after.
                self._print_pieces(self.stream.feed(escape_controls(text)))
            case ThinkingDelta():
                self.thinking = True
                if self._thinking_since is None:
                    self._thinking_since = self.clock()
            case BlockFinished(block=block) if block.get("type") == "text":
                self._print_pieces(self.stream.finish())
            case BlockFinished(block=block) if block.get("type") in _THOUGHT:
                self._thought(block)
            case MessageStarted():
                self.thinking = False
                self._thinking_since = self.clock()
            case ToolStarted(id=call_id, name=name, summary=summary):
                self.running[call_id] = Running(one_line(name), one_line(summary), self.clock())
            case ToolOutput(id=call_id, text=text):
                if call_id in self.running:
                    self.running[call_id].add(escape_controls(text))
            case ToolFinished():
                self._finished(event)
            case Retrying(attempt=attempt, delay=delay, reason=reason):
                self.note("warning", f"{reason}; retry {attempt} in {delay:.1f} s")
            case Notice(level=level, text=text):
                self.note(level, text)
            case AgentEvent(parent_tool_use_id=parent, event=ToolStarted(name=name, summary=s)):
                # A subagent's latest tool, under its Agent call's line; the rest of what it
                # does stays in its own conversation.
                agent = self.running.get(parent)
                if agent is not None:
                    agent.tail.clear()
                    agent.partial = one_line(call_text(name, s))
            case _:
                pass

    def _thought(self, block: Block) -> None:
        """A finished thinking block, collapsed to one dim line as the reference shows it: the
        reasoning is the model's working, not its answer (it stays in the conversation, and
        the stream-json output has it whole)."""
        self.thinking = False
        since, self._thinking_since = self._thinking_since, None
        seconds = 0.0 if since is None else self.clock() - since
        took = f" for {seconds:.0f} s" if seconds >= 1 else ""  # a blink is not worth a number
        hidden = " (redacted)" if block.get("type") == "redacted_thinking" else ""
        self._print_pieces(self.stream.finish())
        line = Text(f"∴ Thought{took}{hidden}", style="legato.muted")
        line.stylize("italic")  # a theme name and an attribute do not combine in one string
        self._print(line)

    def note(self, level: str, text: str) -> None:
        style = {"info": "legato.muted", "warning": "legato.warn"}.get(level, "legato.bad")
        self.version += 1
        self._print(Text(escape_controls(text), style=style))

    def say(self, renderable: RenderableType) -> None:
        """Print anything the session wants kept in the scrollback (command output, help)."""
        self.version += 1
        self._print(_visible(renderable) if isinstance(renderable, Text) else renderable)

    def interrupted(self) -> None:
        """The turn was stopped: keep what was shown, mark what was cut off."""
        self.version += 1
        self._print_pieces(self.stream.finish())
        for run in self.running.values():
            elapsed = run.elapsed(self.clock())
            self._print(self._tool_line("⏹", "legato.warn", run, f"stopped after {elapsed:.1f} s"))
        self.running.clear()
        self.thinking = False
        self._print(Text("  ⎿ Interrupted. What should Legato do instead?", style="legato.warn"))

    @staticmethod
    def summary(request: PermissionRequest) -> str:
        """One line: what the request wants ("Run command  npm test"). A command of several
        lines has them as ``\\n``. A long target keeps its start and its end, where a command's
        last word is, and says it was cut: the question printed above holds it all, and this
        line is drawn where a wider one would be cut at the screen's edge."""
        target = request_target(request).replace("\n", "\\n").replace("\t", "\\t")
        if len(target) > SUMMARY_TARGET:
            head, tail = target[: SUMMARY_TARGET // 2], target[-SUMMARY_TARGET // 2 :]
            cut = f"{head}…{tail}"
            # A path's middle is folders; a command's can be what it runs: say how much.
            length = counted(len(target), "character")
            target = f"{cut}  ({length}, all above)" if request.kind == "run" else cut
        return f"{request_header(request)}  {target}"

    def question(
        self,
        request: PermissionRequest,
        warning: str | None = None,
        confinement: HowItRuns | None = None,
    ) -> None:
        """A permission request: a line saying what, the details, for a command whether it
        runs in the sandbox and with network, a warning when the rules call for care, and for
        writes the diff."""
        self.version += 1
        run = self.running.get(request.tool_use_id or "")
        if run is not None and run.asked_since is None:
            run.asked_since = self.clock()
        header = Text.assemble(
            ("? ", "legato.warn"), (request_header(request), "bold"), f"  {request_target(request)}"
        )
        tool = escape_controls(request.tool, newlines=True)
        agent = request.agent
        asker = tool if agent is None else f"{tool} (agent: {one_line(agent)})"
        lines: list[RenderableType] = [header]
        if request.kind == "fetch":
            # What 'always' and 'never' remember, and what the rules match: the host.
            lines.append(Text(f"    domain {escape_controls(request.host or '?', newlines=True)}"))
        lines.append(Text(f"    requested by {asker}", "dim"))
        if request.kind == "call":
            # What the server will be given: the person judges the call by it.
            lines += [Text(f"    {line}") for line in argument_lines(request.arguments)]
        if request.background:
            lines.append(
                Text("    runs in the background: the answer goes on; /tasks stop ends it", "dim")
            )
        if confinement is not None:
            # Unconfined is what the person most needs to notice: it stands out.
            style = "dim" if confinement.confined else "legato.warn"
            lines.append(Text(f"    {confinement.words()}", style))
        if warning:
            lines.append(Text(f"    ⚠ {escape_controls(warning)}", "legato.warn"))
        if request.preview:
            # The diff shows what the model would write: tabs stay spacing, the rest is escaped,
            # and a long run of blanks (rich wraps at spaces, not at a blank Braille pattern)
            # is counted.
            lines.append(diff_text(shown_for_approval(request.preview.replace("\t", "    "))))
        for line in lines:
            self._print(line)

    def answered(self, request: PermissionRequest) -> None:
        """The person answered ``request``'s question: its call's clock runs again."""
        self.version += 1
        run = self.running.get(request.tool_use_id or "")
        if run is not None and run.asked_since is not None:
            run.waited += self.clock() - run.asked_since
            run.asked_since = None

    # ── output ──────────────────────────────────────────────────────────────────────────────

    def take_printed(self) -> str:
        """Finished text, once: the caller writes it into the scrollback."""
        return self.render_printed(self.take_items())

    def take_items(self) -> list[Piece | RenderableType]:
        """What finished since the last call, not yet rendered (``render_printed`` does that)."""
        items, self._printed = self._printed, []
        return items

    def render_printed(self, items: list[Piece | RenderableType]) -> str:
        """Rendering waits until here, once a frame: consecutive paragraphs become one markdown
        document and consecutive code lines one highlighted block, so the cost is per frame,
        not per token. Uses only ``printer``, so it may run in a worker thread.
        """
        out: list[str] = []
        batch: list[RenderableType] = []
        prose: list[str] = []
        code: list[str] = []
        language = ""
        continued = False

        def flush_code() -> None:
            if code:
                batch.append(self._code(tuple(code), language))
                code.clear()

        def flush_prose() -> None:
            if prose:
                if batch:
                    out.append(self._render_with(self.printer, *batch))
                    batch.clear()
                if self._after_other:
                    out.append("\n")  # a blank line between tool lines and the text after
                self._after_other = False
                out.append(
                    self._render_with(self.printer, self._markdown("\n\n".join(prose))).lstrip("\n")
                )
                if not continued:
                    out.append("\n")
                prose.clear()

        for item in items:
            if isinstance(item, Prose):
                flush_code()
                if prose and continued:
                    prose[-1] += " " + item.source  # the same paragraph, cut for being long
                else:
                    prose.append(item.source)
                continued = item.continued
                continue
            flush_prose()
            if isinstance(item, Code):
                if item.first or item.language != language:
                    flush_code()
                if item.first and self._after_other:
                    batch.append(Text(""))
                self._after_other = False
                language = item.language
                code.extend(item.lines)
                if item.last:
                    flush_code()
                    batch.append(Text(""))
            else:
                flush_code()
                batch.append(item)
                self._after_other = True
        flush_code()
        flush_prose()
        if batch:
            out.append(self._render_with(self.printer, *batch))
        return "".join(out)

    def live(self) -> str:
        """The part still changing, as ANSI text (empty when nothing is in progress)."""
        cached = self._live_cache
        if cached is not None and cached[0] == self.version and not self.running:
            return cached[1]
        parts: list[RenderableType] = []
        source = self.stream.live()
        if source.strip():
            if self.stream.in_code:
                parts.append(self._code((source,), self.stream.language))
            else:
                parts.append(self._markdown(source))
        elif self.thinking:
            parts.append(Text("✻ thinking…", style="legato.muted"))
        now = self.clock()
        for run in self.running.values():
            asking = run.asked_since is not None
            note = "waiting for your answer" if asking else f"{run.elapsed(now):.1f} s"
            parts.append(self._tool_line("●", "legato.accent", run, note, cut=LIVE_TARGET))
            for line in run.lines():
                parts.append(
                    Text(f"    {line}", style="legato.muted", no_wrap=True, overflow="ellipsis")
                )
        text = self._render(*parts).strip("\n") if parts else ""
        self._live_cache = (self.version, text)
        return text

    # ── rendering ───────────────────────────────────────────────────────────────────────────

    def _print_pieces(self, pieces: list[Piece]) -> None:
        self._printed.extend(pieces)

    def _finished(self, event: ToolFinished) -> None:
        result = event.result
        run = self.running.pop(result.tool_use_id, None)
        if run is None:
            return  # a call already shown as stopped by an interruption, reporting late
        if result.denied:
            self._print(self._tool_line("✗", "legato.bad", run, "denied"))
            # Whole and wrapped: a denial's cause and remedy come last, where a cut would fall.
            denial = escape_controls(result.content.strip())
            self._print(Padding(Text(denial, style="legato.muted"), (0, 0, 0, 4)))
            return
        if result.is_error:
            self._print(self._tool_line("✗", "legato.bad", run, f"{event.elapsed:.1f} s"))
            self._print(Text(f"    {self._first_line(result.content)}", style="legato.bad"))
            if event.remedy:
                # Several lines (what the sandbox refused, then what may be done): each its own.
                remedy = "\n      ".join(event.remedy.split("\n"))
                self._print(Text(f"    → {escape_controls(remedy)}"))
            return
        self._print(self._tool_line("✓", "legato.good", run, f"{event.elapsed:.1f} s"))
        lines = run.lines()
        if not lines and run.name.startswith(MCP_PREFIX):
            # An MCP tool streams nothing while it runs: its result's first line, as headless.
            lines = [self._first_line(result.content)] if result.content.strip() else []
        for line in lines:
            self._print(
                Text(f"    {line}", style="legato.muted", no_wrap=True, overflow="ellipsis")
            )
        if event.diff:
            self._print(diff_text(escape_controls(event.diff)))

    def _first_line(self, text: str) -> str:
        return escape_controls(_first_line(project_relative(text, self.root)), newlines=True)

    def _tool_line(
        self, mark: str, style: str, run: Running, note: str, *, cut: int | None = None
    ) -> Text:
        """``✓ Bash(make test)  0.4 s``; ``cut``: the target at most that long, for the live
        part (a command of thousands of characters would fill the screen and push its own
        question out of sight)."""
        summary = run.summary
        if cut is not None and len(summary) > cut:
            summary = summary[: cut - 1] + "…"
        name, target = run.name, call_text("", summary)
        if name.startswith(MCP_PREFIX) and summary:
            # The executor's summary names the server and the tool (``toy: shout {...}``):
            # shown in place of mcp__toy__shout, which would name the tool twice.
            name, target = summary, ""
        return Text.assemble(
            (f"{mark} ", style), (name, "bold"), f"{target}  ", (note, "legato.muted")
        )

    def _markdown(self, source: str) -> Markdown:
        return TranscriptMarkdown(source, code_theme=self.palette.code_theme, hyperlinks=False)

    def _code(self, lines: tuple[str, ...], language: str) -> Syntax:
        return Syntax(
            "\n".join(lines),
            lexer(language),
            theme=self.palette.code_theme,
            background_color="default",
            word_wrap=True,
            padding=(0, 2),
        )

    def _print(self, renderable: RenderableType) -> None:
        self._printed.append(renderable)

    def _render(self, *renderables: RenderableType) -> str:
        return self._render_with(self.console, *renderables)

    def _render_with(self, console: Console, *renderables: RenderableType) -> str:
        with console.capture() as capture:
            console.print(Group(*renderables))
        # rich pads lines to the full width; in the scrollback that padding would wrap into
        # blank lines once the terminal gets narrower, so it goes.
        return _PADDING.sub(r"\1", capture.get())


def _visible(text: Text) -> Text:
    """``text`` with its control characters escaped and its styles kept. (rich drops a few
    controls, the carriage return among them, when a Text is made, but keeps ESC: text from
    outside is best escaped before it becomes a Text; this catches what was not.)"""
    plain = text.plain
    if escape_controls(plain) == plain:
        return text
    pieces = [escape_controls(char) for char in plain]
    at = [0]  # where each character of ``plain`` starts in the escaped text
    for piece in pieces:
        at.append(at[-1] + len(piece))
    shown = text.blank_copy("".join(pieces))
    shown.spans = [Span(at[span.start], at[span.end], span.style) for span in text.spans]
    return shown


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= 200 else line[:199] + "…"
