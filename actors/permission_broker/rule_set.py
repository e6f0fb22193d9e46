"""Rules in the reference's syntax (``permissions.allow`` / ``ask`` / ``deny`` and the flags),
matched for the policy: one more source of blocked, ask and allowed verdicts beside Legato's
own lists.

Each question is put to deny rules first, then ask rules, then allow rules; the first that
matches decides, whatever the rules' order or specificity.

- A tool: a bare name (``Bash``, ``mcp__git``, ``*``) covers every use. ``Read`` stands for the
  tools that read files (Read, Grep, Glob) and ``Edit`` for those that change them (Edit,
  Write, NotebookEdit).
- A path is judged as written and as resolved (symlinks followed): a deny or ask rule
  matches when either does, an allow rule only when both do. A ``Read`` deny or ask covers
  writes too: a file that may not be read may not be overwritten either.
- A command line: a deny or ask rule matches when any simple command of it matches (the
  program by its name or its whole path, past wrappers and global options); an allow rule
  is one more entry that every command must be covered by (``rules.py`` does the walk).

A ``Read``/``Edit`` rule's pattern is gitignore's, through ``actors/path_entries.py``: the one
path matcher of rules and walks.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.path_entries import PathRule, rule_matches
from actors.permission_broker.command_rules import allowable_forms, blockable_forms
from actors.settings.rule_check import path_rule
from actors.settings.rule_syntax import (
    TOOL_FAMILIES,
    CommandPattern,
    ParsedRule,
    RuleError,
    domain_matches,
    parse,
    wildcard,
)
from actors.tool_names import MCP_PREFIX
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from actors.permission_broker.shell import CommandLine, SimpleCommand
    from actors.protocol import OperationKind
    from actors.settings.rules import PermissionRule, RuleBehavior

ORDER: tuple[RuleBehavior, ...] = ("deny", "ask", "allow")
UNKNOWN = "\x00"
_GLOB = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Ruled:
    """A rule as written and where, read for matching."""

    rule: PermissionRule
    parsed: ParsedRule
    path: PathRule | None = None
    command: CommandPattern | None = None

    @property
    def named(self) -> str:
        """``deny rule 'Read(./.env)' at /p/.claude/settings.json:5``"""
        rule = self.rule
        where = rule.source if rule.line is None else f"{rule.source}:{rule.line}"
        # Escaped: a rule comes from a file a cloned repository may have written.
        text = escape_controls(rule.text, newlines=True)
        return f"{rule.behavior} rule '{text}' at {escape_controls(where, newlines=True)}"

    # The interface of an allowedCommands entry (command_rules.CommandEntry), so that the
    # command walk of ``rules.py`` takes these as entries of its own.
    @property
    def text(self) -> str:
        return self.named

    def matches(self, words: Sequence[str | None]) -> bool:
        if self.command is None or not words or words[0] is None:
            return False
        # A word only known when it runs is a character no rule writes: only a '*' covers it
        # ('xargs grep x' runs 'grep x <input>').
        text = " ".join(UNKNOWN if word is None else word for word in words)
        return self.command.fullmatch(text)

    def reaches(self, offset: int) -> bool:
        """A rule names what a wrapper runs only by writing it out (``Bash(xargs rm *)``
        names rm; ``Bash(sudo *)`` names nothing): a trailing ``*`` is no program."""
        spec = self.parsed.specifier or ""
        return len(spec.removesuffix(":*").removesuffix("*").split()) > offset


class RuleSet:
    def __init__(self, rules: Sequence[PermissionRule], root: str, home: str) -> None:
        self.by_behavior: dict[RuleBehavior, list[Ruled]] = {b: [] for b in ORDER}
        for rule in rules:
            ruled = _read(rule, root, home)
            if ruled is not None:
                self.by_behavior[rule.behavior].append(ruled)

    def __bool__(self) -> bool:
        return any(self.by_behavior.values())

    def of(self, behavior: RuleBehavior) -> list[Ruled]:
        return self.by_behavior[behavior]

    # ── tools ───────────────────────────────────────────────────────────────────────────────

    def tool(self, behavior: RuleBehavior, tool: str, server: str | None) -> Ruled | None:
        """A bare-name rule that covers every use of ``tool``."""
        for ruled in self.of(behavior):
            if ruled.parsed.bare and _covers_tool(ruled.parsed.tool, tool, server, behavior):
                return ruled
        return None

    # ── paths ───────────────────────────────────────────────────────────────────────────────

    def path(
        self, behavior: RuleBehavior, kind: OperationKind, written: str, resolved: str
    ) -> Ruled | None:
        """The ``behavior`` rule that decides a ``kind`` of ``written`` (absolute, ``..``
        folded) which resolves to ``resolved``: deny and ask on either, allow on both."""
        tools: tuple[str, ...] = ("Read",) if kind == "read" else ("Edit",)
        if behavior != "allow" and kind != "read":
            tools = ("Edit", "Read")  # what may not be read may not be overwritten either
        candidates = tuple(dict.fromkeys((written, resolved)))
        for ruled in self.of(behavior):
            if ruled.path is None or ruled.parsed.tool not in tools:
                continue
            hits = [rule_matches(ruled.path, candidate) for candidate in candidates]
            if any(hits) if behavior != "allow" else all(hits):
                return ruled
        # Both names, each by a rule of its own: 'src/**' and '//opt/shared/**'.
        if behavior == "allow" and all(self._allowed_one(tools, c) for c in candidates):
            return self._allowed_one(tools, resolved)
        return None

    def _allowed_one(self, tools: tuple[str, ...], candidate: str) -> Ruled | None:
        for ruled in self.of("allow"):
            if ruled.path is None or ruled.parsed.tool not in tools:
                continue
            if rule_matches(ruled.path, candidate):
                return ruled
        return None

    # ── commands ────────────────────────────────────────────────────────────────────────────

    def command(self, behavior: RuleBehavior, line: CommandLine) -> tuple[Ruled, str] | None:
        """A deny or ask rule that matches any command of ``line``, with that command."""
        for ruled in self.of(behavior):
            if ruled.command is None:
                continue
            for command, _ in line.every_command():
                if any(ruled.command.fullmatch(form) for form in _spellings(command)):
                    return ruled, command.text
        return None

    def could_match(self, behavior: RuleBehavior, line: CommandLine) -> tuple[Ruled, str] | None:
        """A rule that would match a command whose words are only known when it runs, if they
        took suitable values: the program is the rule's, and some word is unknown or a file
        pattern that could name one of the rule's words (``git pus?`` is ``git push`` once the
        project holds a file named ``push``)."""
        for ruled in self.of(behavior):
            spec = ruled.parsed.specifier
            if ruled.command is None or not spec:
                continue
            first, *rest = spec.removesuffix(":*").split()
            for command, _ in line.every_command():
                name = command.name
                if name is None or not wildcard(first, os.path.basename(name)):
                    continue
                globs = [w for w in command.patterns if _GLOB & set(w)]
                if None in command.words or any(
                    fnmatch.fnmatchcase(word, glob) for glob in globs for word in rest
                ):
                    return ruled, command.text
        return None

    def commands_allowed(self) -> tuple[Ruled, ...]:
        return tuple(ruled for ruled in self.of("allow") if ruled.command is not None)

    # ── web fetches ─────────────────────────────────────────────────────────────────────────

    def domain(self, behavior: RuleBehavior, host: str) -> Ruled | None:
        """The ``behavior`` rule that covers fetching from ``host``: ``WebFetch`` itself (or a
        glob such as ``*`` in a deny or ask rule) or a ``WebFetch(domain:...)`` rule."""
        if not host:
            return None
        for ruled in self.of(behavior):
            parsed = ruled.parsed
            if parsed.bare and _covers_tool(parsed.tool, "WebFetch", None, behavior):
                return ruled
            if parsed.kind == "domain" and domain_matches(parsed.specifier or "", host):
                return ruled
        return None

    def names_host(self, host: str) -> Ruled | None:
        """An allow rule that names ``host`` itself, with no wildcard: the one kind of rule that
        lets a fetch reach an address on this machine or its networks."""
        for ruled in self.of("allow"):
            parsed = ruled.parsed
            spec = parsed.specifier or ""
            if parsed.kind == "domain" and "*" not in spec and spec == host:
                return ruled
        return None

    # ── subagents ───────────────────────────────────────────────────────────────────────────

    def agent(self, behavior: RuleBehavior, name: str) -> Ruled | None:
        for ruled in self.of(behavior):
            if ruled.parsed.kind == "agent" and ruled.parsed.specifier == name:
                return ruled
        return None


def _read(rule: PermissionRule, root: str, home: str) -> Ruled | None:
    try:
        parsed = parse(rule.text, rule.behavior)
    except RuleError:
        return None  # refused at load (actors/settings/rule_check.py)
    if parsed.kind == "command" and parsed.specifier is not None:
        return Ruled(rule, parsed, command=CommandPattern.parse(parsed.specifier))
    if parsed.kind == "path":
        path = path_rule(rule, parsed, root, home)
        return None if path is None else Ruled(rule, parsed, path=path)
    if parsed.kind in ("tool", "agent", "domain"):
        return Ruled(rule, parsed)
    return None  # a rule with nothing to act on: warned about at load


def _covers_tool(name: str, tool: str, server: str | None, behavior: RuleBehavior) -> bool:
    if "*" in name:
        return wildcard(name, tool)
    if tool in TOOL_FAMILIES.get(name, ()):
        return True
    if name == tool:
        return True
    if not name.startswith(MCP_PREFIX) or not tool.startswith(MCP_PREFIX):
        return False
    if server is None:
        # Known by its name alone: a deny or ask for the server covers every name under it
        # (one refusal too many is safe); an allow covers its exact name only.
        return behavior != "allow" and tool.startswith(name + "__")
    whole = MCP_PREFIX + server
    return name == whole and tool.startswith(whole + "__")


def _spellings(command: SimpleCommand) -> Iterator[str]:
    """The texts a deny or ask rule is matched against: as written, the program by its name
    alone (``/bin/rm`` is ``rm``), without a multi-command program's global options
    (``git -C . push`` is ``git push``), and each tail behind a wrapper (``sudo -u x rm``)."""
    for words in blockable_forms(command):
        if not words or any(word is None for word in words):
            known = [word for word in words if word is not None]
            if not known:
                continue
            words = tuple(known)
        for form, _ in allowable_forms(words):
            texts = [word for word in form if word is not None]
            if not texts:
                continue
            program = os.path.basename(texts[0])
            for rest in _without_leading_options(texts[1:]):
                yield " ".join([texts[0], *rest])
                if program != texts[0]:
                    yield " ".join([program, *rest])


def _without_leading_options(words: list[str]) -> Iterator[list[str]]:
    """``words``, then without each run of leading options and what may be their values:
    ``--otp 1 publish`` is also ``publish`` and ``1 publish``, as a blockedCommands entry skips
    options it cannot read (``command_rules.py``). Options the broker does not know would
    otherwise keep ``npm --otp 1 publish`` or ``git -v push`` out of a deny rule's reach."""
    yield words
    end = 0
    while end < len(words) and (
        words[end].startswith("-")
        or (end > 0 and words[end - 1].startswith("-") and "=" not in words[end - 1])
    ):
        end += 1
        yield words[end:]
