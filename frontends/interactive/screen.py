"""The terminal: prompt_toolkit owns the bottom lines, everything finished goes above them.

Layout, top to bottom, below the terminal's own scrollback:

    live part      the markdown block in progress, running tools (TurnView.live), a line
                   for each running background command
    input          "› " and what the user types, kept while an answer streams (type-ahead)
    status line    model · mode · tokens · cost

Finished output is written into the scrollback with ``run_in_terminal`` (prompt_toolkit erases
its few lines, the text is written once, the lines are drawn again below it), batched to at
most ``FRAME_RATE`` writes a second. The input stays live the whole session, so keystrokes
echo at once while an answer streams and tools run.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import ThreadedCompleter
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI, to_formatted_text
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu

from frontends.interactive.picker import Picker

if TYPE_CHECKING:
    from collections.abc import Callable

    from prompt_toolkit.completion import Completer
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.history import History
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPressEvent
    from prompt_toolkit.output import Output

    from frontends.interactive.status import Status
    from frontends.interactive.theme import Palette
    from frontends.interactive.view import TurnView

FRAME_RATE = 20  # scrollback writes per second at most; redraws in between are cheap
EXIT_WINDOW = 2.0  # seconds in which a second Ctrl-C at an empty prompt exits
ESCAPE_WAIT = 0.03  # how long a lone Esc waits to be sure it is not the start of Alt+key
ESCAPE_TWICE = 0.8  # seconds in which a second Esc at an idle prompt counts as Esc Esc
REWIND = "/rewind"  # what Esc Esc at an empty prompt sends: the rewind list
EXIT = object()  # sent on the inputs stream when the user wants to leave


def _winch_handled() -> bool:
    """Whether prompt_toolkit hears of resizes by SIGWINCH (only the main thread may handle
    a signal)."""
    return hasattr(signal, "SIGWINCH") and threading.current_thread() is threading.main_thread()


@dataclass
class _Question:
    choices: tuple[str, ...]
    summary: str = ""  # kept in sight above the prompt while output scrolls on
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: str = ""
    error: str = ""
    # What is asked: a permission, or a picker's choice. The choices follow in brackets,
    # unless the label states them itself (it holds a "[").
    label: str = "Allow?"


class Screen:
    def __init__(
        self,
        view: TurnView,
        status: Status,
        palette: Palette,
        *,
        history: History | None = None,
        completer: Completer | None = None,
        on_cycle_mode: Callable[[], None] = lambda: None,
        on_paste_image: Callable[[], None] = lambda: None,
        on_paste: Callable[[str], str] = lambda text: text,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.view = view
        self.status = status
        self._on_cycle_mode = on_cycle_mode
        self._on_paste_image = on_paste_image
        self._on_paste = on_paste  # what a pasted text becomes: a pasted file's [Image #1]
        self.busy: anyio.CancelScope | None = None  # the running turn, cancelled by Esc
        self.queued: list[str] = []  # prompts typed ahead while a turn runs
        self.background: tuple[str, ...] = ()  # a status line per running background task
        self.leaving = False
        self._question: _Question | None = None
        self._picker: Picker | None = None  # a list to pick from (``choose``), while open
        self._escape_at = -math.inf
        self._ctrl_c_at = -math.inf
        self._dirty = anyio.Event()
        self.watchers: list[Callable[[], None]] = []  # told of each change, after the paint is due
        self._live_source = ""
        self._live_cache: list[tuple[str, str]] = []
        self.inputs_send, self.inputs = anyio.create_memory_object_stream[object](math.inf)
        self.buffer = Buffer(
            multiline=True,
            history=history,
            completer=ThreadedCompleter(completer) if completer else None,
            complete_while_typing=True,
        )
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=self._bindings(),
            style=palette.prompt_style(),
            full_screen=False,
            erase_when_done=True,
            input=input,
            output=output,
            # prompt_toolkit also polls the terminal's size twice a second, for where SIGWINCH
            # cannot be had; in the main thread on Unix it is had, and the poll only woke an
            # idle session.
            terminal_size_polling_interval=None if _winch_handled() else 0.5,
        )
        self.app.ttimeoutlen = ESCAPE_WAIT
        self.app.timeoutlen = ESCAPE_WAIT

    # ── for the session ─────────────────────────────────────────────────────────────────────

    def offer_completions(self) -> None:
        """The completer's lists were just filled: completions are worked out as one types, so
        what was typed before (``@sm`` in the first second) is offered now, not at the next key."""
        if self.buffer.complete_state is None and self.buffer.text:
            self.buffer.start_completion(select_first=False)

    def changed(self) -> None:
        """Something in the view changed: paint it at the next frame, and tell the watchers
        (the status line command compares its facts)."""
        self._dirty.set()
        for watcher in self.watchers:
            watcher()

    async def paint_forever(self) -> None:
        """Writes finished output into the scrollback and redraws the live part, per frame."""
        while True:
            # Running tools show elapsed time: redraw ten times a second while any runs.
            wait = 0.1 if self.view.running or self._ctrl_c_pending() else math.inf
            with anyio.move_on_after(wait):
                await self._dirty.wait()
            self._dirty = anyio.Event()
            await self.paint()
            await anyio.sleep(1 / FRAME_RATE)

    async def paint(self) -> None:
        width = self.app.output.get_size().columns
        self.view.console.width = self.view.printer.width = width
        items = self.view.take_items()
        # Rendering markdown and code is the heaviest work here: a worker thread does it, so
        # keystrokes are handled meanwhile (the GIL is handed over every few milliseconds).
        printed = await anyio.to_thread.run_sync(self.view.render_printed, items) if items else ""
        if printed and self.app.is_running:
            await run_in_terminal(lambda: self._write(printed), in_executor=False)
        elif printed:
            self._write(printed)
        self.app.invalidate()

    def _write(self, text: str) -> None:
        self.app.output.write_raw(text)
        self.app.output.flush()

    async def ask(
        self, choices: tuple[str, ...], summary: str = "", *, label: str = "Allow?"
    ) -> str:
        """Wait for the user to type one of ``choices`` and Enter; type-ahead is kept aside.
        ``label``: the words before the input, for a question that is not a permission's."""
        question = _Question(choices, summary, label=label)
        saved = self.buffer.document
        self.buffer.reset()
        self._question = question
        self.changed()
        try:
            await question.answered.wait()
        finally:
            self._question = None
            self.buffer.reset(document=saved)
            self.changed()
        return question.answer

    async def choose(self, title: str, rows: tuple[str, ...]) -> int | None:
        """Wait for the user to pick one of ``rows`` (its index), or cancel (None)."""
        picker = Picker(title, rows)
        saved = self.buffer.document
        self._picker = picker
        self.changed()
        try:
            await picker.done.wait()
        finally:
            self._picker = None
            self.buffer.reset(document=saved)
            self.changed()
        return picker.picked

    def request_exit(self) -> None:
        """Leave now: the running turn is stopped and prompts typed ahead are dropped."""
        self.leaving = True
        if self.busy is not None:
            self.busy.cancel()
        with contextlib.suppress(anyio.ClosedResourceError):
            self.inputs_send.send_nowait(EXIT)

    def close(self) -> None:
        self.inputs_send.close()
        self.inputs.close()

    # ── layout ──────────────────────────────────────────────────────────────────────────────

    def _layout(self) -> Layout:
        live = Window(
            FormattedTextControl(self._live_fragments),
            dont_extend_height=True,
            wrap_lines=False,
        )
        entry = Window(
            BufferControl(self.buffer),
            get_line_prefix=self._prefix,
            wrap_lines=True,
            dont_extend_height=True,
        )
        # One row, or a statusLine command's rows and the mode's under them.
        status = Window(
            FormattedTextControl(self._status_line), dont_extend_height=True, wrap_lines=False
        )
        # The menu is a row of its own between the input and the status line, not a float: a
        # float is drawn over whatever lies under the cursor, which here is the status line.
        body = HSplit(
            [
                ConditionalContainer(live, filter=Condition(lambda: bool(self._live_text()))),
                entry,
                CompletionsMenu(max_height=8),
                status,
            ]
        )
        return Layout(body, focused_element=entry)

    def _live_fragments(self) -> StyleAndTextTuples:
        """The live part as prompt_toolkit fragments, converted once per change.

        prompt_toolkit's ANSI parser gives one fragment per character, and a redraw walks the
        fragments several times: merging runs of one style makes a redraw cost per style change
        instead of per character (it kept key echo slow while an answer streamed).
        """
        text = self._live_text()
        if text != self._live_source:
            merged: list[tuple[str, str]] = []
            for fragment in to_formatted_text(ANSI(text)):
                style, chars = fragment[0], fragment[1]
                if merged and merged[-1][0] == style:
                    merged[-1] = (style, merged[-1][1] + chars)
                else:
                    merged.append((style, chars))
            self._live_source = text
            self._live_cache = merged
        return list(self._live_cache)

    def _live_text(self) -> str:
        text = self.view.live()
        if self.background:
            lines = "\n".join(f"\x1b[2m{line}\x1b[0m" for line in self.background)
            text = f"{text}\n{lines}" if text else lines
        if self._picker is not None:
            listed = self._picker.text(self.app.output.get_size().columns)
            text = f"{text}\n{listed}" if text else listed
        if self._question is not None and self._question.summary:
            note = f"\x1b[1;33m? {self._question.summary}\x1b[0m"
            text = f"{text}\n{note}" if text else note
        if self.queued:
            count = len(self.queued)
            note = f"\x1b[2m⏎ {count} prompt{'s' if count > 1 else ''} queued\x1b[0m"
            return f"{text}\n{note}" if text else note
        return text

    def _prefix(self, line: int, wrap: int) -> StyleAndTextTuples:
        if line or wrap:
            return [("", "  ")]
        question = self._question
        if question is None:
            # A line that runs a command (``!``) or saves to memory (``#``) says so as it is
            # typed, before Enter sends it.
            marker = self.buffer.text[:1] if self.buffer.text[:1] in ("!", "#") else "›"
            return [("class:prompt", f"{marker} ")]
        replies = "/".join(question.choices)
        label = question.label if "[" in question.label else f"{question.label} [{replies}]"
        prefix: StyleAndTextTuples = [("class:question", f"{label} ")]
        if question.error:
            prefix.append(("class:status.alert", f"{question.error} "))
        return [*prefix, ("class:question", "› ")]

    def _status_line(self) -> StyleAndTextTuples:
        line: StyleAndTextTuples = []
        if self.status.custom:
            # The script's own colours (status_command.py has dropped every other sequence).
            for text in self.status.custom:
                line += [*to_formatted_text(ANSI(text)), ("", "\n")]
            line += self.status.footer()
        else:
            line += self.status.line()
        if self._ctrl_c_pending():
            line.append(("class:status.alert", "  Press Ctrl-C again to exit"))
        elif self.busy is not None and self.background:
            # Several things run: say which of them Esc stops.
            line.append(("class:status.hint", "  esc to interrupt (background tasks run on)"))
        elif self.busy is not None:
            line.append(("class:status.hint", "  esc to interrupt"))
        if line and line[-1] == ("", "\n"):
            line.pop()  # a statusLine command's rows, and nothing under them
        return line

    def _ctrl_c_pending(self) -> bool:
        return time.monotonic() - self._ctrl_c_at < EXIT_WINDOW

    # ── keys ────────────────────────────────────────────────────────────────────────────────

    def _bindings(self) -> KeyBindings:
        keys = KeyBindings()

        @keys.add("enter")
        def _(event: KeyPressEvent) -> None:
            state = self.buffer.complete_state
            if state is not None and state.current_completion is not None:
                self.buffer.apply_completion(state.current_completion)
                return
            if self.buffer.document.text_before_cursor.endswith("\\"):
                self.buffer.delete_before_cursor(1)  # a trailing backslash continues the line
                self.buffer.insert_text("\n")
                return
            self._submit()

        @keys.add("escape", "enter")
        @keys.add("c-j")
        def _(event: KeyPressEvent) -> None:
            self.buffer.insert_text("\n")

        @keys.add("s-tab")
        def _(event: KeyPressEvent) -> None:
            self._on_cycle_mode()
            self.changed()

        # Ctrl+V pastes the clipboard's image; Alt+V too, for terminals that keep Ctrl+V for
        # their own paste (text still comes in as a bracketed paste either way).
        @keys.add(Keys.BracketedPaste)
        def _(event: KeyPressEvent) -> None:
            data = event.data.replace("\r\n", "\n").replace("\r", "\n")
            self.buffer.insert_text(self._on_paste(data))

        @keys.add("c-v")
        @keys.add("escape", "v")
        def _(event: KeyPressEvent) -> None:
            self._on_paste_image()

        @keys.add("escape")
        def _(event: KeyPressEvent) -> None:
            if self.busy is not None:
                self.busy.cancel()
            elif self.buffer.complete_state is not None:
                self.buffer.cancel_completion()
            elif self._question is None:
                self._escape_twice()

        @keys.add("c-c")
        @keys.add(Keys.SIGINT)
        def _(event: KeyPressEvent) -> None:
            self._ctrl_c()

        @keys.add("c-d")
        def _(event: KeyPressEvent) -> None:
            if not self.buffer.text:
                self.request_exit()
            else:
                self.buffer.delete()

        self._picker_keys(keys)
        return keys

    def _picker_keys(self, keys: KeyBindings) -> None:
        """While a list is open these keys are its own (added last, they win over the rest)."""
        picking = Condition(lambda: self._picker is not None)

        def picker() -> Picker:
            assert self._picker is not None  # the filter says so
            return self._picker

        @keys.add("up", filter=picking)
        @keys.add("c-p", filter=picking)
        def _(event: KeyPressEvent) -> None:
            picker().move(-1)
            self.changed()

        @keys.add("down", filter=picking)
        @keys.add("c-n", filter=picking)
        def _(event: KeyPressEvent) -> None:
            picker().move(1)
            self.changed()

        @keys.add("enter", filter=picking)
        def _(event: KeyPressEvent) -> None:
            picker().pick(picker().index)

        @keys.add("escape", filter=picking)
        @keys.add("c-c", filter=picking)
        def _(event: KeyPressEvent) -> None:
            picker().pick(None)

        for digit in "123456789":

            @keys.add(digit, filter=picking)
            def _(event: KeyPressEvent) -> None:
                picker().pick(int(event.data) - 1)

        @keys.add(Keys.Any, filter=picking)
        def _(event: KeyPressEvent) -> None:
            pass  # typing does not reach the input while the list is open

    def _escape_twice(self) -> None:
        """Esc Esc at an idle prompt: the rewind list when the input is empty; else the input
        is cleared, kept in the history (Up brings it back), as the reference does."""
        now = time.monotonic()
        if now - self._escape_at > ESCAPE_TWICE:
            self._escape_at = now
            return
        self._escape_at = -math.inf
        if self.buffer.text.strip():
            self.buffer.append_to_history()
            self.buffer.reset()
            return
        with contextlib.suppress(anyio.ClosedResourceError):
            self.inputs_send.send_nowait(REWIND)

    def _submit(self) -> None:
        text = self.buffer.text
        question = self._question
        if question is not None:
            answer = {"yes": "y", "no": "n"}.get(text.strip().lower(), text.strip().lower())
            if answer in question.choices:
                question.answer = answer
                question.answered.set()
            else:
                question.error = "type one of the replies and Enter"
                self.buffer.reset()
            return
        if not text.strip():
            self.buffer.reset()
            return
        self.buffer.append_to_history()
        self.buffer.reset()
        if self.busy is not None:
            self.queued.append(text)
            self.changed()
        with contextlib.suppress(anyio.ClosedResourceError):
            self.inputs_send.send_nowait(text)

    def _ctrl_c(self) -> None:
        if self.busy is not None:
            self.busy.cancel()
            return
        if self.buffer.text:
            self.buffer.reset()
            return
        if self._ctrl_c_pending():
            self.request_exit()
            return
        self._ctrl_c_at = time.monotonic()
        self.changed()
