"""The reference assistant's rule syntax, read: ``Tool`` or ``Tool(specifier)``.

Pure: no file is opened, nothing is matched against the disk. The memory store checks every
rule as the session starts (``rule_check.py``: a rule Legato cannot honour is refused, or
warned about with the reason: never silently dead); the permission broker parses the same
rules with ``parse`` and matches them (``actors/permission_broker/rule_set.py``).

The forms, as the reference's permissions documentation defines them:

- ``Bash`` (or ``Bash(*)``): every command. ``Bash(npm run build)``: that command exactly.
  ``*`` matches any text, spaces included; a trailing `` *`` (or ``:*``) keeps a word
  boundary: ``Bash(ls *)`` matches ``ls`` and ``ls -la``, not ``lsof``.
- ``Read(path)`` / ``Edit(path)``: gitignore patterns with four anchors: ``//abs``, ``~/home``,
  ``/path`` (the settings file's anchor, ``PermissionRule.anchor``) and ``path`` or ``./path``
  (the project). A single-segment folder pattern (``src/**``) matches at the project's top
  in an allow rule and at any depth in a deny or ask rule.
- ``mcp__server``, ``mcp__server__tool``, ``mcp__server__*`` (a glob after a literal server).
- ``WebFetch(domain:host)``: ``*.x.com`` any subdomain, otherwise ``*`` within one label; an
  IPv6 address in brackets (``WebFetch(domain:[::1])``). ``WebSearch`` takes no specifier.
- ``Agent(name)``: the subagent type ``name``.
- A glob as the tool's name (``*``, ``mcp__*``) in deny and ask rules.

What Legato cannot honour: ``Tool(param:value)`` in a deny or ask rule is refused (a
restriction that silently does not hold is worse than a settings file that does not load);
the same in an allow rule is warned about and skipped, as the reference skips it. Path rules
for ``Write``, ``Glob``, ``NotebookEdit``, ``MultiEdit`` and ``Grep`` are accepted and warned
about, as the reference does: only ``Read`` and ``Edit`` path rules are consulted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NoReturn

from actors.path_patterns import PatternError, check_rule
from actors.tool_names import (
    AGENT_TOOL,
    MCP_PREFIX,
    NOTEBOOK_EDIT,
    PERMISSION_TOOLS,
    SKILL_TOOL,
    TASK_TOOLS,
    TOOL_SEARCH,
)

if TYPE_CHECKING:
    from actors.settings.rules import RuleBehavior

RuleKind = Literal["tool", "command", "path", "domain", "agent", "ignored"]
PathAnchor = Literal["absolute", "home", "source", "project"]

# The tools Legato has, as a rule names them.
LEGATO_TOOLS = frozenset((*PERMISSION_TOOLS, AGENT_TOOL, SKILL_TOOL, TOOL_SEARCH, *TASK_TOOLS))
# The reference's tools Legato has no counterpart for: a rule naming one matches nothing yet.
NO_SUCH_TOOL = frozenset(
    {
        "NotebookRead", "MultiEdit", "TodoWrite", "PowerShell", "Cd", "SlashCommand",
        "KillShell", "BashOutput", "LS", "ExitPlanMode", "EnterPlanMode", "AskUserQuestion",
        "EndConversation", "LSP",
    }
)  # fmt: skip
# What a rule for one of them is told (actors/settings/rule_check.py says them in one line).
NO_TOOL_YET = "Legato has no {} tool yet, so the rule has nothing to act on"
# A bare ``Read`` covers the tools that read files, a bare ``Edit`` those that change them.
TOOL_FAMILIES: dict[str, tuple[str, ...]] = {
    "Read": ("Grep", "Glob"),
    "Edit": ("Write", NOTEBOOK_EDIT),
}
# Path rules the reference accepts and never consults.
_UNCONSULTED_PATHS = {
    "Write": "Edit",
    "NotebookEdit": "Edit",
    "MultiEdit": "Edit",
    "Glob": "Read",
    "Grep": "Read",
}
# Each tool's input parameters a ``Tool(param:value)`` rule could name: what tells that form
# from a specifier holding a colon (``Bash(npm run test:*)``).
_PARAMETERS: dict[str, frozenset[str]] = {
    "Bash": frozenset(
        {"command", "run_in_background", "timeout", "description", "dangerouslyDisableSandbox"}
    ),
    "Agent": frozenset(
        {"model", "isolation", "description", "prompt", "subagent_type", "run_in_background"}
    ),
    "Read": frozenset({"file_path", "offset", "limit"}),
    "Edit": frozenset({"file_path", "old_string", "new_string", "replace_all"}),
    "Write": frozenset({"file_path", "content"}),
    "Grep": frozenset({"pattern", "path", "glob", "type", "output_mode"}),
    "Glob": frozenset({"pattern", "path"}),
    "WebFetch": frozenset({"url", "prompt"}),
    "WebSearch": frozenset({"query", "allowed_domains", "blocked_domains"}),
    NOTEBOOK_EDIT: frozenset({"notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"}),
}
_NAME = re.compile(r"[A-Za-z0-9_*-]+")
_PARAMETER = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:(.*)", re.DOTALL)
# A host pattern: a name with '*' wildcards, or an IPv6 address in brackets ('[::1]').
_DOMAIN = re.compile(r"[A-Za-z0-9_*.-]+|\[[0-9A-Fa-f:.]+\]")


class RuleError(ValueError):
    """A rule that cannot mean what it says: ``reason``, and ``remedy``, what to write."""

    def __init__(self, reason: str, remedy: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.remedy = remedy


@dataclass(frozen=True, slots=True)
class ParsedRule:
    """One rule, read. ``tool`` is the name as written (a glob for deny and ask rules)."""

    tool: str
    kind: RuleKind
    # command: the specifier as written; path: the pattern without its anchor's prefix kept
    # as written; domain: the host pattern; agent: the type's name.
    specifier: str | None = None
    anchor: PathAnchor | None = None
    note: str | None = None  # why the rule matches nothing, or less than it says: a warning

    @property
    def bare(self) -> bool:
        """Names a whole tool (``Bash``, ``Bash(*)``, ``mcp__git``, ``*``)."""
        return self.kind == "tool"


def parse(text: str, behavior: RuleBehavior) -> ParsedRule:
    """Read one rule; raise RuleError for one that cannot be honoured as written."""
    body = text.strip()
    if not body:
        raise RuleError("the rule is empty", "write a tool's name, such as 'Read(./.env)'")
    name, paren, rest = body.partition("(")
    name = name.strip() if paren else name
    specifier: str | None = None
    if paren:
        if not rest.endswith(")"):
            raise RuleError(
                "its '(' is not closed by a ')' at its end",
                f"write '{name}(...)', with the specifier inside the parentheses",
            )
        specifier = rest[:-1]
        if specifier.count(")") > specifier.count("("):
            raise RuleError(
                "it has a ')' that no '(' opens",
                f"write '{name}({specifier.rstrip(')')})', with one ')' at its end",
            )
    elif ")" in body:
        raise RuleError("it has a ')' but no '('", f"write '{body.replace(')', '')}'")
    _check_name(name, body)
    if "*" in name:
        return _glob_name(name, specifier, behavior)
    if name.startswith(MCP_PREFIX):
        if specifier is not None:
            return _parameter_or(name, specifier, behavior) or _refuse_specifier(name)
        return _mcp(name)
    if specifier is not None and not specifier.strip():
        raise RuleError(
            f"'{name}()' has an empty specifier and would match nothing",
            f"write '{name}' for every use of the tool, or put a pattern inside",
        )
    if specifier is not None and specifier.strip() == "*":
        specifier = None  # ``Bash(*)`` is ``Bash``
    if specifier is None:
        return ParsedRule(name, "tool", note=_absent(name))
    parameter = _parameter_or(name, specifier, behavior)
    if parameter is not None:
        return parameter
    if name == "Bash":
        if not CommandPattern.parse(specifier).body:
            raise RuleError(
                f"'Bash({specifier})' names no command",
                "write 'Bash' for every command, or a command such as 'Bash(npm test:*)'",
            )
        return ParsedRule(name, "command", " ".join(specifier.split()))
    if name in ("Read", "Edit"):
        return _path(name, specifier, behavior)
    if name in _UNCONSULTED_PATHS:
        use = _UNCONSULTED_PATHS[name]
        return ParsedRule(
            name,
            "ignored",
            specifier,
            note=f"a path rule for {name} is never consulted: file permissions are checked "
            f"against Read and Edit rules only; write '{use}({specifier})' instead",
        )
    if name == "WebFetch":
        return _domain(specifier)
    if name == AGENT_TOOL:
        return ParsedRule(name, "agent", specifier.strip())
    if name in LEGATO_TOOLS:
        raise RuleError(
            f"'{name}' takes no specifier",
            f"write '{name}' alone to name every use of the tool",
        )
    return ParsedRule(name, "ignored", specifier, note=_absent(name))


def _check_name(name: str, body: str) -> None:
    if not name:
        raise RuleError("the rule names no tool", "write a tool's name before the '('")
    if not name.isascii() or not _NAME.fullmatch(name):
        raise RuleError(
            f"{name!r} is not a tool name: tool names are ASCII letters, digits, '_', '-' "
            "(and '*' in a deny or ask rule)",
            "retype the tool's name (a look-alike letter from another alphabet is not the "
            "same name)",
        )
    known = LEGATO_TOOLS | NO_SUCH_TOOL
    if name not in known:
        close = [tool for tool in sorted(known) if tool.lower() == name.lower()]
        if close:
            raise RuleError(
                f"'{name}' is not a tool's name; tool names are case-sensitive",
                f"write '{body.replace(name, close[0], 1)}'",
            )
        if name.lower().startswith(MCP_PREFIX) and not name.startswith(MCP_PREFIX):
            raise RuleError(
                f"'{name}' is not an MCP name; they begin 'mcp__' in lower case",
                f"write '{MCP_PREFIX}{name[len(MCP_PREFIX) :]}'",
            )


def _absent(name: str) -> str | None:
    if name in LEGATO_TOOLS or name.startswith(MCP_PREFIX):
        return None
    if name in NO_SUCH_TOOL:
        return NO_TOOL_YET.format(name)
    import difflib  # only for a rule that names no tool

    known = sorted(LEGATO_TOOLS | NO_SUCH_TOOL)
    close = difflib.get_close_matches(name, known, n=1) or [
        tool for tool in known if tool.lower() == name.lower()
    ]
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"'{name}' is no tool Legato or the reference knows, so the rule matches nothing{hint}"


def _parameter_or(name: str, specifier: str, behavior: RuleBehavior) -> ParsedRule | None:
    """``Tool(param:value)``: refused in deny and ask rules, skipped with a note in allow."""
    found = _PARAMETER.fullmatch(specifier)
    if found is None:
        return None
    parameter = found.group(1)
    if parameter == "domain" and name == "WebFetch":
        return None
    if name in _PARAMETERS and parameter not in _PARAMETERS[name]:
        return None
    if not name.startswith(MCP_PREFIX) and name not in _PARAMETERS:
        return None
    if behavior == "allow":
        return ParsedRule(
            name,
            "ignored",
            specifier,
            note="an allow rule on one input parameter is skipped: one value of one parameter "
            f"does not make a call safe; write {name}'s own specifier instead",
        )
    raise RuleError(
        f"Legato cannot match a tool's input parameter ('{parameter}'), so this {behavior} "
        "rule would not hold",
        f"remove it, or {behavior} the whole tool with '{name}'",
    )


def _refuse_specifier(name: str) -> NoReturn:
    raise RuleError(
        f"an MCP rule takes no specifier: '{name}' names a server or one of its tools",
        f"write '{name}' alone, or '{name}__<tool>'",
    )


def _mcp(name: str) -> ParsedRule:
    rest = name[len(MCP_PREFIX) :]
    if not rest or rest.startswith("_") or name.endswith("__"):
        raise RuleError(
            f"'{name}' names no server",
            "write 'mcp__<server>' or 'mcp__<server>__<tool>'",
        )
    return ParsedRule(name, "tool")


def _glob_name(name: str, specifier: str | None, behavior: RuleBehavior) -> ParsedRule:
    if specifier is not None and specifier.strip() != "*":
        raise RuleError(
            f"a tool-name glob ('{name}') takes no specifier",
            f"write '{name}' alone",
        )
    server, _, _ = name[len(MCP_PREFIX) :].partition("__")
    anchored = name.startswith(MCP_PREFIX) and "__" in name[len(MCP_PREFIX) :]
    if behavior == "allow" and not (anchored and "*" not in server):
        return ParsedRule(
            name,
            "ignored",
            note="an allow rule's tool-name glob must follow a literal 'mcp__<server>__' "
            "prefix; this one is skipped and allows nothing",
        )
    return ParsedRule(name, "tool")


def _path(name: str, specifier: str, behavior: RuleBehavior) -> ParsedRule:
    pattern = specifier.strip()
    if pattern.startswith("!"):
        raise RuleError(
            "a path rule cannot be an exception ('!')",
            "narrow the rule instead; deny beats allow whatever their order",
        )
    anchor: PathAnchor
    if pattern.startswith("//"):
        anchor = "absolute"
    elif pattern == "~" or pattern.startswith("~/"):
        anchor = "home"
    elif pattern.startswith("~"):
        raise RuleError("'~user' folders are not supported", "write '~/...' or '//home/user/...'")
    elif pattern.startswith("/"):
        anchor = "source"
    else:
        anchor = "project"
    try:
        check_rule(pattern, negation=False)
    except PatternError as error:
        raise RuleError(str(error), f"correct the pattern in '{name}({specifier})'") from None
    return ParsedRule(name, "path", pattern, anchor)


def _domain(specifier: str) -> ParsedRule:
    kind, colon, host = specifier.partition(":")
    host = host.strip().rstrip(".")
    if not colon or kind.strip() != "domain" or not host or not _DOMAIN.fullmatch(host):
        raise RuleError(
            f"'WebFetch({specifier})' is not a domain rule",
            "write 'WebFetch(domain:example.com)' or 'WebFetch(domain:*.example.com)'",
        )
    return ParsedRule("WebFetch", "domain", host.lower().removeprefix("[").removesuffix("]"))


# ── matching that needs no disk ──────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class CommandPattern:
    """A Bash rule's specifier, matched against a simple command's words joined by one space.

    ``*`` is any text, spaces included; a trailing `` *`` (or ``:*``) is "followed by a space
    or the end". Matched without a regex: a rule from a file must not be able to make the
    broker backtrack for ever (``a*a*a*a*b`` against a long line).
    """

    body: str  # whitespace folded, the trailing " *" or ":*" taken off
    boundary: bool

    @classmethod
    def parse(cls, specifier: str) -> CommandPattern:
        text = " ".join(specifier.split())
        if text.endswith(":*"):
            text = text[:-2] + " *"
        if text.endswith(" *"):
            return cls(text[:-2], boundary=True)
        return cls(text, boundary=False)

    def fullmatch(self, text: str) -> bool:
        if self.boundary:
            return wildcard(self.body, text) or wildcard(self.body + " *", text)
        return wildcard(self.body, text)


def wildcard(pattern: str, text: str) -> bool:
    """Whether ``text`` is ``pattern`` with each ``*`` standing for any text: at most
    len(pattern) x len(text) steps, as the last ``*`` met is the only one retried."""
    p = t = 0
    star, mark = -1, 0
    while t < len(text):
        if p < len(pattern) and pattern[p] == "*":
            star, mark = p, t
            p += 1
        elif p < len(pattern) and pattern[p] == text[t]:
            p += 1
            t += 1
        elif star >= 0:
            mark += 1
            p, t = star + 1, mark
        else:
            return False
    return all(char == "*" for char in pattern[p:])


def domain_matches(pattern: str, host: str) -> bool:
    """Whether a ``WebFetch(domain:...)`` pattern covers ``host`` (as the broker normalises it:
    ``actors/permission_broker/web.py``). Case and a trailing dot do not count; ``*.x.com`` is
    any subdomain of x.com at any depth (not x.com); any other ``*`` stays between two dots."""
    host = host.lower().rstrip(".")
    pattern = pattern.lower().rstrip(".")
    if pattern == "*":
        return bool(host)
    lead = ""
    if pattern.startswith("*."):
        lead, pattern = r"(?:[^.]+\.)+", pattern[2:]
    body = "[^.]*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(lead + body, host) is not None


def anywhere(pattern: str, behavior: RuleBehavior) -> str:
    """The gitignore pattern a ``path``/``./path`` rule means: a single folder followed by
    ``/**`` matches at any depth in a deny or ask rule, at the project's top in an allow."""
    body = pattern.removeprefix("./")
    head, slash, tail = body.partition("/")
    if behavior != "allow" and slash and tail == "**" and head and "*" not in head:
        return "**/" + body
    return "/" + body if pattern.startswith("./") else body
