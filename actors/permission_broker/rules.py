"""The project's rules applied to one operation: blocked, allowed, not listed, or unknowable.

The verdicts, and what the broker does with them in every mode:
- ``blocked``: a blocked rule matches. Denied, whatever the mode; blocked wins over allowed.
- ``allowed``: every path, or every simple command, is covered by an allowed rule.
- ``unlisted``: at least one part is not covered; the mode decides (usually: ask).
- ``unknowable``: the command line cannot be judged before it runs; a person must decide.

Each verdict carries its reason in plain words, naming the rule and the path or command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from actors.permission_broker.commands import CommandEntry, blockable_forms
from actors.permission_broker.paths import PathRules
from actors.permission_broker.shell import parse_command_line

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.permission_broker.shell import CommandLine, SimpleCommand
    from actors.protocol import ProjectSettings

Verdict = Literal["blocked", "allowed", "unlisted", "unknowable"]


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    reason: str
    # For "unlisted" commands: the first one not covered (a headless reason suggests an entry).
    unlisted: SimpleCommand | None = None


class Rules:
    def __init__(self, root: str, settings: ProjectSettings, *, home: str | None = None) -> None:
        self.paths = PathRules(root, settings.allowed_paths, settings.blocked_paths, home=home)
        self.allowed_commands = tuple(CommandEntry.parse(t) for t in settings.allowed_commands)
        self.blocked_commands = tuple(CommandEntry.parse(t) for t in settings.blocked_commands)

    @property
    def root(self) -> str:
        return self.paths.root

    # ── paths ───────────────────────────────────────────────────────────────────────────────

    def judge_paths(self, paths: Sequence[str]) -> Judgement:
        """Every path must be allowed; any blocked one blocks the whole operation."""
        blocked = self.blocked_path(paths)
        if blocked is not None:
            return blocked
        covered: list[str] = []
        for path in paths:
            shown = self.show(path)
            pattern = self.paths.allowed_by(path)
            if pattern is None:
                if not self.paths.inside(self.paths.resolve(path)):
                    return Judgement("unlisted", f"'{shown}' is outside the project root")
                return Judgement("unlisted", f"'{shown}' is not in allowedPaths")
            covered.append(f"entry '{pattern.text}' (path '{shown}')")
        if not covered:
            return Judgement("unlisted", "the operation names no path")
        return Judgement("allowed", "allowed by allowedPaths " + ", ".join(covered))

    def blocked_path(self, paths: Sequence[str]) -> Judgement | None:
        for path in paths:
            pattern = self.paths.blocked_by(path)
            if pattern is not None:
                return Judgement(
                    "blocked",
                    f"blocked by blockedPaths entry '{pattern.text}' (path '{self.show(path)}')",
                )
        return None

    def show(self, path: str) -> str:
        return self.paths.relative(self.paths.resolve(path))

    # ── commands ────────────────────────────────────────────────────────────────────────────

    def judge_command(self, line: str | CommandLine) -> Judgement:
        parsed = parse_command_line(line) if isinstance(line, str) else line
        blocked = self._blocked_command(parsed)
        if blocked is not None:
            return blocked
        if parsed.problems:
            return Judgement("unknowable", parsed.problems[0])
        maybe = self._maybe_blocked(parsed)
        if maybe is not None:
            return maybe
        if not parsed.commands:
            return Judgement("unlisted", "the line runs no command that the rules can name")
        used: list[str] = []
        for command in parsed.commands:
            entry = next((e for e in self.allowed_commands if e.matches(command.words)), None)
            if entry is None:
                return Judgement(
                    "unlisted", f"'{command.text}' is not in allowedCommands", unlisted=command
                )
            if entry.text not in used:
                used.append(entry.text)
        entries = ", ".join(f"'{text}'" for text in used)
        noun = "entry" if len(used) == 1 else "entries"
        return Judgement("allowed", f"allowed by allowedCommands {noun} {entries}")

    def _blocked_command(self, parsed: CommandLine) -> Judgement | None:
        for command in (*parsed.commands, *parsed.launchers):
            for words in blockable_forms(command):
                for entry in self.blocked_commands:
                    if entry.matches(words):
                        return Judgement(
                            "blocked",
                            f"blocked by blockedCommands entry '{entry.text}' "
                            f"(command '{command.text}')",
                        )
        # A redirection reads or writes a file: a blocked path stays untouched this way too.
        for redirect in parsed.redirects:
            if redirect.target is None:
                continue  # only known at run time
            pattern = self.paths.blocked_by(redirect.target)
            if pattern is not None:
                return Judgement(
                    "blocked",
                    f"blocked by blockedPaths entry '{pattern.text}' "
                    f"(redirection '{redirect.text}')",
                )
        return None

    def _maybe_blocked(self, parsed: CommandLine) -> Judgement | None:
        """'git $SUB' might be the blocked 'git push': only a person can tell."""
        for command in (*parsed.commands, *parsed.launchers):
            for words in blockable_forms(command):
                for entry in self.blocked_commands:
                    if entry.could_match(words):
                        return Judgement(
                            "unknowable",
                            f"'{command.text}' might run '{entry.text}', which blockedCommands "
                            "forbids; its words are only known when it runs",
                        )
        return None
