"""The project's rules applied to one operation: blocked, allowed, not listed, or unknowable.

Paths are judged by allowedPaths/blockedPaths, command lines by allowedCommands/blockedCommands,
and every request also by its tool's name: a blockedTools entry blocks whatever the tool would
do; an allowedTools entry allows an MCP tool's call, and for a built-in tool what no path or
command rule lists (a block, or what needs a person whatever the rules say, still stands).

The verdicts, and what the broker does with them in every mode:
- ``blocked``: a blocked rule matches. Denied, whatever the mode; blocked wins over allowed.
- ``allowed``: every path, or every simple command, is covered by an allowed rule.
- ``unlisted``: at least one part is not covered; the mode decides (usually: ask).
- ``unknowable``: the command line cannot be judged before it runs; a person must decide.
- ``risky``: a part can run a program the rules cannot see, whatever they say (a variable such
  as ``GIT_CONFIG_COUNT`` set for a command, ``git -c``); a person must decide, each time.

A command line's verdict is the worst of its parts': blocked, then unknowable or risky, then
unlisted. A command that runs another from its words (``sudo``, ``find -exec``, ``xargs``) is
allowed only when what it runs is allowed too, or its entry names that as well.

Allow rules in the reference's syntax (``Bash(npm run test:*)``, ``rule_set.py``) are entries
of the same command walk: every simple command must be covered by an allowedCommands entry or
such a rule. A wrapper that only runs its argument (``timeout 30 npm test``) is covered when
what it runs is.

Each verdict carries its reason in plain words, naming the rule and the path or command.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from actors.path_entries import PathRules
from actors.permission_broker.command_rules import (
    CommandEntry,
    allowable_forms,
    blockable_forms,
    globs_as_unknown,
    runs_chosen_program,
)
from actors.permission_broker.environment import harmless, matters_in_the_shell
from actors.permission_broker.rule_set import RuleSet
from actors.permission_broker.tool_rules import ToolEntry, describe_tool, tool_of_server

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.permission_broker.shell import CommandLine, SimpleCommand
    from actors.protocol import ProjectSettings
    from actors.settings.rules import PermissionRule

Verdict = Literal["blocked", "allowed", "unlisted", "unknowable", "risky"]

# Builtins that only set variables: 'export X=1' alone changes no later command.
_DECLARATIONS = frozenset({"export", "declare", "typeset", "readonly", "local", "unset"})
# Wrappers that only run their argument, as the reference strips them before matching: a
# command they run that is allowed is allowed through them ('timeout 30 npm test'). A bare
# 'xargs' is one too, but not with options ('xargs -n1 grep' is matched as xargs).
_TRANSPARENT = frozenset({"timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin",
                          "noglob"})  # fmt: skip


class _Entry(Protocol):
    """An allowedCommands entry, or an allow rule in the reference's syntax."""

    @property
    def text(self) -> str: ...
    def matches(self, words: Sequence[str | None]) -> bool: ...
    def reaches(self, offset: int) -> bool: ...


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    reason: str
    # For "unlisted" commands: the first one not covered (a headless reason suggests an entry).
    unlisted: SimpleCommand | None = None
    remedy: str = ""  # for "risky": what the person or the model can do instead
    # The reason names the rule's file and line itself (a rule in the reference's syntax):
    # an explanation adds no settings file of its own.
    names_file: bool = False


