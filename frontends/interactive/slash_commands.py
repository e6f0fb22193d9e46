"""In-session commands: parsing, help text and the did-you-mean for typos."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.visible import escape_controls
from frontends.skills.skill_report import hang

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rich.console import Console, ConsoleOptions
    from rich.text import Text

COMMANDS: dict[str, str] = {
    "/help": "Show help",
    "/clear": "Clear conversation history",
    "/quit": "Exit",
    "/model": "Show current model; /model <alias> switches (opus, sonnet, haiku)",
    "/effort": "Show the effort level; /effort <level> sets it from the next request on (low, "
    "medium, high, xhigh, max; auto for the model's default)",
    "/fast": "Toggle fast mode (faster output on the strongest model, priced higher)",
    "/cost": "Show current session API usage: input tokens, output tokens, total cost in USD",
    "/context": "Show what fills the context window, as a bar and a table: the system prompt, "
    "tools, memory files, skills, MCP tools, messages and free space, in tokens",
    "/undo": "Put back the files the latest prompt changed, its shell commands' changes too",
    "/rewind": "Go back to just before a prompt: code, conversation or both (Esc Esc too); "
    "/rewind N [code|conversation] goes N prompts back; /undo undoes a rewind",
    "/compact": "Summarise older turns now to free context (the task ledger is kept)",
    "/permissions": "Show the mode, the rules and your always/never replies; /permissions "
    "forget <number> drops a reply; /permissions explain <path or command> says what they decide",
    "/tasks": "List the background commands and agents; /tasks stop <id> stops one",
    "/mcp": "List the MCP servers and their states; /mcp approve <name> approves a project's "
    "server and starts it",
    "/hooks": "List the configured hooks by event (matcher, command, file); /hooks approve "
    "runs the project's",
    "/export": "Save the conversation as Markdown: /export <file> writes it to that file "
    "(from the project root); /export alone offers the clipboard or a file",
    "/add-dir": "Add a working folder for this session: /add-dir <path> (the same rules as in "
    "the project)",
    "/resume": "Switch to another saved session of this project: pick it from the list, or "
    "/resume <id>",
}
ALIASES = {"/exit": "/quit"}
# Commands that take nothing after them: words there are a mistake to say, not to drop (the
# person who typed "/undo app.py" expects only that file back).
NO_ARGUMENT = frozenset({"/help", "/clear", "/cost", "/context", "/undo", "/compact", "/fast"})

KEYS_HELP = (
    "Enter sends · Alt+Enter, Ctrl+J or a trailing \\ then Enter inserts a newline\n"
    "Shift+Tab cycles Normal → Auto-Accept → Plan · @path adds a file to the prompt\n"
    "Esc or Ctrl+C stops the current answer, with its agents and commands (not background\n"
    "commands or agents: /tasks stop does)\n"
    "Ctrl+C twice or Ctrl+D at an empty prompt exits\n"
    "Esc Esc at an empty prompt opens /rewind; with text typed, it clears it (Up brings it back)\n"
    "!cmd runs a shell command, its output added for the model · #text saves to memory"
)


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # canonical, e.g. "/model"
    argument: str


@dataclass(frozen=True, slots=True)
class Unknown:
    name: str
    suggestion: str | None

    def message(self) -> str:
        hint = f" Did you mean {self.suggestion}?" if self.suggestion else ""
        return f"Unknown command {self.name}.{hint} Type /help for the commands."


def extra_words(command: Command) -> str | None:
    """What to say when ``command`` has words it does not take; None when it has none."""
    if command.name not in NO_ARGUMENT or not command.argument:
        return None
    shown = escape_controls(command.argument[:40], newlines=True)
    return (
        f"{command.name} takes nothing after it, not '{shown}'; nothing was done\n"
        f"  → Type {command.name} alone"
    )


def parse(text: str) -> Command | Unknown | None:
    """``None`` when ``text`` is a prompt for the model, not a command."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, argument = stripped.partition(" ")
    name = ALIASES.get(name.lower(), name.lower())
    if name in COMMANDS:
        return Command(name, argument.strip())
    if "/" in name[1:]:
        return None  # a path such as /etc/hosts typed as a prompt
    close = difflib.get_close_matches(name, [*COMMANDS, *ALIASES], n=1, cutoff=0.6)
    return Unknown(name, ALIASES.get(close[0], close[0]) if close else None)


def help_text() -> str:
    width = max(len(name) for name in COMMANDS)
    rows = [f"  {name:<{width}}  {what}" for name, what in COMMANDS.items()]
    return "Commands:\n" + "\n".join(rows) + "\n\nKeys:\n" + KEYS_HELP


@dataclass(frozen=True, slots=True)
class Listing:
    """The skill library's /help, fitted to the terminal's width when it is drawn."""

    text: str

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        from rich.text import Text

        # A skill's description is a repository's text: its controls are shown, not obeyed.
        shown = escape_controls(self.text)
        yield from (Text(line) for line in hang(shown, options.max_width))