class Rules:
    def __init__(
        self,
        root: str,
        settings: ProjectSettings,
        *,
        home: str | None = None,
        more_roots: tuple[str, ...] = (),
        permission_rules: Sequence[PermissionRule] = (),
    ) -> None:
        self.paths = PathRules(
            root, settings.allowed_paths, settings.blocked_paths, home=home, more_roots=more_roots
        )
        self.allowed_commands = tuple(CommandEntry.parse(t) for t in settings.allowed_commands)
        self.blocked_commands = tuple(CommandEntry.parse(t) for t in settings.blocked_commands)
        self.allowed_tools = tuple(ToolEntry(text) for text in settings.allowed_tools)
        self.blocked_tools = tuple(ToolEntry(text) for text in settings.blocked_tools)
        # The rules in the reference's syntax (rule_set.py); their allow rules for commands
        # are entries of the command walk below.
        self.reference = RuleSet(
            permission_rules, root, os.path.realpath(home or os.path.expanduser("~"))
        )
        self._command_entries: tuple[_Entry, ...] = (
            *self.allowed_commands,
            *self.reference.commands_allowed(),
        )

    @property
    def root(self) -> str:
        return self.paths.root

    # ── tools ───────────────────────────────────────────────────────────────────────────────

    def blocked_tool(self, tool: str, server: str | None) -> Judgement | None:
        """A blockedTools entry that covers the tool: whatever it would do is denied."""
        for entry in self.blocked_tools:
            if entry.covers(tool, server, blocking=True):
                return Judgement(
                    "blocked",
                    f"blocked by blockedTools entry '{entry.text}'{_which(entry, tool, server)}",
                )
        return None

    def allowed_tool(self, tool: str, server: str | None) -> Judgement | None:
        """An allowedTools entry that covers the tool, as an "allowed" verdict, or None."""
        for entry in self.allowed_tools:
            if entry.covers(tool, server, blocking=False):
                return Judgement(
                    "allowed",
                    f"allowed by allowedTools entry '{entry.text}'{_which(entry, tool, server)}",
                )
        return None

    def judge_call(self, tool: str, server: str | None) -> Judgement:
        """A call of an MCP tool: blocked, allowed by an entry, or not listed."""
        judgement = self.blocked_tool(tool, server) or self.allowed_tool(tool, server)
        if judgement is not None:
            return judgement
        return Judgement("unlisted", f"{describe_tool(tool, server)} is not in allowedTools")

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
        if isinstance(line, str):
            # Imported here: a session that runs no command does not load the shell parser.
            from actors.permission_broker.shell import parse_command_line

            line = parse_command_line(line)
        parsed = line
        blocked = self._blocked_command(parsed)
        if blocked is not None:
            return blocked
        if parsed.problems:
            return Judgement("unknowable", parsed.problems[0])
        for judge in (self._maybe_blocked, _unknown_or_risky):
            judgement = judge(parsed)
            if judgement is not None:
                return judgement
        if not parsed.commands:
            return Judgement("unlisted", "the line runs no command that the rules can name")
        used: list[_Entry] = []
        for command in parsed.commands:
            judgement = self._allowed(command, None, used)
            if judgement is not None:
                return judgement
        return Judgement(
            "allowed",
            "allowed by " + _entries(used),
            names_file=any(not isinstance(entry, CommandEntry) for entry in used),
        )

    def _allowed(
        self, command: SimpleCommand, runner: SimpleCommand | None, used: list[_Entry]
    ) -> Judgement | None:
        """None when an allowed entry covers the command and what it runs; else why not."""
        matched = [
            (entry, removed)
            for entry in self._command_entries
            for form, removed in allowable_forms(command.words)
            if entry.matches(form)
        ]
        if not matched and _transparent(command):
            inner: list[_Entry] = []
            if all(self._allowed(run.command, command, inner) is None for run in command.runs):
                used.extend(entry for entry in inner if entry not in used)
                return None
        if not matched:
            shown = f"'{command.text}'" + (f", run by '{runner.text}'," if runner else "")
            # Named as the user writes their rules: a Claude Code user has permissions.allow.
            where = "allowedCommands"
            if self.reference.of("allow"):
                where = "any allow rule (permissions.allow) or allowedCommands entry"
            return Judgement("unlisted", f"{shown} is not in {where}", unlisted=command)
        if matched[0][0] not in used:
            used.append(matched[0][0])
        for run in command.runs:
            if run.command.launches:
                continue  # 'find -exec sh -c SCRIPT': the script's commands are judged in turn
            if any(entry.reaches(run.offset - removed) for entry, removed in matched):
                continue  # the entry names it too: 'xargs rm' allows 'xargs rm'
            judgement = self._allowed(run.command, command, used)
            if judgement is not None:
                return judgement
        return None

    def _blocked_command(self, parsed: CommandLine) -> Judgement | None:
        for command, runner in parsed.every_command():
            for words in blockable_forms(command):
                for entry in self.blocked_commands:
                    if entry.blocks(words):
                        return Judgement(
                            "blocked",
                            f"blocked by blockedCommands entry '{entry.text}' "
                            f"(command {_shown(command, runner)})",
                        )
        # A redirection reads or writes a file: a blocked path stays untouched this way too.
        for redirect in parsed.redirects:
            if redirect.target is None:
                continue  # only known at run time: the policy asks a person
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
        for command, runner in parsed.every_command():
            for entry in self.blocked_commands:
                guessed = dataclasses.replace(
                    command, words=globs_as_unknown(command, entry.literal)
                )
                if any(entry.could_block(words) for words in blockable_forms(guessed)):
                    return Judgement(
                        "unknowable",
                        f"{_shown(command, runner)} might run '{entry.text}', which "
                        "blockedCommands forbids; its words are only known when it runs",
                    )
        return None


def _transparent(command: SimpleCommand) -> bool:
    """Only runs what it is given: the wrappers the reference strips before matching."""
    name = command.name
    if name is None or not command.runs:
        return False
    program = os.path.basename(name)
    if program == "xargs":
        return all(run.offset == 1 for run in command.runs)
    return program in _TRANSPARENT


def _entries(used: Sequence[_Entry]) -> str:
    """ "allowedCommands entry 'git'", or the rules in the reference's syntax that allowed."""
    own = [entry.text for entry in used if isinstance(entry, CommandEntry)]
    texts = [f"'{text}'" for text in own]
    named = ", ".join(texts)
    words = [f"allowedCommands {'entry' if len(own) == 1 else 'entries'} {named}"] if own else []
    words += [entry.text for entry in used if not isinstance(entry, CommandEntry)]
    return ", ".join(words)


def _which(entry: ToolEntry, tool: str, server: str | None) -> str:
    """What the entry covered, unless the entry says it already ('Bash')."""
    if server is not None:
        return f" ({tool_of_server(tool, server)})"
    return "" if entry.text == tool else f" (tool {describe_tool(tool, None)})"


def _shown(command: SimpleCommand, runner: SimpleCommand | None) -> str:
    return f"'{command.text}'" + (f", run by '{runner.text}'" if runner else "")


def _unknown_or_risky(parsed: CommandLine) -> Judgement | None:
    """A part that needs a person whatever the rules say."""
    for command, runner in parsed.every_command():
        if command.name is None:
            return Judgement(
                "unknowable", f"the command {_shown(command, runner)} is only known when it runs"
            )
    for command, runner in parsed.every_command():
        for name in command.assignments:
            if not harmless(name):
                return Judgement(
                    "risky",
                    f"{_shown(command, runner)} sets the environment variable '{name}', which "
                    "can make a program run other code than the command shows",
                    remedy="Leave the variable out, or run it interactively to approve it",
                )
        how = runs_chosen_program(command.words)
        if how is not None and not command.launches:
            return Judgement(
                "risky",
                f"{_shown(command, runner)} can run a program that the line itself chooses, "
                f"through {how}, so no allowedCommands entry covers it",
                remedy="Run it interactively to approve it",
            )
    runs_more = any(
        command.name not in _DECLARATIONS for command in (*parsed.commands, *parsed.launchers)
    )
    for assignment in parsed.assignments:
        exported = assignment.exported or parsed.exports_all
        if runs_more and matters_in_the_shell(assignment.name, exported=exported):
            return Judgement(
                "risky",
                f"'{assignment.text}' sets the variable '{assignment.name}' for the commands "
                "after it, which can make them run other code than they show",
                remedy="Leave the variable out, or run it interactively to approve it",
            )
    return None
